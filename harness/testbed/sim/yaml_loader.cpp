// Testbed YAML loading with file:line:col errors (yaml_loader.hpp).
#include "harness/testbed/sim/yaml_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace mrc::sim {
namespace {

constexpr std::uintmax_t kMaxFileBytes = 1u << 20;

struct Ctx {
  std::string file;
  std::vector<YamlError>* errors;
  void fail(const YAML::Mark& m, const std::string& key, const std::string& msg) const {
    const int line = m.line >= 0 ? m.line + 1 : 1;
    const int col = m.column >= 0 ? m.column + 1 : 1;
    errors->push_back(YamlError{file, line, col, key, msg});
  }
};

// A value's own position, or its key's when the value has none (an empty value).
YAML::Mark where(const YAML::Node& v, const YAML::Mark& key_mark) {
  const YAML::Mark m = v.Mark();
  return m.line >= 0 ? m : key_mark;
}

bool get_uint(const Ctx& c, const YAML::Node& v, const YAML::Mark& km, const std::string& key, std::uint64_t lo,
              std::uint64_t hi, std::uint64_t& out) {
  if (!v.IsScalar()) {
    c.fail(where(v, km), key, "expected an integer");
    return false;
  }
  const std::string s = v.Scalar();
  std::uint64_t x = 0;
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char* b = s.data() + (hex ? 2 : 0);
  const char* e = s.data() + s.size();
  const auto r = std::from_chars(b, e, x, hex ? 16 : 10);
  if (r.ec != std::errc{} || r.ptr != e || b == e) {
    c.fail(where(v, km), key, "expected an integer, got '" + s + "'");
    return false;
  }
  if (x < lo || x > hi) {
    c.fail(where(v, km), key, s + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
    return false;
  }
  out = x;
  return true;
}

bool get_number(const Ctx& c, const YAML::Node& v, const YAML::Mark& km, const std::string& key, double lo,
                double hi, double& out) {
  if (!v.IsScalar()) {
    c.fail(where(v, km), key, "expected a number");
    return false;
  }
  const std::string s = v.Scalar();
  double x = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size() || s.empty() || !std::isfinite(x)) {
    c.fail(where(v, km), key, "expected a number, got '" + s + "'");
    return false;
  }
  if (x < lo || x > hi) {
    std::ostringstream o;
    o << s << " is out of range " << lo << ".." << hi;
    c.fail(where(v, km), key, o.str());
    return false;
  }
  out = x;
  return true;
}

bool get_bool(const Ctx& c, const YAML::Node& v, const YAML::Mark& km, const std::string& key, bool& out) {
  if (v.IsScalar()) {
    std::string s = v.Scalar();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (s == "true" || s == "yes" || s == "on") return out = true, true;
    if (s == "false" || s == "no" || s == "off") return out = false, true;
  }
  c.fail(where(v, km), key, "expected true or false");
  return false;
}

bool get_string(const Ctx& c, const YAML::Node& v, const YAML::Mark& km, const std::string& key, std::string& out) {
  if (!v.IsScalar() || v.Scalar().empty()) {
    c.fail(where(v, km), key, "expected a non-empty string");
    return false;
  }
  out = v.Scalar();
  return true;
}

// Link parameters of a map {gbps, prop_ns, mtu}, into whichever targets are given.
template <typename Apply>
void link_map(const Ctx& c, const YAML::Node& v, const YAML::Mark& km, const std::string& key, bool allow_name,
              Apply&& apply) {
  if (!v.IsMap()) {
    c.fail(where(v, km), key, "expected a map of gbps, prop_ns, mtu");
    return;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string k = it->first.as<std::string>("");
    const YAML::Mark m = it->first.Mark();
    const std::string full = key + "." + k;
    double gbps = 0;
    std::uint64_t n = 0;
    if (k == "gbps") {
      if (get_number(c, it->second, m, full, 0.001, 1600, gbps)) apply("gbps", static_cast<std::uint64_t>(std::llround(gbps * 1000)));
    } else if (k == "prop_ns") {
      if (get_uint(c, it->second, m, full, 0, 1'000'000'000, n)) apply("prop_ns", n);
    } else if (k == "mtu") {
      if (get_uint(c, it->second, m, full, 576, 9216, n)) apply("mtu", n);
    } else if (!(allow_name && k == "name")) {
      c.fail(m, full, std::string("unknown key (expected ") + (allow_name ? "name, " : "") + "gbps, prop_ns, mtu)");
    }
  }
}

void set_link(LinkParams& p, const char* what, std::uint64_t v) {
  if (std::string_view(what) == "gbps") p.rate_mbps = v;
  if (std::string_view(what) == "prop_ns") p.prop_ns = v;
  if (std::string_view(what) == "mtu") p.mtu = static_cast<std::uint32_t>(v);
}

struct PendingLink {
  LinkOverride o;
  YAML::Mark mark;
};

// One top-level key (everything but `preset`). False for an unknown key.
bool apply_key(const Ctx& c, TopologyConfig& cfg, const std::string& k, const YAML::Mark& km, const YAML::Node& v,
               std::vector<PendingLink>& links) {
  std::uint64_t n = 0;
  double x = 0;
  bool b = false;
  auto u32 = [&](std::uint64_t lo, std::uint64_t hi, std::uint32_t& dst) {
    if (get_uint(c, v, km, k, lo, hi, n)) dst = static_cast<std::uint32_t>(n);
  };
  if (k == "name") {
    get_string(c, v, km, k, cfg.name);
  } else if (k == "planes") {
    u32(1, kMaxPlanes, cfg.planes);
  } else if (k == "hosts") {
    u32(1, kMaxHosts, cfg.hosts);
  } else if (k == "hosts_per_leaf") {
    u32(1, 4096, cfg.hosts_per_leaf);
  } else if (k == "spines") {
    u32(1, kMaxSpines, cfg.spines);
  } else if (k == "link_gbps") {
    if (get_number(c, v, km, k, 0.001, 1600, x)) {
      cfg.host_link.rate_mbps = cfg.fabric_link.rate_mbps = static_cast<std::uint64_t>(std::llround(x * 1000));
    }
  } else if (k == "prop_ns") {
    if (get_uint(c, v, km, k, 0, 1'000'000'000, n)) cfg.host_link.prop_ns = cfg.fabric_link.prop_ns = n;
  } else if (k == "mtu") {
    if (get_uint(c, v, km, k, 576, 9216, n)) {
      cfg.host_link.mtu = cfg.fabric_link.mtu = static_cast<std::uint32_t>(n);
    }
  } else if (k == "host_link") {
    link_map(c, v, km, k, false, [&](const char* w, std::uint64_t val) { set_link(cfg.host_link, w, val); });
  } else if (k == "fabric_link") {
    link_map(c, v, km, k, false, [&](const char* w, std::uint64_t val) { set_link(cfg.fabric_link, w, val); });
  } else if (k == "queue_bytes") {
    u32(9216, 1u << 30, cfg.sw.queue_bytes);
  } else if (k == "priority_queue_bytes") {
    u32(9216, 1u << 30, cfg.sw.priority_queue_bytes);
  } else if (k == "ecn_threshold_bytes") {
    u32(0, 1u << 30, cfg.sw.ecn_threshold_bytes);
  } else if (k == "ecn") {
    if (get_bool(c, v, km, k, b)) cfg.sw.ecn = b;
  } else if (k == "trim") {
    if (get_bool(c, v, km, k, b)) cfg.sw.trim = b;
  } else if (k == "trim_bytes") {
    if (get_uint(c, v, km, k, 64, 9216, n)) {
      if (n % 4 != 0) {
        c.fail(where(v, km), k, std::to_string(n) + " is not a multiple of 4");
      } else {
        cfg.sw.trim_bytes = static_cast<std::uint32_t>(n);
      }
    }
  } else if (k == "srv6_decap") {
    std::string where_to;
    if (get_string(c, v, km, k, where_to)) {
      if (where_to == "leaf" || where_to == "host") {
        cfg.sw.srv6_decap_at_leaf = where_to == "leaf";
      } else {
        c.fail(where(v, km), k, "unknown value '" + where_to + "' (expected leaf or host)");
      }
    }
  } else if (k == "wire_overhead_bytes") {
    u32(0, 64, cfg.wire_overhead_bytes);
  } else if (k == "host_tx_window_bytes") {
    u32(0, 1u << 30, cfg.host_tx_window_bytes);
  } else if (k == "max_packets") {
    u32(64, 1u << 24, cfg.max_packets);
  } else if (k == "seed") {
    if (get_uint(c, v, km, k, 0, UINT64_MAX, n)) cfg.seed = n;
  } else if (k == "links") {
    if (!v.IsSequence()) {
      c.fail(where(v, km), k, "expected a list of {name, gbps, prop_ns, mtu}");
      return true;
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      const YAML::Node e = v[i];
      const std::string ek = "links[" + std::to_string(i) + "]";
      PendingLink pl;
      pl.mark = where(e, km);
      if (e.IsMap() && e["name"]) {
        get_string(c, e["name"], pl.mark, ek + ".name", pl.o.name);
        pl.mark = where(e["name"], pl.mark);
      } else if (e.IsMap()) {
        c.fail(pl.mark, ek, "missing key 'name'");
      }
      link_map(c, e, pl.mark, ek, true, [&](const char* w, std::uint64_t val) {
        const std::string_view what(w);
        if (what == "gbps") pl.o.rate_mbps = val;
        if (what == "prop_ns") pl.o.prop_ns = val;
        if (what == "mtu") pl.o.mtu = static_cast<std::uint32_t>(val);
      });
      if (!pl.o.name.empty()) links.push_back(pl);
    }
  } else {
    return false;
  }
  return true;
}

const char* kKnownKeys =
    "preset, name, planes, hosts, hosts_per_leaf, spines, link_gbps, prop_ns, mtu, host_link, fabric_link, "
    "queue_bytes, priority_queue_bytes, ecn_threshold_bytes, ecn, trim, trim_bytes, srv6_decap, wire_overhead_bytes, "
    "host_tx_window_bytes, max_packets, seed, links";

TestbedLoad load_node(const YAML::Node& root, const std::string& file) {
  TestbedLoad res;
  const Ctx c{file, &res.errors};
  if (!root.IsMap()) {
    c.fail(root.Mark(), "testbed", "expected a map of testbed keys");
    return res;
  }
  TopologyConfig cfg;
  std::map<std::string, YAML::Mark> marks;
  if (const YAML::Node p = root["preset"]) {
    std::string name;
    YAML::Mark pm = p.Mark();
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (it->first.as<std::string>("") == "preset") pm = it->first.Mark();
    }
    if (get_string(c, p, pm, "preset", name)) {
      if (auto pc = preset(name)) {
        cfg = *pc;
      } else {
        c.fail(where(p, pm), "preset", "unknown preset '" + name + "' (expected mini, rack or pod)");
      }
    }
  }
  std::vector<PendingLink> links;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const YAML::Mark km = it->first.Mark();
    if (!it->first.IsScalar()) {
      c.fail(km, "testbed", "keys must be plain names");
      continue;
    }
    const std::string k = it->first.Scalar();
    if (marks.count(k) != 0) {
      c.fail(km, k, "duplicate key");
      continue;
    }
    marks[k] = km;
    if (k == "preset") continue;
    if (!apply_key(c, cfg, k, km, it->second, links)) {
      c.fail(km, k, std::string("unknown key (expected one of: ") + kKnownKeys + ")");
    }
  }
  if (!res.errors.empty()) return res;
  if (const std::string why = cfg.validate(); !why.empty()) {
    // validate() says "key: message"; point at that key when the file set it.
    const std::string key = why.substr(0, why.find(':'));
    std::string at = key.rfind("leaves", 0) == 0 ? "hosts_per_leaf" : key;
    const auto m = marks.find(at);
    const YAML::Mark mk = m != marks.end() ? m->second : root.Mark();
    const auto colon = why.find(": ");
    c.fail(mk, key, colon == std::string::npos ? why : why.substr(colon + 2));
    return res;
  }
  const Topology topo(cfg);
  for (const PendingLink& pl : links) {
    if (!topo.find_link(pl.o.name)) {
      c.fail(pl.mark, "links", "no link named '" + pl.o.name +
                                   "' in this topology (names look like plane1/host0-leaf0, plane1/leaf0-spine1)");
      continue;
    }
    cfg.link_overrides.push_back(pl.o);
  }
  if (res.errors.empty()) res.config = cfg;
  return res;
}

}  // namespace

std::string YamlError::str() const {
  std::string s = file;
  if (line > 0) s += ":" + std::to_string(line) + ":" + std::to_string(col);
  return s + ": " + key + ": " + message;
}

std::string TestbedLoad::describe() const {
  std::string s;
  for (const YamlError& e : errors) s += e.str() + "\n";
  return s;
}

TestbedLoad load_testbed_text(std::string_view text, const std::string& display_name) {
  TestbedLoad res;
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::ParserException& e) {
    res.errors.push_back(YamlError{display_name, e.mark.line + 1, e.mark.column + 1, "yaml", e.msg});
    return res;
  } catch (const YAML::Exception& e) {
    res.errors.push_back(YamlError{display_name, 1, 1, "yaml", e.what()});
    return res;
  }
  if (docs.size() != 1 || !docs[0] || docs[0].IsNull()) {
    res.errors.push_back(YamlError{display_name, 1, 1, "yaml",
                                   docs.size() > 1 ? "expected one YAML document" : "empty testbed file"});
    return res;
  }
  try {
    return load_node(docs[0], display_name);
  } catch (const YAML::Exception& e) {
    res.errors.push_back(YamlError{display_name, e.mark.line + 1, e.mark.column + 1, "yaml", e.msg});
    return res;
  }
}

TestbedLoad load_testbed_file(const std::filesystem::path& path) {
  TestbedLoad res;
  const std::string name = path.string();
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    res.errors.push_back(YamlError{name, 0, 0, "file", "cannot read: " + ec.message()});
    return res;
  }
  if (size > kMaxFileBytes) {
    res.errors.push_back(YamlError{name, 0, 0, "file", "larger than 1 MiB"});
    return res;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (!in) {
    res.errors.push_back(YamlError{name, 0, 0, "file", "cannot read"});
    return res;
  }
  return load_testbed_text(buf.str(), name);
}

std::string apply_override(TopologyConfig& cfg, std::string_view key, std::string_view value) {
  const std::string k(key);
  if (k == "preset") return "preset: cannot be overridden (name the preset in the testbed instead)";
  std::vector<YamlError> errors;
  const Ctx c{"override", &errors};
  YAML::Node v;
  try {
    v = YAML::Load(std::string(value));
  } catch (const YAML::Exception& e) {
    return k + ": " + e.msg;
  }
  TopologyConfig next = cfg;
  std::vector<PendingLink> links;
  if (!apply_key(c, next, k, YAML::Mark(), v, links)) return k + ": unknown key";
  if (!errors.empty()) return errors.front().key + ": " + errors.front().message;
  if (const std::string why = next.validate(); !why.empty()) return why;
  const Topology topo(next);
  for (const PendingLink& pl : links) {
    if (!topo.find_link(pl.o.name)) return "links: no link named '" + pl.o.name + "'";
    next.link_overrides.push_back(pl.o);
  }
  cfg = next;
  return {};
}

}  // namespace mrc::sim
