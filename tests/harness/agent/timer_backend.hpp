// A backend that is nothing but a timer, for measuring how late the agent's loop serves a
// backend deadline (server_timer_test.cpp, bench/agent_wakeup_bench.cpp): arm() sets the next
// deadline on the server's clock; the first service() at or after it records the lateness and
// disarms. `sticky` keeps the deadline due forever (a backend that cannot make progress), to show
// the loop does not spin on it. Header-only test support.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/agent/backend.hpp"

namespace mrc::agent::testing {

class TimerBackend final : public Backend {
 public:
  explicit TimerBackend(bool sticky = false) : sticky_(sticky) {}

  void arm(std::uint64_t deadline_ns) {
    deadline_ = deadline_ns;
    served_ = false;
  }
  bool served() const { return served_; }
  std::uint64_t lateness_ns() const { return lateness_; }  // of the last served deadline
  std::uint64_t services() const { return services_; }

  std::uint64_t next_deadline_ns() const override { return deadline_; }
  void service(std::uint64_t now_ns) override {
    ++services_;
    if (deadline_ == UINT64_MAX || now_ns < deadline_) return;
    lateness_ = now_ns - deadline_;
    served_ = true;
    if (!sticky_) deadline_ = UINT64_MAX;
  }

  std::string identity() const override { return "timer"; }
  std::vector<std::string> capabilities() const override { return {}; }
  std::vector<ap::PortInfo> ports() const override { return {}; }
  Outcome apply(const ap::ApplyConfig&, ap::ApplyOk&) override { return unsupported("APPLY_CONFIG"); }
  Outcome connect(const ap::PeerInfo&) override { return unsupported("CONNECT"); }
  Outcome post_write(const ap::PostWrite&) override { return unsupported("POST_WRITE"); }
  Outcome post_recv(const ap::PostRecv&) override { return unsupported("POST_RECV"); }
  Outcome poll(const ap::Poll&, ap::Completions&) override { return unsupported("POLL"); }
  Outcome set_ev_state(const ap::SetEvState&) override { return unsupported("SET_EV_STATE"); }
  Outcome port_admin(const ap::PortAdmin&) override { return unsupported("PORT_ADMIN"); }
  Outcome ep_op(const ap::EpOp&) override { return unsupported("EP_OP"); }
  Outcome read_memory(const ap::ReadMemory&, ap::MemoryBytes&) override { return unsupported("READ_MEMORY"); }
  Outcome write_memory(const ap::WriteMemory&) override { return unsupported("WRITE_MEMORY"); }
  Outcome query_state(ap::StateReport&) override { return unsupported("QUERY_STATE"); }
  Outcome reset() override { return Outcome::success(); }

 private:
  bool sticky_;
  std::uint64_t deadline_ = UINT64_MAX;
  bool served_ = false;
  std::uint64_t lateness_ = 0;
  std::uint64_t services_ = 0;
};

}  // namespace mrc::agent::testing
