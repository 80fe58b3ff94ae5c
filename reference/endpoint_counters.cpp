#include "reference/endpoint_counters.hpp"

#include <algorithm>

namespace mrc::ref {

std::vector<std::pair<std::string_view, std::uint64_t>> endpoint_counters(
    const Endpoint& ep, std::span<const std::uint32_t> qpns) {
  std::vector<std::pair<std::string_view, std::uint64_t>> out;
  auto put = [&out](std::string_view name, std::uint64_t v) { out.emplace_back(name, v); };
  const EndpointStats& st = ep.stats();
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
  put("ep.control_queue_full", st.control_queue_full);
  put("ep.probes_sent", st.probes_sent);
  put("ep.probes_ok", st.probes_ok);
  put("ep.probes_failed", st.probes_failed);
  transport::RequesterStats rq{};
  transport::ResponderStats rs{};
  for (std::uint32_t qpn : qpns) {
    if (const auto* r = ep.requester(qpn)) {
      const auto& x = r->stats();
      rq.posted_wrs += x.posted_wrs;
      rq.data_packets += x.data_packets;
      rq.retransmits += x.retransmits;
      rq.timeouts += x.timeouts;
      rq.completions += x.completions;
      rq.max_outstanding_psns = std::max(rq.max_outstanding_psns, x.max_outstanding_psns);
    }
    if (const auto* r = ep.responder(qpn)) {
      const auto& x = r->stats();
      rs.placed += x.placed;
      rs.placed_bytes += x.placed_bytes;
      rs.trimmed_stubs += x.trimmed_stubs;
      rs.stub_bytes_placed += x.stub_bytes_placed;
      rs.trim_nacks += x.trim_nacks;
      rs.nacks += x.nacks;
      rs.sacks += x.sacks;
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
  put("resp.nacks", rs.nacks);
  put("resp.sacks", rs.sacks);
  put("resp.error_naks", rs.error_naks);
  put("resp.bad_icrc", rs.bad_icrc);
  put("resp.completions", rs.completions);
  return out;
}

}  // namespace mrc::ref
