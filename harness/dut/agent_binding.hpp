// The `agent` DUT binding: a DUT behind real interfaces, driven through `mrc-dut-agent` (or a
// vendor's agent) over the DUT-agent control protocol (harness/dut/agent-protocol.md, version 2).
// Every DutBinding method is one or a few protocol requests; identity and capabilities come from
// HELLO_OK, which the binding sends before its first request.
//
// Command-line spelling: `agent:HOST:PORT` (`agent:[::1]:7411` for IPv6), with the shared token
// from `--agent-token-file FILE` or `$MRC_AGENT_TOKEN`.
//
// Bounded: the connect and every request/reply have a named timeout (AgentTimeouts). A lost,
// hung or crashed agent makes the call fail (DutStatus kFailed naming the call and the bound that
// expired) instead of hanging the run; after that every call fails at once.
//
// attach() puts the agent's ports on the testbed through the real-time bridge (set_wire(): the
// harness-side interface of each agent port); without a wire it fails saying what is needed. An
// agent whose HELLO_OK says clock VIRTUAL (lockstep, agent-protocol.md §9) is attached instead as
// a host of the simulated fabric in its virtual time: ATTACH, then a LockstepPort carries its
// frames and time in STEPs, in the fabric's order, every control request after the ops before it.
// apply() and everything after it also work without attach(), which is how the tests drive two
// agent-bound references against each other.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/dut/agent_client.hpp"
#include "harness/dut/dut_binding.hpp"
#include "harness/dut/lockstep_port.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::harness {

// Where an agent's data ports meet the testbed: the harness-side interface of each agent port (a
// veth end of `--testbed netns`, a cable of a lab testbed file), the network namespace the agent's
// control socket lives in (empty: the harness's own), and the timing budget the bridge declares.
struct AgentWire {
  std::string netns;
  std::vector<WirePortBinding> ports;
  Testbed::BridgeDeclaration bridge;
};

class AgentBinding final : public DutBinding {
 public:
  AgentBinding(std::string host, std::uint16_t port, std::string token, AgentTimeouts timeouts = {},
               AgentClock clock = AgentClock::kAuto);
  ~AgentBinding() override;  // BYE (bounded), then close
  // Before the first call: how the agent's ports reach the testbed (without it attach() fails).
  void set_wire(AgentWire wire);

  DutIdentity identity() const override;
  DutStatus status() const override;  // the handshake's outcome (connecting and HELLO at the first ask)
  std::vector<std::string> capabilities() const override;

  DutStatus attach(Testbed& testbed, int host) override;
  std::vector<PortRef> data_ports() const override;
  DutStatus apply(const DutSetup& setup, DutLocal& local) override;
  DutStatus connect(const DutLocal& remote) override;

  DutStatus fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;
  DutStatus read_local(std::uint64_t offset, std::span<std::uint8_t> out) const override;
  DutStatus post_write(const WriteRequest& w, std::uint64_t now_ns) override;
  DutStatus post_recv(std::uint32_t qp, std::uint64_t wr_id) override;
  std::size_t poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) override;
  std::size_t poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) override;

  DutStatus set_ev_denied(std::uint32_t ev_index, bool denied) override;
  DutStatus port_admin(std::uint8_t port, bool up) override;
  DutStatus probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t now_ns) override;
  DutStatus port_status_update(std::uint64_t now_ns) override;
  DutStatus set_profile_online(bool online) override;
  DutStatus ev_profile_op(const EvProfileChange& op) override;
  DutStatus cc_profile_op(const CcProfileChange& op) override;
  DutStatus replace_ev(const EvReplacement& op) override;
  DutStatus restrict_device(const DeviceRestriction& d) override;

  std::vector<EvRecord> ev_table() const override;
  std::vector<std::pair<std::string, double>> counters() const override;
  DutStatus reset() override;

  // The last failure of the connection or the handshake ("" while healthy); for diagnostics.
  std::string failure() const;
  // The agent's data ports as HELLO_OK listed them (handshaking first; empty when that failed).
  std::vector<agentproto::PortInfo> agent_ports() const;
  // counters() with the outcome of its QUERY_STATE (counters() alone cannot tell a refusal from
  // an empty list).
  DutStatus read_counters(std::vector<std::pair<std::string, double>>& out) const;

 private:
  // HELLO once (connecting first); its status for every later call.
  DutStatus handshake() const;
  DutStatus attach_lockstep(Testbed& testbed, int host);
  // The fabric should pull what a control call may have made the DUT send (lockstep only).
  DutStatus wake_after(DutStatus st);
  // One request; on OK the reply's body goes to `reply` (when given). An ERROR becomes kRejected
  // (with the DUT's errno), kUnimplemented (unsupported / unknown type) or kFailed.
  DutStatus request(std::string_view method, agentproto::Body req, agentproto::Body* reply = nullptr) const;
  // One POLL; completions and events both go to the pending queues.
  void poll_once(std::uint64_t now_ns);
  std::optional<agentproto::StateReport> query_state() const;

  std::string name_;  // "agent:HOST:PORT"
  AgentClock clock_ = AgentClock::kAuto;
  std::unique_ptr<LockstepPort> lockstep_;  // a VIRTUAL agent's frame port while attached
  std::string token_;
  mutable AgentClient client_;
  mutable std::optional<DutStatus> hello_status_;
  mutable agentproto::HelloOk hello_;
  AgentWire wire_;
  Testbed* testbed_ = nullptr;
  int host_ = -1;
  std::vector<std::uint8_t> bound_ports_;  // the agent ports bridged into the testbed
  DutLocal local_;
  std::uint8_t control_dscp_ = wire::DscpConfig{}.control;  // W13 the applied Control class
  std::set<std::uint32_t> ever_denied_;  // EvRecord::denied: DENIED at any time of the run
  std::vector<CompletionRecord> pending_completions_;
  std::vector<EvEventRecord> pending_events_;
};

}  // namespace mrc::harness
