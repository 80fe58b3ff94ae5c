#include "harness/case/stimulus_kinds.hpp"

#include <array>

#include "harness/case/field_match.hpp"
#include "harness/case/frame_fields.hpp"
#include "harness/case/limits.hpp"
#include "harness/case/profile_ops.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;
constexpr std::uint64_t k24 = 0xFFFFFF;
constexpr std::uint64_t k32 = 0xFFFFFFFF;
// The MRC WRITE opcodes, write_first .. write_only_imm (kOpcodeNames; W3).
constexpr std::uint8_t kWriteFirstOpcode = 0xC6;
constexpr std::uint8_t kWriteOnlyImmOpcode = 0xCB;

// ------------------------------------------------------------------ traffic
constexpr std::array<std::string_view, 2> kWindowOrRate{"window", "rate_gbps"};
constexpr std::array kTrafficGroups{KeyGroup{kWindowOrRate}};
constexpr std::array kTrafficKeys{
    KeySpec{.name = "qp", .kind = VK::kUInt, .umax = 1023, .help = "index of the QP (< config.qp.count)"},
    KeySpec{.name = "writes", .kind = VK::kUInt, .required = true, .umin = 1, .umax = 10'000'000},
    KeySpec{.name = "size", .kind = VK::kUInt, .required = true, .umin = 1, .umax = 1ull << 31,
            .help = "bytes per write"},
    KeySpec{.name = "with_imm", .kind = VK::kBool},
    KeySpec{.name = "window", .kind = VK::kUInt, .umin = 1, .umax = 65535, .help = "writes in flight"},
    KeySpec{.name = "rate_gbps", .kind = VK::kNumber, .dmin = 0, .dmax = 1600, .dmin_open = true},
    KeySpec{.name = "start_ns", .kind = VK::kUInt},
};
constexpr Schema kTrafficSchema{"traffic step", kTrafficKeys, kTrafficGroups};

StepBody build_traffic(const YAML::Node& b, const std::string&, Validator&) {
  TrafficStep t;
  t.qp = read_uint_as<std::uint32_t>(b, "qp").value_or(0);
  t.writes = read_uint_as<std::uint32_t>(b, "writes").value_or(1);
  t.size = read_uint(b, "size").value_or(0);
  t.with_imm = read_bool(b, "with_imm").value_or(false);
  t.window = read_uint_as<std::uint32_t>(b, "window");
  t.rate_gbps = read_number(b, "rate_gbps");
  t.start_ns = read_uint(b, "start_ns").value_or(0);
  return t;
}

// ------------------------------------------------------------------ inject
// `va` with `rkey` names any address; `past_end` places the write relative to the end of the
// receiver's registered buffer with its R_Key (a region edge whatever address the DUT got);
// `rkey_xor` keeps the packet's own address in that buffer with the receiver's R_Key XOR it (a
// near miss: the region's index with a wrong key, whatever key the DUT issued).
constexpr std::array<std::string_view, 3> kVaOrPastEnd{"va", "past_end", "rkey_xor"};
constexpr std::array kRethGroups{KeyGroup{kVaOrPastEnd, true}};
constexpr std::array kRethKeys{
    KeySpec{.name = "va", .kind = VK::kUInt},
    KeySpec{.name = "rkey", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "len", .kind = VK::kUInt, .required = true, .umax = k32},
    KeySpec{.name = "past_end", .kind = VK::kUInt, .umax = 4096,
            .help = "bytes the write runs past the end of the receiver's buffer (0: ends exactly at it)"},
    KeySpec{.name = "rkey_xor", .kind = VK::kUInt, .umin = 1, .umax = k32,
            .help = "the receiver's own R_Key XOR this, at the packet's own address in its buffer"},
};
constexpr Schema kRethSchema{"reth", kRethKeys, kRethGroups};

constexpr std::array kAethKeys{
    KeySpec{.name = "syndrome", .kind = VK::kUInt, .required = true, .umax = 255},
    KeySpec{.name = "msn", .kind = VK::kUInt, .umax = k24},
};
constexpr Schema kAethSchema{"aeth", kAethKeys};

// W5 — the SETH + CC_STATE of an injected SACK: cack_psn is the frame's psn.
constexpr std::array<std::string_view, 4> kVerdictNames{"none", "skip_once", "always_skip", "reserved"};
constexpr std::array kSackKeys{
    KeySpec{.name = "m", .kind = VK::kUIntOrName, .umax = 3, .names = kVerdictNames, .help = "multipath verdict"},
    KeySpec{.name = "pr", .kind = VK::kBool, .help = "answers a reliability probe"},
    KeySpec{.name = "ack_psn", .kind = VK::kUInt, .umax = k24, .help = "the PSN answered (default: the frame's psn)"},
    KeySpec{.name = "probe_id", .kind = VK::kUInt, .umax = 0xFFFF, .help = "with pr: the probe answered"},
    KeySpec{.name = "entropy", .kind = VK::kUInt, .umax = k32, .help = "the EV echoed"},
    KeySpec{.name = "mpr", .kind = VK::kUInt, .umax = 255, .help = "units of 128 PSNs (0: Dynamic MPR off)"},
    KeySpec{.name = "sack_offset", .kind = VK::kUInt, .umax = 0xFFFF,
            .help = "bitmap base = psn + sack_offset, 16-bit two's complement (default 1)"},
    KeySpec{.name = "bitmap", .kind = VK::kUInt, .help = "bit k = PSN base + k"},
    KeySpec{.name = "ts", .kind = VK::kUInt, .umax = 0xFFFF, .help = "CC_STATE tx_timestamp reflected"},
    KeySpec{.name = "ooo_count", .kind = VK::kUInt, .umax = 0x7FFF},
    KeySpec{.name = "rcvd_bytes", .kind = VK::kUInt, .umax = k24, .help = "256-byte units"},
};
constexpr Schema kSackSchema{"sack", kSackKeys};

// W7 — the NETH of an injected NACK: nack_psn is the frame's psn.
constexpr std::array<std::string_view, 7> kNackReasonNames{"trimmed",     "trimmed_lasthop", "no_bitmap",  "no_pkt_buffer",
                                                           "no_resource", "psn_oor_window",  "unexp_event"};
// The values of reference/wire/mrc_headers.hpp namespace nack (the case layer reads no wire code).
constexpr std::array<std::uint8_t, 7> kNackReasonCodes{0x01, 0x02, 0x06, 0x07, 0x0A, 0x0B, 0x19};
constexpr std::array kNackKeys{
    KeySpec{.name = "reason", .kind = VK::kUIntOrName, .umax = 255, .names = kNackReasonNames, .help = "default trimmed"},
    KeySpec{.name = "entropy", .kind = VK::kUInt, .umax = k32, .help = "the EV echoed"},
    KeySpec{.name = "ts", .kind = VK::kUInt, .umax = 0xFFFF, .help = "tx_timestamp reflected"},
};
constexpr Schema kNackSchema{"nack", kNackKeys};

// W9 — the PETH of an injected reliability probe.
constexpr std::array kProbeKeys{
    KeySpec{.name = "probe_id", .kind = VK::kUInt, .umax = 0xFFFF},
    KeySpec{.name = "ts", .kind = VK::kUInt, .umax = 0xFFFF, .help = "tx_timestamp, 128 ns units (none: ftype 0)"},
};
constexpr Schema kProbeSchema{"probe", kProbeKeys};

// W10 — the ERTH of an injected endpoint request (ep_req) or the EETH of a response (ep_rsp).
// The op names in wire-value order (S1: W10, wire::EpWireOp): port_status_update 0, ev_probe 1.
constexpr std::array<std::string_view, 2> kEpOpNames{"port_status_update", "ev_probe"};
constexpr std::array kEpKeys{
    KeySpec{.name = "op", .kind = VK::kUIntOrName, .umax = 3, .names = kEpOpNames,
            .help = "ev_probe / port_status_update, or the raw 2-bit wire value; default ev_probe"},
    KeySpec{.name = "id", .kind = VK::kUInt, .umax = 0xFFFF, .help = "request id: BTH.PSN[15:0]"},
    KeySpec{.name = "port_status_mask", .kind = VK::kUInt, .umax = k32, .help = "ERTH only"},
    KeySpec{.name = "tx_timestamp", .kind = VK::kUInt, .umax = 0xFFFF, .help = "128 ns units"},
};
constexpr Schema kEpSchema{"ep", kEpKeys};

// W4 — the METH and TSETH of an injected data packet.
constexpr std::array kMethKeys{
    KeySpec{.name = "msn", .kind = VK::kUInt, .umax = 0xFFFF, .help = "0-based message index"},
    KeySpec{.name = "rqmsn", .kind = VK::kUInt, .umax = 0xFFFF, .help = "WRITE_WITH_IMM message count"},
};
constexpr Schema kMethSchema{"meth", kMethKeys};
constexpr std::array kTsethKeys{
    KeySpec{.name = "ts", .kind = VK::kUInt, .umax = 0xFFFF, .help = "tx_timestamp, 128 ns units"},
    KeySpec{.name = "tsr", .kind = VK::kBool},
    KeySpec{.name = "ftype", .kind = VK::kUInt, .umax = 15, .help = "default 1 (timestamp)"},
};
constexpr Schema kTsethSchema{"tseth", kTsethKeys};

constexpr std::array kPayloadKeys{
    KeySpec{.name = "pattern", .kind = VK::kEnum, .names = kPayloadPatternNames},
    KeySpec{.name = "len", .kind = VK::kUInt, .required = true, .umax = limits::kMaxFramePayloadBytes,
            .help = "bytes", .limit = "kMaxFramePayloadBytes"},
};
constexpr Schema kPayloadSchema{"payload", kPayloadKeys};

constexpr std::array kFrameKeys{
    KeySpec{.name = "opcode", .kind = VK::kUIntOrName, .required = true, .umax = 255, .names = kOpcodeSpellings},
    KeySpec{.name = "psn", .kind = VK::kUInt, .required = true, .umax = k24},
    KeySpec{.name = "ev", .kind = VK::kUInt, .umax = k32, .help = "index into the case's EV array"},
    KeySpec{.name = "dqpn", .kind = VK::kUInt, .umax = k24},
    KeySpec{.name = "dqpn_xor", .kind = VK::kUInt, .umin = 1, .umax = k24,
            .help = "the QP's own DestQP XOR this: a QPN near the real one"},
    KeySpec{.name = "pkey", .kind = VK::kUInt, .umax = 0xFFFF},
    KeySpec{.name = "meth", .kind = VK::kMap, .schema = &kMethSchema, .help = "data opcodes: default msn 0, rqmsn 0"},
    KeySpec{.name = "tseth", .kind = VK::kMap, .schema = &kTsethSchema, .help = "data opcodes: a TSETH (sets BTH.TS)"},
    KeySpec{.name = "reth", .kind = VK::kMap, .schema = &kRethSchema},
    KeySpec{.name = "imm", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "aeth", .kind = VK::kMap, .schema = &kAethSchema},
    KeySpec{.name = "sack", .kind = VK::kMap, .schema = &kSackSchema, .help = "SETH + CC_STATE (opcode sack only)"},
    KeySpec{.name = "nack", .kind = VK::kMap, .schema = &kNackSchema, .help = "NETH (opcode nack only)"},
    KeySpec{.name = "probe", .kind = VK::kMap, .schema = &kProbeSchema, .help = "PETH (opcode probe only)"},
    KeySpec{.name = "ep", .kind = VK::kMap, .schema = &kEpSchema, .help = "ERTH / EETH (ep_req / ep_rsp only)"},
    KeySpec{.name = "flags", .kind = VK::kList, .names = kFrameFlagNames, .item = VK::kEnum, .scalar_as_list = true},
    KeySpec{.name = "payload", .kind = VK::kMap, .schema = &kPayloadSchema},
    KeySpec{.name = "dscp", .kind = VK::kUInt, .umax = 63},
    KeySpec{.name = "ecn", .kind = VK::kUInt, .umax = 3},
    KeySpec{.name = "icrc", .kind = VK::kEnum, .names = kIcrcModeNames},
    KeySpec{.name = "truncate", .kind = VK::kUInt, .umin = 1, .umax = 9216, .help = "bytes kept"},
};
constexpr std::array<std::string_view, 2> kDqpnOrXor{"dqpn", "dqpn_xor"};
constexpr std::array kFrameGroups{KeyGroup{kDqpnOrXor, false}};
constexpr Schema kFrameSchema{"frame", kFrameKeys, kFrameGroups};

constexpr std::array kInjectKeys{
    KeySpec{.name = "at_ns", .kind = VK::kUInt, .required = true},
    KeySpec{.name = "port", .kind = VK::kUInt, .umin = 1, .umax = 32},
    KeySpec{.name = "frame", .kind = VK::kMap, .required = true, .schema = &kFrameSchema},
};
constexpr Schema kInjectSchema{"inject step", kInjectKeys};

std::uint8_t opcode_of(const YAML::Node& frame) {
  const auto s = read_string(frame, "opcode");
  if (!s) return 0;
  if (const auto n = opcode_by_name(*s)) return *n;
  const auto u = read_uint(frame, "opcode");
  return u && *u <= 255 ? static_cast<std::uint8_t>(*u) : 0;
}


// A header that belongs to one opcode, given with another, is refused: the frame would not carry it.
bool header_fits(const YAML::Node& f, std::string_view key, std::uint8_t opcode, const std::string& path, Validator& v) {
  if (find_key(f, "opcode") && opcode != opcode_by_name(key)) {
    v.error(key_loc(f, key), path + ".frame." + std::string(key),
            "a '" + std::string(key) + "' header needs opcode " + std::string(key));
    return false;
  }
  return true;
}

template <std::size_t N>
std::optional<std::uint8_t> read_code(const YAML::Node& n, const char* key, const std::array<std::string_view, N>& names,
                                      const std::array<std::uint8_t, N>& codes) {
  if (const auto s = read_string(n, key)) {
    for (std::size_t i = 0; i < N; ++i) {
      if (names[i] == *s) return codes[i];
    }
  }
  return read_uint_as<std::uint8_t>(n, key);
}

std::optional<EpSpec> build_ep(const YAML::Node& f, std::uint8_t opcode, const std::string& path, Validator& v) {
  const auto e = find_key(f, "ep");
  if (!e) return std::nullopt;
  const bool request = opcode == opcode_by_name("ep_req");
  if (find_key(f, "opcode") && !request && opcode != opcode_by_name("ep_rsp")) {
    v.error(key_loc(f, "ep"), path + ".frame.ep", "an 'ep' header needs opcode ep_req or ep_rsp");
  }
  if (!request && find_key(*e, "port_status_mask")) {
    v.error(key_loc(*e, "port_status_mask"), path + ".frame.ep.port_status_mask",
            "only a request (ep_req, ERTH) carries a port_status_mask");
  }
  EpSpec ep;
  ep.op = read_code(*e, "op", kEpOpNames, std::array<std::uint8_t, 2>{0, 1}).value_or(1);
  ep.id = read_uint_as<std::uint16_t>(*e, "id");
  ep.port_status_mask = read_uint_as<std::uint32_t>(*e, "port_status_mask").value_or(0);
  ep.tx_timestamp = read_uint_as<std::uint16_t>(*e, "tx_timestamp").value_or(0);
  return ep;
}

void build_feedback(const YAML::Node& f, FrameSpec& fr, const std::string& path, Validator& v) {
  if (const auto m = find_key(f, "sack"); m && header_fits(f, "sack", fr.opcode, path, v)) {
    SackSpec h;
    h.m = read_code(*m, "m", kVerdictNames, std::array<std::uint8_t, 4>{0, 1, 2, 3}).value_or(0);
    h.pr = read_bool(*m, "pr").value_or(false);
    h.ack_psn = read_uint_as<std::uint32_t>(*m, "ack_psn");
    h.probe_id = read_uint_as<std::uint16_t>(*m, "probe_id").value_or(0);
    h.entropy = read_uint_as<std::uint32_t>(*m, "entropy").value_or(0);
    h.mpr = read_uint_as<std::uint8_t>(*m, "mpr").value_or(0);
    h.sack_offset = static_cast<std::int16_t>(read_uint_as<std::uint16_t>(*m, "sack_offset").value_or(1));
    h.bitmap = read_uint(*m, "bitmap").value_or(0);
    h.ts = read_uint_as<std::uint16_t>(*m, "ts").value_or(0);
    h.ooo_count = read_uint_as<std::uint16_t>(*m, "ooo_count").value_or(0);
    h.rcvd_bytes = read_uint_as<std::uint32_t>(*m, "rcvd_bytes").value_or(0);
    if (h.pr && find_key(*m, "ack_psn")) {
      v.error(key_loc(*m, "ack_psn"), path + ".frame.sack.ack_psn", "a probe answer (pr) carries 'probe_id' in that slot, not 'ack_psn'");
    }
    // W5: ack_psn travels as a signed 16-bit offset from cack_psn (the frame's psn).
    if (h.ack_psn && !h.pr) {
      const auto dist = static_cast<std::int32_t>(((*h.ack_psn - fr.psn) & 0xFFFFFFu) << 8) >> 8;
      if (dist < INT16_MIN || dist > INT16_MAX) {
        v.error(key_loc(*m, "ack_psn"), path + ".frame.sack.ack_psn",
                "ack_psn is " + std::to_string(dist) + " PSNs from the frame's psn (cack_psn); the SETH offset holds -32768..32767");
      }
    }
    fr.sack = h;
  }
  if (const auto m = find_key(f, "nack"); m && header_fits(f, "nack", fr.opcode, path, v)) {
    fr.nack = NackSpec{read_code(*m, "reason", kNackReasonNames, kNackReasonCodes).value_or(kNackReasonCodes[0]),
                       read_uint_as<std::uint32_t>(*m, "entropy").value_or(0), read_uint_as<std::uint16_t>(*m, "ts").value_or(0)};
  }
  if (const auto m = find_key(f, "probe"); m && header_fits(f, "probe", fr.opcode, path, v)) {
    fr.probe = ProbeSpec{read_uint_as<std::uint16_t>(*m, "probe_id").value_or(0), read_uint_as<std::uint16_t>(*m, "ts")};
  }
}

StepBody build_inject(const YAML::Node& b, const std::string& path, Validator& v) {
  InjectStep s;
  s.at_ns = read_uint(b, "at_ns").value_or(0);
  s.port = read_uint_as<std::uint32_t>(b, "port").value_or(1);
  const YAML::Node f = find_key(b, "frame").value_or(YAML::Node{});
  FrameSpec& fr = s.frame;
  fr.opcode = opcode_of(f);
  fr.psn = read_uint_as<std::uint32_t>(f, "psn").value_or(0);
  fr.ev = read_uint_as<std::uint32_t>(f, "ev");
  fr.dqpn = read_uint_as<std::uint32_t>(f, "dqpn");
  fr.dqpn_xor = read_uint_as<std::uint32_t>(f, "dqpn_xor");
  fr.pkey = read_uint_as<std::uint16_t>(f, "pkey");
  if (const auto r = find_key(f, "reth")) {
    fr.reth = RethSpec{read_uint(*r, "va").value_or(0), read_uint_as<std::uint32_t>(*r, "rkey").value_or(0),
                       read_uint_as<std::uint32_t>(*r, "len").value_or(0), read_uint_as<std::uint32_t>(*r, "past_end"),
                       read_uint_as<std::uint32_t>(*r, "rkey_xor")};
    if (find_key(*r, "va") && !find_key(*r, "rkey")) {
      v.error(loc_of(*r), path + ".frame.reth", "missing required key 'rkey' (a RETH with 'va' names its R_Key)");
    }
    if ((fr.reth->past_end || fr.reth->rkey_xor) && find_key(*r, "rkey")) {
      v.error(key_loc(*r, "rkey"), path + ".frame.reth.rkey",
              std::string(fr.reth->past_end ? "'past_end'" : "'rkey_xor'") + " uses the receiver's R_Key: leave 'rkey' out");
    }
    // A write without 'payload' carries reth.len bytes (harness/stimulus/frame_builder.cpp).
    const bool write = fr.opcode >= kWriteFirstOpcode && fr.opcode <= kWriteOnlyImmOpcode;
    if (write && !find_key(f, "payload") && fr.reth->len > limits::kMaxFramePayloadBytes) {
      v.error(key_loc(*r, "len"), path + ".frame.reth.len",
              "a write without 'payload' carries reth.len bytes: " + std::to_string(fr.reth->len) + " is over " +
                  std::to_string(limits::kMaxFramePayloadBytes) +
                  " (kMaxFramePayloadBytes, harness/case/limits.hpp); add a 'payload' of at most that many bytes");
    }
  }
  if (const auto m = find_key(f, "meth")) {
    fr.meth = MethSpec{read_uint_as<std::uint16_t>(*m, "msn").value_or(0), read_uint_as<std::uint16_t>(*m, "rqmsn").value_or(0)};
  }
  if (const auto t = find_key(f, "tseth")) {
    fr.tseth = TsethSpec{read_uint_as<std::uint16_t>(*t, "ts").value_or(0), read_bool(*t, "tsr").value_or(false),
                         read_uint_as<std::uint8_t>(*t, "ftype").value_or(1)};
  }
  fr.imm = read_uint_as<std::uint32_t>(f, "imm");
  if (const auto a = find_key(f, "aeth")) {
    fr.aeth = AethSpec{read_uint_as<std::uint8_t>(*a, "syndrome").value_or(0x1F),
                       read_uint_as<std::uint32_t>(*a, "msn").value_or(0)};
  }
  build_feedback(f, fr, path, v);
  fr.ep = build_ep(f, fr.opcode, path, v);
  for (const auto& name : read_string_list(f, "flags")) {
    if (const auto flag = parse_enum<FrameFlag>(kFrameFlagNames, name)) fr.flags.push_back(*flag);
  }
  if (const auto p = find_key(f, "payload")) {
    fr.payload = PayloadSpec{read_enum<PayloadPattern>(*p, "pattern", kPayloadPatternNames).value_or(PayloadPattern::kIncrement),
                             read_uint_as<std::uint32_t>(*p, "len").value_or(0)};
  }
  fr.dscp = read_uint_as<std::uint8_t>(f, "dscp");
  fr.ecn = read_uint_as<std::uint8_t>(f, "ecn");
  fr.icrc = read_enum<IcrcMode>(f, "icrc", kIcrcModeNames).value_or(IcrcMode::kGood);
  fr.truncate = read_uint_as<std::uint32_t>(f, "truncate");
  return s;
}

// ------------------------------------------------------------------ expect
constexpr std::array kExpectKeys{
    KeySpec{.name = "within_ns", .kind = VK::kUInt, .required = true, .umin = 1},
    KeySpec{.name = "tolerance_ns", .kind = VK::kUInt},
    KeySpec{.name = "tolerance_pct", .kind = VK::kNumber, .dmin = 0, .dmax = 100},
    KeySpec{.name = "port", .kind = VK::kUInt, .umin = 1, .umax = 32},
    KeySpec{.name = "match", .kind = VK::kFieldMap, .required = true},
    KeySpec{.name = "absent", .kind = VK::kBool, .help = "no matching frame may appear"},
    KeySpec{.name = "count", .kind = VK::kUInt, .umin = 1, .umax = 1'000'000},
    KeySpec{.name = "grace_ns", .kind = VK::kUInt, .umax = 1'000'000'000,
            .help = "with absent: frames already queued may still leave this long after the previous step"},
};
constexpr Schema kExpectSchema{"expect step", kExpectKeys};

StepBody build_expect(const YAML::Node& b, const std::string& path, Validator& v) {
  ExpectStep e;
  e.within_ns = read_uint(b, "within_ns").value_or(0);
  e.tolerance_ns = read_uint(b, "tolerance_ns").value_or(0);
  e.tolerance_pct = read_number(b, "tolerance_pct").value_or(0);
  e.port = read_uint_as<std::uint32_t>(b, "port");
  e.match = build_matches(find_key(b, "match").value_or(YAML::Node{}));
  e.absent = read_bool(b, "absent").value_or(false);
  e.count = read_uint_as<std::uint32_t>(b, "count").value_or(1);
  e.grace_ns = read_uint(b, "grace_ns").value_or(0);
  if (e.absent && find_key(b, "count")) {
    v.error(key_loc(b, "count"), path, "'count' has no meaning with 'absent: true'");
  }
  if (!e.absent && find_key(b, "grace_ns")) {
    v.error(key_loc(b, "grace_ns"), path, "'grace_ns' needs 'absent: true' (it delays an absent window's start)");
  } else if (e.grace_ns >= e.within_ns && find_key(b, "grace_ns")) {
    v.error(key_loc(b, "grace_ns"), path,
            "'grace_ns' " + std::to_string(e.grace_ns) + " leaves nothing of 'within_ns' " + std::to_string(e.within_ns));
  }
  return e;
}

// ------------------------------------------------------------------ impair
constexpr std::array kSelectKeys{
    KeySpec{.name = "ev", .kind = VK::kList, .umax = k32, .item = VK::kUInt, .scalar_as_list = true,
            .help = "EV index or list of indices"},
    KeySpec{.name = "plane", .kind = VK::kUInt, .umin = 1, .umax = 32},
    KeySpec{.name = "psn_range", .kind = VK::kList, .umax = k24, .item = VK::kUInt, .min_items = 2, .max_items = 2},
    KeySpec{.name = "opcode", .kind = VK::kUIntOrName, .umax = 255, .names = kOpcodeSpellings,
            .help = "BTH opcode, by name (probe, sack, write_only, ...) or number"},
    KeySpec{.name = "rtx", .kind = VK::kBool, .help = "data packets with BTH.RTX set (true) or clear (false)"},
    KeySpec{.name = "time_window", .kind = VK::kList, .item = VK::kUInt, .min_items = 2, .max_items = 2},
    KeySpec{.name = "probability", .kind = VK::kNumber, .dmin = 0, .dmax = 1, .dmin_open = true},
    KeySpec{.name = "link", .kind = VK::kString, .help = "testbed link name"},
};
constexpr Schema kSelectSchema{"select", kSelectKeys};

constexpr std::array kImpairKeys{
    KeySpec{.name = "kind", .kind = VK::kEnum, .required = true, .names = kImpairKindNames},
    KeySpec{.name = "select", .kind = VK::kMap, .schema = &kSelectSchema},
    KeySpec{.name = "at_ns", .kind = VK::kUInt},
    KeySpec{.name = "params", .kind = VK::kCustom, .help = "keys depend on kind"},
};
constexpr Schema kImpairSchema{"impair step", kImpairKeys};

constexpr std::array<KeySpec, 0> kNoParams{};
constexpr Schema kNoParamsSchema{"this impairment kind takes no params", kNoParams};
constexpr std::array kTrimParams{KeySpec{.name = "bytes", .kind = VK::kUInt, .umin = 64, .umax = 9216}};
constexpr Schema kTrimSchema{"trim params", kTrimParams};
constexpr std::array kReorderParams{
    KeySpec{.name = "depth", .kind = VK::kUInt, .required = true, .umin = 1, .umax = 4096},
    KeySpec{.name = "delay_ns", .kind = VK::kUInt},
};
constexpr Schema kReorderSchema{"reorder params", kReorderParams};
constexpr std::array kDuplicateParams{KeySpec{.name = "copies", .kind = VK::kUInt, .umin = 1, .umax = 16}};
constexpr Schema kDuplicateSchema{"duplicate params", kDuplicateParams};
constexpr std::array kCorruptParams{
    KeySpec{.name = "offset", .kind = VK::kUInt, .required = true, .umax = 9215},
    KeySpec{.name = "xor_mask", .kind = VK::kUInt, .umin = 1, .umax = 255},
};
constexpr Schema kCorruptSchema{"corrupt params", kCorruptParams};
constexpr std::array kDelayParams{
    KeySpec{.name = "delay_ns", .kind = VK::kUInt, .required = true, .umin = 1},
    KeySpec{.name = "jitter_ns", .kind = VK::kUInt},
};
constexpr Schema kDelaySchema{"delay params", kDelayParams};
constexpr std::array kSwitchParams{KeySpec{.name = "switch", .kind = VK::kString, .required = true}};
constexpr Schema kSwitchSchema{"switch_down params", kSwitchParams};
constexpr std::array kPortParams{KeySpec{.name = "port", .kind = VK::kUInt, .required = true, .umin = 1, .umax = 32}};
constexpr Schema kPortSchema{"port_down params", kPortParams};

constexpr std::array kImpairmentKinds{
    ImpairmentKind{ImpairKind::kDrop, &kNoParamsSchema, "drop the selected packets"},
    ImpairmentKind{ImpairKind::kTrim, &kTrimSchema, "trim trimmable data to `bytes` (default 256) and re-mark it DSCP_TRIMMED (W13; config.dscp, default 11)"},
    ImpairmentKind{ImpairKind::kReorder, &kReorderSchema, "hold each selected packet back by `depth` packets"},
    ImpairmentKind{ImpairKind::kDuplicate, &kDuplicateSchema, "deliver `copies` extra copies"},
    ImpairmentKind{ImpairKind::kCorrupt, &kCorruptSchema, "flip `xor_mask` bits at byte `offset`"},
    ImpairmentKind{ImpairKind::kDelay, &kDelaySchema, "add `delay_ns` (+/- `jitter_ns`)"},
    ImpairmentKind{ImpairKind::kLinkDown, &kNoParamsSchema, "take select.link or select.plane down"},
    ImpairmentKind{ImpairKind::kLinkUp, &kNoParamsSchema, "bring select.link or select.plane back up"},
    ImpairmentKind{ImpairKind::kSwitchDown, &kSwitchSchema, "fail a whole switch"},
    ImpairmentKind{ImpairKind::kPortDown, &kPortSchema, "fail a DUT port (its plane)"},
    ImpairmentKind{ImpairKind::kBlackhole, &kNoParamsSchema, "silently drop every selected packet, link stays up"},
    ImpairmentKind{ImpairKind::kMarkCe, &kNoParamsSchema, "set ECN CE on selected ECN-capable packets (a congested switch)"},
};

StepBody build_impair(const YAML::Node& b, const std::string& path, Validator& v) {
  ImpairStep s;
  const auto kind = read_enum<ImpairKind>(b, "kind", kImpairKindNames);
  s.kind = kind.value_or(ImpairKind::kDrop);
  s.at_ns = read_uint(b, "at_ns").value_or(0);
  const auto sel = find_key(b, "select");
  if (sel) {
    ImpairSelect& x = s.select;
    for (auto e : read_uint_list(*sel, "ev")) x.evs.push_back(static_cast<std::uint32_t>(e));
    x.plane = read_uint_as<std::uint32_t>(*sel, "plane");
    const auto psn = read_uint_list(*sel, "psn_range");
    if (psn.size() == 2) {
      x.psn_range = std::pair{static_cast<std::uint32_t>(psn[0]), static_cast<std::uint32_t>(psn[1])};
      if (psn[0] > psn[1]) v.error(key_loc(*sel, "psn_range"), path + ".select.psn_range", "first PSN is after the last");
    }
    if (find_key(*sel, "opcode")) x.opcode = opcode_of(*sel);
    x.rtx = read_bool(*sel, "rtx");
    const auto tw = read_uint_list(*sel, "time_window");
    if (tw.size() == 2) {
      x.time_window = std::pair{tw[0], tw[1]};
      if (tw[0] >= tw[1]) v.error(key_loc(*sel, "time_window"), path + ".select.time_window", "window start must be before its end");
    }
    x.probability = read_number(*sel, "probability").value_or(1.0);
    x.link = read_string(*sel, "link").value_or("");
  }
  if (!kind) return s;
  const ImpairmentKind& info = impairment_kind(*kind);
  if (const auto p = find_key(b, "params")) {
    if (v.map(*p, *info.params, path + ".params", key_loc(b, "params"))) {
      ImpairParams& q = s.params;
      q.bytes = read_uint_as<std::uint32_t>(*p, "bytes");
      q.depth = read_uint_as<std::uint32_t>(*p, "depth");
      q.delay_ns = read_uint(*p, "delay_ns");
      q.jitter_ns = read_uint(*p, "jitter_ns");
      q.copies = read_uint_as<std::uint32_t>(*p, "copies");
      q.offset = read_uint_as<std::uint32_t>(*p, "offset");
      q.xor_mask = read_uint_as<std::uint8_t>(*p, "xor_mask");
      q.target = read_string(*p, "switch").value_or("");
      q.port = read_uint_as<std::uint32_t>(*p, "port");
    }
  } else {
    for (const auto& k : info.params->keys) {
      if (k.required) {
        v.error(key_loc(b, "kind"), path, "impairment '" + std::string(to_string(*kind)) + "' needs params." + std::string(k.name));
      }
    }
  }
  const bool link_kind = *kind == ImpairKind::kLinkDown || *kind == ImpairKind::kLinkUp;
  if (link_kind && s.select.link.empty() && !s.select.plane) {
    v.error(key_loc(b, "kind"), path, "impairment '" + std::string(to_string(*kind)) + "' needs select.link or select.plane");
  }
  return s;
}

// ------------------------------------------------------------------ control
constexpr std::array kControlKeys{
    KeySpec{.name = "at_ns", .kind = VK::kUInt, .required = true},
    KeySpec{.name = "op", .kind = VK::kEnum, .required = true, .names = kControlOpNames},
    KeySpec{.name = "ev", .kind = VK::kUInt, .umax = k32, .help = "EV index"},
    KeySpec{.name = "port", .kind = VK::kUInt, .umin = 1, .umax = 32},
    KeySpec{.name = "tc", .kind = VK::kUInt, .umax = 63, .help = "probe_ev: DSCP of the request (req_tc)"},
    KeySpec{.name = "expect", .kind = VK::kEnum, .names = kControlResultNames, .help = "ok or an errno name"},
    KeySpec{.name = "profile", .kind = VK::kCustom, .help = "ev_profile_set / cc_profile_set: attributes to set"},
    KeySpec{.name = "evs", .kind = VK::kCustom, .help = "replace_ev: the new EVs"},
    KeySpec{.name = "from", .kind = VK::kCustom, .help = "replace_ev: the EV replaced (default UNPOPULATED)"},
    KeySpec{.name = "all_copies", .kind = VK::kBool, .help = "replace_ev: replace every copy of 'from'"},
};
constexpr Schema kControlSchema{"control step", kControlKeys};

StepBody build_control(const YAML::Node& b, const std::string& path, Validator& v) {
  ControlStep c;
  c.at_ns = read_uint(b, "at_ns").value_or(0);
  const auto op = read_enum<ControlOp>(b, "op", kControlOpNames);
  c.op = op.value_or(ControlOp::kDenyEv);
  c.ev = read_uint_as<std::uint32_t>(b, "ev");
  c.port = read_uint_as<std::uint32_t>(b, "port");
  c.tc = read_uint_as<std::uint8_t>(b, "tc");
  c.expect = read_enum<ControlResult>(b, "expect", kControlResultNames).value_or(ControlResult::kOk);
  if (!op) return c;
  read_profile_op(b, c, path, v);  // profile_ops.hpp: ev_profile_set, cc_profile_set, replace_ev
  const bool needs_ev = *op == ControlOp::kDenyEv || *op == ControlOp::kAllowEv || *op == ControlOp::kProbeEv;
  const bool needs_port = *op == ControlOp::kPortAdminDown || *op == ControlOp::kPortAdminUp;
  if (needs_ev && !find_key(b, "ev")) v.error(key_loc(b, "op"), path, "op '" + std::string(to_string(*op)) + "' needs 'ev'");
  if (needs_port && !find_key(b, "port")) v.error(key_loc(b, "op"), path, "op '" + std::string(to_string(*op)) + "' needs 'port'");
  if (*op != ControlOp::kProbeEv && find_key(b, "tc")) {
    v.error(key_loc(b, "tc"), path + ".tc", "'tc' (the probe's DSCP) applies only to op probe_ev");
  }
  return c;
}

constexpr std::array kKinds{
    StimulusKind{"traffic", &kTrafficSchema, build_traffic, "RDMA WRITE traffic on one QP"},
    StimulusKind{"inject", &kInjectSchema, build_inject, "one crafted frame sent to the DUT"},
    StimulusKind{"expect", &kExpectSchema, build_expect, "a frame the DUT must (not) send in a window"},
    StimulusKind{"impair", &kImpairSchema, build_impair, "a fabric impairment"},
    StimulusKind{"control", &kControlSchema, build_control, "a control-plane call on the DUT"},
};

// StimulusStep::kind() indexes this table by the variant index.
static_assert(kKinds.size() == std::variant_size_v<StepBody>);

}  // namespace

std::span<const StimulusKind> stimulus_kinds() { return kKinds; }

const StimulusKind* find_stimulus_kind(std::string_view name) {
  for (const auto& k : kKinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::span<const ImpairmentKind> impairment_kinds() { return kImpairmentKinds; }

const ImpairmentKind& impairment_kind(ImpairKind kind) {
  for (const auto& k : kImpairmentKinds) {
    if (k.kind == kind) return k;
  }
  return kImpairmentKinds[0];
}

std::string_view StimulusStep::kind() const { return kKinds[body.index()].name; }

}  // namespace mrc::harness
