// The scripted timeline of a case, in the spirit of packetdrill: inject and control steps happen
// at absolute virtual times; an `expect` step opens a window after the previous step's time and
// the DUT must send (or, with `absent`, must not send) a matching frame inside it.
//
// Expect windows. The anchor of an expect is the time of the step before it: an inject, control
// or impair step's `at_ns`, a traffic step's `start_ns`, or -- for a previous expect -- the time
// its last matching frame was seen (its own anchor when it matched nothing). The window is
// [anchor, anchor + within_ns + tolerance_ns + tolerance_pct% of within_ns]: the absolute and the
// relative tolerance add up, as in packetdrill.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/case/case_model.hpp"

namespace mrc::harness::stim {

struct TimedStep {
  std::uint64_t at_ns = 0;
  std::size_t step = 0;  // index into Case::stimulus
};

struct ExpectPlan {
  std::size_t step = 0;              // index into Case::stimulus
  const ExpectStep* expect = nullptr;
  bool anchored_on_expect = false;   // true: the anchor is the previous expect's match time
  std::size_t prev_expect = 0;       // index into Timeline::expects when anchored_on_expect
  std::uint64_t anchor_ns = 0;       // the fixed anchor otherwise
  // The anchor is an injection: what the expect measures crosses between harness and DUT twice
  // (the injected frame there, the answer back), so a real-time bridge's budget counts twice.
  bool anchored_on_inject = false;
  std::uint32_t inject_port = 0;  // that injection's DUT port, when anchored_on_inject
};

struct Timeline {
  std::vector<TimedStep> actions;    // inject and control steps, by (at_ns, step index)
  std::vector<ExpectPlan> expects;   // in step order
  std::uint64_t horizon_ns = 0;      // the latest time any scripted step or window can reach
};

Timeline plan_timeline(const Case& c);

// The end of an expect window that starts at `anchor_ns`.
std::uint64_t expect_deadline(const ExpectStep& e, std::uint64_t anchor_ns);

}  // namespace mrc::harness::stim
