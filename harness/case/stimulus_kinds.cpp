#include "harness/case/stimulus_kinds.hpp"

#include <array>

#include "harness/case/field_match.hpp"
#include "harness/case/frame_fields.hpp"
#include "harness/case/limits.hpp"
#include "harness/case/profile_ops.hpp"
#include "harness/case/stimulus_inject.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;
constexpr std::uint64_t k24 = 0xFFFFFF;
constexpr std::uint64_t k32 = 0xFFFFFFFF;

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
    KeySpec{.name = "start_ns", .kind = VK::kTime},
};
constexpr Schema kTrafficSchema{"traffic step", kTrafficKeys, kTrafficGroups};

StepBody build_traffic(const YAML::Node& b, const std::string&, Validator& v) {
  TrafficStep t;
  t.qp = read_uint_as<std::uint32_t>(b, "qp").value_or(0);
  t.writes = read_uint_as<std::uint32_t>(b, "writes").value_or(1);
  t.size = read_uint(b, "size").value_or(0);
  t.with_imm = read_bool(b, "with_imm").value_or(false);
  t.window = read_uint_as<std::uint32_t>(b, "window");
  t.rate_gbps = read_number(b, "rate_gbps");
  t.start_ns = read_time(b, "start_ns", v).value_or(0);
  return t;
}

// ------------------------------------------------------------------ expect
constexpr std::array kExpectKeys{
    KeySpec{.name = "within_ns", .kind = VK::kTime, .required = true, .umin = 1},
    KeySpec{.name = "tolerance_ns", .kind = VK::kTime},
    KeySpec{.name = "tolerance_pct", .kind = VK::kNumber, .dmin = 0, .dmax = 100},
    KeySpec{.name = "port", .kind = VK::kUInt, .umin = 1, .umax = 32},
    KeySpec{.name = "match", .kind = VK::kFieldMap, .required = true},
    KeySpec{.name = "absent", .kind = VK::kBool, .help = "no matching frame may appear"},
    KeySpec{.name = "count", .kind = VK::kUInt, .umin = 1, .umax = 1'000'000},
    KeySpec{.name = "grace_ns", .kind = VK::kTime, .umax = 1'000'000'000,
            .help = "with absent: frames already queued may still leave this long after the previous step"},
};
constexpr Schema kExpectSchema{"expect step", kExpectKeys};

StepBody build_expect(const YAML::Node& b, const std::string& path, Validator& v) {
  ExpectStep e;
  e.within_ns = read_time(b, "within_ns", v).value_or(0);
  e.tolerance_ns = read_time(b, "tolerance_ns", v).value_or(0);
  e.tolerance_pct = read_number(b, "tolerance_pct").value_or(0);
  e.port = read_uint_as<std::uint32_t>(b, "port");
  e.match = build_matches(find_key(b, "match").value_or(YAML::Node{}));
  e.absent = read_bool(b, "absent").value_or(false);
  e.count = read_uint_as<std::uint32_t>(b, "count").value_or(1);
  e.grace_ns = read_time(b, "grace_ns", v).value_or(0);
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
    KeySpec{.name = "time_window", .kind = VK::kList, .item = VK::kTime, .min_items = 2, .max_items = 2},
    KeySpec{.name = "probability", .kind = VK::kNumber, .dmin = 0, .dmax = 1, .dmin_open = true},
    KeySpec{.name = "link", .kind = VK::kString, .help = "testbed link name"},
};

}  // namespace

// Shared with the inject step's `after_packet` (stimulus_inject.cpp).
constexpr Schema kImpairSelectSchema{"select", kSelectKeys};

ImpairSelect read_select(const YAML::Node& sel, const std::string& path, Validator& v) {
  ImpairSelect x;
  for (auto e : read_uint_list(sel, "ev")) x.evs.push_back(static_cast<std::uint32_t>(e));
  x.plane = read_uint_as<std::uint32_t>(sel, "plane");
  const auto psn = read_uint_list(sel, "psn_range");
  if (psn.size() == 2) {
    x.psn_range = std::pair{static_cast<std::uint32_t>(psn[0]), static_cast<std::uint32_t>(psn[1])};
    if (psn[0] > psn[1]) v.error(key_loc(sel, "psn_range"), path + ".psn_range", "first PSN is after the last");
  }
  if (find_key(sel, "opcode")) x.opcode = opcode_of(sel);
  x.rtx = read_bool(sel, "rtx");
  const auto tw = read_time_list(sel, "time_window", v);
  if (tw.size() == 2) {
    x.time_window = std::pair{tw[0], tw[1]};
    if (tw[0] >= tw[1]) v.error(key_loc(sel, "time_window"), path + ".time_window", "window start must be before its end");
  }
  x.probability = read_number(sel, "probability").value_or(1.0);
  x.link = read_string(sel, "link").value_or("");
  return x;
}

namespace {

constexpr std::array kImpairKeys{
    KeySpec{.name = "kind", .kind = VK::kEnum, .required = true, .names = kImpairKindNames},
    KeySpec{.name = "select", .kind = VK::kMap, .schema = &kImpairSelectSchema},
    KeySpec{.name = "at_ns", .kind = VK::kTime},
    KeySpec{.name = "params", .kind = VK::kCustom, .help = "keys depend on kind"},
};
constexpr Schema kImpairSchema{"impair step", kImpairKeys};

constexpr std::array<KeySpec, 0> kNoParams{};
constexpr Schema kNoParamsSchema{"this impairment kind takes no params", kNoParams};
constexpr std::array kTrimParams{KeySpec{.name = "bytes", .kind = VK::kUInt, .umin = 64, .umax = 9216}};
constexpr Schema kTrimSchema{"trim params", kTrimParams};
constexpr std::array kReorderParams{
    KeySpec{.name = "depth", .kind = VK::kUInt, .required = true, .umin = 1, .umax = 4096},
    KeySpec{.name = "delay_ns", .kind = VK::kTime},
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
    KeySpec{.name = "delay_ns", .kind = VK::kTime, .required = true, .umin = 1},
    KeySpec{.name = "jitter_ns", .kind = VK::kTime},
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
  s.at_ns = read_time(b, "at_ns", v).value_or(0);
  if (const auto sel = find_key(b, "select")) s.select = read_select(*sel, path + ".select", v);
  if (!kind) return s;
  const ImpairmentKind& info = impairment_kind(*kind);
  if (const auto p = find_key(b, "params")) {
    if (v.map(*p, *info.params, path + ".params", key_loc(b, "params"))) {
      ImpairParams& q = s.params;
      q.bytes = read_uint_as<std::uint32_t>(*p, "bytes");
      q.depth = read_uint_as<std::uint32_t>(*p, "depth");
      q.delay_ns = read_time(*p, "delay_ns", v);
      q.jitter_ns = read_time(*p, "jitter_ns", v);
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
    KeySpec{.name = "at_ns", .kind = VK::kTime, .required = true},
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
  c.at_ns = read_time(b, "at_ns", v).value_or(0);
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
