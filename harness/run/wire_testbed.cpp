#include "harness/run/wire_testbed.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <charconv>
#include <fstream>
#include <random>

#include "harness/run/session_state.hpp"
#include "harness/testbed/wire/lab_testbed.hpp"
#include "harness/testbed/wire/netns.hpp"
#include "harness/testbed/wire/netns_exec.hpp"

namespace mrc::run {
namespace {

namespace hw = harness::wire;

constexpr std::string_view kAgentReference = "agent:reference";
constexpr auto kAgentStartBound = std::chrono::milliseconds(10'000);

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

// The fabric's addresses of the DUT host, which the agent's endpoint must use (the fabric routes
// by them). Read from the fabric itself, so they follow its address plan.
std::string dut_addresses(const std::string& fabric, std::string& gid, std::string& mac) {
  std::string why;
  const auto tb = harness::make_sim_testbed(harness::TestbedRequest::named(fabric), 1, &why);
  if (!tb) return "fabric " + fabric + ": " + why;
  const harness::HostAddress a = tb->host_address(kDutHost);
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

bool is_wire_testbed(const std::string& testbed) {
  return testbed == "netns" || hw::looks_like_lab_file(testbed);
}

struct WireTestbed::Held {
  std::unique_ptr<hw::Netns> netns;
  std::unique_ptr<hw::ChildProcess> agent;
  std::filesystem::path token_dir;
};

WireTestbed::WireTestbed() : held_(std::make_unique<Held>()) {}

WireTestbed::~WireTestbed() {
  if (held_->agent) held_->agent->stop(SIGTERM, std::chrono::milliseconds(2000));
  held_->agent.reset();
  if (held_->netns) held_->netns->remove();
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
  std::unique_ptr<WireTestbed> w(new WireTestbed());
  w->wire_.bridge.budget = harness::Testbed::TimingBudget{r.budget_ns ? r.budget_ns : kDefaultBridgeBudgetNs,
                                                          "real-time bridge (--testbed " + r.testbed + ")"};
  w->wire_.bridge.rate_bps = static_cast<std::uint64_t>((r.rate_gbps > 0 ? r.rate_gbps : kDefaultBridgeRateGbps) * 1e9);
  w->wire_.bridge.rtt_ns = kDefaultBridgeRttNs;
  if (r.testbed != "netns") {  // a lab testbed file: the user's agent on the named interfaces
    std::string why;
    const auto lab = hw::load_lab_testbed(r.testbed, &why);
    if (!lab) return fail(why);
    if (r.dut.starts_with(kAgentReference)) {
      return fail("--testbed " + r.testbed + " is a lab testbed: start mrc-dut-agent beside the DUT and give " +
                  "--dut agent:HOST:PORT (agent:reference is for --testbed netns)");
    }
    w->fabric_ = lab->fabric;
    w->wire_.ports = lab->ports;
    if (lab->budget_ns) w->wire_.bridge.budget.ns = *lab->budget_ns;
    if (lab->rate_gbps && r.rate_gbps <= 0) w->wire_.bridge.rate_bps = static_cast<std::uint64_t>(*lab->rate_gbps * 1e9);
    w->dut_spec_ = r.dut;
    w->token_ = r.agent_token;
    w->what_ = "lab testbed " + r.testbed + " (fabric " + w->fabric_ + ", DUT ports " +
               std::to_string(lab->ports.size()) + ")";
    return w;
  }

  if (std::string why = hw::netns_unavailable_reason(); !why.empty()) {
    return fail("--testbed netns needs root (or CAP_NET_ADMIN + CAP_SYS_ADMIN) and iproute2: " + why);
  }
  hw::cleanup_stale();
  hw::install_signal_cleanup();
  hw::NetnsOptions no;
  no.planes = r.planes;
  std::string why;
  w->held_->netns = hw::Netns::create(no, &why);
  if (!w->held_->netns) return fail("--testbed netns: " + why);
  for (const hw::VethPlane& v : w->held_->netns->planes()) {
    w->wire_.ports.push_back(harness::WirePortBinding{static_cast<std::uint8_t>(v.plane), v.host_if});
  }
  w->wire_.netns = w->held_->netns->name();
  w->what_ = "netns " + w->held_->netns->name() + " (" + std::to_string(r.planes) + " veth pairs, fabric mini)";

  if (!r.dut.starts_with(kAgentReference)) {
    return fail(std::string("--testbed netns starts its own agent inside a namespace it creates, so it takes --dut ") +
                "agent:reference[:defect,...]; for an agent you started (beside a NIC, or your own model on veths " +
                "you made), write a lab testbed file naming the interfaces and give it as --testbed FILE");
  }
  // agent:reference[:defects]: start mrc-dut-agent inside the namespace.
  std::string backend = "reference";
  if (r.dut.size() > kAgentReference.size()) {
    if (r.dut[kAgentReference.size()] != ':') return fail("--dut " + r.dut + ": expected agent:reference[:defect,...]");
    backend += r.dut.substr(kAgentReference.size());
  }
  std::string gid;
  std::string mac;
  if (std::string e = dut_addresses(w->fabric_, gid, mac); !e.empty()) return fail(e);
  std::string ifaces;
  for (const hw::VethPlane& v : w->held_->netns->planes()) {
    ifaces += (ifaces.empty() ? "p" : ",p") + std::to_string(v.plane) + "=" + v.ns_if;
  }
  char dir_template[] = "/tmp/mrc-conform-token-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return fail("cannot make a private folder for the agent's token in /tmp");
  w->held_->token_dir = dir_template;
  w->token_ = fresh_token();
  const std::filesystem::path token_file = w->held_->token_dir / "token";
  {
    std::ofstream f(token_file);
    f << w->token_ << '\n';
    if (!f) return fail("cannot write the agent's token to " + token_file.string());
  }
  chmod(token_file.c_str(), 0600);
  const std::filesystem::path bin = r.agent_binary.empty() ? agent_beside_us() : r.agent_binary;
  w->held_->agent = hw::spawn(w->held_->netns->name(),
                        {bin.string(), "--token-file", token_file.string(), "--ifaces", ifaces, "--listen",
                         "127.0.0.1:0", "--backend", backend, "--gid", gid, "--mac", mac, "--quiet",
                         // One case at a time, but a finished case's connection may still be
                         // closing when the next case connects.
                         "--max-clients", "4"},
                        &why);
  if (!w->held_->agent) return fail("cannot start " + bin.string() + ": " + why);
  const std::string line = w->held_->agent->read_line(kAgentStartBound, &why);
  const std::uint16_t port = listening_port(line);
  if (port == 0) {
    return fail("mrc-dut-agent did not say where it listens within 10 s (agent_start bound): " +
                (why.empty() ? line : why) + " " + w->held_->agent->drain_output());
  }
  w->dut_spec_ = "agent:127.0.0.1:" + std::to_string(port);
  w->what_ += ", mrc-dut-agent --backend " + backend + " on " + w->dut_spec_ + " inside it";
  return w;
}

}  // namespace mrc::run
