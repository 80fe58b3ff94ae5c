// Invariants on the DUT's endpoint operations (W10): the request ids (BTH.PSN[15:0]) of its EV
// probes and port-status updates.
#include <vector>

#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {
namespace {

// How long an unanswered request may still draw a response, unless the case says otherwise.
// MODEL: W11 probes an ASSUMED_BAD EV every 50 us, so a probe's answer is due within one interval;
// the API keeps its id reserved while a late answer may still be in flight, one more interval.
constexpr std::uint64_t kDefaultInFlightNs = 2 * 50'000;

struct LastUse {
  std::uint64_t sent_ns = 0;
  std::uint32_t packet = 0;  // position in the trace, for the evidence note
  bool live = false;         // sent and not answered yet
};

}  // namespace

void req_id_not_reused(Run& r) {  // the API req_id rule, on the W10 id
  r.judged_what = "endpoint requests from the DUT";
  const std::uint64_t in_flight_ns = r.param("in_flight_ns", kDefaultInFlightNs);
  if (!r.param_error.empty()) return;
  // "Not reused before in_flight_ns": a lower bound, so the timing budget shortens it.
  const std::uint64_t judged = r.not_before(in_flight_ns, "in_flight_ns " + fmt_ns(static_cast<double>(in_flight_ns)));
  std::vector<LastUse> ids(std::size_t{1} << 16);  // one slot per 16-bit req_id
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!p.has_ep) continue;
    LastUse& u = ids[p.req_id];
    if (!p.from_dut && p.opcode == wire::opcode::kMrcEndpointRsp) {
      u.live = false;  // answered: the id is free again
      continue;
    }
    if (!p.from_dut || p.opcode != wire::opcode::kMrcEndpointReq) continue;
    ++r.judged;
    if (u.live && p.ts_ns - u.sent_ns < judged) {
      const PacketRec& first = r.t.packets[u.packet];
      r.violation(p, "ep.id", "an id no unanswered request of the last " + fmt_ns(static_cast<double>(in_flight_ns)) +
                                      minus_budget(r.budget()) + " uses",
                  std::to_string(p.req_id) + " again " + fmt_ns(static_cast<double>(p.ts_ns - u.sent_ns)) + " after an unanswered request",
                  "first use: " + pcap_of(r.ctx.taps[first.tap]) + " packet " + std::to_string(first.index));
    }
    u = LastUse{p.ts_ns, static_cast<std::uint32_t>(i), true};
  }
}

}  // namespace mrc::harness::inv
