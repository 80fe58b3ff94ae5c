// AgentBinding: the control plane (one request each, the payloads passed through as the protocol
// defines them) and the state after the run (QUERY_STATE), and RESET.
#include "harness/dut/agent_binding.hpp"

#include "reference/wire/headers.hpp"

namespace mrc::harness {
namespace {
namespace ap = mrc::agentproto;
}  // namespace

DutStatus AgentBinding::set_ev_denied(std::uint32_t ev_index, bool denied) {
  if (DutStatus st = request("set_ev_denied", ap::SetEvState{ev_index, denied}); !st.ok()) return st;
  if (denied) ever_denied_.insert(ev_index);
  return DutStatus::success();
}

DutStatus AgentBinding::port_admin(std::uint8_t port, bool up) {
  return wake_after(request(up ? "port_admin_up" : "port_admin_down", ap::PortAdmin{port, up}));
}

DutStatus AgentBinding::probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t) {
  return wake_after(request("probe_ev", ap::EpOp{ap::EpOpKind::kProbeEv, ev_index, tc}));
}

DutStatus AgentBinding::port_status_update(std::uint64_t) {
  // Sent on EV 0 with the configured control DSCP, as the in-process reference binding sends it.
  return wake_after(request("port_status_update", ap::EpOp{ap::EpOpKind::kPortStatusUpdate, 0, control_dscp_}));
}

DutStatus AgentBinding::set_profile_online(bool online) {
  return request(online ? "profile_online" : "profile_offline", ap::SetProfileOnline{online});
}

DutStatus AgentBinding::ev_profile_op(const EvProfileChange& op) { return request("ev_profile_op", op); }
DutStatus AgentBinding::cc_profile_op(const CcProfileChange& op) { return request("cc_profile_op", op); }
DutStatus AgentBinding::replace_ev(const EvReplacement& op) { return request("replace_ev", op); }
DutStatus AgentBinding::restrict_device(const DeviceRestriction& d) { return request("restrict_device", d); }

std::optional<ap::StateReport> AgentBinding::query_state() const {
  ap::Body reply;
  if (!request("query_state", ap::QueryState{}, &reply).ok()) return std::nullopt;
  return std::get<ap::StateReport>(std::move(reply));
}

std::vector<EvRecord> AgentBinding::ev_table() const {
  std::vector<EvRecord> out;
  const auto state = query_state();
  if (!state) return out;
  for (const ap::EvStateInfo& e : state->evs) {
    out.push_back(EvRecord{e.index, e.port, e.echo, e.state, e.denied || ever_denied_.count(e.index) != 0});
  }
  return out;
}

std::vector<std::pair<std::string, double>> AgentBinding::counters() const {
  std::vector<std::pair<std::string, double>> out;
  read_counters(out);
  return out;
}

DutStatus AgentBinding::read_counters(std::vector<std::pair<std::string, double>>& out) const {
  ap::Body reply;
  if (DutStatus st = request("query_state", ap::QueryState{}, &reply); !st.ok()) return st;
  for (const ap::Counter& c : std::get<ap::StateReport>(reply).counters) out.emplace_back(c.name, c.value);
  return DutStatus::success();
}

DutStatus AgentBinding::reset() {
  testbed_ = nullptr;
  host_ = -1;
  // The testbed that drove the lockstep port is gone with the case.
  lockstep_.reset();
  local_ = DutLocal{};
  ever_denied_.clear();
  pending_completions_.clear();
  pending_events_.clear();
  return request("reset", ap::Reset{});
}

}  // namespace mrc::harness
