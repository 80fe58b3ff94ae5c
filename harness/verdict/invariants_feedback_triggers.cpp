// Invariants on the DUT as responder: which arrivals must draw which feedback (W6-W9, W13), and
// what the feedback echoes of them. Each judges the DUT's own feedback frames against the frames
// that reached it; when exactly within its bounds the DUT answers is its choice.
#include <algorithm>

#include "harness/verdict/flat_index.hpp"
#include "harness/verdict/invariants.hpp"
#include "harness/verdict/psn_space.hpp"
#include "harness/verdict/trigger_index.hpp"

namespace mrc::harness::inv {
namespace {

// "At once" (W6, W7) still takes the DUT's processing and the capture's place: the reference's
// bound, a case may widen it with `max_delay_ns`.
constexpr std::uint64_t kAtOnceNs = 20'000;

struct Waiting {
  std::uint32_t at = 0;           // the arrival's position in the trace
  std::uint64_t deadline = 0;
  bool ce = false;
};

}  // namespace

// W7, W13: every trimmed data packet of a PSN the DUT has not received draws a NACK TRIMMED, or
// TRIMMED_LASTHOP when its DSCP is the last hop's, naming its PSN (when the QP takes trim NACKs);
// and "one per affected packet": a NACK TRIMMED names only a PSN a trimmed copy of which reached
// the DUT before it (one for a packet that arrived whole makes the requester resend it and skip
// its EV for nothing).
void trim_nack_per_stub(Run& r) {
  std::vector<std::uint32_t> stubs;
  std::vector<std::uint8_t> answered;
  FlatIndex pending(r.t.packets.size());  // psn -> index into stubs of the earliest unanswered one
  // A trimmed copy of a PSN that already arrived whole is a duplicate (a SACK answers it), not
  // judged here.
  FlatIndex arrived(r.t.packets.size());  // psn -> 1 once a whole copy reached the DUT
  FlatIndex trimmed(r.t.packets.size());  // psn -> 1 once any trimmed copy reached the DUT
  const std::uint8_t lasthop = r.ctx.dut_dscp.trimmed_lasthop;  // W13 as the run configured it
  r.judged_what = "trimmed packets of PSNs not yet received, sent to the DUT, and the DUT's NACKs TRIMMED";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (accepted(r.ctx, p) && !p.trimmed) {
      if (std::uint32_t* a = arrived.find_or_insert(p.psn)) *a = 1;
      continue;
    }
    if (to_dut_data(p) && p.trimmed) {
      if (std::uint32_t* t = trimmed.find_or_insert(p.psn)) *t = 1;
    }
    if (dut_feedback(p) && p.is_trim_nack() && trimmed.get(p.trig_psn) == FlatIndex::kNone) {
      ++r.judged;
      r.violation(p, "neth.nack_psn", "the PSN of a trimmed packet that reached the DUT (W7: one NACK TRIMMED per trimmed packet)",
                  std::to_string(p.trig_psn) + (arrived.get(p.trig_psn) == FlatIndex::kNone
                                                    ? ", of which no copy, trimmed or whole, reached the DUT"
                                                    : ", which reached the DUT whole and never trimmed"));
      continue;
    }
    if (to_dut_data(p) && p.trimmed && arrived.get(p.psn) == FlatIndex::kNone) {
      std::uint32_t* s = pending.find_or_insert(p.psn);
      if (s && *s == FlatIndex::kNone) *s = static_cast<std::uint32_t>(stubs.size());
      stubs.push_back(static_cast<std::uint32_t>(i));
      answered.push_back(0);
      ++r.judged;
    } else if (dut_feedback(p) && p.is_trim_nack()) {
      std::uint32_t* s = pending.find_or_insert(p.trig_psn);
      if (!s || *s == FlatIndex::kNone) continue;
      answered[*s] = 1;
      const PacketRec& stub = r.t.packets[stubs[*s]];
      const std::uint8_t want = stub.dscp == lasthop ? wire::nack::kTrimmedLastHop : wire::nack::kTrimmed;
      if (p.nack_reason != want) {
        r.violation(p, "neth.reason", hex(want) + " (the trimmed packet's DSCP is " + std::to_string(stub.dscp) + ")",
                    hex(p.nack_reason));
      }
      // Another trimmed copy of the same PSN still waiting takes the slot.
      const std::uint32_t done = *s;
      *s = FlatIndex::kNone;
      for (std::size_t k = done + 1; k < stubs.size(); ++k) {
        if (!answered[k] && r.t.packets[stubs[k]].psn == p.trig_psn) {
          *s = static_cast<std::uint32_t>(k);
          break;
        }
      }
    }
  }
  for (std::size_t k = 0; k < stubs.size(); ++k) {
    if (answered[k]) continue;
    const PacketRec& stub = r.t.packets[stubs[k]];
    r.violation(stub, "neth.nack_psn", "a NACK TRIMMED from the DUT with nack_psn " + std::to_string(stub.psn), "none");
  }
}

// W6: an accepted data packet that carries BTH.A or BTH.RTX, or arrived ECN-CE marked, and every
// duplicate, draws a SACK that names it (ack_psn = its PSN) at once (`max_delay_ns`).
void sack_triggers(Run& r) {
  const std::uint64_t declared = r.param("max_delay_ns", kAtOnceNs);
  const std::uint64_t delay = r.within(declared, "max_delay_ns " + fmt_ns(static_cast<double>(declared)));
  FlatIndex waiting(r.t.packets.size());  // psn -> index into `open` of an unanswered trigger
  FlatIndex seen(r.t.packets.size());     // psn -> 1 once an accepted copy arrived
  std::vector<Waiting> open;
  std::vector<std::uint8_t> done;
  r.judged_what = "data packets that must draw a SACK (A, RTX, ECN-CE, duplicates)";
  auto expire = [&](std::uint64_t now) {
    for (std::size_t k = 0; k < open.size(); ++k) {
      if (done[k] || open[k].deadline >= now) continue;
      done[k] = 1;
      const PacketRec& d = r.t.packets[open[k].at];
      if (std::uint32_t* w = waiting.find_or_insert(d.psn); w && *w == k) *w = FlatIndex::kNone;
      const std::string why = d.ack_req ? "BTH.A" : d.rtx ? "BTH.RTX" : open[k].ce ? "ECN-CE" : "a duplicate";
      r.violation(d, "seth.ack_psn", "a SACK naming PSN " + std::to_string(d.psn) + " within " +
                                         fmt_ns(static_cast<double>(declared)) + plus_budget(r.budget()) + " (" + why + ")",
                  "none");
    }
  };
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    expire(p.ts_ns);
    if (accepted(r.ctx, p)) {
      std::uint32_t* s = seen.find_or_insert(p.psn);
      const bool duplicate = s && *s != FlatIndex::kNone;
      if (s) *s = 1;
      const bool ce = p.ecn == wire::kEcnCe;
      if (!(p.ack_req || p.rtx || ce || duplicate)) continue;
      ++r.judged;
      if (std::uint32_t* w = waiting.find_or_insert(p.psn)) {
        *w = static_cast<std::uint32_t>(open.size());
        open.push_back(Waiting{static_cast<std::uint32_t>(i), p.ts_ns + delay, ce});
        done.push_back(0);
      }
      continue;
    }
    if (!dut_feedback(p) || !p.is_sack() || p.seth_pr) continue;
    std::uint32_t* w = waiting.find_or_insert(p.trig_psn);
    if (!w || *w == FlatIndex::kNone) continue;
    done[*w] = 1;
    *w = FlatIndex::kNone;
  }
  expire(~std::uint64_t{0});
}

// W6 trigger 2 and SETH.m: an accepted data packet that arrived ECN-CE marked draws its own SACK
// with m = SKIP_ONCE naming it, so no mark is lost to coalescing; and m = SKIP_ONCE never names a
// packet that was not marked.
void ce_skip_once(Run& r) {
  const std::uint64_t declared = r.param("max_delay_ns", kAtOnceNs);
  const std::uint64_t delay = r.within(declared, "max_delay_ns " + fmt_ns(static_cast<double>(declared)));
  FlatIndex marked(r.t.packets.size());  // psn -> position of its latest CE-marked accepted arrival
  FlatIndex clean(r.t.packets.size());   // psn -> 1 once an unmarked accepted copy arrived
  std::vector<std::uint32_t> open;       // CE arrivals not yet answered
  r.judged_what = "ECN-CE marked data packets and SKIP_ONCE SACKs";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (accepted(r.ctx, p)) {
      if (p.ecn == wire::kEcnCe) {
        if (std::uint32_t* m = marked.find_or_insert(p.psn)) *m = static_cast<std::uint32_t>(i);
        open.push_back(static_cast<std::uint32_t>(i));
        ++r.judged;
      } else if (std::uint32_t* c = clean.find_or_insert(p.psn)) {
        *c = 1;
      }
      continue;
    }
    if (!dut_feedback(p) || !p.is_sack() || p.seth_pr) continue;
    const std::uint32_t m = marked.get(p.trig_psn);
    if (p.skip_once()) {
      ++r.judged;
      if (m == FlatIndex::kNone) {
        r.violation(p, "seth.m", "0 (NONE): PSN " + std::to_string(p.trig_psn) + " arrived unmarked", "1 (SKIP_ONCE)");
      }
    }
    if (m == FlatIndex::kNone) continue;
    // The SACK for a marked arrival: it must say SKIP_ONCE.
    const auto it = std::find(open.begin(), open.end(), m);
    if (it == open.end()) continue;
    open.erase(it);
    if (!p.skip_once() && clean.get(p.trig_psn) == FlatIndex::kNone) {
      r.violation(p, "seth.m", "1 (SKIP_ONCE): PSN " + std::to_string(p.trig_psn) + " arrived ECN-CE marked (" +
                                   where(r.ctx, r.t.packets[m]) + ")",
                  std::to_string(p.seth_m));
    }
  }
  for (const std::uint32_t at : open) {
    const PacketRec& d = r.t.packets[at];
    if (r.t.packets.back().ts_ns < d.ts_ns + delay) continue;  // the run ended first
    r.violation(d, "seth.m", "a SACK with m = SKIP_ONCE naming PSN " + std::to_string(d.psn), "none");
  }
}

// W8: an accepted packet that carried BTH.A gets a Transport ACK covering it once cumulatively
// received; no Transport ACK claims more than arrived in order. W8 sets no time for the ACK (a
// responder may hold it while a hole is open, or coalesce), so lateness is not judged: only a
// packet still uncovered when the run ends, `max_delay_ns` or more after cack_psn reached it (the
// harness's peer waits for these ACKs to complete its writes, so a DUT that sends them late still
// has them in the trace).
void transport_ack(Run& r) {
  const std::uint64_t declared = r.param("max_delay_ns", kAtOnceNs);
  const std::uint64_t delay = r.within(declared, "max_delay_ns " + fmt_ns(static_cast<double>(declared)));
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  std::vector<std::uint64_t> reached(s.size(), 0);  // per offset: when the in-order frontier passed it
  std::vector<std::uint32_t> asked;                  // accepted arrivals with BTH.A
  std::int64_t acked = -1;                           // offset the DUT's Transport ACKs covered
  r.judged_what = "Transport ACKs from the DUT and packets that asked for one";
  for (const PacketRec& p : r.t.packets) {
    if (accepted(r.ctx, p)) {
      const std::int64_t before = s.frontier();
      s.arrive(s.offset(p.psn));
      for (std::int64_t off = before + 1; off <= s.frontier(); ++off) reached[static_cast<std::size_t>(off)] = p.ts_ns;
      if (p.ack_req) {
        asked.push_back(static_cast<std::uint32_t>(&p - r.t.packets.data()));
        ++r.judged;
      }
      continue;
    }
    if (!dut_feedback(p) || !p.is_transport_ack() || p.syndrome != wire::syndrome::kAck || s.empty()) continue;
    ++r.judged;
    const std::int64_t off = psn_diff(p.psn, s.start());
    if (off > s.frontier()) {
      r.violation(p, "bth.psn", "<= " + std::to_string(s.frontier_psn()) + " (highest PSN received in order)",
                  std::to_string(p.psn), "Transport ACK beyond what arrived");
      continue;
    }
    acked = std::max(acked, off);
  }
  if (r.t.packets.empty()) return;
  const std::uint64_t end = r.t.packets.back().ts_ns;
  for (const std::uint32_t at : asked) {
    const PacketRec& a = r.t.packets[at];
    const std::int64_t off = s.offset(a.psn);
    if (off < 0 || off <= acked || off > s.frontier()) continue;  // covered, or never cumulatively received
    const std::uint64_t since = std::max(a.ts_ns, reached[static_cast<std::size_t>(off)]);
    if (end < since + delay) continue;  // the run ended first
    r.violation(a, "aeth.syndrome",
                "a Transport ACK covering PSN " + std::to_string(a.psn) + " (cumulatively received at " +
                    std::to_string(since) + " ns)",
                "none in the " + fmt_ns(static_cast<double>(end - since)) + " the run went on (grace " +
                    fmt_ns(static_cast<double>(declared)) + plus_budget(r.budget()) + ")");
  }
}

// W9: every reliability probe to the DUT draws one SACK with pr = 1 echoing its probe_id, on its
// EV (ev_echo_matches judges the entropy) and reflecting its timestamp.
void probe_answered(Run& r) {
  const std::uint64_t declared = r.param("max_delay_ns", kAtOnceNs);
  const std::uint64_t delay = r.within(declared, "max_delay_ns " + fmt_ns(static_cast<double>(declared)));
  FlatIndex open(r.t.packets.size());  // probe_id -> position of the unanswered probe
  std::vector<std::uint32_t> probes;
  r.judged_what = "reliability probes sent to the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!p.from_dut && p.has_peth && p.icrc_ok && (r.ctx.dut.dut_qpn == 0 || p.dqpn == r.ctx.dut.dut_qpn)) {
      if (std::uint32_t* o = open.find_or_insert(p.probe_id)) *o = static_cast<std::uint32_t>(i);
      probes.push_back(static_cast<std::uint32_t>(i));
      ++r.judged;
      continue;
    }
    if (!dut_feedback(p) || !p.is_sack() || !p.seth_pr) continue;
    std::uint32_t* o = open.find_or_insert(p.probe_id);
    if (!o || *o == FlatIndex::kNone) {
      r.violation(p, "seth.probe_id", "the probe_id of a probe the DUT received", std::to_string(p.probe_id));
      continue;
    }
    *o = FlatIndex::kNone;
  }
  for (const std::uint32_t at : probes) {
    const PacketRec& probe = r.t.packets[at];
    if (open.get(probe.probe_id) != at) continue;
    if (r.t.packets.back().ts_ns < probe.ts_ns + delay) continue;  // the run ended first
    r.violation(probe, "seth.pr", "a SACK with pr = 1 and probe_id " + std::to_string(probe.probe_id) + " within " +
                                      fmt_ns(static_cast<double>(declared)) + plus_budget(r.budget()),
                "none");
  }
}

// W5, W7, W9: a SACK reflects its trigger's TSETH timestamp (a probe's PETH one), 0 when the trigger
// carried none; a NACK reflects the NACKed packet's. MODEL: W14 a responder with the service-time
// capability (on by default) may add the time it held the trigger, in 128 ns units: never more
// than lies between the trigger's arrival and the feedback's departure as captured, plus one unit
// of rounding. `exact: 1` (a QP that disables service time) demands the timestamp unchanged.
void ts_reflected(Run& r) {
  const bool exact = r.param("exact", 0) != 0;
  TriggerIndex triggers(r.t.packets.size());
  r.judged_what = "SACKs and NACKs from the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (triggers.note(p, i)) continue;
    if (!dut_feedback(p) || !(p.is_sack() || p.is_nack())) continue;
    const std::uint32_t at = triggers.trigger_of(p);
    if (at == FlatIndex::kNone) continue;  // ev_echo_matches reports a trigger that never came
    ++r.judged;
    // The service time the DUT may add for one copy of the trigger, and the reflection rule for it.
    auto svc_units_for = [&](const PacketRec& d) -> std::uint64_t {
      const std::uint64_t held = p.ts_ns > d.ts_ns ? p.ts_ns - d.ts_ns : 0;
      return exact ? 0 : (held + wire::kTimestampUnitNs - 1) / wire::kTimestampUnitNs + 1;
    };
    auto reflects = [&](const PacketRec& d) {
      if (!d.has_tseth && !d.peth_ts) return p.reflected_ts == 0;
      return static_cast<std::uint16_t>(p.reflected_ts - d.tx_ts) <= svc_units_for(d);
    };
    // Across a bridge, any copy of the trigger within twice the budget (trigger_index.hpp).
    const bool ok = triggers.for_each_trigger(p, r.t.packets, 2 * r.budget().ns,
                                              [&](std::uint32_t k) { return reflects(r.t.packets[k]); });
    if (!ok) {
      const PacketRec& d = r.t.packets[at];
      const bool has_ts = d.has_tseth || d.peth_ts;
      const std::uint16_t sent = d.tx_ts;
      const std::uint64_t svc_units = svc_units_for(d);
      const char* field = p.is_sack() ? "cc.tx_timestamp" : "neth.tx_timestamp";
      r.violation(p, field,
                  has_ts ? hex(sent) + (svc_units ? " (+ at most " + std::to_string(svc_units) + " units of service time)" : "") +
                               ", the timestamp of " + where(r.ctx, d)
                         : std::string("0: ") + where(r.ctx, d) + " carried no timestamp",
                  hex(p.reflected_ts));
    }
  }
}

}  // namespace mrc::harness::inv
