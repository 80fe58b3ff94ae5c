// Invariants on the DUT's endpoint operations (W10): the request ids (BTH.PSN[15:0]) of its EV
// probes and port-status updates, and what it does with the port-status updates it receives.
#include <algorithm>
#include <array>
#include <string>
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
  // The rule is tested only by a request sent while another is unanswered and within the judged
  // time: requests answered one before the next (an agent's control calls, each a round trip of
  // the harness's own, or a timing budget larger than in_flight_ns) leave it untested.
  std::vector<std::pair<std::uint64_t, std::uint16_t>> open;  // unanswered requests: sent, req_id
  std::size_t overlapping = 0;
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!p.has_ep) continue;
    LastUse& u = ids[p.req_id];
    if (!p.from_dut && p.opcode == wire::opcode::kMrcEndpointRsp) {
      u.live = false;  // answered: the id is free again
      std::erase_if(open, [&](const auto& o) { return o.second == p.req_id; });
      continue;
    }
    if (!p.from_dut || p.opcode != wire::opcode::kMrcEndpointReq) continue;
    ++r.judged;
    std::erase_if(open, [&](const auto& o) { return p.ts_ns - o.first >= judged; });
    overlapping += open.empty() ? 0 : 1;
    open.emplace_back(p.ts_ns, static_cast<std::uint16_t>(p.req_id));
    if (u.live && p.ts_ns - u.sent_ns < judged) {
      const PacketRec& first = r.t.packets[u.packet];
      r.violation(p, "ep.id", "an id no unanswered request of the last " + fmt_ns(static_cast<double>(in_flight_ns)) +
                                      minus_budget(r.budget()) + " uses",
                  std::to_string(p.req_id) + " again " + fmt_ns(static_cast<double>(p.ts_ns - u.sent_ns)) + " after an unanswered request",
                  "first use: " + pcap_of(r.ctx.taps[first.tap]) + " packet " + std::to_string(first.index));
    }
    u = LastUse{p.ts_ns, static_cast<std::uint32_t>(i), true};
  }
  r.r.metrics["requests_while_another_unanswered"] = static_cast<double>(overlapping);
  if (r.judged > 0 && overlapping == 0) {
    r.stop(Verdict::kInconclusive,
           "nothing to judge: no request from the DUT was sent while another was unanswered within in_flight_ns " +
               fmt_ns(static_cast<double>(in_flight_ns)) + minus_budget(r.budget()) +
               " (each was answered before the next: across an agent every control call is a round trip of "
               "the harness's own)");
  }
}

namespace {

struct PortUpdate {
  const PacketRec* frame;
  std::uint32_t mask;
};

// W10: the two readings of port_status_mask the sources leave open: bit N = port N (the API's
// 1-based mask) or bit N-1 = port N.
constexpr std::array<std::string_view, 2> kReadings{"bit N = port N", "bit N-1 = port N"};
bool port_up(std::uint32_t mask, std::uint8_t port, std::size_t reading) {
  const unsigned bit = reading == 0 ? port : port - 1u;
  return bit < 32 && ((mask >> bit) & 1u) != 0;
}

std::string down_ports(std::uint32_t mask, std::size_t reading, std::uint8_t max_port) {
  std::string out;
  for (std::uint8_t q = 1; q <= max_port; ++q) {
    if (port_up(mask, q, reading)) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(q);
  }
  return out.empty() ? "none" : out;
}

}  // namespace

// W10, W17: a port-status update from the peer says which of its ports are usable; the DUT stops
// sending data on a plane whose far end is down until an update reports it up again (one plane
// joins port N to the peer's port N). A packet is judged by the newest update that reached the
// DUT's tap more than reaction_ns before it left; a newer update still inside its allowance that
// reports the port up excuses it (the DUT may already have taken it). The mask's bit numbering is
// open (W10): the DUT passes when either reading explains every packet, and a FAIL shows the
// reading that explains most.
void peer_port_status(Run& r) {
  const std::uint64_t reaction = r.param("reaction_ns", 5000);
  const std::uint64_t allow = r.within(reaction, "reaction_ns " + std::to_string(reaction) + " ns");
  std::vector<PortUpdate> updates;
  std::uint8_t max_port = 0;
  for (const PacketRec& p : r.t.packets) {
    if (dut_data(p)) max_port = std::max(max_port, p.port);
    if (p.from_dut || !p.has_ep || p.opcode != wire::opcode::kMrcEndpointReq ||
        p.ep_op != static_cast<std::uint8_t>(wire::EpWireOp::kPortStatusUpdate)) {
      continue;
    }
    updates.push_back(PortUpdate{&p, p.port_status_mask});
  }
  if (updates.empty()) return r.stop(Verdict::kError, "the case sends the DUT no port-status update");
  r.judged_what = "data packets the DUT sent after a port-status update reached it";
  struct Miss {
    const PacketRec* packet;
    const PortUpdate* update;
  };
  std::array<std::vector<Miss>, 2> misses;
  std::vector<const PortUpdate*> fresh;  // per packet: updates that reached the DUT, still inside the allowance
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p)) continue;
    const PortUpdate* governing = nullptr;
    fresh.clear();
    for (const PortUpdate& u : updates) {
      if (u.frame->ts_ns + allow < p.ts_ns) {
        governing = &u;
      } else if (u.frame->ts_ns < p.ts_ns) {
        fresh.push_back(&u);
      }
    }
    if (governing == nullptr) continue;
    ++r.judged;
    for (std::size_t k = 0; k < kReadings.size(); ++k) {
      if (port_up(governing->mask, p.port, k)) continue;
      const bool excused =
          std::any_of(fresh.begin(), fresh.end(), [&](const PortUpdate* u) { return port_up(u->mask, p.port, k); });
      if (!excused) misses[k].push_back(Miss{&p, governing});
    }
  }
  const std::size_t best = misses[1].size() < misses[0].size() ? 1 : 0;
  r.r.metrics["violations_bit_n"] = static_cast<double>(misses[0].size());
  r.r.metrics["violations_bit_n_minus_1"] = static_cast<double>(misses[1].size());
  if (misses[best].empty()) return;
  for (const Miss& m : misses[best]) {
    r.violation(*m.packet, "port",
                "no data on port(s) " + down_ports(m.update->mask, best, max_port) + ": the update at " +
                    where(r.ctx, *m.update->frame) + " (mask " + hex(m.update->mask) + ", read as " +
                    std::string(kReadings[best]) + ") reported the peer's port(s) down",
                "port " + std::to_string(m.packet->port),
                "the other reading (" + std::string(kReadings[1 - best]) + ") leaves " +
                    std::to_string(misses[1 - best].size()) + " such packets");
  }
}

}  // namespace mrc::harness::inv
