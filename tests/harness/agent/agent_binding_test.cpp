// The `agent` DUT binding against real agent servers in-process: two reference backends joined
// by the in-memory wire, each behind a Server listening on 127.0.0.1 port 0 and served by one
// thread. HELLO, apply, connect, a write that lands, every control call reaching the endpoint,
// profile operations refused or accepted exactly like the in-process reference binding; and
// against fake agents: a version mismatch, a wrong token, an agent that never answers and one
// that closes mid-call (a bounded failure naming the call and the timeout, never a hang), one
// that declares a capability word the harness does not know, and one with no data port.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <functional>
#include <mutex>
#include <thread>

#include "harness/agent/reference_backend.hpp"
#include "harness/agent/server.hpp"
#include "harness/dut/agent_binding.hpp"
#include "harness/dut/agent_setup.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/testbed/testbed.hpp"
#include "tests/harness/agent/agent_test_support.hpp"
#include "tests/harness/agent/fake_agent.hpp"

namespace mrc::agent::testing {
namespace {

using harness::AgentBinding;
using harness::DutLocal;
using harness::DutSetup;
using harness::DutStatus;
using namespace std::chrono_literals;

constexpr const char* kToken = "binding-test-token";

DutSetup stev_setup() {
  DutSetup s;
  s.format_mode = ap::FormatMode::kStev;
  s.format_widths = {16, 16};
  s.ev_mode = ap::EvMode::kExplicit;
  s.fields = {{16, 0, 0, 0xFFF, 0x0FFF}, {16, 0xC000, 0, 0xFFF, 0x0FFF}};
  for (std::uint8_t i = 0; i < 8; ++i) {
    s.evs.push_back({{static_cast<std::uint8_t>(0x10 + i), 0x00, static_cast<std::uint8_t>(i + 1)},
                     static_cast<std::uint8_t>(1 + i % 2)});
  }
  s.ev_min_active = 1;
  s.cc = ap::NsccParams{};
  s.qp.mtu = 1024;
  s.buffer_bytes = 64 * 1024;
  return s;
}

// Two reference agents on one in-memory wire. One thread steps both servers, so the wire and the
// backends are only touched there; a test that looks at a backend's endpoint holds `lock`.
struct AgentPair {
  MemoryWire wire;
  ReferenceBackend backend_a{ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 0, std::vector<std::uint8_t>{1, 2})};
  ReferenceBackend backend_b{ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 1, std::vector<std::uint8_t>{1, 2})};
  std::unique_ptr<Server> a;
  std::unique_ptr<Server> b;
  std::mutex lock;
  std::atomic<bool> stop{false};
  std::thread loop;

  AgentPair() {
    a = serve(backend_a);
    b = serve(backend_b);
    loop = std::thread([this] {
      while (!stop) {
        const std::lock_guard<std::mutex> g(lock);
        a->step(1ms);
        b->step(1ms);
      }
    });
  }
  ~AgentPair() {
    stop = true;
    loop.join();
  }
  static std::unique_ptr<Server> serve(Backend& backend) {
    ServerConfig c;
    c.token = kToken;
    c.max_clients = 4;
    std::string err;
    const int fd = open_listener("127.0.0.1:0", &err);
    EXPECT_GE(fd, 0) << err;
    return std::make_unique<Server>(std::move(c), backend, fd);
  }
  std::unique_ptr<AgentBinding> bind(const Server& s, std::string token = kToken) {
    return std::make_unique<AgentBinding>("127.0.0.1", s.port(), std::move(token));
  }
};

// Both sides applied and connected.
struct Connected {
  AgentPair pair;
  std::unique_ptr<AgentBinding> a = pair.bind(*pair.a);
  std::unique_ptr<AgentBinding> b = pair.bind(*pair.b);
  DutLocal la, lb;
  Connected() {
    const DutStatus st = a->apply(stev_setup(), la);
    EXPECT_TRUE(st.ok()) << st.message;
    EXPECT_TRUE(b->apply(stev_setup(), lb).ok());
    EXPECT_TRUE(a->connect(lb).ok());
    EXPECT_TRUE(b->connect(la).ok());
  }
};

// Polls `done` for up to 3 s of wall time (the agents run in real time).
template <typename F>
bool eventually(F done) {
  const auto end = std::chrono::steady_clock::now() + 3s;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return false;
}

double counter(const harness::DutBinding& d, std::string_view name) {
  for (const auto& [k, v] : d.counters()) {
    if (k == name) return v;
  }
  return -1;
}

TEST(AgentBinding, HelloGivesIdentityAndCapabilities) {
  AgentPair pair;
  auto a = pair.bind(*pair.a);
  const harness::DutIdentity id = a->identity();
  EXPECT_EQ(id.binding, "agent");
  EXPECT_EQ(id.name, "agent:127.0.0.1:" + std::to_string(pair.a->port()));
  EXPECT_NE(id.version.find("protocol version 5"), std::string::npos) << id.version;
  EXPECT_NE(id.details.find("p1=mem0.1"), std::string::npos) << id.details;
  EXPECT_EQ(a->capabilities(), pair.backend_a.capabilities());
  EXPECT_EQ(a->failure(), "");
  EXPECT_TRUE(a->status().ok());
}

TEST(AgentBinding, WriteCompletesAndLandsByteExact) {
  Connected c;
  ASSERT_EQ(c.la.qpns.size(), 1u);
  EXPECT_NE(c.la.gid, c.lb.gid);
  std::vector<std::uint8_t> data(10000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 3);
  ASSERT_TRUE(c.a->fill_local(0, data).ok());
  harness::WriteRequest w;
  w.wr_id = 77;
  w.length = static_cast<std::uint32_t>(data.size());
  w.remote_addr = c.lb.buffer_va + 100;
  w.rkey = c.lb.rkey;
  const DutStatus st = c.a->post_write(w, 0);
  ASSERT_TRUE(st.ok()) << st.message;
  std::vector<harness::CompletionRecord> done;
  ASSERT_TRUE(eventually([&] { return c.a->poll_completions(done, 0) > 0 || !done.empty(); }));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].wr_id, 77u);
  EXPECT_EQ(done[0].status, 0);
  std::vector<std::uint8_t> landed(data.size());
  ASSERT_TRUE(c.b->read_local(100, landed).ok());
  EXPECT_EQ(landed, data);
}

TEST(AgentBinding, ControlCallsReachTheEndpoint) {
  Connected c;
  ASSERT_TRUE(c.a->set_ev_denied(5, true).ok());
  ASSERT_TRUE(c.a->set_ev_denied(5, false).ok());
  const auto table = c.a->ev_table();
  ASSERT_EQ(table.size(), 8u);
  EXPECT_TRUE(table[5].denied);  // denied during the run, though GOOD again now
  EXPECT_EQ(table[5].state, 1u);

  ASSERT_TRUE(c.a->port_admin(2, false).ok());
  {
    const std::lock_guard<std::mutex> g(c.pair.lock);
    EXPECT_FALSE(c.pair.backend_a.endpoint()->port_up(2));
  }
  EXPECT_EQ(c.a->port_admin(9, false).code, DutStatus::Code::kRejected);
  ASSERT_TRUE(c.a->port_admin(2, true).ok());

  const DutStatus probe = c.a->probe_ev(1, 26, 0);
  ASSERT_TRUE(probe.ok()) << probe.message;
  // The probe left A and B's endpoint answered it. (Whether the answer beats the reference's
  // 50 us probe timeout depends on thread scheduling, so the test does not ask.)
  EXPECT_EQ(counter(*c.a, "ep.ep_tx"), 1.0);
  EXPECT_TRUE(eventually([&] { return counter(*c.b, "ep.ep_tx") == 1.0; }));
  ASSERT_TRUE(c.a->port_status_update(0).ok());
  EXPECT_EQ(counter(*c.a, "ep.ep_tx"), 2.0);
  EXPECT_EQ(c.a->probe_ev(1, 64, 0).code, DutStatus::Code::kFailed);  // DSCP over 63: never sent

  // The endpoint refuses to take a profile its QPs use offline: its errno comes back.
  const DutStatus off = c.a->set_profile_online(false);
  EXPECT_EQ(off.code, DutStatus::Code::kRejected) << off.message;
  EXPECT_EQ(off.err, EBUSY) << off.message;
  ASSERT_TRUE(c.a->set_profile_online(true).ok());
  EXPECT_GT(c.a->counters().size(), 6u);
  ASSERT_TRUE(c.a->reset().ok());
  {
    const std::lock_guard<std::mutex> g(c.pair.lock);
    EXPECT_EQ(c.pair.backend_a.endpoint(), nullptr);
  }
}

// The same profile operations, in the same order, on an agent-bound reference and on the
// in-process reference binding: the same outcome and the same errno every time.
TEST(AgentBinding, ProfileOperationsMatchTheInProcessReference) {
  Connected c;
  std::string why;
  auto tb = harness::make_sim_testbed(harness::TestbedRequest::named("mini"), 1, &why);
  ASSERT_TRUE(tb) << why;
  harness::ReferenceBinding local;
  ASSERT_TRUE(local.attach(*tb, 0).ok());
  DutLocal ll;
  ASSERT_TRUE(local.apply(stev_setup(), ll).ok());

  harness::EvProfileChange online;
  online.state = harness::ProfileStateSetting::kOnline;
  harness::EvProfileChange gen;
  gen.mode = ap::EvMode::kGenerated;
  gen.fields = std::vector<ap::EvField>{{16, 0, 1, 0xFFF, 0x0FFF}, {16, 0xC000, 0, 0xFFF, 0x0FFF}};
  gen.count = 4;
  gen.seed = 9;
  harness::EvProfileChange bad_count;
  bad_count.count = 0;
  harness::CcProfileChange cc_bogus;
  cc_bogus.algorithm = "no-such-algorithm";
  harness::CcProfileChange cc_nscc{harness::ProfileStateSetting::kInit, "uet-1.0-nscc", {{"base_rtt", "9000"}}};
  harness::EvReplacement replace{ap::EvValue{{0x10, 0x00, 0x01}, 1}, {{{0x30, 0x00, 0x01}, 1}}, false};
  harness::EvReplacement fill{std::nullopt, {{{0x31, 0x00, 0x02}, 2}}, false};

  struct Step {
    const char* name;
    std::function<DutStatus(harness::DutBinding&)> op;
  };
  const std::vector<Step> steps = {
      {"ev online before setup", [&](auto& d) { return d.ev_profile_op(online); }},
      {"ev generated", [&](auto& d) { return d.ev_profile_op(gen); }},
      {"ev count 0", [&](auto& d) { return d.ev_profile_op(bad_count); }},
      {"ev online", [&](auto& d) { return d.ev_profile_op(online); }},
      {"cc bogus algorithm", [&](auto& d) { return d.cc_profile_op(cc_bogus); }},
      {"cc nscc", [&](auto& d) { return d.cc_profile_op(cc_nscc); }},
      {"replace", [&](auto& d) { return d.replace_ev(replace); }},
      {"fill unpopulated", [&](auto& d) { return d.replace_ev(fill); }},
      {"profile offline", [&](auto& d) { return d.set_profile_online(false); }},
      {"profile online", [&](auto& d) { return d.set_profile_online(true); }},
  };
  int rejected = 0;
  for (const Step& s : steps) {
    SCOPED_TRACE(s.name);
    const DutStatus want = s.op(local);
    const DutStatus got = s.op(*c.a);
    EXPECT_EQ(got.code, want.code) << "agent: " << got.message << " / in-process: " << want.message;
    EXPECT_EQ(got.err, want.err) << got.message;
    if (want.code == DutStatus::Code::kRejected) ++rejected;
  }
  EXPECT_GE(rejected, 2);  // the sequence exercises refusals, not only successes
}

TEST(AgentBinding, RestrictDeviceOnlyBeforeApply) {
  AgentPair pair;
  auto a = pair.bind(*pair.a);
  harness::DeviceRestriction r{{"modify_online"}, 8};
  ASSERT_TRUE(a->restrict_device(r).ok());
  EXPECT_EQ(a->restrict_device({{"stev"}, 0}).code, DutStatus::Code::kUnimplemented);  // cannot turn it off
  DutLocal l;
  ASSERT_TRUE(a->apply(stev_setup(), l).ok());
  const std::vector<std::string> caps = a->capabilities();
  EXPECT_NE(std::find(caps.begin(), caps.end(), "modify_online"), caps.end());  // declared, but off now
  const DutStatus late = a->restrict_device(r);
  EXPECT_EQ(late.code, DutStatus::Code::kFailed);
  EXPECT_NE(late.message.find("after APPLY_CONFIG"), std::string::npos) << late.message;
}

TEST(AgentBinding, WrongTokenFailsEveryCall) {
  AgentPair pair;
  auto a = pair.bind(*pair.a, "not-the-token");
  EXPECT_TRUE(a->capabilities().empty());
  EXPECT_EQ(a->status().code, DutStatus::Code::kFailed);
  DutLocal l;
  const DutStatus st = a->apply(stev_setup(), l);
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("refused the token"), std::string::npos) << st.message;
  EXPECT_EQ(a->post_recv(0, 1).code, DutStatus::Code::kFailed);
}

TEST(AgentBinding, VersionMismatchNamesBothSides) {
  // A version-4 agent (no lockstep, a shorter HELLO_OK): bad_version, as its session words it.
  FakeAgent v1([](const ap::Message& m) -> std::optional<ap::Message> {
    return ap::Message{ap::kFlagClosing, m.seq,
                       ap::Error{ap::ErrorCode::kBadVersion, 0, "client speaks protocol version 5; this agent speaks version 4 only"}};
  });
  AgentBinding a("127.0.0.1", v1.port(), kToken);
  const DutStatus st = a.reset();
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("harness speaks version 5"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("agent speaks version 4"), std::string::npos) << st.message;
  // An agent that accepts HELLO but answers with another version.
  FakeAgent v3([](const ap::Message& m) -> std::optional<ap::Message> {
    return ap::Message{0, m.seq, ap::HelloOk{6, "future agent", {"stev"}, {}}};
  });
  AgentBinding b("127.0.0.1", v3.port(), kToken);
  EXPECT_TRUE(b.capabilities().empty());
  EXPECT_NE(b.identity().details.find("answered HELLO_OK with version 6"), std::string::npos) << b.identity().details;
}

// A HELLO_OK a well-formed agent could send: declared capabilities and one data port.
ap::Message hello_ok(std::uint32_t seq, std::string agent, std::vector<std::string> caps = {"stev"},
                     std::vector<ap::PortInfo> ports = {{1, "eth1", {2, 0, 0, 0, 0, 1}, true}}) {
  return ap::Message{0, seq, ap::HelloOk{ap::kProtocolVersion, std::move(agent), std::move(caps), std::move(ports)}};
}

TEST(AgentBinding, UnknownCapabilityWordFailsTheHandshakeNamingItAndTheKnownOnes) {
  FakeAgent typo([](const ap::Message& m) -> std::optional<ap::Message> {
    return hello_ok(m.seq, "typo", {"stev", "trim-nack", "ev_probe", "quantum"});
  });
  AgentBinding a("127.0.0.1", typo.port(), kToken);
  const DutStatus st = a.status();
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("declares capabilities the harness does not know: 'trim-nack', 'quantum'"), std::string::npos)
      << st.message;
  EXPECT_NE(st.message.find("(known: trim_nack, dynamic_mpr, svc_time, ev_probe,"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("ev_auto, ipv4)"), std::string::npos) << st.message;
  EXPECT_TRUE(a.capabilities().empty());
  EXPECT_EQ(a.failure(), st.message);
  EXPECT_EQ(a.reset().code, DutStatus::Code::kFailed);  // every call fails with it
  // One unknown word is named in the singular; known words alone pass.
  FakeAgent one([](const ap::Message& m) -> std::optional<ap::Message> { return hello_ok(m.seq, "one", {"srv7"}); });
  AgentBinding b("127.0.0.1", one.port(), kToken);
  EXPECT_NE(b.status().message.find("declares a capability the harness does not know: 'srv7'"), std::string::npos)
      << b.status().message;
  FakeAgent good([](const ap::Message& m) -> std::optional<ap::Message> {
    return hello_ok(m.seq, "good", {"stev", "trim_nack", "precise_drop_count"});
  });
  AgentBinding c("127.0.0.1", good.port(), kToken);
  EXPECT_TRUE(c.status().ok()) << c.status().message;
  EXPECT_EQ(c.capabilities(), (std::vector<std::string>{"stev", "trim_nack", "precise_drop_count"}));
}

// Ports are planes 1..32, each once; an agent's words are printed with control bytes escaped.
TEST(AgentBinding, PortsOutsideThePlanesOrTwiceFailTheHandshake) {
  const ap::Mac mac{2, 0, 0, 0, 0, 1};
  for (const auto& [ports, says] : std::vector<std::pair<std::vector<ap::PortInfo>, std::string>>{
           {{{1, "eth1", mac, true}, {1, "eth2", mac, true}}, "declares port 1 twice"},
           {{{0, "eth0", mac, true}}, "declares port 0 (eth0): ports are planes 1..32"},
           {{{200, "eth\x1b[31m", mac, true}}, "declares port 200 (eth\\x1b[31m): ports are planes 1..32"}}) {
    FakeAgent bad([ports = ports](const ap::Message& m) -> std::optional<ap::Message> {
      return hello_ok(m.seq, "bad", {"stev"}, ports);
    });
    AgentBinding a("127.0.0.1", bad.port(), kToken);
    const DutStatus st = a.status();
    EXPECT_EQ(st.code, DutStatus::Code::kFailed);
    EXPECT_NE(st.message.find(says), std::string::npos) << st.message;
  }
  FakeAgent escapes([](const ap::Message& m) -> std::optional<ap::Message> {
    return hello_ok(m.seq, "evil\x1b]0;title\x07" "agent", {"stev"});
  });
  AgentBinding b("127.0.0.1", escapes.port(), kToken);
  ASSERT_TRUE(b.status().ok()) << b.status().message;
  EXPECT_NE(b.identity().version.find("evil\\x1b]0;title\\x07agent"), std::string::npos) << b.identity().version;
  EXPECT_EQ(b.identity().version.find('\x1b'), std::string::npos);
}

TEST(AgentBinding, HelloOkWithoutPortsFailsTheHandshake) {
  FakeAgent portless([](const ap::Message& m) -> std::optional<ap::Message> { return hello_ok(m.seq, "portless", {"stev"}, {}); });
  AgentBinding a("127.0.0.1", portless.port(), kToken);
  const DutStatus st = a.status();
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("answered HELLO_OK with no ports: the DUT needs at least one data port"), std::string::npos)
      << st.message;
  EXPECT_NE(a.identity().details.find("no ports"), std::string::npos) << a.identity().details;
}

// attach() bridges the agent's ports into the testbed; before any interface is opened it refuses
// a binding without a wire (ERROR naming what is needed) and a testbed with more planes than the
// DUT has ports (UNSUPPORTED, which the runner reports as such).
TEST(AgentBinding, AttachNeedsAWireAndAPortPerPlane) {
  FakeAgent one_port([](const ap::Message& m) -> std::optional<ap::Message> { return hello_ok(m.seq, "one-port"); });
  std::string why;
  auto tb = harness::make_sim_testbed(harness::TestbedRequest::named("mini"), 1, &why);
  ASSERT_TRUE(tb) << why;
  AgentBinding no_wire("127.0.0.1", one_port.port(), kToken);
  const DutStatus a = no_wire.attach(*tb, 0);
  EXPECT_EQ(a.code, DutStatus::Code::kFailed);
  EXPECT_NE(a.message.find("run with --testbed netns, or a lab testbed file"), std::string::npos) << a.message;

  FakeAgent one_port_too([](const ap::Message& m) -> std::optional<ap::Message> { return hello_ok(m.seq, "one-port"); });
  AgentBinding wired("127.0.0.1", one_port_too.port(), kToken);
  wired.set_wire(harness::AgentWire{"", {{1, "mrc-no-such-if"}}, {}});
  const DutStatus b = wired.attach(*tb, 0);
  EXPECT_EQ(b.code, DutStatus::Code::kUnsupported);
  EXPECT_NE(b.message.find("has " + std::to_string(tb->planes()) + " planes but the DUT's wire has no port p2"),
            std::string::npos)
      << b.message;
  EXPECT_TRUE(wired.data_ports().empty());
}

TEST(AgentBinding, SilentAgentIsABoundedFailure) {
  FakeAgent silent([](const ap::Message& m) -> std::optional<ap::Message> {
    if (std::holds_alternative<ap::Hello>(m.body)) return hello_ok(m.seq, "mute");
    return std::nullopt;  // accepts the request, never answers
  });
  AgentBinding a("127.0.0.1", silent.port(), kToken, harness::AgentTimeouts{1000ms, 200ms});
  harness::WriteRequest w;
  const DutStatus st = a.post_write(w, 0);
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("did not answer POST_WRITE within call_timeout 200 ms"), std::string::npos) << st.message;
  // Every later call fails at once with the same cause, without waiting again.
  const auto t0 = std::chrono::steady_clock::now();
  const DutStatus again = a.post_recv(0, 1);
  EXPECT_EQ(again.code, DutStatus::Code::kFailed);
  EXPECT_NE(again.message.find("did not answer POST_WRITE"), std::string::npos) << again.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 200ms);
}

TEST(AgentBinding, AgentClosingMidCallIsAFailure) {
  FakeAgent closer([](const ap::Message& m) -> std::optional<ap::Message> {
    if (std::holds_alternative<ap::Hello>(m.body)) return hello_ok(m.seq, "closer");
    return std::nullopt;
  }, FakeAgent::OnUnanswered::kClose);
  AgentBinding a("127.0.0.1", closer.port(), kToken);
  const DutStatus st = a.set_ev_denied(1, true);
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("closed the connection during SET_EV_STATE"), std::string::npos) << st.message;
  EXPECT_TRUE(a.ev_table().empty());
}

TEST(AgentBinding, NoAgentListeningIsAFailure) {
  std::string err;
  const int fd = open_listener("127.0.0.1:0", &err);
  ASSERT_GE(fd, 0) << err;
  const std::uint16_t port = local_port(fd);
  close(fd);  // nothing listens there now
  AgentBinding a("127.0.0.1", port, kToken, harness::AgentTimeouts{500ms, 500ms});
  const DutStatus st = a.port_admin(1, false);
  EXPECT_EQ(st.code, DutStatus::Code::kFailed);
  EXPECT_NE(st.message.find("cannot connect"), std::string::npos) << st.message;
}

TEST(AgentBinding, FactorySpellings) {
  std::string why;
  const harness::BindingOptions with_token{"tok", {}, {}, "--dut"};
  EXPECT_TRUE(harness::valid_binding_spec("agent:127.0.0.1:7411", &why, with_token)) << why;
  EXPECT_TRUE(harness::valid_binding_spec("agent:[::1]:7411", &why, with_token)) << why;
  EXPECT_TRUE(harness::valid_binding_spec("agent:dut-host:9", &why, with_token)) << why;
  EXPECT_FALSE(harness::valid_binding_spec("agent:127.0.0.1:7411", &why));
  EXPECT_NE(why.find("MRC_AGENT_TOKEN"), std::string::npos) << why;
  for (const char* bad : {"agent:127.0.0.1", "agent::1:7411", "agent:h:0", "agent:h:70000", "agent:[::1]7411", "agent::7411"}) {
    EXPECT_FALSE(harness::valid_binding_spec(bad, &why, with_token)) << bad;
  }
  auto b = harness::make_binding("agent:[::1]:7411", &why, with_token);
  ASSERT_TRUE(b);
  EXPECT_NE(dynamic_cast<AgentBinding*>(b.get()), nullptr);
}

}  // namespace
}  // namespace mrc::agent::testing
