// Session state machine, byte for byte (no sockets): the handshake, seq rules, one reply per
// request, and every entry of the bad-message catalog producing its ERROR (closing exactly when
// the code is fatal), after which the session still serves a good request.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/agent/reference_backend.hpp"
#include "harness/agent/session.hpp"
#include "tests/harness/agent/agent_test_support.hpp"
#include "tests/harness/agentproto/bad_messages.hpp"

namespace mrc::agent::testing {
namespace {

using ap::ErrorCode;
using ap::testing::kTestToken;

struct Rig {
  MemoryWire wire;
  ReferenceBackend backend{ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 0, std::vector<std::uint8_t>{1, 2})};
  Session session{backend, SessionConfig{kTestToken, "mrc-dut-agent test", {}}};
  std::vector<std::uint8_t> out;

  // Feeds bytes; returns the reply frames they produced.
  std::vector<ap::Message> feed(const std::vector<std::uint8_t>& bytes, bool eof = false) {
    out.clear();
    session.on_bytes(bytes, out, 0);
    if (eof) session.on_eof(out);
    return replies();
  }
  std::vector<ap::Message> replies() const {
    std::vector<ap::Message> r;
    std::size_t pos = 0;
    while (pos < out.size()) {
      const ap::FrameCheck fc = ap::check_frame(std::span(out).subspan(pos));
      EXPECT_EQ(fc.status, ap::FrameCheck::Status::kFrame);
      if (fc.status != ap::FrameCheck::Status::kFrame) break;
      ap::Message m;
      EXPECT_TRUE(ap::decode_message(std::span(out).subspan(pos, fc.frame_bytes), m).ok());
      r.push_back(m);
      pos += fc.frame_bytes;
    }
    return r;
  }
};

TEST(AgentSession, HandshakeThenRequests) {
  Rig r;
  auto rep = r.feed(ap::encode(ap::testing::hello_msg(1)));
  ASSERT_EQ(rep.size(), 1u);
  const auto* ok = std::get_if<ap::HelloOk>(&rep[0].body);
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(rep[0].seq, 1u);
  EXPECT_EQ(ok->version, ap::kProtocolVersion);
  EXPECT_NE(ok->agent.find("reference"), std::string::npos);
  EXPECT_EQ(ok->ports.size(), 2u);
  EXPECT_NE(std::find(ok->capabilities.begin(), ok->capabilities.end(), "stev"), ok->capabilities.end());
  EXPECT_TRUE(r.session.authenticated());
  EXPECT_EQ(r.session.client(), "catalog");

  rep = r.feed(ap::encode(ap::Message{0, 2, ap::Poll{}}));
  ASSERT_EQ(rep.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<ap::Completions>(rep[0].body));
  EXPECT_EQ(rep[0].seq, 2u);
  // Seqs need not be consecutive, only increasing.
  // QUERY_STATE is answered before APPLY_CONFIG (agent-protocol.md §2): no EVs, the agent's
  // counters, among them a frame count per port (mrc-conform doctor's port-map probe reads them).
  rep = r.feed(ap::encode(ap::Message{0, 40, ap::QueryState{}}));
  ASSERT_EQ(rep.size(), 1u);
  const auto* st = std::get_if<ap::StateReport>(&rep[0].body);
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(st->evs.empty());
  for (const char* name : {"agent.rx.p1", "agent.rx.p2"}) {
    EXPECT_TRUE(std::any_of(st->counters.begin(), st->counters.end(), [&](const ap::Counter& c) { return c.name == name; }))
        << name;
  }
  rep = r.feed(ap::encode(ap::Message{0, 41, ap::Bye{}}));
  ASSERT_EQ(rep.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<ap::Ok>(rep[0].body));
  EXPECT_EQ(rep[0].flags, ap::kFlagClosing);
  EXPECT_TRUE(r.session.closing());
  EXPECT_TRUE(r.feed(ap::encode(ap::Message{0, 42, ap::Poll{}})).empty());  // nothing read after BYE
}

TEST(AgentSession, BytesMayArriveInAnyChunking) {
  Rig r;
  std::vector<std::uint8_t> stream = ap::encode(ap::testing::hello_msg(1));
  const auto apply = ap::encode(ap::testing::apply_msg(2));
  stream.insert(stream.end(), apply.begin(), apply.end());
  std::vector<ap::Message> all;
  for (std::uint8_t b : stream) {
    for (auto& m : r.feed({b})) all.push_back(m);
  }
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<ap::HelloOk>(all[0].body));
  const auto* ok = std::get_if<ap::ApplyOk>(&all[1].body);
  ASSERT_NE(ok, nullptr) << (std::holds_alternative<ap::Error>(all[1].body) ? std::get<ap::Error>(all[1].body).text : "");
  EXPECT_EQ(ok->qpns.size(), 1u);
  EXPECT_EQ(r.session.buffered(), 0u);
}

TEST(AgentSession, TwoRequestsInOneReadGetTwoReplies) {
  Rig r;
  auto bytes = ap::encode(ap::testing::hello_msg(1));
  const auto poll = ap::encode(ap::Message{0, 2, ap::Poll{}});
  bytes.insert(bytes.end(), poll.begin(), poll.end());
  const auto rep = r.feed(bytes);
  ASSERT_EQ(rep.size(), 2u);
  EXPECT_EQ(rep[1].seq, 2u);
}

TEST(AgentSession, BadMessageCatalog) {
  for (const auto& b : ap::testing::bad_message_catalog()) {
    SCOPED_TRACE(b.name);
    Rig r;
    if (b.after_hello) {
      const auto rep = r.feed(ap::encode(ap::testing::hello_msg(1)));
      ASSERT_EQ(rep.size(), 1u);
      ASSERT_TRUE(std::holds_alternative<ap::HelloOk>(rep[0].body));
    }
    const auto rep = r.feed(b.bytes, b.then_eof);
    ASSERT_EQ(rep.size(), 1u) << "exactly one reply";
    const auto* err = std::get_if<ap::Error>(&rep[0].body);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(err->code, b.expect) << ap::to_string(err->code) << ": " << err->text;
    EXPECT_FALSE(err->text.empty());
    EXPECT_EQ(rep[0].seq, b.seq);
    const bool fatal = ap::is_fatal(b.expect);
    EXPECT_EQ(rep[0].flags == ap::kFlagClosing, fatal);
    EXPECT_EQ(r.session.closing(), fatal || b.then_eof);
    if (r.session.closing()) continue;
    // The session goes on: a good request right after is served.
    const auto next = r.session.authenticated() ? ap::encode(ap::Message{0, 100, ap::Poll{}})
                                                : ap::encode(ap::testing::hello_msg(100));
    const auto good = r.feed(next);
    ASSERT_EQ(good.size(), 1u);
    EXPECT_FALSE(std::holds_alternative<ap::Error>(good[0].body))
        << ap::to_string(std::get<ap::Error>(good[0].body).code) << ": " << std::get<ap::Error>(good[0].body).text;
    EXPECT_EQ(good[0].seq, 100u);
  }
}

TEST(AgentSession, TimeoutIsFatalAndNamed) {
  Rig r;
  r.out.clear();
  r.session.on_timeout("hello_timeout=5000 ms", r.out);
  const auto rep = r.replies();
  ASSERT_EQ(rep.size(), 1u);
  const auto& err = std::get<ap::Error>(rep[0].body);
  EXPECT_EQ(err.code, ErrorCode::kTimeout);
  EXPECT_NE(err.text.find("hello_timeout=5000 ms"), std::string::npos);
  EXPECT_TRUE(r.session.closing());
}

TEST(AgentSession, EofBetweenFramesIsClean) {
  Rig r;
  r.feed(ap::encode(ap::testing::hello_msg(1)));
  const auto rep = r.feed({}, true);
  EXPECT_TRUE(rep.empty());
  EXPECT_TRUE(r.session.closing());
}

TEST(AgentSession, BackendRefusalCarriesErrno) {
  Rig r;
  r.feed(ap::encode(ap::testing::hello_msg(1)));
  ap::Message m = ap::testing::apply_msg(2);
  std::get<ap::ApplyConfig>(m.body).qp.mtu = 1000;  // not a path MTU: the endpoint says EINVAL at RTR
  std::get<ap::ApplyConfig>(m.body).peer = ap::PeerInfo{};
  std::get<ap::ApplyConfig>(m.body).peer->qpns = {0x40};
  const auto rep = r.feed(ap::encode(m));
  ASSERT_EQ(rep.size(), 1u);
  const auto* err = std::get_if<ap::Error>(&rep[0].body);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->code, ErrorCode::kRejected);
  EXPECT_EQ(err->err, EINVAL);
  EXPECT_NE(err->text.find("RTR"), std::string::npos) << err->text;
  EXPECT_FALSE(r.session.closing());
}

// A backend with only the version-1 calls: the version-2 requests get the default `unsupported`,
// naming the request and the backend, and the session goes on.
class V1OnlyBackend final : public Backend {
 public:
  std::string identity() const override { return "v1-only"; }
  std::vector<std::string> capabilities() const override { return {}; }
  std::vector<ap::PortInfo> ports() const override { return {}; }
  Outcome apply(const ap::ApplyConfig&, ap::ApplyOk&) override { return Outcome::success(); }
  Outcome connect(const ap::PeerInfo&) override { return Outcome::success(); }
  Outcome post_write(const ap::PostWrite&) override { return Outcome::success(); }
  Outcome post_recv(const ap::PostRecv&) override { return Outcome::success(); }
  Outcome poll(const ap::Poll&, ap::Completions&) override { return Outcome::success(); }
  Outcome set_ev_state(const ap::SetEvState&) override { return Outcome::success(); }
  Outcome port_admin(const ap::PortAdmin&) override { return Outcome::success(); }
  Outcome ep_op(const ap::EpOp&) override { return Outcome::success(); }
  Outcome read_memory(const ap::ReadMemory&, ap::MemoryBytes&) override { return Outcome::success(); }
  Outcome write_memory(const ap::WriteMemory&) override { return Outcome::success(); }
  Outcome query_state(ap::StateReport&) override { return Outcome::success(); }
  Outcome reset() override { return Outcome::success(); }
  void service(std::uint64_t) override {}
};

TEST(AgentSession, Version2RequestsDefaultToUnsupported) {
  V1OnlyBackend backend;
  Session session(backend, SessionConfig{kTestToken, "mrc-dut-agent test", {}});
  std::vector<std::uint8_t> out;
  session.on_bytes(ap::encode(ap::testing::hello_msg(1)), out, 0);
  const std::vector<std::pair<const char*, ap::Body>> requests = {
      {"EV_PROFILE_OP", ap::EvProfileOp{}},           {"CC_PROFILE_OP", ap::CcProfileOp{}},
      {"REPLACE_EV", ap::ReplaceEv{}},                {"SET_PROFILE_ONLINE", ap::SetProfileOnline{}},
      {"RESTRICT_DEVICE", ap::RestrictDevice{}},
  };
  std::uint32_t seq = 2;
  for (const auto& [name, body] : requests) {
    SCOPED_TRACE(name);
    out.clear();
    session.on_bytes(ap::encode(ap::Message{0, seq++, body}), out, 0);
    ap::Message reply;
    ASSERT_TRUE(ap::decode_message(out, reply).ok());
    const auto* err = std::get_if<ap::Error>(&reply.body);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(err->code, ErrorCode::kUnsupported);
    EXPECT_EQ(err->text, std::string(name) + " is not offered by backend v1-only");
  }
  EXPECT_FALSE(session.closing());
}

}  // namespace
}  // namespace mrc::agent::testing
