// Judging the scripted timeline's `expect` steps against what the DUT sent (the from-DUT taps),
// after the run: each expect's window follows stim::plan_timeline(); frames are matched field by
// field with the verdict layer's field access (the same names as `field` checks). A frame that
// satisfied one expect is not used again by a later one (as in packetdrill). An unmatched expect
// names the closest frame in its window and the first field that differed.
#pragma once

#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/stimulus/timeline.hpp"
#include "harness/verdict/check_context.hpp"

namespace mrc::harness {

std::vector<ExpectRecord> evaluate_expects(const stim::Timeline& t, const CheckContext& ctx);

}  // namespace mrc::harness
