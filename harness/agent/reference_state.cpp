// ReferenceBackend: QUERY_STATE (the EV table and the counters). Counter names follow the
// in-process reference binding (harness/dut/reference_binding.cpp: ep.*, req.*, resp.*) so a run
// through the agent reports the same names; the agent's own counters are agent.*.
#include <algorithm>

#include "harness/agent/reference_backend.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::agent {

Outcome ReferenceBackend::query_state(ap::StateReport& out) {
  out.now_ns = now_;
  auto put = [&out](const char* name, std::uint64_t v) { out.counters.push_back({name, static_cast<double>(v)}); };
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
      // The identity a receiver echoes (MODEL: M2 / M5): STEV value V, UDP sport, SRv6 index.
      s.echo = mode == wire::EvFmtMode::kStev  ? wire::stev_value(e.wire)
               : mode == wire::EvFmtMode::kUdp ? wire::udp_mode_sport(e.wire)
                                               : e.index;
      s.state = ev::bits(e.state);
      s.denied = e.denied;
      out.evs.push_back(std::move(s));
    }
    const ref::EndpointStats& st = ep_->stats();
    put("ep.frames_tx", st.frames_tx);
    put("ep.frames_rx", st.frames_rx);
    put("ep.data_tx", st.data_tx);
    put("ep.feedback_tx", st.feedback_tx);
    put("ep.ep_tx", st.ep_tx);
    put("ep.tx_port_down", st.tx_port_down);
    put("ep.tx_no_path", st.tx_no_path);
    put("ep.rx_port_down", st.rx_port_down);
    put("ep.rx_decode_error", st.rx_decode_error);
    put("ep.rx_not_for_us", st.rx_not_for_us);
    put("ep.rx_unknown_qp", st.rx_unknown_qp);
    put("ep.rx_bad_icrc", st.rx_bad_icrc);
    put("ep.probes_sent", st.probes_sent);
    put("ep.probes_ok", st.probes_ok);
    put("ep.probes_failed", st.probes_failed);
    transport::RequesterStats rq{};
    transport::ResponderStats rs{};
    for (std::uint32_t qpn : qpns_) {
      if (const auto* r = ep_->requester(qpn)) {
        const auto& x = r->stats();
        rq.posted_wrs += x.posted_wrs;
        rq.data_packets += x.data_packets;
        rq.retransmits += x.retransmits;
        rq.timeouts += x.timeouts;
        rq.completions += x.completions;
        rq.max_outstanding_psns = std::max(rq.max_outstanding_psns, x.max_outstanding_psns);
      }
      if (const auto* r = ep_->responder(qpn)) {
        const auto& x = r->stats();
        rs.placed += x.placed;
        rs.placed_bytes += x.placed_bytes;
        rs.trimmed_stubs += x.trimmed_stubs;
        rs.stub_bytes_placed += x.stub_bytes_placed;
        rs.trim_nacks += x.trim_nacks;
        rs.nack_loss += x.nack_loss;
        rs.error_naks += x.error_naks;
        rs.bad_icrc += x.bad_icrc;
        rs.completions += x.completions;
      }
    }
    put("req.posted_wrs", rq.posted_wrs);
    put("req.data_packets", rq.data_packets);
    put("req.retransmits", rq.retransmits);
    put("req.timeouts", rq.timeouts);
    put("req.completions", rq.completions);
    put("req.max_outstanding_psns", rq.max_outstanding_psns);
    put("resp.placed", rs.placed);
    put("resp.placed_bytes", rs.placed_bytes);
    put("resp.trimmed_stubs", rs.trimmed_stubs);
    put("resp.stub_bytes_placed", rs.stub_bytes_placed);
    put("resp.trim_nacks", rs.trim_nacks);
    put("resp.nack_loss", rs.nack_loss);
    put("resp.error_naks", rs.error_naks);
    put("resp.bad_icrc", rs.bad_icrc);
    put("resp.completions", rs.completions);
  }
  put("agent.rx_before_apply", rx_before_apply_);
  put("agent.tx_errors", tx_errors_);
  put("agent.completions_dropped", completions_dropped_);
  put("agent.events_dropped", events_dropped_);
  put("agent.ep_responses", ep_responses_);
  put("agent.ep_timeouts", ep_timeouts_);
  return Outcome::success();
}

}  // namespace mrc::agent
