// The raster an EV rule draws when it fails: which EV carried the DUT's data when, one row per EV
// of the profile (grouped by plane), time in bins, the failures marked. A reader sees the EV the
// DUT kept using after a fault, or the one it never used.
#pragma once

#include "harness/verdict/check_context.hpp"
#include "harness/verdict/trace.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// A Chart of kind kRaster over the data frames the DUT sent in `t`; EVs seen on the wire that
// the profile does not list get rows of their own (group "not in the profile").
Chart ev_use_raster(const CheckContext& ctx, const Trace& t);

}  // namespace mrc::harness
