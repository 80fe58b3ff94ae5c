// What the bindings whose DUT is one host of the simulated testbed (`reference`, `plugin`) share:
// the host must exist, and the DUT has one port per plane.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::harness {

inline DutStatus check_testbed_host(const Testbed& testbed, int host) {
  if (host < 0 || static_cast<std::uint32_t>(host) >= testbed.hosts()) {
    return DutStatus::failed("host " + std::to_string(host) + " is not in testbed " + testbed.name());
  }
  return DutStatus::success();
}

inline std::vector<PortRef> plane_ports(int host, std::uint32_t planes) {
  std::vector<PortRef> out;
  for (std::uint32_t p = 1; p <= planes; ++p) out.push_back(PortRef{host, static_cast<int>(p)});
  return out;
}

}  // namespace mrc::harness
