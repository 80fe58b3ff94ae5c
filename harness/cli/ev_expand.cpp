// `mrc-ev`: EV profile YAML -> expanded EVs, validated by the reference controller model.
//
// YAML (every integer may be decimal or a "0x" hex string):
//   format:   {mode: stev|srv6|udp, widths: [16, 16]}
//   fields:   [{width, init_val, min_val, max_val, mask}, ...]
//   mode:     explicit | generated | auto
//   evs:      [{val: "33 12", port: 1}, ...]       # explicit
//   generate: {seed: 0, count: 8}                  # generated (count also sizes auto)
//   count:    16                                   # auto (alternative to generate.count)
//   min_active: 0                                  # optional
//   limits:   {ev_max_width: .., ev_count_align: .., ..., caps: [EXPLICIT_RANGE, ...] | int}
// The tool's default limits are DeviceLimits{} with ev_count_align 1, so an explicit list of any
// length is accepted unless `limits` says otherwise.
#include "harness/cli/ev_expand.hpp"

#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/case/limits.hpp"
#include "harness/case/yaml_lint.hpp"
#include "reference/ev/controller.hpp"

namespace mrc::cli {
namespace {

namespace limits = harness::limits;

// A located error: thrown while reading the YAML, printed as file:line:col.
struct LocatedError {
  YAML::Mark mark;
  std::string text;
};

// A missing key's node (`map["x"]` when x is absent) has no mark, and asking it for one throws
// yaml-cpp's "invalid node": callers check presence first and point at the parent instead.
[[noreturn]] void fail_at(const YAML::Node& n, std::string text) {
  throw LocatedError{n.IsDefined() ? n.Mark() : YAML::Mark::null_mark(), std::move(text)};
}

// map[key], or a located "missing key" error at the map.
YAML::Node required(const YAML::Node& map, const char* key, const char* what) {
  const YAML::Node n = map[key];
  if (!n) fail_at(map, std::string("missing key '") + key + "' in " + what);
  return n;
}

void check_keys(const YAML::Node& map, std::initializer_list<const char*> allowed, const char* what) {
  if (!map.IsMap()) fail_at(map, std::string(what) + " must be a mapping");
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) fail_at(kv.first, std::string("a key of ") + what + " must be a word, not a list or a map");
    const std::string key = kv.first.Scalar();
    bool ok = false;
    for (const char* a : allowed) ok |= key == a;
    if (!ok) fail_at(kv.first, "unknown key '" + key + "' in " + what);
  }
}

std::uint64_t parse_uint(const YAML::Node& n, const char* what, std::uint64_t max = UINT32_MAX) {
  if (!n.IsScalar()) fail_at(n, std::string(what) + " must be an unsigned integer");
  const std::string s = n.Scalar();
  std::uint64_t v = 0;
  std::size_t i = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    i = 2;
  }
  if (i >= s.size()) fail_at(n, std::string(what) + " '" + s + "' is not an unsigned integer");
  for (; i < s.size(); ++i) {
    const char c = s[i];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) fail_at(n, std::string(what) + " '" + s + "' is not an unsigned integer");
    if (v > (max - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) {
      fail_at(n, std::string(what) + " '" + s + "' is out of range");
    }
    v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  return v;
}

std::uint32_t u32(const YAML::Node& parent, const char* key, std::uint32_t dflt) {
  const YAML::Node n = parent[key];
  if (!n) return dflt;
  return static_cast<std::uint32_t>(parse_uint(n, key));
}

// An EV count (or a limit that sizes EV arrays): the tool builds the whole array in memory, so
// it refuses counts over kMaxExpandEvs instead of running out of memory.
std::uint32_t ev_count_u32(const YAML::Node& parent, const char* key, std::uint32_t dflt) {
  const std::uint32_t v = u32(parent, key, dflt);
  if (v > limits::kMaxExpandEvs) {
    fail_at(parent[key], std::string(key) + " " + std::to_string(v) + " is over mrc-ev's limit of " +
                             std::to_string(limits::kMaxExpandEvs) + " EVs (kMaxExpandEvs, harness/case/limits.hpp)");
  }
  return v;
}

wire::EvBytes parse_ev_val(const YAML::Node& n) {
  if (!n.IsScalar()) fail_at(n, "val must be a hex string such as \"33 12\"");
  std::string hex;
  std::string s = n.Scalar();
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s = s.substr(2);
  for (char c : s) {
    if (c == ' ' || c == ':' || c == '_') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) fail_at(n, "val '" + n.Scalar() + "' is not hex");
    hex += c;
  }
  if (hex.empty() || hex.size() % 2 != 0) fail_at(n, "val '" + n.Scalar() + "' needs whole bytes");
  if (hex.size() / 2 > wire::kEvMaxBytes) fail_at(n, "val is longer than 32 bytes");
  wire::EvBytes out{};
  for (std::size_t i = 0; i < hex.size() / 2; ++i) {
    out[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}

wire::EvFmtMode parse_fmt_mode(const YAML::Node& n) {
  const std::string m = n.IsScalar() ? n.Scalar() : "";
  if (m == "stev") return wire::EvFmtMode::kStev;
  if (m == "srv6") return wire::EvFmtMode::kSrv6;
  if (m == "udp") return wire::EvFmtMode::kUdp;
  fail_at(n, "format mode '" + m + "' is not stev, srv6 or udp");
}

std::uint32_t parse_caps(const YAML::Node& n) {
  if (n.IsScalar()) return static_cast<std::uint32_t>(parse_uint(n, "caps"));
  if (!n.IsSequence()) fail_at(n, "caps must be an integer or a list of names");
  static const std::pair<const char*, std::uint32_t> names[] = {
      {"MODIFY_ONLINE", ev::cap::kEvProfileModifyOnline},
      {"EV_PROFILE_MODIFY_ONLINE", ev::cap::kEvProfileModifyOnline},
      {"CC_PROFILE_MODIFY_ONLINE", ev::cap::kCcProfileModifyOnline},
      {"EV_EVENT", ev::cap::kEvEvent},
      {"EXPLICIT_RANGE", ev::cap::kExplicitRange},
      {"PRECISE_DROP_CNT", ev::cap::kPreciseDropCnt},
      {"EP_OP_EV_PROBE", ev::cap::kEpOpEvProbe}};
  std::uint32_t caps = 0;
  for (const auto& item : n) {
    if (!item.IsScalar()) fail_at(item, "caps lists capability names such as EXPLICIT_RANGE");
    bool found = false;
    for (const auto& [name, bit] : names) {
      if (item.Scalar() == name) {
        caps |= bit;
        found = true;
      }
    }
    if (!found) fail_at(item, "unknown capability '" + item.Scalar() + "'");
  }
  return caps;
}

ev::DeviceLimits parse_limits(const YAML::Node& n) {
  ev::DeviceLimits l;
  l.ev_count_align = 1;
  if (!n) return l;
  check_keys(n,
             {"ev_max_width", "ev_max_fmt_profiles", "ev_max_profiles", "ev_max_count",
              "ev_max_count_profile", "ev_count_align", "ev_op_max_entries", "phy_port_mask", "caps"},
             "limits");
  l.ev_max_width = u32(n, "ev_max_width", l.ev_max_width);
  l.ev_max_fmt_profiles = std::max<std::uint32_t>(1, u32(n, "ev_max_fmt_profiles", l.ev_max_fmt_profiles));
  l.ev_max_profiles = std::max<std::uint32_t>(1, u32(n, "ev_max_profiles", l.ev_max_profiles));
  l.ev_max_count = ev_count_u32(n, "ev_max_count", l.ev_max_count);
  l.ev_max_count_profile = ev_count_u32(n, "ev_max_count_profile", l.ev_max_count_profile);
  l.ev_count_align = ev_count_u32(n, "ev_count_align", l.ev_count_align);
  l.ev_op_max_entries = u32(n, "ev_op_max_entries", l.ev_op_max_entries);
  l.phy_port_mask = u32(n, "phy_port_mask", l.phy_port_mask);
  if (n["caps"]) l.caps = parse_caps(n["caps"]);
  return l;
}

std::string hex_bytes(const wire::EvBytes& b, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n && i < b.size(); ++i) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 0xF];
  }
  return s;
}

std::string ipv6_text(const std::uint8_t* sixteen) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(AF_INET6, sixteen, buf, sizeof buf) == nullptr) return "?";
  return buf;
}

// The controller's errno + rule, located at `where`.
[[noreturn]] void api_fail(const YAML::Node& where, int rc, const std::string& why) {
  std::ostringstream s;
  s << ev::errno_name(rc) << " (" << rc << "): " << why;
  fail_at(where, s.str());
}

// The node a "field <i> ..." message points at, else `fallback`.
YAML::Node field_node(const YAML::Node& fields, const std::string& why, const YAML::Node& fallback) {
  if (why.rfind("field ", 0) == 0 && why.size() > 6 && std::isdigit(static_cast<unsigned char>(why[6]))) {
    const std::size_t i = std::strtoul(why.c_str() + 6, nullptr, 10);
    if (i < fields.size()) return fields[i];
  }
  return fallback;
}

int expand_file(const YAML::Node& root, std::ostream& out) {
  check_keys(root, {"format", "fields", "mode", "evs", "generate", "count", "min_active", "limits"},
             "profile");
  const ev::DeviceLimits limits = parse_limits(root["limits"]);
  ev::Controller ctl(limits);
  std::string why;

  const YAML::Node mode_n = required(root, "mode", "profile");
  if (!mode_n.IsScalar()) fail_at(mode_n, "mode must be a scalar: explicit, generated or auto");
  const std::string mode_s = mode_n.Scalar();
  ev::EvMode mode = ev::EvMode::kAuto;
  if (mode_s == "explicit") {
    mode = ev::EvMode::kExp;
  } else if (mode_s == "generated") {
    mode = ev::EvMode::kGen;
  } else if (mode_s != "auto") {
    fail_at(mode_n, "mode '" + mode_s + "' is not explicit, generated or auto");
  }

  ev::FmtProfileAttr fa;
  ev::EvProfileAttr ea;
  const YAML::Node fmt_n = root["format"];
  const YAML::Node fields_n = root["fields"];
  if (mode != ev::EvMode::kAuto) {
    if (!fmt_n) fail_at(root, "missing key 'format'");
    check_keys(fmt_n, {"mode", "widths"}, "format");
    fa.mode = parse_fmt_mode(required(fmt_n, "mode", "format"));
    const YAML::Node w = fmt_n["widths"];
    if (!w || !w.IsSequence()) fail_at(fmt_n, "format needs a 'widths' list");
    for (const auto& x : w) fa.widths.push_back(static_cast<std::uint32_t>(parse_uint(x, "width")));
    fa.state = ev::ProfileState::kOffline;
    if (int rc = ctl.modify_fmt_profile(0, fa, ev::fmt_attr::kState | ev::fmt_attr::kMode | ev::fmt_attr::kFields, &why)) {
      api_fail(fmt_n, rc, why);
    }
    fa.state = ev::ProfileState::kOnline;
    if (int rc = ctl.modify_fmt_profile(0, fa, ev::fmt_attr::kState, &why)) api_fail(fmt_n, rc, why);

    if (!fields_n || !fields_n.IsSequence()) fail_at(root, "missing 'fields' list");
    for (const auto& f : fields_n) {
      check_keys(f, {"width", "init_val", "min_val", "max_val", "mask"}, "field");
      (void)required(f, "width", "field");  // a field without a width is no field (the API's 1..32 bits)
      ea.fields.push_back({u32(f, "width", 0), u32(f, "init_val", 0), u32(f, "min_val", 0),
                           u32(f, "max_val", 0), u32(f, "mask", 0)});
    }
    // The §1.5 rules first, so the error points at the field that breaks one.
    if (int rc = ev::validate_fields(ev::FormatProfile{fa.mode, fa.widths}, ea.fields, &why)) {
      api_fail(field_node(fields_n, why, fields_n), rc, why);
    }
  }

  const YAML::Node evs_n = root["evs"];
  const YAML::Node gen_n = root["generate"];
  std::uint32_t count = 0;
  if (mode == ev::EvMode::kExp) {
    if (!evs_n || !evs_n.IsSequence() || evs_n.size() == 0) fail_at(root, "explicit mode needs an 'evs' list");
    count = static_cast<std::uint32_t>(evs_n.size());
  } else {
    if (gen_n) check_keys(gen_n, {"seed", "count"}, "generate");
    count = gen_n ? ev_count_u32(gen_n, "count", 0) : ev_count_u32(root, "count", 0);
    if (gen_n) ea.gen_seed = parse_uint(gen_n["seed"] ? gen_n["seed"] : YAML::Node("0"), "seed", UINT64_MAX);
    if (count == 0) fail_at(root, "generated/auto mode needs a count (generate.count or count)");
  }
  ea.state = ev::ProfileState::kOffline;
  ea.mode = mode;
  ea.fmt_id = 0;
  ea.ev_count = count;
  ea.ev_min_active = u32(root, "min_active", 0);
  ea.ev_event_mask = ev::bits(ev::EvState::kGood) | ev::bits(ev::EvState::kAssumedBad);
  const YAML::Node where = fields_n ? fields_n : root;
  std::uint32_t mask = ev::ev_attr::kState | ev::ev_attr::kMode | ev::ev_attr::kCount |
                       ev::ev_attr::kGenSeed;
  if (mode != ev::EvMode::kAuto) mask |= ev::ev_attr::kFmtId | ev::ev_attr::kFields;
  if (int rc = ctl.modify_ev_profile(0, ea, mask, &why)) api_fail(field_node(fields_n, why, where), rc, why);

  if (mode == ev::EvMode::kExp) {
    for (std::size_t i = 0; i < evs_n.size(); ++i) {
      const YAML::Node e = evs_n[i];
      check_keys(e, {"val", "port"}, "ev");
      ev::EvOpEntry op;  // ev = UNPOPULATED: fills the lowest free slot, i.e. slot i
      op.ev_new.val = parse_ev_val(required(e, "val", "ev"));
      op.ev_new.port = static_cast<std::uint8_t>(parse_uint(required(e, "port", "ev"), "port", 255));
      if (int rc = ctl.replace_ev(0, std::span<const ev::EvOpEntry>(&op, 1), nullptr, &why)) {
        api_fail(e, rc, why);
      }
    }
  }
  ea.state = ev::ProfileState::kOnline;
  if (int rc = ctl.modify_ev_profile(0, ea, ev::ev_attr::kState | ev::ev_attr::kMinActive |
                                                ev::ev_attr::kEventMask, &why)) {
    api_fail(mode_n, rc, why);
  }

  const std::size_t ev_len =
      mode == ev::EvMode::kAuto ? 2 : std::max<std::size_t>(1, (ev::ev_bits_used(ea.fields) + 7) / 8);
  const std::size_t wire_len =
      mode == ev::EvMode::kAuto ? 2 : (ev::format_wire_bits(ev::FormatProfile{fa.mode, fa.widths}) + 7) / 8;
  const auto arr = ctl.ev_array(0);
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const ev::EvEntry& e = arr[i];
    out << i << ' ' << static_cast<int>(e.port) << " ev=" << hex_bytes(e.val, ev_len)
        << " wire=" << hex_bytes(e.wire, wire_len);
    if (mode != ev::EvMode::kAuto && fa.mode == wire::EvFmtMode::kSrv6) {
      out << " da=" << ipv6_text(e.wire.data());
      bool srh = false;
      for (std::size_t b = 16; b < 32; ++b) srh |= e.wire[b] != 0;
      if (srh) out << " srh=" << ipv6_text(e.wire.data() + 16);
    }
    out << '\n';
  }
  return 0;
}

}  // namespace

int run_ev_expand(const std::string& yaml_path, std::ostream& out, std::ostream& err) {
  std::error_code ec;
  // Only a regular file: a FIFO nobody writes would block for ever, /dev/zero grow for ever.
  if (const auto st = std::filesystem::status(yaml_path, ec); !ec && st.type() != std::filesystem::file_type::regular &&
                                                               st.type() != std::filesystem::file_type::directory) {
    err << "error: " << yaml_path << ": not a regular file (a FIFO, a device or a socket); give a profile file\n";
    return 2;
  }
  if (const auto size = std::filesystem::file_size(yaml_path, ec); !ec && size > limits::kMaxProfileBytes) {
    err << "error: " << yaml_path << ": " << size << " bytes is over mrc-ev's limit of " << limits::kMaxProfileBytes
        << " bytes for a profile file (kMaxProfileBytes, harness/case/limits.hpp)\n";
    return 2;
  }
  std::ifstream in(yaml_path, std::ios::binary);
  if (!in || std::filesystem::is_directory(yaml_path, ec)) {
    err << "error: " << yaml_path << ": cannot open\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  // The checks every harness YAML gets: tabs, control characters, nesting, duplicate keys.
  harness::Diagnostics diags;
  const auto doc = harness::parse_yaml_document(text.str(), yaml_path, diags);
  if (!doc) {
    for (const auto& d : diags.items()) err << "error: " << d.to_string() << '\n';
    return 2;
  }
  const YAML::Node root = *doc;
  try {
    return expand_file(root, out);
  } catch (const LocatedError& e) {
    err << "error: " << yaml_path << ':';
    if (!e.mark.is_null()) err << e.mark.line + 1 << ':' << e.mark.column + 1 << ':';
    err << ' ' << e.text << '\n';
    return 2;
  } catch (const YAML::Exception& e) {
    err << "error: " << yaml_path << ':' << e.mark.line + 1 << ':' << e.mark.column + 1 << ": "
        << e.msg << '\n';
    return 2;
  }
}

}  // namespace mrc::cli
