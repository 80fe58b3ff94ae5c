// A blocking DUT-agent protocol client (harness/dut/agent-protocol.md): one TCP connection, one
// request and its one reply at a time. Every wait has a bound and a name: `connect_timeout` for
// the TCP connect, `call_timeout` for sending a request and reading its whole reply (poll()-bounded
// reads, never a blocking recv). A lost, hung or closing agent is a failure whose text names the
// agent, the request and the bound that expired; after one the connection is closed and every
// later call fails at once with the first failure's text.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agentproto/codec.hpp"
#include "harness/agentproto/messages.hpp"

namespace mrc::harness {

struct AgentTimeouts {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds call_timeout{5000};
};

// What the harness asks of an agent's clock (`--clock`): kAuto takes what HELLO_OK says; kReal and
// kVirtual refuse an agent that says the other (agent-protocol.md §9).
enum class AgentClock : std::uint8_t { kAuto, kReal, kVirtual };
// "auto" / "real" / "virtual"; nullopt for anything else.
std::optional<AgentClock> parse_agent_clock(std::string_view s);
std::string_view to_string(AgentClock c);

// "5 s" or "250 ms": how a bound is named in a failure.
std::string describe_bound(std::chrono::milliseconds d);

class AgentClient {
 public:
  AgentClient(std::string host, std::uint16_t port, AgentTimeouts timeouts);
  ~AgentClient();
  AgentClient(const AgentClient&) = delete;
  AgentClient& operator=(const AgentClient&) = delete;

  // Connects within connect_timeout. "" or why not (and the client is broken).
  std::string open();
  // Sends `request` with the next seq and waits for the reply with that seq. A reply of the
  // request's own reply type or an ERROR lands in `reply`; "" then. Otherwise the transport failed: why, naming `request`'s
  // type and the bound; the client is broken from then on.
  std::string call(agentproto::Body request, agentproto::Message& reply);
  // Best effort and bounded: BYE, then close. Used when the binding goes away.
  void close_politely();

  bool broken() const { return !failure_.empty(); }
  const std::string& failure() const { return failure_; }
  std::string address() const;  // "127.0.0.1:7411"
  const AgentTimeouts& timeouts() const { return timeouts_; }
  // Connect from inside network namespace `name` (an agent listening on a test namespace's
  // loopback); before open().
  void set_netns(std::string name) { netns_ = std::move(name); }

 private:
  std::string fail(std::string why);
  std::string send_all(const std::vector<std::uint8_t>& bytes, std::chrono::steady_clock::time_point deadline,
                       std::string_view what);
  std::string read_frame(agentproto::Message& out, std::chrono::steady_clock::time_point deadline, std::string_view what);
  void close_fd();

  std::string host_;
  std::string netns_;
  std::uint16_t port_;
  AgentTimeouts timeouts_;
  int fd_ = -1;
  std::uint32_t seq_ = 0;
  std::vector<std::uint8_t> in_;  // received bytes not yet a whole frame
  std::string failure_;
};

}  // namespace mrc::harness
