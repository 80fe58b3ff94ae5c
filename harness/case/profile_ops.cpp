#include "harness/case/profile_ops.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;
constexpr std::uint64_t k32 = 0xFFFFFFFF;

// Fields as the host API's uint32 attributes: any value, so invalid widths/masks can be sent.
constexpr std::array kOpFieldKeys{
    KeySpec{.name = "width", .kind = VK::kUInt, .required = true, .umax = k32},
    KeySpec{.name = "init", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "min", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "max", .kind = VK::kUInt, .umax = k32},
    KeySpec{.name = "mask", .kind = VK::kUInt, .umax = k32},
};
constexpr Schema kOpFieldSchema{"EV profile field", kOpFieldKeys};

constexpr std::array kEvProfileOpKeys{
    KeySpec{.name = "state", .kind = VK::kEnum, .names = kProfileStateNames, .help = "target state"},
    KeySpec{.name = "mode", .kind = VK::kEnum, .names = kEvModeNames},
    KeySpec{.name = "fields", .kind = VK::kList, .schema = &kOpFieldSchema, .item = VK::kMap, .max_items = 64},
    KeySpec{.name = "count", .kind = VK::kUInt, .umax = k32, .help = "ev_count"},
    KeySpec{.name = "min_active", .kind = VK::kUInt, .umax = k32, .help = "ev_min_active"},
    KeySpec{.name = "event_mask", .kind = VK::kList, .names = kEvStateNames, .item = VK::kEnum,
            .scalar_as_list = true, .help = "ev_event_mask: states that raise EV events"},
    KeySpec{.name = "seed", .kind = VK::kUInt, .help = "generated mode: the draw's seed"},
};
constexpr Schema kEvProfileOpSchema{"ev_profile_set profile", kEvProfileOpKeys};

constexpr std::array kCcProfileOpKeys{
    KeySpec{.name = "state", .kind = VK::kEnum, .names = kProfileStateNames, .help = "target state"},
    KeySpec{.name = "algorithm", .kind = VK::kString},
    KeySpec{.name = "config", .kind = VK::kScalarMap, .help = "algorithm config, name: value"},
};
constexpr Schema kCcProfileOpSchema{"cc_profile_set profile", kCcProfileOpKeys};

// Port 0 is allowed: {value: "0x00", port: 0} names an UNPOPULATED slot.
constexpr std::array kOpEvKeys{
    KeySpec{.name = "value", .kind = VK::kHexBytes, .required = true, .min_items = 1, .max_items = 32},
    KeySpec{.name = "port", .kind = VK::kUInt, .required = true, .umax = 32},
};
constexpr Schema kOpEvSchema{"EV", kOpEvKeys};
constexpr KeySpec kEvsSpec{.name = "evs", .kind = VK::kList, .schema = &kOpEvSchema, .item = VK::kMap,
                           .min_items = 1, .max_items = 4096};
constexpr KeySpec kFromSpec{.name = "from", .kind = VK::kMap, .schema = &kOpEvSchema};

EvEntryConfig ev_entry(const YAML::Node& n) {
  return EvEntryConfig{read_hex(n, "value").value_or(std::vector<std::uint8_t>{}),
                       read_uint_as<std::uint8_t>(n, "port").value_or(0)};
}

EvProfileOp read_ev_profile(const YAML::Node& p) {
  EvProfileOp o;
  o.state = read_enum<ProfileStateName>(p, "state", kProfileStateNames);
  o.mode = read_enum<EvMode>(p, "mode", kEvModeNames);
  if (const auto f = find_key(p, "fields"); f && f->IsSequence()) {
    o.fields.emplace();
    for (auto it = f->begin(); it != f->end(); ++it) {
      o.fields->push_back(EvFieldConfig{read_uint_as<std::uint32_t>(*it, "width").value_or(0),
                                        read_uint_as<std::uint32_t>(*it, "init").value_or(0),
                                        read_uint_as<std::uint32_t>(*it, "min").value_or(0),
                                        read_uint_as<std::uint32_t>(*it, "max").value_or(0),
                                        read_uint_as<std::uint32_t>(*it, "mask").value_or(0)});
    }
  }
  o.count = read_uint_as<std::uint32_t>(p, "count");
  o.min_active = read_uint_as<std::uint32_t>(p, "min_active");
  if (find_key(p, "event_mask")) {
    std::uint32_t bits = 0;
    for (const auto& name : read_string_list(p, "event_mask")) {
      if (const auto st = parse_enum<EvStateName>(kEvStateNames, name)) bits |= ev_state_bit(*st);
    }
    o.event_mask = bits;
  }
  o.seed = read_uint(p, "seed");
  return o;
}

CcProfileOp read_cc_profile(const YAML::Node& p) {
  CcProfileOp o;
  o.state = read_enum<ProfileStateName>(p, "state", kProfileStateNames);
  o.algorithm = read_string(p, "algorithm");
  if (const auto c = find_key(p, "config"); c && c->IsMap()) {
    for (auto it = c->begin(); it != c->end(); ++it) {
      if (it->first.IsScalar() && it->second.IsScalar()) o.config.emplace_back(it->first.Scalar(), it->second.Scalar());
    }
  }
  return o;
}

}  // namespace

void read_profile_op(const YAML::Node& b, ControlStep& c, const std::string& path, Validator& v) {
  const bool ev_set = c.op == ControlOp::kEvProfileSet;
  const bool cc_set = c.op == ControlOp::kCcProfileSet;
  const bool replace = c.op == ControlOp::kReplaceEv;
  const std::string op(to_string(c.op));
  auto not_for = [&](std::string_view key, bool allowed) {
    if (!allowed && find_key(b, key)) {
      v.error(key_loc(b, key), join_path(path, key), "'" + std::string(key) + "' has no meaning for op '" + op + "'");
      return true;
    }
    return false;
  };
  const bool stray = not_for("profile", ev_set || cc_set) | not_for("evs", replace) | not_for("from", replace) |
                     not_for("all_copies", replace);
  if (stray) return;
  if (ev_set || cc_set) {
    const auto p = find_key(b, "profile");
    if (!p) {
      v.error(key_loc(b, "op"), path, "op '" + op + "' needs 'profile' (the attributes to set)");
      return;
    }
    const Schema& schema = ev_set ? kEvProfileOpSchema : kCcProfileOpSchema;
    if (!v.map(*p, schema, join_path(path, "profile"), key_loc(b, "profile")) && !p->IsMap()) return;
    if (p->IsMap() && p->size() == 0) {
      v.error(key_loc(b, "profile"), join_path(path, "profile"), "names no attribute to set");
      return;
    }
    if (ev_set) c.ev_profile = read_ev_profile(*p);
    if (cc_set) c.cc_profile = read_cc_profile(*p);
    return;
  }
  if (!replace) return;
  const auto evs = find_key(b, "evs");
  if (!evs) {
    v.error(key_loc(b, "op"), path, "op 'replace_ev' needs 'evs' (the new EVs)");
    return;
  }
  bool ok = v.value(*evs, kEvsSpec, join_path(path, "evs"), key_loc(b, "evs"));
  const auto from = find_key(b, "from");
  if (from) ok &= v.value(*from, kFromSpec, join_path(path, "from"), key_loc(b, "from"));
  if (!ok) return;
  ReplaceEvOp r;
  for (auto it = evs->begin(); it != evs->end(); ++it) r.evs.push_back(ev_entry(*it));
  if (from) r.from = ev_entry(*from);
  r.all_copies = read_bool(b, "all_copies").value_or(false);
  c.replace = std::move(r);
}

}  // namespace mrc::harness
