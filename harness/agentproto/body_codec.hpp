// Per-message body layouts (internal to the codec). Field order here IS the wire layout; the
// spec (harness/dut/agent-protocol.md) lists the same order.
#pragma once

#include <cstdint>

#include "harness/agentproto/byte_io.hpp"
#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto::detail {

void put_body(Writer& w, const Body& b);

// The handshake and configuration bodies (body_codec_setup.cpp).
void put(Writer& w, const Hello& m);
void get(Reader& r, Hello& m);
void put(Writer& w, const HelloOk& m);
void get(Reader& r, HelloOk& m);
void put(Writer& w, const ApplyConfig& m);
void get(Reader& r, ApplyConfig& m);
void put(Writer& w, const ApplyOk& m);
void get(Reader& r, ApplyOk& m);
void put(Writer& w, const Connect& m);
void get(Reader& r, Connect& m);
// Decodes the body of a message of (known) `type` into `out`; problems land in `r`.
void get_body(Reader& r, MsgType type, Body& out);

}  // namespace mrc::agentproto::detail
