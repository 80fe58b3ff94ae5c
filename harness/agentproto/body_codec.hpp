// Per-message body layouts (internal to the codec). Field order here IS the wire layout; the
// spec (harness/dut/agent-protocol.md) lists the same order.
#pragma once

#include <cstdint>

#include "harness/agentproto/byte_io.hpp"
#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto::detail {

void put_body(Writer& w, const Body& b);
// Decodes the body of a message of (known) `type` into `out`; problems land in `r`.
void get_body(Reader& r, MsgType type, Body& out);

}  // namespace mrc::agentproto::detail
