// The agent server over a real TCP loopback connection (in-process, port 0): it survives the
// whole bad-message catalog (ERROR with the expected code, a following good request still works,
// and a fresh connection can always HELLO), enforces its named timeouts and --max-clients, moves
// half-megabyte messages, and stops promptly.
#include <gtest/gtest.h>

#include <thread>

#include "harness/agent/reference_backend.hpp"
#include "harness/agent/server.hpp"
#include "tests/harness/agent/agent_test_support.hpp"
#include "tests/harness/agentproto/bad_messages.hpp"

namespace mrc::agent::testing {
namespace {

using ap::ErrorCode;
using ap::testing::hello_msg;
using ap::testing::kTestToken;
using namespace std::chrono_literals;

struct LiveServer {
  explicit LiveServer(ServerConfig cfg = base_config()) {
    std::string err;
    const int fd = open_listener("127.0.0.1:0", &err);
    EXPECT_GE(fd, 0) << err;
    server = std::make_unique<Server>(std::move(cfg), backend, fd);
    port = server->port();
    thread = std::thread([this] { result = server->run(); });
  }
  ~LiveServer() {
    server->stop();
    thread.join();
  }
  static ServerConfig base_config() {
    ServerConfig c;
    c.token = kTestToken;
    c.max_clients = 64;
    return c;
  }
  std::unique_ptr<Client> connect() { return std::make_unique<Client>(connect_loopback(port)); }
  bool hello_works() {
    auto c = connect();
    const auto r = c->call(hello_msg(1));
    return r && std::holds_alternative<ap::HelloOk>(r->body);
  }

  MemoryWire wire;
  ReferenceBackend backend{ReferenceOptions{}, std::make_unique<MemoryFrameIo>(wire, 0, std::vector<std::uint8_t>{1, 2})};
  std::unique_ptr<Server> server;
  std::uint16_t port = 0;
  std::thread thread;
  std::string result;
};

TEST(AgentServer, SurvivesTheBadMessageCatalog) {
  LiveServer s;
  ASSERT_NE(s.port, 0);
  int checked = 0;
  for (const auto& b : ap::testing::bad_message_catalog()) {
    SCOPED_TRACE(b.name);
    auto c = s.connect();
    ASSERT_TRUE(c->ok());
    if (b.after_hello) {
      const auto r = c->call(hello_msg(1));
      ASSERT_TRUE(r && std::holds_alternative<ap::HelloOk>(r->body));
    }
    ASSERT_TRUE(c->send_bytes(b.bytes));
    if (b.then_eof) c->half_close();
    const auto r = c->read();
    ASSERT_TRUE(r.has_value()) << "no reply";
    const auto* err = std::get_if<ap::Error>(&r->body);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(err->code, b.expect) << ap::to_string(err->code) << ": " << err->text;
    EXPECT_EQ(r->seq, b.seq);
    const bool fatal = ap::is_fatal(b.expect);
    EXPECT_EQ(r->flags == ap::kFlagClosing, fatal);
    if (fatal || b.then_eof) {
      EXPECT_TRUE(c->closes_within(2s)) << "the agent must close after a fatal error";
    } else {
      const auto next = c->call(b.after_hello ? ap::Message{0, 100, ap::Poll{}} : hello_msg(100));
      ASSERT_TRUE(next.has_value());
      EXPECT_FALSE(std::holds_alternative<ap::Error>(next->body));
    }
    EXPECT_TRUE(s.hello_works()) << "a fresh connection must still get HELLO_OK";
    ++checked;
  }
  EXPECT_GE(checked, 25);
}

TEST(AgentServer, HelloTimeoutIsNamedAndCloses) {
  ServerConfig cfg = LiveServer::base_config();
  cfg.hello_timeout = 200ms;
  LiveServer s(cfg);
  auto c = s.connect();
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = c->read(3s);
  ASSERT_TRUE(r.has_value());
  const auto& err = std::get<ap::Error>(r->body);
  EXPECT_EQ(err.code, ErrorCode::kTimeout);
  EXPECT_NE(err.text.find("hello_timeout=200 ms"), std::string::npos) << err.text;
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 150ms);
  EXPECT_TRUE(c->closes_within(2s));
}

TEST(AgentServer, StalledPartialFrameTimesOut) {
  ServerConfig cfg = LiveServer::base_config();
  cfg.hello_timeout = 200ms;
  LiveServer s(cfg);
  auto c = s.connect();
  const auto hello = ap::encode(hello_msg(1));
  ASSERT_TRUE(c->send_bytes(std::vector<std::uint8_t>(hello.begin(), hello.begin() + 6)));
  const auto r = c->read(3s);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(std::get<ap::Error>(r->body).code, ErrorCode::kTimeout);
  EXPECT_TRUE(c->closes_within(2s));
}

TEST(AgentServer, IdleTimeoutAfterHello) {
  ServerConfig cfg = LiveServer::base_config();
  cfg.idle_timeout = 300ms;
  LiveServer s(cfg);
  auto c = s.connect();
  ASSERT_TRUE(c->call(hello_msg(1)).has_value());
  // Requests keep it alive.
  for (std::uint32_t i = 2; i < 6; ++i) {
    std::this_thread::sleep_for(100ms);
    const auto r = c->call(ap::Message{0, i, ap::Poll{}});
    ASSERT_TRUE(r && std::holds_alternative<ap::Completions>(r->body));
  }
  const auto r = c->read(3s);
  ASSERT_TRUE(r.has_value());
  const auto& err = std::get<ap::Error>(r->body);
  EXPECT_EQ(err.code, ErrorCode::kTimeout);
  EXPECT_NE(err.text.find("idle_timeout=300 ms"), std::string::npos) << err.text;
}

TEST(AgentServer, MaxClientsRefusesTheNextHello) {
  ServerConfig cfg = LiveServer::base_config();
  cfg.max_clients = 1;
  LiveServer s(cfg);
  {
    // A connection that never authenticates holds no slot: the real client is served beside it.
    auto silent = s.connect();
    auto first = s.connect();
    ASSERT_TRUE(first->call(hello_msg(1)).has_value());
    auto second = s.connect();
    const auto r = second->call(hello_msg(1));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(std::get<ap::Error>(r->body).code, ErrorCode::kTooManyClients);
    EXPECT_NE(std::get<ap::Error>(r->body).text.find("--max-clients 1 reached"), std::string::npos);
    EXPECT_EQ(r->flags, ap::kFlagClosing);
    EXPECT_TRUE(second->closes_within(2s));
    ASSERT_TRUE(first->call(ap::Message{0, 2, ap::Bye{}}).has_value());
    // BYE gave the slot back before its reply: the next client is served at once, every time.
    for (int i = 0; i < 20; ++i) {
      auto next = s.connect();
      const auto ok = next->call(hello_msg(1));
      ASSERT_TRUE(ok.has_value());
      ASSERT_TRUE(std::holds_alternative<ap::HelloOk>(ok->body)) << "try " << i;
      ASSERT_TRUE(next->call(ap::Message{0, 2, ap::Bye{}}).has_value());
    }
  }
}

TEST(AgentServer, ConnectionsWaitingForHelloAreBounded) {
  ServerConfig cfg = LiveServer::base_config();
  cfg.max_clients = 1;
  LiveServer s(cfg);
  std::vector<std::unique_ptr<Client>> waiting;
  for (int i = 0; i < 16; ++i) waiting.push_back(s.connect());
  auto one_more = s.connect();
  const auto r = one_more->read(3s);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(std::get<ap::Error>(r->body).code, ErrorCode::kTooManyClients);
  EXPECT_NE(std::get<ap::Error>(r->body).text.find("16 connections are already waiting to send HELLO"), std::string::npos);
  waiting.clear();  // they close; a client with the token is served again
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    served = s.hello_works();
    if (!served) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(served);
}

TEST(AgentServer, AClientThatDoesNotReadIsCutOffAtMaxOutputBytes) {
  ServerConfig cfg = LiveServer::base_config();
  cfg.max_output_bytes = 1u << 20;
  LiveServer s(cfg);
  auto c = s.connect();
  ASSERT_TRUE(c->call(hello_msg(1)).has_value());
  // QUERY_STATE replies, never read, until the kernel's buffers and the agent's 1 MiB are full.
  std::vector<std::uint8_t> burst;
  for (std::uint32_t seq = 2; seq < 200002; ++seq) {
    const auto f = ap::encode(ap::Message{0, seq, ap::QueryState{}});
    burst.insert(burst.end(), f.begin(), f.end());
  }
  (void)c->send_bytes(burst);  // may fail once the agent has cut the connection
  bool cut = false;
  for (int i = 0; i < 100 && !cut; ++i) {
    cut = s.server->stats().closed >= 1;
    if (!cut) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(cut) << "the agent kept a client that reads nothing";
}

TEST(AgentServer, HalfMegabyteMessagesBothWays) {
  LiveServer s;
  auto c = s.connect();
  ASSERT_TRUE(c->call(hello_msg(1)).has_value());
  ap::Message apply = ap::testing::apply_msg(2);
  std::get<ap::ApplyConfig>(apply.body).ev_mode = ap::EvMode::kGenerated;
  std::get<ap::ApplyConfig>(apply.body).evs.clear();
  std::get<ap::ApplyConfig>(apply.body).generate_count = 8;
  std::get<ap::ApplyConfig>(apply.body).regions = {{0x20000000, 1 << 20}};
  const auto ok = c->call(apply);
  ASSERT_TRUE(ok.has_value());
  ASSERT_TRUE(std::holds_alternative<ap::ApplyOk>(ok->body)) << std::get<ap::Error>(ok->body).text;
  std::vector<std::uint8_t> data(ap::limit::kMemoryChunk);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i ^ (i >> 8));
  const auto w = c->call(ap::Message{0, 3, ap::WriteMemory{0x20000000 + 4096, data}});
  ASSERT_TRUE(w && std::holds_alternative<ap::Ok>(w->body));
  const auto r = c->call(ap::Message{0, 4, ap::ReadMemory{0x20000000 + 4096, static_cast<std::uint32_t>(data.size())}});
  ASSERT_TRUE(r.has_value());
  const auto* mem = std::get_if<ap::MemoryBytes>(&r->body);
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->bytes, data);
}

TEST(AgentServer, StopsPromptly) {
  auto s = std::make_unique<LiveServer>();
  auto c = s->connect();
  ASSERT_TRUE(c->call(hello_msg(1)).has_value());
  const auto t0 = std::chrono::steady_clock::now();
  s.reset();  // stop() + join
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}

TEST(AgentServer, ListenerAddresses) {
  std::string err;
  EXPECT_LT(open_listener("localhost:7411", &err), 0);
  EXPECT_NE(err.find("bad IPv4 address"), std::string::npos);
  EXPECT_LT(open_listener("127.0.0.1:99999", &err), 0);
  EXPECT_LT(open_listener("127.0.0.1", &err), 0);
  const int fd = open_listener("[::1]:0", &err);
  if (fd >= 0) {  // IPv6 loopback may be disabled in a container
    EXPECT_NE(local_port(fd), 0);
    close(fd);
  }
}

}  // namespace
}  // namespace mrc::agent::testing
