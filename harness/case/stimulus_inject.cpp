// The `inject` stimulus step: its schema (the frame's headers, payload, ICRC and truncation) and
// its build function, which checks what the schema cannot (each header with an opcode that carries
// it) and makes the FrameSpec. stimulus_kinds.cpp lists it with the other step kinds.
#include "harness/case/stimulus_inject.hpp"

#include <array>

#include "harness/case/field_match.hpp"
#include "harness/case/frame_fields.hpp"
#include "harness/case/limits.hpp"
#include "harness/case/stimulus_kinds.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;
constexpr std::uint64_t k24 = 0xFFFFFF;
constexpr std::uint64_t k32 = 0xFFFFFFFF;
// The MRC WRITE opcodes, write_first .. write_only_imm (kOpcodeNames; W3).
constexpr std::uint8_t kWriteFirstOpcode = 0xC6;
constexpr std::uint8_t kWriteOnlyImmOpcode = 0xCB;

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
    KeySpec{.name = "at_ns", .kind = VK::kTime},
    KeySpec{.name = "after_packet", .kind = VK::kMap, .schema = &kImpairSelectSchema,
            .help = "instead of at_ns: sent delay_ns after the first packet of the DUT's this selects"},
    KeySpec{.name = "delay_ns", .kind = VK::kTime, .help = "with after_packet: the wait after that packet"},
    KeySpec{.name = "port", .kind = VK::kUInt, .umin = 1, .umax = 32},
    KeySpec{.name = "frame", .kind = VK::kMap, .required = true, .schema = &kFrameSchema},
};
constexpr std::array<std::string_view, 2> kAtOrAfter{"at_ns", "after_packet"};
constexpr std::array kInjectGroups{KeyGroup{kAtOrAfter, true}};

}  // namespace

constexpr Schema kInjectSchema{"inject step", kInjectKeys, kInjectGroups};

std::uint8_t opcode_of(const YAML::Node& frame) {
  const auto s = read_string(frame, "opcode");
  if (!s) return 0;
  if (const auto n = opcode_by_name(*s)) return *n;
  const auto u = read_uint(frame, "opcode");
  return u && *u <= 255 ? static_cast<std::uint8_t>(*u) : 0;
}

namespace {


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

}  // namespace

StepBody build_inject(const YAML::Node& b, const std::string& path, Validator& v) {
  InjectStep s;
  s.at_ns = read_time(b, "at_ns", v).value_or(0);
  s.port = read_uint_as<std::uint32_t>(b, "port").value_or(1);
  if (const auto after = find_key(b, "after_packet")) {
    s.after_packet = read_select(*after, path + ".after_packet", v);
    s.delay_ns = read_time(b, "delay_ns", v).value_or(0);
    // It fires once, on the DUT's own packet at its first hop: a link or a chance would make the
    // injection depend on where or whether the harness looked.
    for (const char* key : {"link", "probability"}) {
      if (find_key(*after, key)) {
        v.error(key_loc(*after, key), path + ".after_packet." + key,
                std::string("'") + key + "' cannot time an injection: it follows the first packet the DUT sends that the rest selects");
      }
    }
  } else if (find_key(b, "delay_ns")) {
    v.error(key_loc(b, "delay_ns"), path + ".delay_ns", "'delay_ns' times an injection after its 'after_packet'; with 'at_ns' leave it out");
  }
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

}  // namespace mrc::harness
