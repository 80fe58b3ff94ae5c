// Injected frames that WRITE into the DUT's buffer, remembered so the session can read their target
// range back after the run (a case judges what an injected write left in memory).
#pragma once

#include <cstdint>
#include <span>

#include "harness/run/session_state.hpp"

namespace mrc::run {

// Records `frame` in s.injected_writes when it is an MRC WRITE with the DUT's R_Key whose payload
// lies inside the DUT's registered buffer; anything else is left alone.
void note_injected_write(SessionState& s, std::span<const std::uint8_t> frame);

}  // namespace mrc::run
