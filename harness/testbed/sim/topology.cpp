// Topology ids, names and presets (see topology.hpp for the numbering).
#include "harness/testbed/sim/topology.hpp"

#include <algorithm>
#include <charconv>

namespace mrc::sim {
namespace {

std::string range_error(const char* key, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  return std::string(key) + ": " + std::to_string(v) + " is out of range " + std::to_string(lo) + ".." +
         std::to_string(hi);
}

std::string check_link(const char* what, const LinkParams& p) {
  if (p.rate_mbps < 1 || p.rate_mbps > 1'600'000) return range_error(what, p.rate_mbps, 1, 1'600'000);
  if (p.prop_ns > 1'000'000'000) return range_error(what, p.prop_ns, 0, 1'000'000'000);
  if (p.mtu < 576 || p.mtu > 9216) return range_error(what, p.mtu, 576, 9216);
  return {};
}

// Parses "<prefix><number>" at the front of `s`; advances `s` past it.
bool take_number(std::string_view& s, std::string_view prefix, std::uint32_t& out) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  const char* b = s.data();
  const char* e = s.data() + s.size();
  const auto r = std::from_chars(b, e, out);
  if (r.ec != std::errc{} || r.ptr == b) return false;
  s.remove_prefix(static_cast<std::size_t>(r.ptr - b));
  return true;
}

}  // namespace

std::string TopologyConfig::validate() const {
  if (planes < 1 || planes > kMaxPlanes) return range_error("planes", planes, 1, kMaxPlanes);
  if (hosts < 1 || hosts > kMaxHosts) return range_error("hosts", hosts, 1, kMaxHosts);
  if (hosts_per_leaf < 1 || hosts_per_leaf > 4096) return range_error("hosts_per_leaf", hosts_per_leaf, 1, 4096);
  if (leaves() > kMaxLeaves) return range_error("leaves (hosts / hosts_per_leaf)", leaves(), 1, kMaxLeaves);
  if (spines < 1 || spines > kMaxSpines) return range_error("spines", spines, 1, kMaxSpines);
  if (auto e = check_link("host_link", host_link); !e.empty()) return e;
  if (auto e = check_link("fabric_link", fabric_link); !e.empty()) return e;
  if (sw.trim_bytes < 64 || sw.trim_bytes > 9216 || sw.trim_bytes % 4 != 0) {
    return "trim_bytes: " + std::to_string(sw.trim_bytes) + " must be a multiple of 4 in 64..9216";
  }
  if (sw.queue_bytes < 9216) return range_error("queue_bytes", sw.queue_bytes, 9216, 0xFFFFFFFFu);
  if (sw.priority_queue_bytes < 9216) {
    return range_error("priority_queue_bytes", sw.priority_queue_bytes, 9216, 0xFFFFFFFFu);
  }
  if (wire_overhead_bytes > 64) return range_error("wire_overhead_bytes", wire_overhead_bytes, 0, 64);
  if (max_packets < 64 || max_packets > (1u << 24)) return range_error("max_packets", max_packets, 64, 1u << 24);
  return {};
}

std::optional<TopologyConfig> preset(std::string_view name) {
  TopologyConfig c;
  if (name == "mini") {
    c.name = "mini";
    c.hosts = 2;
    c.hosts_per_leaf = 1;  // the two hosts sit on different leaves: every path crosses a spine
    c.spines = 2;
    return c;
  }
  if (name == "rack") {
    c.name = "rack";
    c.hosts = 32;
    c.hosts_per_leaf = 8;  // 4 leaves x 8 spines per plane: non-blocking leaves (8 down, 8 up)
    c.spines = 8;
    return c;
  }
  if (name == "pod") {
    c.name = "pod";
    c.hosts = 1024;
    c.hosts_per_leaf = 32;  // 32 leaves x 32 spines per plane, radix 64 leaves
    c.spines = 32;
    return c;
  }
  return std::nullopt;
}

std::vector<std::string> preset_names() { return {"mini", "rack", "pod"}; }

Topology::Topology(const TopologyConfig& cfg) : cfg_(cfg) {
  leaves_ = cfg_.leaves();
  host_links_ = cfg_.planes * cfg_.hosts;
  for (const LinkOverride& o : cfg_.link_overrides) {
    const auto l = find_link(o.name);
    if (!l) continue;  // the loader reports unknown names; a config built in code skips them
    LinkParams p = link_params(*l);
    if (o.rate_mbps) p.rate_mbps = *o.rate_mbps;
    if (o.prop_ns) p.prop_ns = *o.prop_ns;
    if (o.mtu) p.mtu = *o.mtu;
    overrides_.emplace_back(*l, p);
  }
  std::stable_sort(overrides_.begin(), overrides_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

NodeId Topology::leaf_node(std::uint32_t plane, std::uint32_t leaf) const {
  return cfg_.hosts + (plane - 1) * leaves_ + leaf;
}

NodeId Topology::spine_node(std::uint32_t plane, std::uint32_t spine) const {
  return cfg_.hosts + cfg_.planes * leaves_ + (plane - 1) * cfg_.spines + spine;
}

NodeInfo Topology::node(NodeId n) const {
  NodeInfo i;
  if (n < cfg_.hosts) {
    i.kind = NodeKind::kHost;
    i.index = n;
    return i;
  }
  n -= cfg_.hosts;
  if (n < cfg_.planes * leaves_) {
    i.kind = NodeKind::kLeaf;
    i.plane = n / leaves_ + 1;
    i.index = n % leaves_;
    return i;
  }
  n -= cfg_.planes * leaves_;
  i.kind = NodeKind::kSpine;
  i.plane = n / cfg_.spines + 1;
  i.index = n % cfg_.spines;
  return i;
}

std::uint32_t Topology::port_count(NodeId n) const {
  switch (node(n).kind) {
    case NodeKind::kHost: return cfg_.planes;
    case NodeKind::kLeaf: return leaf_port_count();
    case NodeKind::kSpine: return spine_port_count();
  }
  return 0;
}

LinkId Topology::host_link(std::uint32_t host, std::uint32_t plane) const {
  return (plane - 1) * cfg_.hosts + host;
}

LinkId Topology::fabric_link(std::uint32_t plane, std::uint32_t leaf, std::uint32_t spine) const {
  return host_links_ + (plane - 1) * leaves_ * cfg_.spines + leaf * cfg_.spines + spine;
}

LinkInfo Topology::link(LinkId l) const {
  LinkInfo i;
  if (l < host_links_) {
    const std::uint32_t plane = l / cfg_.hosts + 1;
    const std::uint32_t host = l % cfg_.hosts;
    i.host_link = true;
    i.plane = plane;
    i.lower = host_node(host);
    i.lower_port = plane;
    i.upper = leaf_node(plane, leaf_of_host(host));
    i.upper_port = host % cfg_.hosts_per_leaf;
    return i;
  }
  const std::uint32_t k = l - host_links_;
  const std::uint32_t per_plane = leaves_ * cfg_.spines;
  const std::uint32_t plane = k / per_plane + 1;
  const std::uint32_t leaf = (k % per_plane) / cfg_.spines;
  const std::uint32_t spine = k % cfg_.spines;
  i.host_link = false;
  i.plane = plane;
  i.lower = leaf_node(plane, leaf);
  i.lower_port = cfg_.hosts_per_leaf + spine;
  i.upper = spine_node(plane, spine);
  i.upper_port = leaf;
  return i;
}

DirId Topology::egress_dir(NodeId n, std::uint32_t port) const {
  const NodeInfo i = node(n);
  switch (i.kind) {
    case NodeKind::kHost:
      if (port < 1 || port > cfg_.planes) return kNone;
      return dir(host_link(i.index, port), true);
    case NodeKind::kLeaf: {
      if (port < cfg_.hosts_per_leaf) {
        const std::uint32_t host = i.index * cfg_.hosts_per_leaf + port;
        if (host >= cfg_.hosts) return kNone;
        return dir(host_link(host, i.plane), false);
      }
      const std::uint32_t spine = port - cfg_.hosts_per_leaf;
      if (spine >= cfg_.spines) return kNone;
      return dir(fabric_link(i.plane, i.index, spine), true);
    }
    case NodeKind::kSpine:
      if (port >= leaves_) return kNone;
      return dir(fabric_link(i.plane, port, i.index), false);
  }
  return kNone;
}

NodeId Topology::dir_from(DirId d) const {
  const LinkInfo i = link(link_of(d));
  return upward(d) ? i.lower : i.upper;
}

NodeId Topology::dir_to(DirId d) const {
  const LinkInfo i = link(link_of(d));
  return upward(d) ? i.upper : i.lower;
}

std::uint32_t Topology::dir_to_port(DirId d) const {
  const LinkInfo i = link(link_of(d));
  return upward(d) ? i.upper_port : i.lower_port;
}

LinkParams Topology::link_params(LinkId l) const {
  if (!overrides_.empty()) {
    const auto it = std::lower_bound(overrides_.begin(), overrides_.end(), l,
                                     [](const auto& a, LinkId id) { return a.first < id; });
    if (it != overrides_.end() && it->first == l) return it->second;
  }
  return l < host_links_ ? cfg_.host_link : cfg_.fabric_link;
}

std::string Topology::node_name(NodeId n) const {
  const NodeInfo i = node(n);
  switch (i.kind) {
    case NodeKind::kHost: return "host" + std::to_string(i.index);
    case NodeKind::kLeaf: return "plane" + std::to_string(i.plane) + "/leaf" + std::to_string(i.index);
    case NodeKind::kSpine: return "plane" + std::to_string(i.plane) + "/spine" + std::to_string(i.index);
  }
  return {};
}

namespace {
std::string short_name(const Topology& t, NodeId n) {
  const std::string full = t.node_name(n);
  const auto slash = full.find('/');
  return slash == std::string::npos ? full : full.substr(slash + 1);
}
}  // namespace

std::string Topology::link_name(LinkId l) const {
  const LinkInfo i = link(l);
  return "plane" + std::to_string(i.plane) + "/" + short_name(*this, i.lower) + "-" + short_name(*this, i.upper);
}

std::string Topology::dir_name(DirId d) const {
  const LinkInfo i = link(link_of(d));
  const NodeId from = upward(d) ? i.lower : i.upper;
  const NodeId to = upward(d) ? i.upper : i.lower;
  return "plane" + std::to_string(i.plane) + "/" + short_name(*this, from) + "->" + short_name(*this, to);
}

std::optional<LinkId> Topology::find_link(std::string_view name) const {
  std::uint32_t plane = 0, a = 0, b = 0;
  std::string_view s = name;
  if (!take_number(s, "plane", plane) || s.empty() || s.front() != '/') return std::nullopt;
  s.remove_prefix(1);
  if (plane < 1 || plane > cfg_.planes) return std::nullopt;
  if (take_number(s, "host", a)) {
    if (!take_number(s, "-leaf", b) || !s.empty() || a >= cfg_.hosts || leaf_of_host(a) != b) return std::nullopt;
    return host_link(a, plane);
  }
  if (take_number(s, "leaf", a)) {
    if (!take_number(s, "-spine", b) || !s.empty() || a >= leaves_ || b >= cfg_.spines) return std::nullopt;
    return fabric_link(plane, a, b);
  }
  return std::nullopt;
}

std::optional<NodeId> Topology::find_switch(std::string_view name) const {
  std::uint32_t plane = 0, k = 0;
  std::string_view s = name;
  if (!take_number(s, "plane", plane) || s.empty() || s.front() != '/') return std::nullopt;
  s.remove_prefix(1);
  if (plane < 1 || plane > cfg_.planes) return std::nullopt;
  if (take_number(s, "leaf", k) && s.empty() && k < leaves_) return leaf_node(plane, k);
  if (take_number(s, "spine", k) && s.empty() && k < cfg_.spines) return spine_node(plane, k);
  return std::nullopt;
}

}  // namespace mrc::sim
