// The shape of a simulated MRC fabric: P planes, each a two-tier Clos (leaves and spines), and
// hosts with one port per plane (host port p is plane p, 1-based). This file holds the parameters
// (TopologyConfig, with the built-in presets) and the id arithmetic that names every node, link
// and link direction; the simulator's state hangs off these ids.
//
// Ids. Nodes: hosts 0..H-1, then the leaves plane by plane, then the spines plane by plane.
// Links: first every host link (plane-major: (p-1)*H + h), then every leaf-spine link
// (P*H + (p-1)*L*S + l*S + s). A link direction ("dir") is link*2 + side: side 0 runs from the
// link's lower tier up (host->leaf, leaf->spine), side 1 back down. Everything here is a pure
// function of the config, so ids are stable across runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/wire/mrc_headers.hpp"

namespace mrc::sim {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
using DirId = std::uint32_t;
inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// Limits of the address plan (address_plan.hpp): 12-bit leaf and spine numbers, 15-bit hosts.
inline constexpr std::uint32_t kMaxPlanes = 32;
inline constexpr std::uint32_t kMaxHosts = 16384;
inline constexpr std::uint32_t kMaxSpines = 4096;
inline constexpr std::uint32_t kMaxLeaves = 4096;

struct LinkParams {
  std::uint64_t rate_mbps = 100'000;  // 100 Gb/s
  std::uint64_t prop_ns = 500;        // one-way propagation delay (about 100 m of fibre)
  std::uint32_t mtu = 9000;           // largest IP packet (bytes after the Ethernet header)
};

// One switch egress port's buffer policy (every switch port alike).
struct SwitchParams {
  std::uint32_t queue_bytes = 512 * 1024;          // normal (data) queue limit
  std::uint32_t priority_queue_bytes = 256 * 1024; // strict-priority queue limit
  std::uint32_t ecn_threshold_bytes = 64 * 1024;   // mark CE when the data queue holds more
  bool ecn = true;
  bool trim = true;              // W13 trim trimmable data on overflow; false = drop
  // MODEL: W13 a trimmed frame keeps this many bytes, and never less than its headers through the
  // RETH (and ImmDt): a receiver can name the packet it NACKs.
  std::uint32_t trim_bytes = 256;
  wire::DscpConfig dscp;         // W13 the traffic classes' DSCP values (MODEL: W13 defaults)
  // W1 where an SRv6 frame loses its outer header: true = the destination's leaf strips it
  // (the default); false = the leaf forwards it to the host still encapsulated (the DA holding
  // the host's active decap uSID) and the host's NIC decapsulates, which W1 allows a receiver to
  // do. Testbed key `srv6_decap: leaf | host`.
  bool srv6_decap_at_leaf = true;
};

// A per-link override from a testbed file, by link name ("plane1/leaf0-spine1").
struct LinkOverride {
  std::string name;
  std::optional<std::uint64_t> rate_mbps;
  std::optional<std::uint64_t> prop_ns;
  std::optional<std::uint32_t> mtu;
};

struct TopologyConfig {
  std::string name = "mini";
  std::uint32_t planes = 8;
  std::uint32_t hosts = 2;
  std::uint32_t hosts_per_leaf = 1;  // leaf down ports; leaves per plane = ceil(hosts / this)
  std::uint32_t spines = 2;          // per plane; each leaf has one uplink to every spine
  LinkParams host_link;              // host <-> leaf
  LinkParams fabric_link;            // leaf <-> spine
  SwitchParams sw;
  std::uint32_t wire_overhead_bytes = 24;    // FCS + preamble + inter-frame gap per frame
  std::uint32_t host_tx_window_bytes = 64 * 1024;  // NIC queue the simulator fills from the
                                                   // endpoint (0 = unlimited)
  std::uint64_t seed = 1;            // seeds loss / corruption draws
  std::uint32_t max_packets = 1u << 18;  // packet pool bound (buffers of kMaxFrameLen bytes)
  std::vector<LinkOverride> link_overrides;

  std::uint32_t leaves() const { return (hosts + hosts_per_leaf - 1) / hosts_per_leaf; }
  // "" when usable, else the first problem ("spines: 0 is out of range 1..4096").
  std::string validate() const;
};

// Built-in presets: "mini" (2 hosts on two leaves, 8 planes, 2 spines per plane), "rack" (32
// hosts, 8 per leaf, 4 leaves and 8 spines per plane) and "pod" (1,024 hosts, 32 per leaf, 32
// leaves and 32 spines per plane). nullopt for an unknown name.
std::optional<TopologyConfig> preset(std::string_view name);
std::vector<std::string> preset_names();

enum class NodeKind : std::uint8_t { kHost, kLeaf, kSpine };

struct NodeInfo {
  NodeKind kind = NodeKind::kHost;
  std::uint32_t plane = 0;  // 1-based for switches, 0 for hosts
  std::uint32_t index = 0;  // host number, or leaf / spine number inside its plane
};

struct LinkInfo {
  NodeId lower = 0;          // host (host link) or leaf (fabric link)
  NodeId upper = 0;          // leaf (host link) or spine (fabric link)
  std::uint32_t lower_port = 0;  // port numbers on each node (host: 1-based plane port)
  std::uint32_t upper_port = 0;
  std::uint32_t plane = 1;   // 1-based
  bool host_link = true;
};

// Id arithmetic over a validated config. Cheap to copy; holds no per-link storage.
class Topology {
 public:
  explicit Topology(const TopologyConfig& cfg);

  const TopologyConfig& config() const { return cfg_; }
  std::uint32_t planes() const { return cfg_.planes; }
  std::uint32_t hosts() const { return cfg_.hosts; }
  std::uint32_t leaves() const { return leaves_; }  // per plane
  std::uint32_t spines() const { return cfg_.spines; }  // per plane
  std::uint32_t node_count() const { return cfg_.hosts + cfg_.planes * (leaves_ + cfg_.spines); }
  std::uint32_t link_count() const { return host_links_ + cfg_.planes * leaves_ * cfg_.spines; }
  std::uint32_t dir_count() const { return link_count() * 2; }

  // Nodes.
  NodeId host_node(std::uint32_t host) const { return host; }
  NodeId leaf_node(std::uint32_t plane, std::uint32_t leaf) const;
  NodeId spine_node(std::uint32_t plane, std::uint32_t spine) const;
  NodeInfo node(NodeId n) const;
  std::uint32_t leaf_of_host(std::uint32_t host) const { return host / cfg_.hosts_per_leaf; }
  // Leaf ports: 0..hosts_per_leaf-1 down to hosts, then one per spine. Spine ports: one per leaf.
  std::uint32_t leaf_port_count() const { return cfg_.hosts_per_leaf + cfg_.spines; }
  std::uint32_t spine_port_count() const { return leaves_; }
  std::uint32_t port_count(NodeId n) const;

  // Links and directions.
  LinkId host_link(std::uint32_t host, std::uint32_t plane) const;
  LinkId fabric_link(std::uint32_t plane, std::uint32_t leaf, std::uint32_t spine) const;
  LinkInfo link(LinkId l) const;
  static LinkId link_of(DirId d) { return d >> 1; }
  static bool upward(DirId d) { return (d & 1u) == 0; }
  static DirId dir(LinkId l, bool up) { return l * 2 + (up ? 0u : 1u); }
  DirId host_tx_dir(std::uint32_t host, std::uint32_t plane) const { return dir(host_link(host, plane), true); }
  DirId host_rx_dir(std::uint32_t host, std::uint32_t plane) const { return dir(host_link(host, plane), false); }
  // The direction leaving node `n` through its port `port` (kNone when that port has no link).
  DirId egress_dir(NodeId n, std::uint32_t port) const;
  NodeId dir_from(DirId d) const;
  NodeId dir_to(DirId d) const;
  std::uint32_t dir_to_port(DirId d) const;  // port on the receiving node
  LinkParams link_params(LinkId l) const;    // tier default plus any override

  // Names: "host3", "plane2/leaf0", "plane2/spine1", links "plane2/host3-leaf0",
  // "plane2/leaf0-spine1", directions "plane2/leaf0->spine1".
  std::string node_name(NodeId n) const;
  std::string link_name(LinkId l) const;
  std::string dir_name(DirId d) const;
  std::optional<LinkId> find_link(std::string_view name) const;
  std::optional<NodeId> find_switch(std::string_view name) const;

 private:
  TopologyConfig cfg_;
  std::uint32_t leaves_ = 0;
  std::uint32_t host_links_ = 0;
  std::vector<std::pair<LinkId, LinkParams>> overrides_;  // sorted by link id
};

}  // namespace mrc::sim
