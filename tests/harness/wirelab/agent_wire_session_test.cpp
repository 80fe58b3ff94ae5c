// A full agent session on real interfaces: the agent's reference endpoint sits on the namespace
// ends of two veth pairs (one per plane), a second reference endpoint on the host ends is driven
// by this test through libpcap, and the harness side speaks the control protocol over TCP:
// HELLO -> APPLY_CONFIG -> CONNECT -> WRITE_MEMORY -> POST_WRITE -> POLL, then the bytes are
// checked at the far end, and the same the other way round. Run against the agent in-process
// (server thread inside the namespace) and against the mrc-dut-agent binary spawned inside it.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>

#include "reference/wire/frame.hpp"
#include "tests/harness/agent/agent_test_support.hpp"
#include "tests/harness/wirelab/wirelab_support.hpp"

namespace mrc::wirelab::testing {
namespace {

using namespace std::chrono_literals;
using agent::testing::Client;

constexpr const char* kToken = "wirelab-token";

ap::ApplyConfig wire_config() {
  ap::ApplyConfig c;
  c.format_mode = ap::FormatMode::kStev;
  c.format_widths = {16, 16};
  c.ev_mode = ap::EvMode::kExplicit;
  c.fields = {{16, 0, 0, 0xFFF, 0x0FFF}, {16, 0xC000, 0, 0xFFF, 0x0FFF}};
  for (std::uint8_t i = 0; i < 8; ++i) {
    c.evs.push_back({{static_cast<std::uint8_t>(0x20 + i), 0x00, static_cast<std::uint8_t>(i + 1)},
                     static_cast<std::uint8_t>(1 + i % 2)});
  }
  c.ev_min_active = 2;
  ap::NsccParams cc;
  cc.base_rtt = 50000;  // a veth on a busy 2-core box, not a 100G fabric
  c.cc = cc;
  c.qp.mtu = 1024;
  c.qp.timeout = 14;  // ~16.8 ms: generous against scheduling delays, still bounded
  c.regions = {{0x10000000, 64 * 1024}};
  return c;
}

ap::PeerInfo peer_of(const ap::ApplyOk& ok) {
  return ap::PeerInfo{ok.gid, ok.mac, ok.ipv4, ok.qpns, ok.mpr_dest, ok.max_wimm_dest, ok.qp_caps, ok.first_psn};
}

// The second reference endpoint: on the host ends, driven here with CLOCK_MONOTONIC.
struct WirePeer {
  std::unique_ptr<ag::ReferenceBackend> backend;
  std::uint64_t origin = mono_ns();

  std::string open(const hw::Netns& ns) {
    std::vector<ag::IfaceBinding> ifaces;
    for (const auto& p : ns.planes()) ifaces.push_back({static_cast<std::uint8_t>(p.plane), p.host_if});
    std::string err;
    auto io = ag::open_pcap_io(ifaces, &err);
    if (!io) return err;
    backend = std::make_unique<ag::ReferenceBackend>(ag::ReferenceOptions{}, std::move(io));
    return {};
  }
  // Services the endpoint for `d`: wakes on frames or its next timer.
  void pump(std::chrono::milliseconds d) {
    const std::uint64_t end = mono_ns() + static_cast<std::uint64_t>(d.count()) * 1'000'000ull;
    std::vector<pollfd> fds;
    for (int fd : backend->io_fds()) fds.push_back({fd, POLLIN, 0});
    while (mono_ns() < end) {
      poll(fds.data(), fds.size(), 1);
      backend->service(mono_ns() - origin);
    }
  }
};

// Captures what the agent sends (host ends, inbound) on every plane.
struct AgentTaps {
  std::vector<std::unique_ptr<hw::PcapPort>> ports;
  std::vector<harness::Capture> caps;
  std::string open(const hw::Netns& ns) {
    std::string err;
    for (const auto& p : ns.planes()) {
      auto port = hw::PcapPort::open(p.host_if, {}, &err);
      if (!port) return err;
      ports.push_back(std::move(port));
      caps.emplace_back("agent.p" + std::to_string(p.plane) + ".tx");
    }
    return {};
  }
  void drain() {
    for (std::size_t i = 0; i < ports.size(); ++i) ports[i]->receive_into(caps[i], 1024);
  }
};

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  std::uint32_t x = 0x12345678u + seed;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return v;
}

// The whole session over an established control connection.
void run_session(Client& c, const hw::Netns& ns) {
  WirePeer peer;
  ASSERT_EQ(peer.open(ns), "");
  AgentTaps taps;
  ASSERT_EQ(taps.open(ns), "");

  const auto hello = c.call(ap::Message{0, 1, ap::Hello{ap::kProtocolVersion, kToken, "wirelab test"}});
  ASSERT_TRUE(hello.has_value());
  const auto* hok = std::get_if<ap::HelloOk>(&hello->body);
  ASSERT_NE(hok, nullptr);
  ASSERT_EQ(hok->ports.size(), ns.planes().size());
  for (std::size_t i = 0; i < hok->ports.size(); ++i) {
    EXPECT_EQ(hok->ports[i].name, ns.planes()[i].ns_if);
    EXPECT_EQ(hok->ports[i].mac, ns.planes()[i].ns_mac);
  }

  const ap::ApplyConfig cfg = wire_config();
  const auto applied = c.call(ap::Message{0, 2, cfg});
  ASSERT_TRUE(applied.has_value());
  const auto* ok_a = std::get_if<ap::ApplyOk>(&applied->body);
  ASSERT_NE(ok_a, nullptr) << std::get<ap::Error>(applied->body).text;
  ap::ApplyOk ok_b;
  const ag::Outcome o = peer.backend->apply(cfg, ok_b);
  ASSERT_TRUE(o.ok()) << o.text;
  ASSERT_TRUE(peer.backend->connect(peer_of(*ok_a)).ok());
  const auto connected = c.call(ap::Message{0, 3, ap::Connect{peer_of(ok_b)}});
  ASSERT_TRUE(connected && std::holds_alternative<ap::Ok>(connected->body));

  // Agent -> peer.
  const auto data = pattern(20000, 1);
  ASSERT_TRUE(std::holds_alternative<ap::Ok>(c.call(ap::Message{0, 4, ap::WriteMemory{ok_a->regions[0].addr, data}})->body));
  ap::PostWrite w;
  w.wr_id = 1001;
  w.length = static_cast<std::uint32_t>(data.size());
  w.remote_addr = ok_b.regions[0].addr + 64;
  w.rkey = ok_b.regions[0].rkey;
  const auto posted = c.call(ap::Message{0, 5, w});
  ASSERT_TRUE(posted && std::holds_alternative<ap::Ok>(posted->body));
  std::uint32_t seq = 6;
  std::vector<ap::CompletionInfo> done;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (done.empty() && std::chrono::steady_clock::now() < deadline) {
    peer.pump(2ms);
    taps.drain();
    const auto r = c.call(ap::Message{0, seq++, ap::Poll{}});
    ASSERT_TRUE(r.has_value());
    const auto& comp = std::get<ap::Completions>(r->body);
    done.insert(done.end(), comp.completions.begin(), comp.completions.end());
  }
  ASSERT_EQ(done.size(), 1u) << "no completion within 10 s";
  EXPECT_EQ(done[0].wr_id, 1001u);
  EXPECT_EQ(done[0].status, 0);
  ap::MemoryBytes landed;
  ASSERT_TRUE(peer.backend->read_memory({ok_b.regions[0].addr + 64, w.length}, landed).ok());
  EXPECT_EQ(landed.bytes, data) << "the write must land byte-exact";

  // What the agent put on the wire: MRC data frames on both planes, ns timestamps.
  peer.pump(5ms);
  taps.drain();
  std::size_t data_frames = 0;
  for (const auto& cap : taps.caps) {
    EXPECT_GT(cap.size(), 0u) << cap.tap() << ": the EVs spread the write over every plane";
    for (std::size_t i = 0; i < cap.size(); ++i) {
      wire::DecodedFrame f;
      if (!wire::decode_frame(wire::Bytes(cap.bytes(i).data(), cap.bytes(i).size()), f).ok()) continue;
      if (f.bth.opcode >= wire::opcode::kMrcWriteFirst && f.bth.opcode <= wire::opcode::kMrcWriteOnlyImm) ++data_frames;
      if (i > 0) {
        EXPECT_GE(cap.packet(i).ts_ns, cap.packet(i - 1).ts_ns);
      }
    }
    EXPECT_TRUE(cap.integrity().ns_timestamps);
  }
  EXPECT_GE(data_frames, 20u);  // 20000 bytes at MTU 1024

  // Peer -> agent, read back over the protocol.
  const auto back = pattern(9000, 2);
  ASSERT_TRUE(peer.backend->write_memory({ok_b.regions[0].addr, back}).ok());
  ap::PostWrite w2;
  w2.wr_id = 2002;
  w2.length = static_cast<std::uint32_t>(back.size());
  w2.remote_addr = ok_a->regions[0].addr + 32768;
  w2.rkey = ok_a->regions[0].rkey;
  ASSERT_TRUE(peer.backend->post_write(w2).ok());
  std::vector<ap::CompletionInfo> peer_done;
  const auto deadline2 = std::chrono::steady_clock::now() + 10s;
  while (peer_done.empty() && std::chrono::steady_clock::now() < deadline2) {
    peer.pump(2ms);
    ap::Completions got;
    peer.backend->poll(ap::Poll{}, got);
    peer_done.insert(peer_done.end(), got.completions.begin(), got.completions.end());
  }
  ASSERT_EQ(peer_done.size(), 1u);
  EXPECT_EQ(peer_done[0].status, 0);
  const auto read = c.call(ap::Message{0, seq++, ap::ReadMemory{w2.remote_addr, w2.length}});
  ASSERT_TRUE(read.has_value());
  ASSERT_TRUE(std::holds_alternative<ap::MemoryBytes>(read->body));
  EXPECT_EQ(std::get<ap::MemoryBytes>(read->body).bytes, back);

  const auto state = c.call(ap::Message{0, seq++, ap::QueryState{}});
  ASSERT_TRUE(state.has_value());
  const auto& st = std::get<ap::StateReport>(state->body);
  EXPECT_EQ(st.evs.size(), 8u);
  for (const auto& k : st.counters) {
    if (k.name == "ep.frames_tx" || k.name == "ep.frames_rx") {
      EXPECT_GT(k.value, 0) << k.name;
    }
    if (k.name == "agent.tx_errors") {
      EXPECT_EQ(k.value, 0) << k.name;
    }
  }
  const auto bye = c.call(ap::Message{0, seq++, ap::Bye{}});
  ASSERT_TRUE(bye.has_value());
  EXPECT_EQ(bye->flags, ap::kFlagClosing);
}

TEST(WireAgent, FullSessionInProcess) {
  MRC_SKIP_UNLESS_NETNS();
  std::string err;
  auto ns = hw::Netns::create({2, 9000}, &err);
  ASSERT_NE(ns, nullptr) << err;
  InNetnsAgent agent(*ns, kToken);
  ASSERT_EQ(agent.error(), "");
  Client c(agent::testing::connect_loopback(agent.port()));
  ASSERT_TRUE(c.ok());
  run_session(c, *ns);
}

TEST(WireAgent, FullSessionAgainstTheBinaryInsideTheNamespace) {
  MRC_SKIP_UNLESS_NETNS();
  const std::filesystem::path bin = std::filesystem::path(MRC_BINARY_DIR) / "bin" / "mrc-dut-agent";
  ASSERT_TRUE(std::filesystem::exists(bin)) << bin << " not built";
  std::string err;
  auto ns = hw::Netns::create({2, 9000}, &err);
  ASSERT_NE(ns, nullptr) << err;
  const std::string ifaces = "p1=" + ns->planes()[0].ns_if + ",p2=" + ns->planes()[1].ns_if;
  auto child = hw::spawn(ns->name(),
                         {bin.string(), "--listen", "127.0.0.1:0", "--token", kToken, "--ifaces", ifaces,
                          "--hello-timeout-ms", "5000", "--max-clients", "2"},
                         &err);
  ASSERT_NE(child, nullptr) << err;
  const std::string line = child->read_line(5s, &err);
  ASSERT_NE(line.find("listening on 127.0.0.1:"), std::string::npos) << line << err << child->drain_output();
  const std::string after = line.substr(line.find("127.0.0.1:") + 10);
  const int port = std::stoi(after.substr(0, after.find(' ')));
  // The agent listens on the namespace's loopback: reach it with a socket made inside.
  auto connect_inside = [&]() {
    const int fd = hw::socket_in_netns(ns->name(), AF_INET, SOCK_STREAM, &err);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  };
  {
    Client bad(connect_inside());
    const auto r = bad.call(ap::Message{0, 1, ap::Hello{ap::kProtocolVersion, "wrong", "x"}});
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(std::get<ap::Error>(r->body).code, ap::ErrorCode::kBadToken);
    EXPECT_TRUE(bad.closes_within(2s));
  }
  {
    Client c(connect_inside());
    run_session(c, *ns);
  }
  // SIGTERM: a clean exit.
  const int status = child->stop(SIGTERM, 3s);
  ASSERT_NE(status, -1) << "the agent did not exit on SIGTERM";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << child->drain_output();
}

TEST(WireAgent, BinaryRefusesBadCommandLines) {
  const std::filesystem::path bin = std::filesystem::path(MRC_BINARY_DIR) / "bin" / "mrc-dut-agent";
  ASSERT_TRUE(std::filesystem::exists(bin)) << bin << " not built";
  auto r = hw::run_command({bin.string(), "--ifaces", "p1=lo"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("token is required"), std::string::npos) << r.output;
  r = hw::run_command({bin.string(), "--token", "t", "--ifaces", "p1=lo", "--backend", "vendor"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--backend vendor: not available"), std::string::npos) << r.output;
  r = hw::run_command({bin.string(), "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--ifaces"), std::string::npos);
}

}  // namespace
}  // namespace mrc::wirelab::testing
