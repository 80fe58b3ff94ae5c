// One control connection's protocol state machine, free of sockets so it is testable byte for
// byte: bytes in, reply bytes out.
//
// Rules (harness/dut/agent-protocol.md §Session): the first request must be HELLO with the
// protocol version and the shared token (constant-time compare); anything else first is
// kNotHello. Request seqs strictly increase. Every request gets exactly one reply with its seq.
// Problems that leave the stream framed (a bad body, an unknown type, a state error) get an ERROR
// and the connection goes on; problems that do not (bad length, truncated stream, wrong token or
// version, timeouts) get an ERROR with kFlagClosing and the session closes.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/agent/backend.hpp"
#include "harness/agentproto/codec.hpp"

namespace mrc::agent {

struct SessionConfig {
  std::string token;       // the shared secret HELLO must carry
  std::string agent_name;  // "mrc-dut-agent 0.1.0"
  // Asked when a HELLO has passed version and token: "" when a client slot is free, else the
  // text of the fatal too_many_clients ERROR it gets instead of HELLO_OK. A slot is held from an
  // accepted HELLO until the session closes, never by a connection that has not authenticated.
  std::function<std::string()> slot_refusal;
};

class Session {
 public:
  Session(Backend& backend, const SessionConfig& cfg) : backend_(backend), cfg_(cfg) {}

  // Appends received bytes; every complete frame is handled and its reply appended to `out`.
  // `now_ns` is the agent clock (the backend is serviced to it before each request).
  void on_bytes(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::uint64_t now_ns);
  // The peer closed its sending side. A partial frame left over is reported (kTruncated).
  void on_eof(std::vector<std::uint8_t>& out);
  // A named wait expired (e.g. "hello_timeout=5000 ms"): ERROR kTimeout, closing.
  void on_timeout(std::string_view what, std::vector<std::uint8_t>& out);

  bool closing() const { return closing_; }  // flush `out`, then close
  bool authenticated() const { return authed_; }
  std::size_t buffered() const { return in_.size(); }  // bytes of a frame not complete yet
  std::uint64_t requests() const { return requests_; }
  std::uint64_t errors() const { return errors_; }
  const std::string& client() const { return client_; }

 private:
  void handle_frame(std::span<const std::uint8_t> frame, std::vector<std::uint8_t>& out, std::uint64_t now_ns);
  void dispatch(const agentproto::Message& m, std::vector<std::uint8_t>& out);
  void reply(std::uint32_t seq, agentproto::Body body, std::vector<std::uint8_t>& out);
  void error(std::uint32_t seq, agentproto::ErrorCode code, int err, std::string text,
             std::vector<std::uint8_t>& out);
  void outcome(std::uint32_t seq, const Outcome& o, agentproto::Body on_ok, std::vector<std::uint8_t>& out);

  Backend& backend_;
  SessionConfig cfg_;
  std::vector<std::uint8_t> in_;
  bool authed_ = false;
  bool closing_ = false;
  bool have_seq_ = false;
  std::uint32_t last_seq_ = 0;
  std::uint64_t requests_ = 0;
  std::uint64_t errors_ = 0;
  std::string client_;
};

}  // namespace mrc::agent
