// The lockstep backend (agent-protocol.md §9) without sockets: two reference DUTs seated by
// ATTACH exchange a WRITE only through STEPs, in a virtual time the test alone advances; the
// refusals a lockstep agent owes (order, time going back, a port it does not have) name what is
// wrong; and a connection's session serves HELLO_OK with clock VIRTUAL.
#include <gtest/gtest.h>

#include <deque>
#include <thread>

#include "harness/agent/lockstep_backend.hpp"
#include "harness/agent/server.hpp"
#include "harness/agent/session.hpp"
#include "harness/dut/agent_setup.hpp"
#include "tests/harness/agent/agent_test_support.hpp"
#include "tests/harness/agentproto/bad_messages.hpp"

namespace mrc::agent::testing {
namespace {

namespace ap = mrc::agentproto;

ap::ApplyConfig stev_config() {
  ap::ApplyConfig c;
  c.format_widths = {16, 16};
  c.fields = {{16, 0, 0, 0xFFF, 0x0FFF}, {16, 0xC000, 0, 0xFFF, 0x0FFF}};
  for (std::uint8_t i = 0; i < 4; ++i) {
    c.evs.push_back({{static_cast<std::uint8_t>(0x10 + i), 0x00, static_cast<std::uint8_t>(i + 1)},
                     static_cast<std::uint8_t>(1 + i % 2)});
  }
  c.ev_min_active = 1;
  c.qp.mtu = 1024;
  c.regions = {{0x10000000, 64 * 1024}};
  return c;
}

ap::Attach attach_of(std::uint8_t host) {
  ap::Attach a;
  a.mac = {2, 0, 0, 0, 0, host};
  a.gid = {0xfd, 0x6d, 0x72, 0x63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, host};
  a.planes = 2;
  return a;
}

ap::PeerInfo peer_of(const ap::ApplyOk& ok) { return harness::to_peer_info(harness::to_dut_local(ok)); }

struct Pair {
  LockstepBackend a{"reference"};
  LockstepBackend b{"reference"};
  ap::ApplyOk ok_a, ok_b;
  std::deque<ap::StepOp> to_a, to_b;  // frames in flight, delivered 1 us after they leave
  std::uint64_t t = 0;
  std::uint64_t steps = 0;

  void bring_up() {
    ASSERT_EQ(a.open(), "");
    ASSERT_EQ(b.open(), "");
    ASSERT_TRUE(a.attach(attach_of(1)).ok());
    ASSERT_TRUE(b.attach(attach_of(2)).ok());
    Outcome o = a.apply(stev_config(), ok_a);
    ASSERT_TRUE(o.ok()) << o.text;
    o = b.apply(stev_config(), ok_b);
    ASSERT_TRUE(o.ok()) << o.text;
    EXPECT_EQ(ok_a.mac, attach_of(1).mac);  // the DUT takes the fabric's addresses
    EXPECT_EQ(ok_a.gid, attach_of(1).gid);
    ASSERT_TRUE(a.connect(peer_of(ok_b)).ok());
    ASSERT_TRUE(b.connect(peer_of(ok_a)).ok());
  }
  // One STEP of `side` at time t: the frames due, then an advance, then every frame it sends.
  void step(LockstepBackend& side, std::deque<ap::StepOp>& in, std::deque<ap::StepOp>& out) {
    ap::Step s;
    while (!in.empty() && in.front().at_ns <= t) {
      s.ops.push_back(std::move(in.front()));
      in.pop_front();
    }
    s.ops.push_back(ap::StepOp{ap::StepOpKind::kAdvance, t, 0, {}});
    s.max_frames = ap::limit::kStepFrames;
    ap::Frames f;
    const Outcome o = side.step(s, f);
    ASSERT_TRUE(o.ok()) << o.text;
    ++steps;
    for (auto& fr : f.frames) out.push_back(ap::StepOp{ap::StepOpKind::kFrame, t + 1000, fr.port, std::move(fr.frame)});
  }
  template <typename F>
  bool run(F done, std::uint64_t limit_ns = 20'000'000) {
    const std::uint64_t end = t + limit_ns;
    while (t < end) {
      t += 1000;
      step(a, to_a, to_b);
      step(b, to_b, to_a);
      if (done()) return true;
    }
    return false;
  }
};

TEST(LockstepBackend, WriteCrossesOnlyThroughSteps) {
  Pair p;
  p.bring_up();
  std::vector<std::uint8_t> data(6000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 13 + 1);
  ASSERT_TRUE(p.a.write_memory({p.ok_a.regions[0].addr, data}).ok());
  ap::PostWrite w;
  w.wr_id = 9;
  w.length = static_cast<std::uint32_t>(data.size());
  w.remote_addr = p.ok_b.regions[0].addr + 64;
  w.rkey = p.ok_b.regions[0].rkey;
  ASSERT_TRUE(p.a.post_write(w).ok());
  std::vector<ap::CompletionInfo> done;
  ASSERT_TRUE(p.run([&] {
    ap::Completions c;
    p.a.poll(ap::Poll{}, c);
    done.insert(done.end(), c.completions.begin(), c.completions.end());
    return !done.empty();
  }));
  EXPECT_EQ(done[0].wr_id, 9u);
  EXPECT_EQ(done[0].status, 0);
  // Virtual time: the completion carries the time of the STEP that brought the ACK, no wall clock.
  EXPECT_EQ(done[0].at_ns, p.a.now());
  EXPECT_LE(done[0].at_ns, p.t);
  ap::MemoryBytes got;
  ASSERT_TRUE(p.b.read_memory({p.ok_b.regions[0].addr + 64, static_cast<std::uint32_t>(data.size())}, got).ok());
  EXPECT_EQ(got.bytes, data);
  ap::StateReport st;
  ASSERT_TRUE(p.b.query_state(st).ok());
  EXPECT_EQ(st.now_ns, p.t);
}

TEST(LockstepBackend, RefusesOutOfOrderAndForeignInput) {
  LockstepBackend b("reference");
  ASSERT_EQ(b.open(), "");
  ap::Frames f;
  ap::ApplyOk ok;
  EXPECT_EQ(b.step(ap::Step{}, f).code, ap::ErrorCode::kNotApplied);
  EXPECT_EQ(b.apply(stev_config(), ok).code, ap::ErrorCode::kNotApplied);
  ASSERT_TRUE(b.attach(attach_of(1)).ok());
  // Before APPLY_CONFIG the DUT has no endpoint: frames are dropped and counted, time moves.
  ap::Step early{{ap::StepOp{ap::StepOpKind::kFrame, 500, 1, std::vector<std::uint8_t>(64, 1)}}, 1};
  ASSERT_TRUE(b.step(early, f).ok());
  EXPECT_TRUE(f.frames.empty());
  EXPECT_TRUE(f.drained);
  EXPECT_EQ(f.next_deadline_ns, UINT64_MAX);
  ASSERT_TRUE(b.apply(stev_config(), ok).ok());
  ap::Step back{{ap::StepOp{ap::StepOpKind::kAdvance, 2000, 0, {}}, ap::StepOp{ap::StepOpKind::kAdvance, 1000, 0, {}}}, 0};
  const Outcome o = b.step(back, f);
  EXPECT_EQ(o.code, ap::ErrorCode::kBadValue);
  EXPECT_NE(o.text.find("Step.ops[1].at_ns 1000"), std::string::npos) << o.text;
  EXPECT_EQ(b.now(), 2000u);  // the ops before the bad one took effect
  ap::Step port3{{ap::StepOp{ap::StepOpKind::kFrame, 3000, 3, std::vector<std::uint8_t>(64, 1)}}, 0};
  const Outcome p = b.step(port3, f);
  EXPECT_EQ(p.code, ap::ErrorCode::kBadValue);
  EXPECT_NE(p.text.find("ports 1..2"), std::string::npos) << p.text;
  // RESET forgets the seat as well.
  ASSERT_TRUE(b.reset().ok());
  EXPECT_EQ(b.step(ap::Step{}, f).code, ap::ErrorCode::kNotApplied);
}

TEST(LockstepBackend, UnknownBackendIsRefusedAtOpen) {
  LockstepBackend b("agent:127.0.0.1:9");
  EXPECT_NE(b.open().find("reference[:names] or plugin:PATH"), std::string::npos);
  LockstepBackend c("plugin:/nonexistent/libmodel.so");
  EXPECT_NE(c.open().find("/nonexistent/libmodel.so"), std::string::npos);
}

TEST(LockstepBackend, SessionSaysVirtualClock) {
  LockstepBackend b("reference");
  ASSERT_EQ(b.open(), "");
  Session s(b, SessionConfig{ap::testing::kTestToken, "mrc-dut-agent test", {}});
  std::vector<std::uint8_t> out;
  s.on_bytes(ap::encode(ap::testing::hello_msg(1)), out, 0);
  ap::Message m;
  ASSERT_TRUE(ap::decode_message(out, m).ok());
  const auto* ok = std::get_if<ap::HelloOk>(&m.body);
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->clock, ap::Clock::kVirtual);
  EXPECT_FALSE(ok->ports.empty());
}

// Two connections to one lockstep server are two DUTs: each ATTACH seats its own.
TEST(LockstepBackend, EveryConnectionGetsItsOwnDut) {
  LockstepBackend names("reference");
  ASSERT_EQ(names.open(), "");
  ServerConfig cfg;
  cfg.token = ap::testing::kTestToken;
  cfg.max_clients = 4;
  cfg.session_backend = [](std::string* why) -> std::unique_ptr<Backend> {
    auto b = std::make_unique<LockstepBackend>("reference");
    if (std::string e = b->open(); !e.empty()) {
      *why = e;
      return nullptr;
    }
    return b;
  };
  std::string err;
  const int fd = open_listener("127.0.0.1:0", &err);
  ASSERT_GE(fd, 0) << err;
  Server server(cfg, names, fd);
  std::thread loop([&] { server.run(); });
  {
    Client one(connect_loopback(server.port()));
    Client two(connect_loopback(server.port()));
    ASSERT_TRUE(one.call(ap::testing::hello_msg(1)));
    ASSERT_TRUE(two.call(ap::testing::hello_msg(1)));
    ap::Attach a1 = attach_of(1), a2 = attach_of(2);
    a2.planes = 4;
    ASSERT_TRUE(one.call(ap::Message{0, 2, a1}));
    ASSERT_TRUE(two.call(ap::Message{0, 2, a2}));
    auto ports_of = [](Client& c) {
      const auto r = c.call(ap::Message{0, 3, ap::QueryState{}});
      std::size_t n = 0;
      if (r && std::holds_alternative<ap::StateReport>(r->body)) {
        for (const auto& k : std::get<ap::StateReport>(r->body).counters) n += k.name.starts_with("agent.rx.p") ? 1 : 0;
      }
      return n;
    };
    EXPECT_EQ(ports_of(one), 2u);
    EXPECT_EQ(ports_of(two), 4u);
  }
  server.stop();
  loop.join();
}

}  // namespace
}  // namespace mrc::agent::testing
