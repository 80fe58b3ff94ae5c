// ReferenceBackend: QUERY_STATE (the EV table and the counters), answered before APPLY_CONFIG too
// (no EVs, the agent's counters). Endpoint counters come from ref::endpoint_counters, the same list
// the in-process reference binding reports; the agent's own counters are agent.*, among them
// agent.rx.p<N>, every frame received on port N.

#include "harness/agent/reference_backend.hpp"
#include "reference/endpoint_counters.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::agent {

Outcome ReferenceBackend::query_state(ap::StateReport& out) {
  out.now_ns = now_;
  auto put = [&out](std::string name, std::uint64_t v) {
    out.counters.push_back({std::move(name), static_cast<double>(v)});
  };
  if (ep_) {
    const auto array = ep_->controller().ev_array(0);
    const ev::FormatProfile* fmt = ep_->controller().format_of(0);
    const wire::EvFmtMode mode = fmt != nullptr ? fmt->mode : wire::EvFmtMode::kUdp;
    for (std::size_t i = 0; i < array.size() && i < ap::limit::kEvs; ++i) {
      const ev::EvEntry& e = array[i];
      ap::EvStateInfo s;
      s.index = static_cast<std::uint32_t>(i);
      s.port = e.port;
      s.value.assign(e.val.begin(), e.val.end());  // always 32 bytes, MSB first, zero padded
      s.wire.assign(e.wire.begin(), e.wire.end());
      s.echo = wire::ev_echo_identity(mode, e.wire, e.index);
      s.state = ev::bits(e.state);
      s.denied = e.denied;
      out.evs.push_back(std::move(s));
    }
    for (const auto& [name, v] : ref::endpoint_counters(*ep_, qpns_)) {
      out.counters.push_back({std::string(name), static_cast<double>(v)});
    }
  }
  put("agent.rx_before_apply", rx_before_apply_);
  for (const ap::PortInfo& p : io_->ports()) {
    put("agent.rx.p" + std::to_string(p.port), p.port < rx_per_port_.size() ? rx_per_port_[p.port] : 0);
  }
  put("agent.tx_errors", tx_errors_);
  put("agent.completions_dropped", completions_dropped_);
  put("agent.events_dropped", events_dropped_);
  put("agent.ep_responses", ep_responses_);
  put("agent.ep_timeouts", ep_timeouts_);
  return Outcome::success();
}

}  // namespace mrc::agent
