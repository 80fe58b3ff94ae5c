// doctor checks 6 and 7: the planes against the agent's ports, and the port map confirmed by one
// probe frame per plane, counted by the agent per receiving port (agent.rx.p<N> in QUERY_STATE).
#include <algorithm>
#include <map>
#include <optional>
#include <thread>

#include "harness/lab/doctor_checks.hpp"
#include "harness/testbed/wire/netns.hpp"

namespace mrc::run::doctor {
namespace {

namespace ap = mrc::agentproto;

constexpr std::string_view kRxCounter = "agent.rx.p";
constexpr auto kQueryEvery = std::chrono::milliseconds(10);
// After the first port counts the probe, how long a second copy (a plane bridged to two ports) has
// to show up: the agent reads all its ports in the same loop turn, so this is generous.
constexpr auto kSettle = std::chrono::milliseconds(30);
// IEEE 802 local experimental EtherType: nothing on a lab link speaks it, no stack answers it.
constexpr std::uint16_t kProbeEtherType = 0x88B5;
constexpr std::size_t kProbeLen = 60;

std::string agent_port_list(const std::vector<ap::PortInfo>& agent) {
  std::string s;
  for (const auto& p : agent) s += (s.empty() ? "p" : ", p") + std::to_string(p.port) + "=" + p.name;
  return s.empty() ? "none" : s;
}

// agent.rx.p<N> by N; nullopt and *why when QUERY_STATE failed.
std::optional<std::map<int, double>> rx_counts(const harness::AgentBinding& agent, std::string* why) {
  std::vector<std::pair<std::string, double>> counters;
  if (const harness::DutStatus st = agent.read_counters(counters); !st.ok()) {
    *why = st.message;
    return std::nullopt;
  }
  std::map<int, double> out;
  for (const auto& [name, value] : counters) {
    if (!name.starts_with(kRxCounter)) continue;
    const std::string n = name.substr(kRxCounter.size());
    if (n.empty() || n.size() > 2 || !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    out[std::stoi(n)] = value;
  }
  return out;
}

// A frame nothing else sends: to the agent port's MAC (broadcast when the agent gave none), from
// the harness interface's MAC, the local experimental EtherType, and text naming it.
std::vector<std::uint8_t> probe_frame(const OpenPort& p, const ap::Mac& to) {
  std::vector<std::uint8_t> f(kProbeLen, 0);
  const bool no_mac = std::all_of(to.begin(), to.end(), [](std::uint8_t b) { return b == 0; });
  for (int i = 0; i < 6; ++i) f[i] = no_mac ? 0xFF : to[i];
  const auto from = harness::wire::read_mac(p.ifname).value_or(std::array<std::uint8_t, 6>{0x02, 0, 0, 0, 0, 1});
  std::copy(from.begin(), from.end(), f.begin() + 6);
  f[12] = kProbeEtherType >> 8;
  f[13] = kProbeEtherType & 0xFF;
  const std::string text = "mrc-conform doctor probe, plane " + std::to_string(p.plane) + " via " + p.ifname;
  std::copy_n(text.begin(), std::min(text.size(), kProbeLen - 14), f.begin() + 14);
  return f;
}

// The ports whose count grew between two readings.
std::vector<int> grown(const std::map<int, double>& before, const std::map<int, double>& after) {
  std::vector<int> out;
  for (const auto& [port, v] : after) {
    const auto b = before.find(port);
    if (v > (b == before.end() ? 0.0 : b->second)) out.push_back(port);
  }
  return out;
}

// One probe on `p`; findings say where it landed.
void probe(const harness::AgentBinding& agent, const OpenPort& p, const ap::Mac& to, std::chrono::milliseconds wait,
           Findings& f) {
  const std::string what = "plane " + std::to_string(p.plane) + "'s interface " + p.ifname;
  std::string why;
  auto lost = [&] { f.fail("the agent failed QUERY_STATE during the probe of " + p.ifname + ": " + why, "see the agent's log"); };
  const auto before = rx_counts(agent, &why);
  if (!before) return lost();
  if (std::string e = p.capture->inject(probe_frame(p, to)); !e.empty()) {
    return f.fail("cannot send the probe frame on " + p.ifname + ": " + e, "check the interface and run as root");
  }
  // Bounded by probe_wait: the agent counts the frame at its next loop turn.
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::vector<int> landed;
  while (landed.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kQueryEvery);
    const auto now = rx_counts(agent, &why);
    if (!now) return lost();
    landed = grown(*before, *now);
  }
  if (!landed.empty()) {
    std::this_thread::sleep_for(kSettle);
    const auto now = rx_counts(agent, &why);
    if (!now) return lost();
    landed = grown(*before, *now);
  }
  const std::string plane = std::to_string(p.plane);
  if (landed.empty()) {
    return f.fail(what + " reaches no agent port within probe_wait " + harness::describe_bound(wait),
                  "check the cable (or veth) from " + p.ifname + " to the DUT's port " + plane +
                      ", and that the DUT's end is up");
  }
  if (landed.size() > 1) {
    std::string ports;
    for (int q : landed) ports += (ports.empty() ? "" : ", ") + std::to_string(q);
    return f.fail(what + " reaches agent ports " + ports,
                  "each plane needs a link of its own to one DUT port (is a switch or bridge joining them?)");
  }
  if (landed[0] != p.plane) {
    const std::string q = std::to_string(landed[0]);
    return f.fail(what + " reaches agent port " + q,
                  "name " + p.ifname + " as lab.ports.p" + q + " in the lab file (swapped lines), or move its cable to " +
                      "the DUT's port " + plane);
  }
  f.ok(what + " reaches agent port " + plane + " only");
}

}  // namespace

bool check_planes(const std::vector<harness::WirePortBinding>& ports, const std::vector<ap::PortInfo>& agent,
                  Findings& f) {
  int top = 0;
  for (const auto& b : ports) top = std::max(top, static_cast<int>(b.port));
  for (const auto& a : agent) top = std::max(top, static_cast<int>(a.port));
  bool all = true;
  for (int p = 1; p <= top; ++p) {
    const auto a = std::find_if(agent.begin(), agent.end(), [p](const ap::PortInfo& i) { return i.port == p; });
    const auto w = std::find_if(ports.begin(), ports.end(), [p](const harness::WirePortBinding& b) { return b.port == p; });
    const std::string plane = "plane " + std::to_string(p);
    if (a == agent.end() && w == ports.end()) {
      f.fail(plane + " has neither an agent port nor a harness-side interface",
             "planes are numbered 1, 2, ... without gaps: name p" + std::to_string(p) +
                 " in the lab file and in the agent's --ifaces");
      all = false;
    } else if (a == agent.end()) {
      f.fail(plane + " (interface " + w->ifname + ") has no agent port (the agent's ports: " + agent_port_list(agent) + ")",
             "start the agent with --ifaces naming p" + std::to_string(p) + ", or remove lab.ports.p" +
                 std::to_string(p) + " from the lab file");
      all = false;
    } else if (w == ports.end()) {
      f.fail(plane + " (agent port " + a->name + ") has no harness-side interface",
             "name the interface cabled to it as lab.ports.p" + std::to_string(p) + " in the lab file");
      all = false;
    } else {
      f.ok(plane + ": interface " + w->ifname + ", agent port " + std::to_string(p) + " (" + a->name + ")");
    }
  }
  return all;
}

void check_port_map(const harness::AgentBinding& agent, std::vector<OpenPort>& open, std::chrono::milliseconds probe_wait,
                    Findings& f) {
  std::string why;
  const auto counts = rx_counts(agent, &why);
  if (!counts) {
    return f.fail("the agent does not answer QUERY_STATE before APPLY_CONFIG (" + why + ")",
                  "the protocol requires it (harness/dut/agent-protocol.md section 2); the port map cannot be confirmed");
  }
  const std::vector<ap::PortInfo> ports = agent.agent_ports();
  for (const ap::PortInfo& p : ports) {
    if (counts->count(p.port) == 0) {
      return f.fail("the agent reports no agent.rx.p" + std::to_string(p.port) + " counter, so the port map cannot be confirmed",
                    "its backend must count the frames each port receives, also before APPLY_CONFIG (harness/agent/README.md)");
    }
  }
  for (const OpenPort& p : open) {
    const auto to = std::find_if(ports.begin(), ports.end(), [&p](const ap::PortInfo& i) { return i.port == p.plane; });
    probe(agent, p, to == ports.end() ? ap::Mac{} : to->mac, probe_wait, f);
  }
}

}  // namespace mrc::run::doctor
