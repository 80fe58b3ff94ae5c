// Testbed YAML files for the simulator: a flat map of topology knobs, optionally starting from a
// preset. Every problem is reported as `file:line:col: key: message` (1-based line and column of
// the offending key or value): unknown keys, wrong types, out-of-range values, link names that do
// not exist in the resulting topology. Loading never throws.
//
//   preset: rack              # mini | rack | pod (applied first, whatever its position)
//   name: lab-rack
//   planes: 8                 # 1..32
//   hosts: 32                 # 1..16384
//   hosts_per_leaf: 8         # 1..4096
//   spines: 8                 # per plane, 1..4096
//   link_gbps: 100            # every link (also: prop_ns, mtu)
//   host_link: {gbps: 100, prop_ns: 500, mtu: 9000}
//   fabric_link: {gbps: 400, prop_ns: 1000}
//   queue_bytes: 524288       # switch data queue per egress port
//   priority_queue_bytes: 262144
//   ecn_threshold_bytes: 65536
//   ecn: true
//   trim: true                # false: drop on overflow
//   trim_bytes: 256
//   wire_overhead_bytes: 24
//   host_tx_window_bytes: 65536
//   max_packets: 262144
//   seed: 1
//   links:                    # per-link overrides by name
//     - {name: plane1/leaf0-spine1, gbps: 50, prop_ns: 2000}
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/testbed/sim/topology.hpp"

namespace mrc::sim {

struct YamlError {
  std::string file;
  int line = 0;  // 1-based; 0 when the problem has no position (unreadable file)
  int col = 0;
  std::string key;
  std::string message;
  std::string str() const;  // "file:line:col: key: message"
};

struct TestbedLoad {
  std::optional<TopologyConfig> config;  // set only when there are no errors
  std::vector<YamlError> errors;
  bool ok() const { return config.has_value() && errors.empty(); }
  std::string describe() const;  // every error, one per line
};

TestbedLoad load_testbed_file(const std::filesystem::path& path);
TestbedLoad load_testbed_text(std::string_view text, const std::string& display_name);

// A case's `testbed.overrides` entry (name -> value text), with the same keys and ranges as the
// file. Returns "" or "key: message".
std::string apply_override(TopologyConfig& cfg, std::string_view key, std::string_view value);

}  // namespace mrc::sim
