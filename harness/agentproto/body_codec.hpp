// Per-message body layouts (internal to the codec). Field order here IS the wire layout; the
// spec (harness/dut/agent-protocol.md) lists the same order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/agentproto/byte_io.hpp"
#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto::detail {

void put_body(Writer& w, const Body& b);

// The smallest encodings of list entries, for Reader::count().
inline constexpr std::size_t kEvFieldBytes = 20;    // five u32
inline constexpr std::size_t kMinEvValueBytes = 2;  // empty bytes8 + port

// A one-byte enum whose values run 0..max; anything else is kBadValue.
template <typename E>
E get_enum(Reader& r, std::uint8_t max, std::string_view field) {
  const std::uint8_t v = r.u8(field);
  if (v > max) r.fail(ErrorCode::kBadValue, field, "value " + std::to_string(v) + " is not defined");
  return static_cast<E>(v <= max ? v : 0);
}

// Shared pieces (body_codec_setup.cpp): an EV-profile field and an EV value with its port.
void put(Writer& w, const EvField& f);
void get(Reader& r, EvField& f);
void put(Writer& w, const EvValue& e);
void get(Reader& r, EvValue& e);

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
// The version-2 control bodies (body_codec_profile.cpp): EV_PROFILE_OP, CC_PROFILE_OP,
// REPLACE_EV, SET_PROFILE_ONLINE, RESTRICT_DEVICE.
void put(Writer& w, const EvProfileOp& m);
void get(Reader& r, EvProfileOp& m);
void put(Writer& w, const CcProfileOp& m);
void get(Reader& r, CcProfileOp& m);
void put(Writer& w, const ReplaceEv& m);
void get(Reader& r, ReplaceEv& m);
void put(Writer& w, const SetProfileOnline& m);
void get(Reader& r, SetProfileOnline& m);
void put(Writer& w, const RestrictDevice& m);
void get(Reader& r, RestrictDevice& m);
// The lockstep bodies (body_codec_lockstep.cpp): ATTACH, STEP, FRAMES.
void put(Writer& w, const Attach& m);
void get(Reader& r, Attach& m);
void put(Writer& w, const Step& m);
void get(Reader& r, Step& m);
void put(Writer& w, const Frames& m);
void get(Reader& r, Frames& m);
// Decodes the body of a message of (known) `type` into `out`; problems land in `r`.
void get_body(Reader& r, MsgType type, Body& out);

}  // namespace mrc::agentproto::detail
