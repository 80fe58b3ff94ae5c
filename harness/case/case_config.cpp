#include <algorithm>
#include <array>
#include <bit>

#include "harness/case/case_parts.hpp"

namespace mrc::harness::detail {
namespace {

using VK = ValueKind;
constexpr std::uint64_t k32 = 0xFFFFFFFF;

constexpr std::array kEvFormatKeys{
    KeySpec{.name = "mode", .kind = VK::kEnum, .required = true, .names = kEvFormatModeNames},
    KeySpec{.name = "widths", .kind = VK::kList, .required = true, .umin = 1, .umax = 128, .item = VK::kUInt,
            .min_items = 1, .max_items = 32, .help = "format-field widths in bits"},
};
constexpr Schema kEvFormatSchema{"ev_format", kEvFormatKeys};

constexpr std::array kEvFieldKeys{
    KeySpec{.name = "width", .kind = VK::kUInt, .required = true, .umin = 1, .umax = 32},
    KeySpec{.name = "init", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "min", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "max", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "mask", .kind = VK::kUInt, .umax = k32},
};
constexpr Schema kEvFieldSchema{"EV profile field", kEvFieldKeys};

constexpr std::array kEvEntryKeys{
    KeySpec{.name = "value", .kind = VK::kHexBytes, .required = true, .min_items = 1, .max_items = 32},
    KeySpec{.name = "port", .kind = VK::kUInt, .required = true, .umin = 1, .umax = 32},
};
constexpr Schema kEvEntrySchema{"EV entry", kEvEntryKeys};

constexpr std::array kGenerateKeys{
    KeySpec{.name = "seed", .kind = VK::kUInt},
    KeySpec{.name = "count", .kind = VK::kUInt, .required = true, .umin = 1, .umax = 65536},
};
constexpr Schema kGenerateSchema{"generate", kGenerateKeys};

constexpr std::array<std::string_view, 2> kEvsOrGenerate{"evs", "generate"};
constexpr std::array kEvProfileGroups{KeyGroup{kEvsOrGenerate}};
constexpr std::array kEvProfileKeys{
    KeySpec{.name = "mode", .kind = VK::kEnum, .required = true, .names = kEvModeNames},
    KeySpec{.name = "fields", .kind = VK::kList, .schema = &kEvFieldSchema, .item = VK::kMap, .max_items = 32},
    KeySpec{.name = "evs", .kind = VK::kList, .schema = &kEvEntrySchema, .item = VK::kMap, .min_items = 1,
            .max_items = 65536},
    KeySpec{.name = "generate", .kind = VK::kMap, .schema = &kGenerateSchema},
    KeySpec{.name = "ev_min_active", .kind = VK::kUInt, .umax = 65536},
    KeySpec{.name = "denied", .kind = VK::kList, .umax = 65535, .item = VK::kUInt, .scalar_as_list = true,
            .help = "EV indices set DENIED before traffic"},
    KeySpec{.name = "event_mask", .kind = VK::kList, .names = kEvStateNames, .item = VK::kEnum, .scalar_as_list = true,
            .help = "ev_event_mask: good, assumed_bad (default both)"},
};
constexpr Schema kEvProfileSchema{"ev_profile", kEvProfileKeys, kEvProfileGroups};

constexpr std::array kNsccKeys{
    KeySpec{.name = "algorithm", .kind = VK::kString},
    KeySpec{.name = "disable_qa", .kind = VK::kBool},
    KeySpec{.name = "adjust_bytes_threshold", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "adjust_period_threshold", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "base_rtt", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "eta", .kind = VK::kNumber, .dmin = 0, .dmax = 1e6},
    KeySpec{.name = "fi", .kind = VK::kNumber, .dmin = 0, .dmax = 1e6},
    KeySpec{.name = "fi_scale", .kind = VK::kNumber, .dmin = 0, .dmax = 1e6},
    KeySpec{.name = "gamma", .kind = VK::kNumber, .dmin = 0, .dmax = 1},
    KeySpec{.name = "max_md_jump", .kind = VK::kNumber, .dmin = 0, .dmax = 1},
    KeySpec{.name = "max_cwnd", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "qa_gate", .kind = VK::kUInt, .umax = 255},
    KeySpec{.name = "qa_threshold", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "target_delay", .kind = VK::kUInt, .umax = k32},
};
constexpr Schema kNsccSchema{"cc_profile", kNsccKeys};

constexpr std::array kRetryKeys{
    KeySpec{.name = "linear", .kind = VK::kUInt, .umax = 7},
    KeySpec{.name = "exp", .kind = VK::kUInt, .umax = 25, .help = "25 = never give up"},
};
constexpr Schema kRetrySchema{"retry", kRetryKeys};

constexpr std::array kQpKeys{
    KeySpec{.name = "count", .kind = VK::kUInt, .umax = 1024,
            .help = "0 = no QP: only endpoint operations (connectionless probes)"},
    KeySpec{.name = "mtu", .kind = VK::kUInt, .umin = 256, .umax = 4096},
    KeySpec{.name = "mpr", .kind = VK::kUInt, .umin = 1, .umax = 255, .help = "units of 128 PSNs"},
    KeySpec{.name = "mpr_dest", .kind = VK::kUInt, .umin = 1, .umax = 255},
    KeySpec{.name = "max_wimm", .kind = VK::kUInt, .umax = 0xFFFF},
    KeySpec{.name = "max_wimm_dest", .kind = VK::kUInt, .umax = 0xFFFF},
    KeySpec{.name = "timeout", .kind = VK::kUInt, .umax = kMaxQpTimeout, .help = "1.024 us x 2^timeout"},
    KeySpec{.name = "first_psn", .kind = VK::kUInt, .umax = 0xFFFFFF, .help = "starting PSN of every QP (24 bits)"},
    KeySpec{.name = "retry", .kind = VK::kMap, .schema = &kRetrySchema},
    KeySpec{.name = "caps", .kind = VK::kList, .names = kQpCapNames, .item = VK::kEnum, .scalar_as_list = true},
};
constexpr Schema kQpSchema{"qp", kQpKeys};

constexpr std::array kDeviceKeys{
    KeySpec{.name = "caps_off", .kind = VK::kList, .names = kCapabilityNames, .item = VK::kEnum,
            .scalar_as_list = true, .help = "DUT capabilities turned off for this case"},
    KeySpec{.name = "event_queue_depth", .kind = VK::kUInt, .umin = 1, .umax = 1u << 20,
            .help = "EV events the DUT holds before it drops"},
    KeySpec{.name = "event_poll_ns", .kind = VK::kTime, .umin = 1, .umax = 1'000'000'000,
            .help = "how often the harness reads EV events"},
};
constexpr Schema kDeviceSchema{"device", kDeviceKeys};

// W13: the six traffic classes' DSCP values are configuration, not fixed; unset = the reference's.
constexpr std::array kDscpKeys{
    KeySpec{.name = "trimmable", .kind = VK::kUInt, .umax = 63, .help = "DSCP_TRIMMABLE: first transmissions of data (default 10)"},
    KeySpec{.name = "trimmable_retx", .kind = VK::kUInt, .umax = 63, .help = "DSCP_TRIMMABLE_RETX: retransmissions (default 12)"},
    KeySpec{.name = "no_trim", .kind = VK::kUInt, .umax = 63, .help = "DSCP_NO_TRIM: data the fabric never trims (default 8)"},
    KeySpec{.name = "trimmed", .kind = VK::kUInt, .umax = 63, .help = "DSCP_TRIMMED: a trimming switch's mark (default 11)"},
    KeySpec{.name = "trimmed_lasthop", .kind = VK::kUInt, .umax = 63, .help = "DSCP_TRIMMED_LASTHOP: the last hop's mark (default 13)"},
    KeySpec{.name = "control", .kind = VK::kUInt, .umax = 63, .help = "DSCP_CONTROL: feedback and endpoint responses (default 46)"},
};
constexpr Schema kDscpSchema{"dscp", kDscpKeys};

constexpr std::array kConfigKeys{
    KeySpec{.name = "device", .kind = VK::kMap, .schema = &kDeviceSchema},
    KeySpec{.name = "dscp", .kind = VK::kMap, .schema = &kDscpSchema},
    KeySpec{.name = "ev_format", .kind = VK::kMap, .schema = &kEvFormatSchema},
    KeySpec{.name = "ev_profile", .kind = VK::kMap, .schema = &kEvProfileSchema},
    KeySpec{.name = "cc_profile", .kind = VK::kMap, .schema = &kNsccSchema},
    KeySpec{.name = "qp", .kind = VK::kMap, .schema = &kQpSchema},
};
constexpr Schema kConfigSchema{"config", kConfigKeys};

constexpr std::array kTestbedKeys{
    KeySpec{.name = "preset", .kind = VK::kEnum, .names = kTestbedPresets},
    KeySpec{.name = "file", .kind = VK::kString, .help = "testbed YAML, relative to the case file"},
    KeySpec{.name = "planes", .kind = VK::kUInt, .umin = 1, .umax = 32},
    KeySpec{.name = "hosts", .kind = VK::kUInt, .umin = 2, .umax = 4096},
    KeySpec{.name = "link_gbps", .kind = VK::kUInt, .umin = 1, .umax = 1600},
    KeySpec{.name = "mtu", .kind = VK::kUInt, .umin = 576, .umax = 9216},
    KeySpec{.name = "trim_bytes", .kind = VK::kUInt, .umin = 64, .umax = 9216},
    KeySpec{.name = "overrides", .kind = VK::kScalarMap, .help = "testbed-layer knobs"},
};
constexpr std::array<std::string_view, 2> kPresetOrFile{"preset", "file"};
constexpr std::array kTestbedGroups{KeyGroup{kPresetOrFile}};
constexpr Schema kTestbedSchema{"testbed", kTestbedKeys, kTestbedGroups};

std::uint64_t ones(std::uint32_t bits) { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

// The host API's EV-profile validity rules (mrc-wire-model.md §1.5).
void check_ev_fields(const YAML::Node& prof, const EvProfileConfig& p, const std::optional<EvFormatConfig>& fmt,
                     Validator& v) {
  const std::string path = "config.ev_profile.fields";
  const auto fields_node = find_key(prof, "fields");
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < p.fields.size(); ++i) {
    const auto& f = p.fields[i];
    const YAML::Node n = nth(*fields_node, i);
    const std::string fp = index_path(path, i);
    total += f.width;
    auto at = [&](std::string_view key) { return key_loc(n, key); };
    if (f.init > ones(f.width)) v.error(at("init"), join_path(fp, "init"), "init does not fit in width " + std::to_string(f.width));
    if (f.mask > ones(f.width)) v.error(at("mask"), join_path(fp, "mask"), "mask has bits above width " + std::to_string(f.width));
    if (f.min > f.max) v.error(at("min"), join_path(fp, "min"), "min is larger than max");
    const int pop = std::popcount(f.mask);
    if (f.max > ones(static_cast<std::uint32_t>(pop))) {
      v.error(at("max"), join_path(fp, "max"),
              "max must be below 2^popcount(mask) = " + std::to_string(ones(static_cast<std::uint32_t>(pop)) + 1));
    }
    if (fmt && i < fmt->widths.size() && f.width > fmt->widths[i]) {
      v.error(at("width"), join_path(fp, "width"),
              "field is wider than format field " + std::to_string(i) + " (" + std::to_string(fmt->widths[i]) + " bits)");
    }
  }
  if (!fmt || !fields_node) return;
  if (p.fields.size() > fmt->widths.size()) {
    v.error(key_loc(prof, "fields"), path,
            std::to_string(p.fields.size()) + " fields but ev_format has only " + std::to_string(fmt->widths.size()));
  }
  std::uint32_t fmt_total = 0;
  for (auto w : fmt->widths) fmt_total += w;
  if (total > fmt_total) {
    v.error(key_loc(prof, "fields"), path,
            "field widths add up to " + std::to_string(total) + " bits, more than ev_format's " + std::to_string(fmt_total));
  }
}

// An explicit EV stores only the masked bits; any bit past them would be silently ignored.
void check_ev_values(const YAML::Node& prof, const EvProfileConfig& p, Validator& v) {
  if (p.fields.empty()) return;
  std::size_t used = 0;
  for (const auto& f : p.fields) used += static_cast<std::size_t>(std::popcount(f.mask));
  const auto evs = find_key(prof, "evs");
  for (std::size_t i = 0; i < p.evs.size(); ++i) {
    const auto& val = p.evs[i].value;
    for (std::size_t bit = used; bit < val.size() * 8; ++bit) {
      if ((val[bit / 8] >> (7 - bit % 8)) & 1u) {
        const YAML::Node n = nth(*evs, i);
        v.error(key_loc(n, "value"), index_path("config.ev_profile.evs", i) + ".value",
                "EV has bits set past the " + std::to_string(used) + " bits the fields' masks consume");
        break;
      }
    }
  }
}

EvProfileConfig build_ev_profile(const YAML::Node& prof, const std::optional<EvFormatConfig>& fmt, bool shape_ok,
                                 Validator& v) {
  EvProfileConfig p;
  p.mode = read_enum<EvMode>(prof, "mode", kEvModeNames).value_or(EvMode::kExplicit);
  if (const auto fields = find_key(prof, "fields"); fields && fields->IsSequence()) {
    for (auto it = fields->begin(); it != fields->end(); ++it) {
      EvFieldConfig f;
      f.width = read_uint_as<std::uint32_t>(*it, "width").value_or(0);
      f.init = read_uint_as<std::uint32_t>(*it, "init").value_or(0);
      f.min = read_uint_as<std::uint32_t>(*it, "min").value_or(0);
      f.max = read_uint_as<std::uint32_t>(*it, "max").value_or(0);
      f.mask = read_uint_as<std::uint32_t>(*it, "mask").value_or(0);
      p.fields.push_back(f);
    }
  }
  if (const auto evs = find_key(prof, "evs"); evs && evs->IsSequence()) {
    for (auto it = evs->begin(); it != evs->end(); ++it) {
      p.evs.push_back(EvEntryConfig{read_hex(*it, "value").value_or(std::vector<std::uint8_t>{}),
                                    read_uint_as<std::uint8_t>(*it, "port").value_or(1)});
    }
  }
  if (const auto g = find_key(prof, "generate")) {
    p.generate = EvGenerateConfig{read_uint(*g, "seed").value_or(1), read_uint_as<std::uint32_t>(*g, "count").value_or(0)};
  }
  p.ev_min_active = read_uint_as<std::uint32_t>(prof, "ev_min_active").value_or(0);
  for (auto d : read_uint_list(prof, "denied")) p.denied.push_back(static_cast<std::uint32_t>(d));
  if (find_key(prof, "event_mask")) {
    p.event_mask = 0;
    for (const auto& name : read_string_list(prof, "event_mask")) {
      if (const auto st = parse_enum<EvStateName>(kEvStateNames, name)) p.event_mask |= ev_state_bit(*st);
    }
    if ((p.event_mask & ~(ev_state_bit(EvStateName::kGood) | ev_state_bit(EvStateName::kAssumedBad))) != 0) {
      v.error(key_loc(prof, "event_mask"), "config.ev_profile.event_mask", "only good and assumed_bad can be monitored");
    }
  }

  // The rules below compare values; on a badly shaped config they would only echo its errors.
  if (!shape_ok) return p;
  const std::string path = "config.ev_profile";
  const SourceLoc mode_at = key_loc(prof, "mode");
  switch (p.mode) {
    case EvMode::kAuto:
      for (std::string_view k : {"fields", "evs", "generate", "denied"}) {
        if (find_key(prof, k)) v.error(key_loc(prof, k), path, "'" + std::string(k) + "' has no meaning in auto mode (the DUT manages paths)");
      }
      break;
    case EvMode::kExplicit:
      if (!find_key(prof, "evs") && !find_key(prof, "generate")) v.error(mode_at, path, "explicit mode needs 'evs' or 'generate'");
      if (!find_key(prof, "fields")) v.error(mode_at, path, "explicit mode needs 'fields' to expand the EVs");
      break;
    case EvMode::kGenerated:
      if (find_key(prof, "evs")) v.error(key_loc(prof, "evs"), path, "'evs' has no meaning in generated mode (the DUT draws EVs)");
      if (!find_key(prof, "fields")) v.error(mode_at, path, "generated mode needs 'fields' with min/max limits");
      if (!find_key(prof, "generate")) v.error(mode_at, path, "generated mode needs 'generate: {count}'");
      break;
  }
  check_ev_fields(prof, p, fmt, v);
  check_ev_values(prof, p, v);
  const std::size_t count = p.ev_count();
  if (count > 0 && p.ev_min_active > count) {
    v.error(key_loc(prof, "ev_min_active"), join_path(path, "ev_min_active"),
            "ev_min_active " + std::to_string(p.ev_min_active) + " exceeds the " + std::to_string(count) + " EVs");
  }
  for (std::size_t i = 0; i < p.denied.size(); ++i) {
    if (count > 0 && p.denied[i] >= count) {
      v.error(key_loc(prof, "denied"), join_path(path, "denied"),
              "EV index " + std::to_string(p.denied[i]) + " is out of range (" + std::to_string(count) + " EVs)");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (p.denied[j] == p.denied[i]) {
        v.error(key_loc(prof, "denied"), join_path(path, "denied"), "EV index " + std::to_string(p.denied[i]) + " listed twice");
      }
    }
  }
  return p;
}

}  // namespace

CaseConfig build_config(const YAML::Node& root, Validator& v) {
  CaseConfig c;
  const auto cfg = find_key(root, "config");
  if (!cfg) return c;
  const bool shape_ok = v.map(*cfg, kConfigSchema, "config", key_loc(root, "config"));
  if (!cfg->IsMap()) return c;
  if (const auto f = find_key(*cfg, "ev_format"); f && f->IsMap()) {
    EvFormatConfig fmt;
    fmt.mode = read_enum<EvFormatMode>(*f, "mode", kEvFormatModeNames).value_or(EvFormatMode::kStev);
    std::uint32_t total = 0;
    for (auto w : read_uint_list(*f, "widths")) {
      fmt.widths.push_back(static_cast<std::uint32_t>(w));
      total += static_cast<std::uint32_t>(w);
    }
    // W1/W2 — how many EV bits each placement carries.
    const std::uint32_t limit = fmt.mode == EvFormatMode::kStev ? 32 : fmt.mode == EvFormatMode::kUdp ? 16 : 256;
    if (shape_ok && total > limit) {
      v.error(key_loc(*f, "widths"), "config.ev_format.widths",
              "widths add up to " + std::to_string(total) + " bits; " + std::string(to_string(fmt.mode)) +
                  " mode carries at most " + std::to_string(limit));
    }
    c.ev_format = fmt;
  }
  if (const auto p = find_key(*cfg, "ev_profile"); p && p->IsMap()) c.ev_profile = build_ev_profile(*p, c.ev_format, shape_ok, v);
  if (const auto d = find_key(*cfg, "device"); d && d->IsMap()) {
    for (const auto& name : read_string_list(*d, "caps_off")) {
      if (const auto cap = parse_enum<Capability>(kCapabilityNames, name)) c.device.caps_off.push_back(*cap);
    }
    c.device.event_queue_depth = read_uint_as<std::uint32_t>(*d, "event_queue_depth").value_or(0);
    c.device.event_poll_ns = read_time(*d, "event_poll_ns", v).value_or(0);
  }
  if (const auto d = find_key(*cfg, "dscp"); d && d->IsMap()) {
    c.dscp.trimmable = read_uint_as<std::uint8_t>(*d, "trimmable");
    c.dscp.trimmable_retx = read_uint_as<std::uint8_t>(*d, "trimmable_retx");
    c.dscp.no_trim = read_uint_as<std::uint8_t>(*d, "no_trim");
    c.dscp.trimmed = read_uint_as<std::uint8_t>(*d, "trimmed");
    c.dscp.trimmed_lasthop = read_uint_as<std::uint8_t>(*d, "trimmed_lasthop");
    c.dscp.control = read_uint_as<std::uint8_t>(*d, "control");
  }
  if (const auto n = find_key(*cfg, "cc_profile"); n && n->IsMap()) {
    NsccConfig x;
    x.algorithm = read_string(*n, "algorithm").value_or(x.algorithm);
    x.disable_qa = read_bool(*n, "disable_qa").value_or(false);
    x.adjust_bytes_threshold = read_uint_as<std::uint32_t>(*n, "adjust_bytes_threshold").value_or(0);
    x.adjust_period_threshold = read_uint_as<std::uint32_t>(*n, "adjust_period_threshold").value_or(0);
    x.base_rtt = read_uint_as<std::uint32_t>(*n, "base_rtt").value_or(0);
    x.eta = read_number(*n, "eta").value_or(0);
    x.fi = read_number(*n, "fi").value_or(0);
    x.fi_scale = read_number(*n, "fi_scale").value_or(0);
    x.gamma = read_number(*n, "gamma").value_or(0);
    x.max_md_jump = read_number(*n, "max_md_jump").value_or(0);
    x.max_cwnd = read_uint_as<std::uint32_t>(*n, "max_cwnd").value_or(0);
    x.qa_gate = read_uint_as<std::uint8_t>(*n, "qa_gate").value_or(0);
    x.qa_threshold = read_uint_as<std::uint32_t>(*n, "qa_threshold").value_or(0);
    x.target_delay = read_uint_as<std::uint32_t>(*n, "target_delay").value_or(0);
    c.cc_profile = x;
  }
  if (const auto q = find_key(*cfg, "qp"); q && q->IsMap()) {
    QpConfig& x = c.qp;
    x.count = read_uint_as<std::uint32_t>(*q, "count").value_or(x.count);
    x.mtu = read_uint_as<std::uint32_t>(*q, "mtu").value_or(x.mtu);
    if (shape_ok && !std::has_single_bit(x.mtu)) {
      v.error(loc_of(*find_key(*q, "mtu")), "config.qp.mtu", "path MTU must be 256, 512, 1024, 2048 or 4096");
    }
    x.mpr = read_uint_as<std::uint8_t>(*q, "mpr").value_or(x.mpr);
    x.mpr_dest = read_uint_as<std::uint8_t>(*q, "mpr_dest").value_or(x.mpr_dest);
    x.max_wimm = read_uint_as<std::uint16_t>(*q, "max_wimm").value_or(x.max_wimm);
    x.max_wimm_dest = read_uint_as<std::uint16_t>(*q, "max_wimm_dest").value_or(x.max_wimm_dest);
    x.timeout = read_uint_as<std::uint8_t>(*q, "timeout").value_or(x.timeout);
    x.first_psn = read_uint_as<std::uint32_t>(*q, "first_psn").value_or(x.first_psn);
    if (const auto r = find_key(*q, "retry")) {
      x.retry.linear = read_uint_as<std::uint8_t>(*r, "linear").value_or(x.retry.linear);
      x.retry.exp = read_uint_as<std::uint8_t>(*r, "exp").value_or(x.retry.exp);
    }
    for (const auto& name : read_string_list(*q, "caps")) {
      if (const auto cap = parse_enum<QpCap>(kQpCapNames, name)) x.caps.push_back(*cap);
    }
  }
  return c;
}

TestbedSpec build_testbed(const YAML::Node& root, const std::filesystem::path& case_dir, Validator& v) {
  TestbedSpec t;
  const auto n = find_key(root, "testbed");
  if (!n) {
    t.preset = "mini";
    return t;
  }
  const SourceLoc at = key_loc(root, "testbed");
  t.loc = loc_of(*n);
  if (n->IsScalar()) {
    const std::string s = n->Scalar();
    const bool path_like = s.find('/') != std::string::npos || s.ends_with(".yaml");
    if (path_like) {
      t.file = case_dir / s;
    } else if (std::find(kTestbedPresets.begin(), kTestbedPresets.end(), s) != kTestbedPresets.end()) {
      t.preset = s;
    } else {
      v.error(loc_of(*n), "testbed",
              "unknown testbed preset '" + s + "'" + did_you_mean(closest_match(s, kTestbedPresets)) +
                  " (expected mini, rack, pod, or a path to a testbed .yaml)");
    }
    return t;
  }
  if (!v.map(*n, kTestbedSchema, "testbed", at) && !n->IsMap()) return t;
  t.preset = read_string(*n, "preset").value_or("");
  if (const auto f = read_string(*n, "file")) t.file = case_dir / *f;
  if (t.preset.empty() && t.file.empty()) t.preset = "mini";
  t.planes = read_uint_as<std::uint32_t>(*n, "planes");
  t.hosts = read_uint_as<std::uint32_t>(*n, "hosts");
  t.link_gbps = read_uint_as<std::uint32_t>(*n, "link_gbps");
  t.mtu = read_uint_as<std::uint32_t>(*n, "mtu");
  t.trim_bytes = read_uint_as<std::uint32_t>(*n, "trim_bytes");
  if (const auto o = find_key(*n, "overrides"); o && o->IsMap()) {
    for (auto it = o->begin(); it != o->end(); ++it) {
      if (it->first.IsScalar() && it->second.IsScalar()) t.overrides.emplace_back(it->first.Scalar(), it->second.Scalar());
    }
  }
  return t;
}

}  // namespace mrc::harness::detail
