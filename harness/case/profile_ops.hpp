// The payload keys of the profile operations a control step may carry (ev_profile_set,
// cc_profile_set, replace_ev; cases/README.md "Profile operations"). They are type-checked here
// with file:line:col errors, but no EV-profile rule is applied: an invalid profile is exactly
// what an EVCTL case sends to see the DUT refuse it.
#pragma once

#include <array>
#include <string>

#include <yaml-cpp/yaml.h>

#include "harness/case/case_model.hpp"
#include "harness/case/schema.hpp"

namespace mrc::harness {

// The control-step keys these operations add: `profile`, `evs`, `from`, `all_copies`.
inline constexpr std::array<std::string_view, 4> kProfileOpKeys{"profile", "evs", "from", "all_copies"};

// Checks the payload keys of control step `b` against its op and fills c.ev_profile /
// c.cc_profile / c.replace. Reports a payload key on an op that does not take it, and a
// profile operation without its payload.
void read_profile_op(const YAML::Node& b, ControlStep& c, const std::string& path, Validator& v);

}  // namespace mrc::harness
