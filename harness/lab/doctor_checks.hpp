// The checks of `mrc-conform doctor` (doctor.hpp), one function per group, shared by doctor.cpp
// (which opens the testbed and the agent and calls them in order) and their own files:
// doctor_iface.cpp (interfaces, MTU, capture, timestamps), doctor_ports.cpp (planes against agent
// ports, the probe frames), doctor_pacing.cpp (the bridge's pacing jitter).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "harness/dut/agent_binding.hpp"
#include "harness/lab/doctor.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::run::doctor {

// Collects findings and hands each to the caller's callback as it is made.
class Findings {
 public:
  Findings(std::vector<DoctorFinding>& out, const std::function<void(const DoctorFinding&)>& cb) : out_(out), cb_(cb) {}
  void ok(std::string what) { add({DoctorFinding::Level::kOk, std::move(what), {}}); }
  void warn(std::string what, std::string advice) { add({DoctorFinding::Level::kWarn, std::move(what), std::move(advice)}); }
  void fail(std::string what, std::string advice) { add({DoctorFinding::Level::kFail, std::move(what), std::move(advice)}); }
  void skip(std::string what, std::string why) { add({DoctorFinding::Level::kSkip, std::move(what), std::move(why)}); }

 private:
  void add(DoctorFinding f);
  std::vector<DoctorFinding>& out_;
  const std::function<void(const DoctorFinding&)>& cb_;
};

// A capture opened on a harness-side interface (a PcapPort in doctor_iface.cpp). Opaque here: a
// header that declares mrc::harness::wire shadows mrc::wire in harness headers included after it.
class CapturePort {
 public:
  virtual ~CapturePort() = default;
  virtual std::string inject(std::span<const std::uint8_t> frame) = 0;  // "" or why not
};

struct OpenPort {
  std::uint8_t plane = 1;
  std::string ifname;
  std::unique_ptr<CapturePort> capture;
};

// The MTU an interface needs: the largest frame the suite sends less its Ethernet header.
std::uint32_t needed_mtu();

// Checks 1-4 on every interface of `ports` (plane -> harness-side interface). Returns those whose
// capture opened; `where` names where the interfaces come from in advice ("lab.ports in FILE").
std::vector<OpenPort> check_interfaces(const std::vector<harness::WirePortBinding>& ports, const std::string& where,
                                       Findings& f);

// Check 6: every plane 1..N (N the highest plane either side names) has an agent port and a
// harness-side interface. False when one has not.
bool check_planes(const std::vector<harness::WirePortBinding>& ports, const std::vector<agentproto::PortInfo>& agent,
                  Findings& f);

// Check 7: one probe frame per open port; the agent's agent.rx.p<N> counters say where it landed.
void check_port_map(const harness::AgentBinding& agent, std::vector<OpenPort>& open,
                    std::chrono::milliseconds probe_wait, Findings& f);

// Check 8: `ports` bound as the DUT host of `fabric`, paced for `run` without traffic.
void check_pacing(const std::string& fabric, const std::vector<harness::WirePortBinding>& ports,
                  const harness::Testbed::BridgeDeclaration& declared, std::chrono::milliseconds run, Findings& f);

}  // namespace mrc::run::doctor
