// The catalog of bad agent-protocol input and the ERROR code each must produce. Shared by the
// codec tests (what the decoder alone can see), the session tests (every entry, byte for byte)
// and the TCP loopback tests (every entry against a running server).
//
// Header-only test support (the test globs pick up *_test.cpp only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/agentproto/codec.hpp"
#include "harness/agentproto/messages.hpp"

namespace mrc::agentproto::testing {

inline constexpr const char* kTestToken = "s3cret-token";

// Builds a raw frame: length (computed unless `length` is given), type, flags, seq, body.
inline std::vector<std::uint8_t> raw_frame(std::uint16_t type, std::uint16_t flags, std::uint32_t seq,
                                           const std::vector<std::uint8_t>& body, long long length = -1) {
  const std::uint32_t len = length >= 0 ? static_cast<std::uint32_t>(length) : static_cast<std::uint32_t>(8 + body.size());
  std::vector<std::uint8_t> f = {static_cast<std::uint8_t>(len >> 24), static_cast<std::uint8_t>(len >> 16),
                                 static_cast<std::uint8_t>(len >> 8),  static_cast<std::uint8_t>(len),
                                 static_cast<std::uint8_t>(type >> 8), static_cast<std::uint8_t>(type),
                                 static_cast<std::uint8_t>(flags >> 8), static_cast<std::uint8_t>(flags),
                                 static_cast<std::uint8_t>(seq >> 24), static_cast<std::uint8_t>(seq >> 16),
                                 static_cast<std::uint8_t>(seq >> 8),  static_cast<std::uint8_t>(seq)};
  f.insert(f.end(), body.begin(), body.end());
  return f;
}

// The body bytes of an encoded message (the frame minus its 12-byte header).
inline std::vector<std::uint8_t> body_of(const Message& m) {
  std::vector<std::uint8_t> f = encode(m);
  return std::vector<std::uint8_t>(f.begin() + static_cast<std::ptrdiff_t>(kHeaderLen), f.end());
}

inline Message hello_msg(std::uint32_t seq, std::string token = kTestToken, std::uint16_t version = kProtocolVersion) {
  Message m;
  m.seq = seq;
  m.body = Hello{version, std::move(token), "catalog"};
  return m;
}

inline std::vector<std::uint8_t> u16be(std::uint16_t v) { return {static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)}; }
inline std::vector<std::uint8_t> u32be(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 8),
          static_cast<std::uint8_t>(v)};
}
inline std::vector<std::uint8_t> cat(std::vector<std::uint8_t> a, const std::vector<std::uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct BadMessage {
  std::string name;
  std::vector<std::uint8_t> bytes;
  ErrorCode expect;
  bool after_hello = false;  // sent on an authenticated session (HELLO seq 1 first)
  bool then_eof = false;     // the client half-closes after sending (stream-level truncation)
  bool codec_visible = true; // decode_message()/check_frame() alone report `expect`
  std::uint32_t seq = 0;     // the seq the ERROR must echo (0 when no header could be read)
};

}  // namespace mrc::agentproto::testing

#include "tests/harness/agentproto/bad_lockstep_messages.hpp"  // needs BadMessage and the helpers above

namespace mrc::agentproto::testing {

inline Message apply_msg(std::uint32_t seq) {
  Message m;
  m.seq = seq;
  ApplyConfig c;
  c.format_widths = {16, 16};
  c.fields = {{16, 0, 0, 0xFFF, 0x0FFF}, {16, 0xC000, 0, 0xFFF, 0x0FFF}};
  for (std::uint8_t i = 0; i < 8; ++i) c.evs.push_back({{0x00, static_cast<std::uint8_t>(i + 1), 0x00}, static_cast<std::uint8_t>(1 + i % 2)});
  c.regions = {{0x10000, 4096}};
  m.body = c;
  return m;
}

// Patches byte `at` of the BODY of an encoded message.
inline std::vector<std::uint8_t> patched_body(const Message& m, std::size_t at, std::uint8_t v) {
  std::vector<std::uint8_t> b = body_of(m);
  b.at(at) = v;
  return b;
}

// The version-2 control requests: for each, a truncated body, trailing bytes, a list or string
// over its limit and a bad enum or bool; and each before APPLY_CONFIG (state, not codec).
inline void add_profile_op_entries(std::vector<BadMessage>& c) {
  using T = MsgType;
  auto frame = [](T type, const std::vector<std::uint8_t>& body) {
    return raw_frame(static_cast<std::uint16_t>(type), 0, 5, body);
  };
  auto add = [&c](std::string name, std::vector<std::uint8_t> bytes, ErrorCode code) {
    c.push_back({std::move(name), std::move(bytes), code, true, false, true, 5});
  };
  auto truncated = [](std::vector<std::uint8_t> b) {
    b.pop_back();
    return b;
  };
  auto trailing = [](std::vector<std::uint8_t> b) { return cat(std::move(b), {0}); };
  auto str_of = [](std::size_t n, std::uint8_t fill) { return cat(u16be(static_cast<std::uint16_t>(n)), std::vector<std::uint8_t>(n, fill)); };
  const std::vector<std::uint8_t> none = {0};  // an absent optional

  EvProfileOp evp;
  evp.state = ProfileStateSetting::kOnline;
  evp.seed = 7;
  const std::vector<std::uint8_t> evp_body = body_of(Message{0, 5, evp});
  add("ev_profile_op_truncated", frame(T::kEvProfileOp, truncated(evp_body)), ErrorCode::kTruncatedBody);
  add("ev_profile_op_trailing_byte", frame(T::kEvProfileOp, trailing(evp_body)), ErrorCode::kTrailingBytes);
  add("ev_profile_op_bad_state", frame(T::kEvProfileOp, cat({1, 3}, std::vector<std::uint8_t>(6, 0))), ErrorCode::kBadValue);
  add("ev_profile_op_bad_mode", frame(T::kEvProfileOp, cat({0, 1, 3}, std::vector<std::uint8_t>(5, 0))), ErrorCode::kBadValue);
  add("ev_profile_op_presence_is_2", frame(T::kEvProfileOp, {2, 0, 0, 0, 0, 0, 0}), ErrorCode::kBadValue);
  add("ev_profile_op_fields_over_limit", frame(T::kEvProfileOp, cat(cat({0, 0, 1}, u32be(65)), std::vector<std::uint8_t>(4, 0))),
      ErrorCode::kFieldTooLong);

  const std::vector<std::uint8_t> ccp_body = body_of(Message{0, 5, CcProfileOp{ProfileStateSetting::kOnline, "nscc", {{"eta", "1"}}}});
  add("cc_profile_op_truncated", frame(T::kCcProfileOp, truncated(ccp_body)), ErrorCode::kTruncatedBody);
  add("cc_profile_op_trailing_byte", frame(T::kCcProfileOp, trailing(ccp_body)), ErrorCode::kTrailingBytes);
  add("cc_profile_op_bad_state", frame(T::kCcProfileOp, cat({1, 3, 0}, u32be(0))), ErrorCode::kBadValue);
  add("cc_profile_op_algorithm_over_limit", frame(T::kCcProfileOp, cat(cat(cat(none, {1}), str_of(65, 'a')), u32be(0))),
      ErrorCode::kFieldTooLong);
  add("cc_profile_op_config_over_limit", frame(T::kCcProfileOp, cat({0, 0}, u32be(65))), ErrorCode::kFieldTooLong);
  add("cc_profile_op_config_name_over_limit", frame(T::kCcProfileOp, cat(cat(cat({0, 0}, u32be(1)), str_of(129, 'n')), u16be(0))),
      ErrorCode::kFieldTooLong);

  const std::vector<std::uint8_t> rep_body = body_of(Message{0, 5, ReplaceEv{EvValue{{0x12}, 1}, {{{0x34}, 2}}, false}});
  add("replace_ev_truncated", frame(T::kReplaceEv, truncated(rep_body)), ErrorCode::kTruncatedBody);
  add("replace_ev_trailing_byte", frame(T::kReplaceEv, trailing(rep_body)), ErrorCode::kTrailingBytes);
  add("replace_ev_from_over_32", frame(T::kReplaceEv, cat(cat(cat({1, 33}, std::vector<std::uint8_t>(34, 1)), u32be(0)), {0})),
      ErrorCode::kFieldTooLong);
  add("replace_ev_evs_over_limit", frame(T::kReplaceEv, cat(none, u32be(5000))), ErrorCode::kFieldTooLong);
  add("replace_ev_all_copies_is_2", frame(T::kReplaceEv, cat(cat(none, u32be(0)), {2})), ErrorCode::kBadValue);

  add("set_profile_online_empty_body", frame(T::kSetProfileOnline, {}), ErrorCode::kTruncatedBody);
  add("set_profile_online_trailing_byte", frame(T::kSetProfileOnline, {1, 0}), ErrorCode::kTrailingBytes);
  add("set_profile_online_bool_is_2", frame(T::kSetProfileOnline, {2}), ErrorCode::kBadValue);

  const std::vector<std::uint8_t> rd_body = body_of(Message{0, 5, RestrictDevice{{"trim_nack"}, 16}});
  add("restrict_device_truncated", frame(T::kRestrictDevice, truncated(rd_body)), ErrorCode::kTruncatedBody);
  add("restrict_device_trailing_byte", frame(T::kRestrictDevice, trailing(rd_body)), ErrorCode::kTrailingBytes);
  add("restrict_device_caps_over_limit", frame(T::kRestrictDevice, cat(u32be(65), u32be(0))), ErrorCode::kFieldTooLong);
  add("restrict_device_cap_name_over_limit", frame(T::kRestrictDevice, cat(cat(u32be(1), str_of(129, 'c')), u32be(0))),
      ErrorCode::kFieldTooLong);

  // Well-formed, but the backend has no configuration yet.
  auto before_apply = [&c](std::string name, Body b) {
    c.push_back({std::move(name), encode(Message{0, 7, std::move(b)}), ErrorCode::kNotApplied, true, false, false, 7});
  };
  before_apply("ev_profile_op_before_apply", EvProfileOp{});
  before_apply("cc_profile_op_before_apply", CcProfileOp{});
  before_apply("replace_ev_before_apply", ReplaceEv{});
  before_apply("set_profile_online_before_apply", SetProfileOnline{true});
}

inline std::vector<BadMessage> bad_message_catalog() {
  using T = MsgType;
  auto t = [](T x) { return static_cast<std::uint16_t>(x); };
  std::vector<BadMessage> c;
  const std::vector<std::uint8_t> hello_body = body_of(hello_msg(1));
  const Message apply = apply_msg(5);
  const std::vector<std::uint8_t> apply_body = body_of(apply);
  // ApplyConfig body offsets: format_mode @0; widths count @1..4, widths @5..12; ev_mode @13;
  // fields count @14..17, 2 fields x 20 bytes @18..57; evs count @58..61; ev[0] len @62.
  const std::size_t kEvLen = 62;

  // ---- framing (fatal: the stream cannot be re-synchronised) ----
  c.push_back({"zero_length", u32be(0), ErrorCode::kFrameTooShort});
  c.push_back({"length_below_minimum", raw_frame(t(T::kPoll), 0, 1, {}, 7), ErrorCode::kFrameTooShort, false, false, true, 1});
  c.push_back({"length_past_max", raw_frame(t(T::kHello), 0, 1, hello_body, kMaxLength + 1), ErrorCode::kFrameTooLarge, false, false, true, 1});
  c.push_back({"length_all_ones", u32be(0xFFFFFFFFu), ErrorCode::kFrameTooLarge});
  c.push_back({"http_request", {'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n', '\r', '\n'},
               ErrorCode::kFrameTooLarge, false, false, true, 0x54502F31});
  c.push_back({"truncated_header", {0x00, 0x00, 0x00}, ErrorCode::kTruncated, false, true, false});
  {
    const std::vector<std::uint8_t> whole = raw_frame(t(T::kHello), 0, 3, hello_body);
    c.push_back({"truncated_frame", std::vector<std::uint8_t>(whole.begin(), whole.begin() + 20), ErrorCode::kTruncated,
                 false, true, false, 3});
  }
  // ---- header fields ----
  c.push_back({"unknown_request_type", raw_frame(0x0042, 0, 1, {}), ErrorCode::kUnknownType, false, false, true, 1});
  c.push_back({"unknown_reply_type", raw_frame(0x8042, 0, 1, {}), ErrorCode::kUnknownType, false, false, true, 1});
  c.push_back({"type_zero", raw_frame(0x0000, 0, 1, {}), ErrorCode::kUnknownType, false, false, true, 1});
  c.push_back({"reply_type_hello_ok", raw_frame(t(T::kHelloOk), 0, 1, body_of(Message{0, 0, HelloOk{}})),
               ErrorCode::kUnexpectedReply, false, false, false, 1});
  c.push_back({"reply_type_error", raw_frame(t(T::kError), 0, 1, body_of(Message{0, 0, Error{ErrorCode::kLimit, 0, "x"}})),
               ErrorCode::kUnexpectedReply, false, false, false, 1});
  c.push_back({"request_with_closing_flag", raw_frame(t(T::kHello), kFlagClosing, 1, hello_body), ErrorCode::kBadFlags, false, false, true, 1});
  c.push_back({"request_with_high_flag", raw_frame(t(T::kHello), 0x8000, 1, hello_body), ErrorCode::kBadFlags, false, false, true, 1});
  // ---- HELLO ----
  c.push_back({"hello_version_1", encode(hello_msg(1, kTestToken, 1)), ErrorCode::kBadVersion, false, false, false, 1});
  // Version 2 is the older wire model's protocol: refused, not mixed (harness/dut/agent-protocol.md).
  c.push_back({"hello_version_2", encode(hello_msg(1, kTestToken, 2)), ErrorCode::kBadVersion, false, false, false, 1});
  // Version 3 lays APPLY_CONFIG out without the DSCP values (W13): refused, not guessed at.
  c.push_back({"hello_version_3", encode(hello_msg(1, kTestToken, 3)), ErrorCode::kBadVersion, false, false, false, 1});
  // Version 4 has no lockstep and a shorter HELLO_OK: refused too.
  c.push_back({"hello_version_4", encode(hello_msg(1, kTestToken, 4)), ErrorCode::kBadVersion, false, false, false, 1});
  c.push_back({"hello_version_6", encode(hello_msg(1, kTestToken, 6)), ErrorCode::kBadVersion, false, false, false, 1});
  c.push_back({"hello_version_0", encode(hello_msg(1, kTestToken, 0)), ErrorCode::kBadVersion, false, false, false, 1});
  c.push_back({"hello_wrong_token", encode(hello_msg(1, "s3cret-tokeN")), ErrorCode::kBadToken, false, false, false, 1});
  c.push_back({"hello_empty_token", encode(hello_msg(1, "")), ErrorCode::kBadToken, false, false, false, 1});
  c.push_back({"hello_token_prefix", encode(hello_msg(1, "s3cret")), ErrorCode::kBadToken, false, false, false, 1});
  c.push_back({"hello_token_over_limit", raw_frame(t(T::kHello), 0, 1, cat(cat(u16be(1), u16be(257)), std::vector<std::uint8_t>(257 + 2, 'a'))),
               ErrorCode::kFieldTooLong, false, false, true, 1});
  c.push_back({"hello_client_over_limit", raw_frame(t(T::kHello), 0, 1, cat(cat(cat(u16be(1), u16be(1)), {'x'}), cat(u16be(129), std::vector<std::uint8_t>(129, 'c')))),
               ErrorCode::kFieldTooLong, false, false, true, 1});
  c.push_back({"hello_string_runs_past_body", raw_frame(t(T::kHello), 0, 1, cat(cat(u16be(1), u16be(10)), {'a', 'b', 'c'})),
               ErrorCode::kTruncatedBody, false, false, true, 1});
  c.push_back({"hello_empty_body", raw_frame(t(T::kHello), 0, 1, {}), ErrorCode::kTruncatedBody, false, false, true, 1});
  c.push_back({"hello_trailing_garbage", raw_frame(t(T::kHello), 0, 1, cat(hello_body, {0xDE, 0xAD})), ErrorCode::kTrailingBytes, false, false, true, 1});
  // ---- order ----
  c.push_back({"poll_before_hello", encode(Message{0, 1, Poll{}}), ErrorCode::kNotHello, false, false, false, 1});
  c.push_back({"apply_before_hello", encode(apply_msg(1)), ErrorCode::kNotHello, false, false, false, 1});
  c.push_back({"bye_before_hello", encode(Message{0, 1, Bye{}}), ErrorCode::kNotHello, false, false, false, 1});
  c.push_back({"duplicate_hello", encode(hello_msg(2)), ErrorCode::kDuplicateHello, true, false, false, 2});
  c.push_back({"seq_reused", encode(Message{0, 1, Poll{}}), ErrorCode::kBadSeq, true, false, false, 1});
  c.push_back({"seq_backwards", encode(Message{0, 0, Poll{}}), ErrorCode::kBadSeq, true, false, false, 0});
  c.push_back({"post_write_before_apply", encode(Message{0, 7, PostWrite{}}), ErrorCode::kNotApplied, true, false, false, 7});
  c.push_back({"read_memory_before_apply", encode(Message{0, 7, ReadMemory{0x1000, 16}}), ErrorCode::kNotApplied, true, false, false, 7});
  c.push_back({"connect_before_apply", encode(Message{0, 7, Connect{}}), ErrorCode::kNotApplied, true, false, false, 7});
  // ---- bodies ----
  c.push_back({"apply_bad_format_mode", raw_frame(t(T::kApplyConfig), 0, 5, patched_body(apply, 0, 7)), ErrorCode::kBadValue, true, false, true, 5});
  c.push_back({"apply_bad_ev_mode", raw_frame(t(T::kApplyConfig), 0, 5, patched_body(apply, 13, 3)), ErrorCode::kBadValue, true, false, true, 5});
  // The body ends with the six DSCP values (v4), control last: 64 is not a 6-bit DSCP.
  c.push_back({"apply_dscp_over_63", raw_frame(t(T::kApplyConfig), 0, 5, patched_body(apply, apply_body.size() - 1, 64)),
               ErrorCode::kBadValue, true, false, true, 5});
  c.push_back({"apply_ev_value_over_32", raw_frame(t(T::kApplyConfig), 0, 5, patched_body(apply, kEvLen, 33)), ErrorCode::kFieldTooLong, true, false, true, 5});
  c.push_back({"apply_ev_value_runs_past_body", raw_frame(t(T::kApplyConfig), 0, 5, std::vector<std::uint8_t>(apply_body.begin(), apply_body.begin() + kEvLen + 2)),
               ErrorCode::kTruncatedBody, true, false, true, 5});
  {
    std::vector<std::uint8_t> b = apply_body;  // evs count 5000 > limit 4096
    b[58] = 0; b[59] = 0; b[60] = 0x13; b[61] = 0x88;
    c.push_back({"apply_evs_count_over_limit", raw_frame(t(T::kApplyConfig), 0, 5, b), ErrorCode::kFieldTooLong, true, false, true, 5});
    b[60] = 0x00; b[61] = 0xFF;  // 255 entries announced, far fewer bytes present
    c.push_back({"apply_evs_count_past_body", raw_frame(t(T::kApplyConfig), 0, 5, b), ErrorCode::kTruncatedBody, true, false, true, 5});
  }
  {
    // 8 EVs of 1 + 3 + 1 bytes; then generate_count (4), generate_seed (8), ev_min_active (4),
    // ev_event_mask (4), denied count (4), has_cc (1), cc_line_rate_bps (8), cc_fabric_trims (1)
    // and qp.count.
    const std::size_t has_cc = kEvLen + 8 * (1 + 3 + 1) + 4 + 8 + 4 + 4 + 4;
    const std::size_t fabric_trims = has_cc + 1 + 8;
    const std::size_t qp_count = fabric_trims + 1;
    std::vector<std::uint8_t> b = apply_body;
    b[qp_count + 3] = 65;  // limit::kQps is 64
    c.push_back({"apply_qp_count_over_limit", raw_frame(t(T::kApplyConfig), 0, 5, b), ErrorCode::kFieldTooLong, true, false, true, 5});
    std::vector<std::uint8_t> cc = apply_body;
    cc[has_cc] = 2;  // has_cc is a bool
    c.push_back({"apply_bool_is_2", raw_frame(t(T::kApplyConfig), 0, 5, cc), ErrorCode::kBadValue, true, false, true, 5});
    std::vector<std::uint8_t> trims = apply_body;
    trims[fabric_trims] = 3;
    c.push_back({"apply_fabric_trims_is_3", raw_frame(t(T::kApplyConfig), 0, 5, trims), ErrorCode::kBadValue, true, false, true, 5});
  }
  c.push_back({"read_memory_over_limit", raw_frame(t(T::kReadMemory), 0, 5, cat(std::vector<std::uint8_t>(8, 0), u32be(1u << 20))),
               ErrorCode::kFieldTooLong, true, false, true, 5});
  c.push_back({"write_memory_length_lies", raw_frame(t(T::kWriteMemory), 0, 5, cat(cat(std::vector<std::uint8_t>(8, 0), u32be(1000)), std::vector<std::uint8_t>(10, 1))),
               ErrorCode::kTruncatedBody, true, false, true, 5});
  c.push_back({"poll_max_over_limit", raw_frame(t(T::kPoll), 0, 5, cat(u32be(5000), u32be(1))), ErrorCode::kFieldTooLong, true, false, true, 5});
  c.push_back({"ep_op_unknown_kind", raw_frame(t(T::kEpOp), 0, 5, cat(cat({9}, u32be(0)), {0})), ErrorCode::kBadValue, true, false, true, 5});
  c.push_back({"ep_op_tc_over_63", raw_frame(t(T::kEpOp), 0, 5, cat(cat({0}, u32be(0)), {64})), ErrorCode::kBadValue, true, false, true, 5});
  c.push_back({"ep_op_version_1_body", raw_frame(t(T::kEpOp), 0, 5, cat({0}, u32be(0))), ErrorCode::kTruncatedBody, true, false, true, 5});
  c.push_back({"set_ev_state_bool_is_7", raw_frame(t(T::kSetEvState), 0, 5, cat(u32be(0), {7})), ErrorCode::kBadValue, true, false, true, 5});
  c.push_back({"port_admin_trailing_byte", raw_frame(t(T::kPortAdmin), 0, 5, {1, 1, 0}), ErrorCode::kTrailingBytes, true, false, true, 5});
  c.push_back({"bye_with_body", raw_frame(t(T::kBye), 0, 5, {0}), ErrorCode::kTrailingBytes, true, false, true, 5});
  c.push_back({"post_recv_truncated_u32", raw_frame(t(T::kPostRecv), 0, 5, {0, 0}), ErrorCode::kTruncatedBody, true, false, true, 5});
  add_profile_op_entries(c);
  add_lockstep_entries(c);
  return c;
}

}  // namespace mrc::agentproto::testing
