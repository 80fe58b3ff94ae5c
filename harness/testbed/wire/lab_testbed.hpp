// A lab testbed file: the simulated fabric between the harness's peer and a DUT on real
// interfaces, the interfaces named (README "Test your NIC"):
//
//   lab:
//     fabric: mini              # preset (mini, rack, pod) or a fabric YAML beside this file
//     timing_budget_us: 300     # optional: what the bridge may add to measured times
//     rate_gbps: 1              # optional: what the bridge forwards (congestion control's line rate)
//     fabric_priority: 10       # optional: the paced fabric thread's SCHED_FIFO priority (1..99)
//     fabric_spin_us: 20        # optional: the last part of each of its waits it spends awake
//     ports:                    # the harness machine's interface cabled to each DUT port (plane)
//       p1: enp65s0f0np0
//       p2: enp65s0f1np1
//     peer_ports:               # optional: a second implementation as the harness's peer
//       p1: enp66s0f0np0        #   (--peer agent:HOST:PORT), cabled the same way
//
// Errors name the file, line and key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/testbed/wire_host.hpp"

namespace mrc::harness::wire {

struct LabTestbed {
  std::string fabric = "mini";
  std::optional<std::uint64_t> budget_ns;
  std::optional<double> rate_gbps;  // the bridge's forwarding rate on this lab's runs
  int fabric_priority = 0;          // Testbed::BridgeDeclaration::fabric_priority
  std::uint64_t fabric_spin_ns = 0;  // Testbed::BridgeDeclaration::fabric_spin_ns
  std::vector<WirePortBinding> ports;       // by port
  std::vector<WirePortBinding> peer_ports;  // by port; empty: the peer is not on this lab's wire
};

// True when `path` is a YAML file whose top level has a `lab:` key (a sim fabric file has none).
bool looks_like_lab_file(const std::filesystem::path& path);

// Null-like (nullopt) and *error "FILE:LINE:COL: key: what" on a bad file.
std::optional<LabTestbed> load_lab_testbed(const std::filesystem::path& path, std::string* error);

}  // namespace mrc::harness::wire
