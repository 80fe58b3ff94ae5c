// A case's `control` steps (deny/allow EV, port admin, EV probe, port-status update, profile
// state and operations, REPLACE_EV) as the session runs them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "harness/run/session_state.hpp"

namespace mrc::run {

// Makes stimulus step `step` (a ControlStep) on the DUT, due at `at`, and records its outcome in
// s.control_records (and a DENIED change in the DUT's EV events). False after s.fail() when the
// binding broke or does not offer the call (an ERROR); a refusal the case did not expect is a
// mismatch of the step, judged with the other expectations.
bool run_control_step(SessionState& s, std::size_t step, std::uint64_t at);

}  // namespace mrc::run
