#include "harness/lab/wire_testbed.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <charconv>
#include <fstream>
#include <random>

#include "harness/testbed/wire/lab_testbed.hpp"
#include "harness/testbed/wire/netns.hpp"
#include "harness/testbed/wire/netns_exec.hpp"

namespace mrc::run {
namespace {

namespace hw = harness::wire;

constexpr auto kAgentStartBound = std::chrono::milliseconds(10'000);
constexpr int kAgentNice = -10;

// 128 bits from the kernel's generator, as hex: the token of an agent we start ourselves.
std::string fresh_token() {
  std::random_device rd;
  std::string t;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 8; ++i) {
    const auto v = rd();
    for (int b = 0; b < 4; ++b) t += kHex[(v >> (b * 4)) & 0xF];
  }
  return t;
}

std::filesystem::path agent_beside_us() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("mrc-dut-agent") : self.parent_path() / "mrc-dut-agent";
}

// The fabric's addresses of a host, which its agent's endpoint must use (the fabric routes by
// them). Read from the fabric itself, so they follow its address plan.
std::string host_addresses(const std::string& fabric, int host, std::string& gid, std::string& mac) {
  std::string why;
  const auto tb = harness::make_sim_testbed(harness::TestbedRequest::named(fabric), 1, &why);
  if (!tb) return "fabric " + fabric + ": " + why;
  const harness::HostAddress a = tb->host_address(host);
  gid = harness::format_gid(a.gid);
  mac = harness::format_mac(a.mac);
  return "";
}

// "mrc-dut-agent: listening on 127.0.0.1:PORT backend ..." -> PORT
std::uint16_t listening_port(const std::string& line) {
  const auto at = line.find("listening on ");
  if (at == std::string::npos) return 0;
  const auto colon = line.find(':', at + 13);
  const auto space = line.find(' ', colon == std::string::npos ? at : colon);
  if (colon == std::string::npos) return 0;
  unsigned port = 0;
  const char* b = line.data() + colon + 1;
  const char* e = line.data() + (space == std::string::npos ? line.size() : space);
  const auto [end, err] = std::from_chars(b, e, port);
  return err == std::errc{} && end == e && port > 0 && port < 65536 ? static_cast<std::uint16_t>(port) : 0;
}

}  // namespace

std::optional<std::string> started_agent_backend(std::string_view spec) {
  constexpr std::string_view kAgent = "agent:";
  constexpr std::string_view kReference = "reference";
  if (!spec.starts_with(kAgent)) return std::nullopt;
  const std::string_view rest = spec.substr(kAgent.size());
  if (!rest.starts_with(kReference) || (rest.size() > kReference.size() && rest[kReference.size()] != ':')) {
    return std::nullopt;
  }
  return std::string(rest);
}

bool is_wire_testbed(const std::string& testbed) {
  return testbed == "netns" || hw::looks_like_lab_file(testbed);
}

std::string fabric_of_testbed(const std::string& testbed) {
  if (testbed == "netns") return "mini";
  if (!hw::looks_like_lab_file(testbed)) return testbed;
  const auto lab = hw::load_lab_testbed(testbed, nullptr);
  return lab ? lab->fabric : "mini";
}

struct WireTestbed::Held {
  struct Agent {  // one per implementation this run starts (DUT, and the peer for interop)
    std::unique_ptr<hw::Netns> netns;
    std::unique_ptr<hw::ChildProcess> process;
  };
  std::vector<Agent> agents;
  std::filesystem::path token_dir;
};

WireTestbed::WireTestbed() : held_(std::make_unique<Held>()) {}

WireTestbed::~WireTestbed() {
  for (Held::Agent& a : held_->agents) {
    if (a.process) a.process->stop(SIGTERM, std::chrono::milliseconds(2000));
    a.process.reset();
    if (a.netns) a.netns->remove();
  }
  if (!held_->token_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(held_->token_dir, ec);
  }
}

std::string WireTestbed::describe() const { return what_; }

std::unique_ptr<WireTestbed> open_wire_testbed(const WireTestbedRequest& r, std::string* error) {
  auto fail = [&](std::string m) -> std::unique_ptr<WireTestbed> {
    if (error != nullptr) *error = std::move(m);
    return nullptr;
  };
  if (!r.dut.starts_with("agent:")) {
    return fail("--testbed " + r.testbed + " puts the DUT on real interfaces: it needs --dut agent:reference[:defect,...] " +
                "(an agent this run starts) or --dut agent:HOST:PORT (yours), not --dut " + r.dut);
  }
  const bool peer_on_wire = r.peer.starts_with("agent:");
  std::unique_ptr<WireTestbed> w(new WireTestbed());
  harness::Testbed::BridgeDeclaration bridge;
  bridge.budget = harness::Testbed::TimingBudget{r.budget_ns ? r.budget_ns : kDefaultBridgeBudgetNs,
                                                 "real-time bridge (--testbed " + r.testbed + ")"};
  bridge.rate_bps = static_cast<std::uint64_t>((r.rate_gbps > 0 ? r.rate_gbps : kDefaultBridgeRateGbps) * 1e9);
  bridge.rtt_ns = kDefaultBridgeRttNs;
  if (r.testbed != "netns") {  // a lab testbed file: the user's agents on the named interfaces
    std::string why;
    const auto lab = hw::load_lab_testbed(r.testbed, &why);
    if (!lab) return fail(why);
    for (const auto& [option, spec] : {std::pair<std::string, std::string>{"--dut", r.dut}, {"--peer", r.peer}}) {
      if (started_agent_backend(spec)) {
        return fail("--testbed " + r.testbed + " is a lab testbed: start mrc-dut-agent beside the implementation and give " +
                    option + " agent:HOST:PORT (agent:reference is for --testbed netns)");
      }
    }
    if (peer_on_wire && lab->peer_ports.empty()) {
      return fail(r.testbed + ": --peer " + r.peer + " is an agent, so the file needs lab.peer_ports (the interface " +
                  "cabled to each of the peer's ports, like lab.ports)");
    }
    w->fabric_ = lab->fabric;
    if (lab->budget_ns) bridge.budget.ns = *lab->budget_ns;
    bridge.fabric_priority = lab->fabric_priority;
    bridge.fabric_spin_ns = lab->fabric_spin_ns;
    if (lab->rate_gbps && r.rate_gbps <= 0) bridge.rate_bps = static_cast<std::uint64_t>(*lab->rate_gbps * 1e9);
    w->dut_ = WireSide{r.dut, harness::AgentWire{"", lab->ports, bridge}};
    if (peer_on_wire) w->peer_ = WireSide{r.peer, harness::AgentWire{"", lab->peer_ports, bridge}};
    w->token_ = r.agent_token;
    w->what_ = "lab testbed " + r.testbed + " (fabric " + w->fabric_ + ", DUT ports " + std::to_string(lab->ports.size()) +
               (peer_on_wire ? ", peer ports " + std::to_string(lab->peer_ports.size()) : std::string()) + ")";
    return w;
  }

  for (const auto& [option, spec] : {std::pair<std::string, std::string>{"--dut", r.dut}, {"--peer", r.peer}}) {
    if (spec.starts_with("agent:") && !started_agent_backend(spec)) {
      return fail("--testbed netns starts its own agents inside namespaces it creates, so it takes " + option +
                  " agent:reference[:defect,...], not " + spec + "; for an agent you started (beside a NIC, or your " +
                  "own model on veths you made), write a lab testbed file naming the interfaces and give it as " +
                  "--testbed FILE");
    }
  }
  if (std::string why = hw::netns_unavailable_reason(); !why.empty()) {
    return fail("--testbed netns needs root (or CAP_NET_ADMIN + CAP_SYS_ADMIN) and iproute2: " + why);
  }
  hw::cleanup_stale();
  hw::install_signal_cleanup();
  char dir_template[] = "/tmp/mrc-conform-token-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return fail("cannot make a private folder for the agents' token in /tmp");
  w->held_->token_dir = dir_template;
  w->token_ = fresh_token();
  const std::filesystem::path token_file = w->held_->token_dir / "token";
  {
    std::ofstream f(token_file);
    f << w->token_ << '\n';
    if (!f) return fail("cannot write the agents' token to " + token_file.string());
  }
  chmod(token_file.c_str(), 0600);
  const std::filesystem::path bin = r.agent_binary.empty() ? agent_beside_us() : r.agent_binary;

  // A namespace with one veth pair per plane and mrc-dut-agent (backend reference[:defects]) in it
  // on the namespace's ends, with the fabric's addresses of `host`. What is made goes into held_
  // at once, so a failure later still removes it.
  auto start_agent = [&](const std::string& spec, int host, WireSide& side) -> std::string {
    hw::NetnsOptions no;
    no.planes = r.planes;
    std::string why;
    WireTestbed::Held::Agent& a = w->held_->agents.emplace_back();
    a.netns = hw::Netns::create(no, &why);
    if (!a.netns) return "--testbed netns: " + why;
    side.wire.bridge = bridge;
    side.wire.netns = a.netns->name();
    std::string ifaces;
    for (const hw::VethPlane& v : a.netns->planes()) {
      side.wire.ports.push_back(harness::WirePortBinding{static_cast<std::uint8_t>(v.plane), v.host_if});
      ifaces += (ifaces.empty() ? "p" : ",p") + std::to_string(v.plane) + "=" + v.ns_if;
    }
    std::string gid;
    std::string mac;
    if (std::string e = host_addresses(w->fabric_, host, gid, mac); !e.empty()) return e;
    const std::string backend = started_agent_backend(spec).value_or("reference");
    a.process = hw::spawn(a.netns->name(),
                          {bin.string(), "--token-file", token_file.string(), "--ifaces", ifaces, "--listen",
                           "127.0.0.1:0", "--backend", backend, "--gid", gid, "--mac", mac, "--quiet",
                           // One case at a time, but a finished case's connection may still be
                           // closing when the next case connects.
                           "--max-clients", "4"},
                          &why);
    if (!a.process) return "cannot start " + bin.string() + ": " + why;
    // The agent stands in for a NIC, which has silicon of its own; here it shares the cores with
    // the paced fabric, whose thread wakes for each of its deadlines. Ahead of it in the scheduler's
    // queue, the agent answers a frame in microseconds rather than after the fabric's time slice.
    // (Best effort: without CAP_SYS_NICE it keeps the default.)
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(a.process->pid()), kAgentNice);
    const std::string line = a.process->read_line(kAgentStartBound, &why);
    const std::uint16_t port = listening_port(line);
    if (port == 0) {
      return "mrc-dut-agent did not say where it listens within 10 s (agent_start bound): " + (why.empty() ? line : why) +
             " " + a.process->drain_output();
    }
    side.spec = "agent:127.0.0.1:" + std::to_string(port);
    w->what_ += (w->what_.empty() ? "" : "; ") + std::string(host == harness::kDutHost ? "DUT" : "peer") + ": netns " +
                a.netns->name() + " (" + std::to_string(r.planes) + " veth pairs), mrc-dut-agent --backend " + backend +
                " on " + side.spec + " inside it";
    return "";
  };
  if (std::string e = start_agent(r.dut, harness::kDutHost, w->dut_); !e.empty()) return fail(e);
  if (peer_on_wire) {
    w->peer_.emplace();
    if (std::string e = start_agent(r.peer, harness::kPeerHost, *w->peer_); !e.empty()) return fail(e);
  }
  w->what_ += "; fabric " + w->fabric_;
  return w;
}

}  // namespace mrc::run
