// Invariants on how a requester DUT takes congestion feedback (W7, W11): a NACK TRIMMED says the
// path is congested, not broken. The requester resends the trimmed PSN at once instead of waiting
// for its ACK timeout (trim_retx_prompt), and neither that NACK nor a SACK with m = SKIP_ONCE
// moves the EV it names to ASSUMED_BAD (congestion_not_bad), but to SKIP, so the EV misses its
// next turn (skip_after_congestion). How long the EV then sits in SKIP is the DUT's (W11:
// rotation or timer); no invariant times it.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {
namespace {

constexpr std::uint32_t kAssumedBadBit = 1u << 1;  // host-API EV state bit

bool congestion_feedback_to_dut(const PacketRec& p) {
  if (p.from_dut) return false;
  if (p.is_nack()) return p.nack_reason == wire::nack::kTrimmed;
  return p.is_sack() && !p.seth_pr && p.seth_m == static_cast<std::uint8_t>(wire::MpVerdict::kSkipOnce);
}

// One QP: PSNs of the DUT's data and of the feedback it receives are then one sequence space.
bool single_qp(Run& r) {
  if (r.ctx.peer_qpns.size() > 1) {
    r.stop(Verdict::kError, "judges a case of one QP (the case has " + std::to_string(r.ctx.peer_qpns.size()) + ")");
    return false;
  }
  return true;
}

}  // namespace

// W7: "retransmit at once" after NACK TRIMMED. `within_ns` (required) is how soon the
// retransmission must leave after the NACK reached the DUT's tap: the case sets it well below its
// ACK timeout, so a DUT that ignores the NACK and waits for the timer FAILs, whatever its window.
void trim_retx_prompt(Run& r) {
  const std::uint64_t within_ns = r.param("within_ns", 0);
  if (within_ns == 0) return r.stop(Verdict::kError, "needs params.within_ns (the bound, below the ACK timeout)");
  if (!single_qp(r)) return;
  const std::uint64_t bound = r.within(within_ns, std::to_string(within_ns) + " ns");
  r.judged_what = "NACK TRIMMED frames to the DUT";
  std::unordered_map<std::uint32_t, const PacketRec*> waiting;  // PSN -> the NACK not yet answered
  auto judge = [&](const PacketRec& nack, const PacketRec* retx) {
    ++r.judged;
    const std::string psn = "PSN " + std::to_string(nack.trig_psn);
    if (retx == nullptr) {
      r.violation(nack, "data", "a retransmission of " + psn + " within " + std::to_string(within_ns) + " ns",
                  "none before the end of the run");
    } else if (retx->ts_ns - nack.ts_ns > bound) {
      r.violation(*retx, "ts", "the retransmission of " + psn + " within " + std::to_string(within_ns) +
                                  " ns of its NACK TRIMMED (" + where(r.ctx, nack) + ")",
                  std::to_string(retx->ts_ns - nack.ts_ns) + " ns after it");
    }
  };
  for (const PacketRec& p : r.t.packets) {
    if (!p.from_dut && p.is_trim_nack() && p.nack_reason == wire::nack::kTrimmed) {
      waiting.try_emplace(p.trig_psn, &p);  // a second NACK of the same PSN waits on the first one's answer
      continue;
    }
    if (!dut_data(p)) continue;
    const auto it = waiting.find(p.psn);
    if (it == waiting.end()) continue;
    judge(*it->second, &p);
    waiting.erase(it);
  }
  // Unanswered at the end: judged only when the run went on long enough after the NACK, in the
  // order the NACKs came (the map's order is not the run's, and evidence order must be stable).
  std::vector<const PacketRec*> rest;
  for (const auto& [psn, nack] : waiting) rest.push_back(nack);
  std::sort(rest.begin(), rest.end(), [](const PacketRec* a, const PacketRec* b) { return a < b; });
  for (const PacketRec* nack : rest) {
    if (r.ctx.end_ns > nack->ts_ns + bound) judge(*nack, nullptr);
  }
  if (r.judged == 0) r.stop(Verdict::kInconclusive, "no NACK TRIMMED reached the DUT: nothing to judge");
}

// W11: SKIP_ONCE and NACK TRIMMED move an EV to SKIP, never to ASSUMED_BAD, and raise no EV
// event. Judged on the DUT's EV events: none may report ASSUMED_BAD for an EV that such feedback
// named, in a case whose only impairments are congestion marks (the case's choice).
void congestion_not_bad(Run& r) {
  if (r.ctx.dut.evs.empty()) return r.stop(Verdict::kError, "needs the DUT's EV table to map echoed EVs to EVs");
  if ((r.ctx.ev_event_mask & kAssumedBadBit) == 0) {
    return r.stop(Verdict::kError, "needs ev_event_mask to include assumed_bad");
  }
  r.judged_what = "EVs named by congestion feedback to the DUT";
  std::unordered_map<std::uint32_t, const PacketRec*> named;  // EV index -> the first feedback naming it
  for (const PacketRec& p : r.t.packets) {
    if (!congestion_feedback_to_dut(p)) continue;
    const EvRecord* ev = ev_by_echo(r.ctx, p.ev_echo);
    if (ev != nullptr && named.try_emplace(ev->index, &p).second) ++r.judged;
  }
  if (r.judged == 0) return r.stop(Verdict::kInconclusive, "no SKIP_ONCE or NACK TRIMMED reached the DUT");
  for (const EvEventRecord& e : r.ctx.dut.ev_events) {
    if (e.controller_change || (e.state & kAssumedBadBit) == 0) continue;
    const auto it = named.find(e.ev_index);
    if (it == named.end() || e.at_ns < it->second->ts_ns) continue;
    Evidence ev = packet_evidence(r.ctx, *it->second, "ev_event.state",
                                  "no ASSUMED_BAD event: congestion feedback moves an EV to SKIP",
                                  "ASSUMED_BAD at " + std::to_string(e.at_ns) + " ns",
                                  ev_label(r.ctx, it->second->ev_echo) + " (this frame named it)");
    r.violation(std::move(ev));
  }
}

// W11: SKIP_ONCE and NACK TRIMMED move the EV they name to SKIP, and a SKIP EV carries nothing
// until it is restored. When it is restored is the DUT's (the rotation reaching it, which then
// takes the next EV, or a timer), so what is judged is the least every restore rule gives: the
// first packet the DUT picks after taking the feedback is on another EV. Which packets were
// picked after it shows on the wire only for a DUT that picks a packet's EV as the packet leaves
// (W11 GetSendParams) and sends when feedback opens its window: a data packet leaving within
// reaction_ns (0 in the simulator) of a feedback frame that arrived at or after the judged one.
// A packet that leaves later was queued behind another: picked before the feedback, it may carry
// any EV; picked after it, it was the first pick, and the EV may be restored by the next one (W11:
// one EV restored per packet sent). Either way the feedback pending at such a send is not judged
// (counted in not_judged_unclocked). Packets
// clocked out at the same instant (one per port) were picked in an order the wire does not show,
// so such a send passes when any of them is on another EV. Not judged: feedback naming an EV not
// shown restored since an earlier such feedback (F7: SKIP is neither re-armed nor extended), and
// a send on the named EV when every other EV the DUT has used may be in SKIP too (a scan that
// finds no other GOOD EV may use the one it restored). Across a real-time bridge (a non-zero
// timing budget) a run that finds no violation is INCONCLUSIVE, not PASS: no send is known to be
// the first pick there (below).
void skip_after_congestion(Run& r) {
  const std::uint64_t reaction = r.param("reaction_ns", 0);
  if (!single_qp(r)) return;
  const std::uint64_t allow = r.within(reaction, "reaction_ns " + std::to_string(reaction) + " ns");
  const std::uint64_t crossing = 2 * r.budget().ns;
  r.judged_what = "SKIP_ONCE SACKs and NACK TRIMMED frames to the DUT followed by data they clocked out";
  struct EvSeen {
    const PacketRec* named = nullptr;  // the feedback that may have put it in SKIP, not yet cleared
    bool used = false;                 // the DUT carried data on it in this run
  };
  std::unordered_map<std::uint32_t, EvSeen> evs;  // EV identity on the wire (the echo value)
  std::vector<const PacketRec*> pending;          // feedback whose first clocked send is still to come
  const PacketRec* last_feedback = nullptr;       // the newest feedback frame to the DUT
  std::size_t exempt = 0;
  std::size_t unclocked = 0;
  auto may_skip = [&](const EvSeen& s) { return s.named != nullptr; };
  const auto& pk = r.t.packets;
  for (std::size_t i = 0; i < pk.size(); ++i) {
    const PacketRec& p = pk[i];
    if (!p.from_dut && p.is_feedback()) last_feedback = &p;
    if (congestion_feedback_to_dut(p)) {
      EvSeen& s = evs[p.ev_echo];
      if (may_skip(s)) continue;  // perhaps still in SKIP from the earlier feedback
      s.named = &p;
      pending.push_back(&p);
      continue;
    }
    if (!dut_data(p)) continue;
    // Clocked out by feedback at or after every pending frame: picked after the DUT took them.
    const bool clocked = last_feedback != nullptr && p.ts_ns <= last_feedback->ts_ns + allow;
    if (clocked) {
      std::size_t deferred = 0;  // pending frames the DUT may not have had yet, kept at the front
      for (const PacketRec* fb : pending) {
        bool elsewhere = false;
        for (std::size_t k = i; k < pk.size() && pk[k].ts_ns == p.ts_ns && !elsewhere; ++k) {
          elsewhere = dut_data(pk[k]) && pk[k].ev != fb->ev_echo;
        }
        // Across a real-time bridge the feedback reaches the DUT up to the budget after the taps
        // saw it, and the DUT's packet reaches them up to the budget after it left: a packet on
        // the named EV within those two crossings may have been picked before the DUT had the
        // feedback. It says nothing; the next packet is judged instead (budget 0: none deferred).
        if (!elsewhere && p.ts_ns < fb->ts_ns + crossing) {
          pending[deferred++] = fb;
          continue;
        }
        const bool other_free = std::any_of(evs.begin(), evs.end(), [&](const auto& kv) {
          return kv.first != fb->ev_echo && kv.second.used && !may_skip(kv.second);
        });
        if (!elsewhere && !other_free) {
          ++exempt;
          continue;
        }
        ++r.judged;
        if (elsewhere) continue;
        r.violation(p, "ev",
                    "an EV other than " + ev_label(r.ctx, fb->ev_echo) + ": the " +
                        (fb->is_nack() ? "NACK TRIMMED" : "SACK with m = SKIP_ONCE") + " at " + where(r.ctx, *fb) +
                        " put it in SKIP, so the first packet picked after it goes elsewhere",
                    "the first data packet that feedback at or after it clocked out is on that EV");
      }
      pending.resize(deferred);
    } else {
      unclocked += pending.size();
      pending.clear();
    }
    EvSeen& s = evs[p.ev];
    s.used = true;
    // Clocked data on it after the feedback: it is GOOD again (restored), or never was in SKIP.
    if (clocked && s.named != nullptr && std::find(pending.begin(), pending.end(), s.named) == pending.end()) {
      s.named = nullptr;
    }
  }
  r.r.metrics["not_judged_no_other_ev"] = static_cast<double>(exempt);
  r.r.metrics["not_judged_unclocked"] = static_cast<double>(unclocked);
  if (r.judged == 0) {
    r.stop(Verdict::kInconclusive, "no SKIP_ONCE or NACK TRIMMED reached the DUT followed by data it clocked out");
  } else if (crossing != 0 && r.findings.count() == 0) {
    // Across a real-time bridge no judged send is known to be the DUT's first pick after the
    // feedback: a send inside the two crossings may have been picked before it, one after them is
    // many picks later, when every restore rule may have brought the EV back. A PASS would say
    // nothing (a DUT that ignores SKIP passed here: 0 of 71 such sends on the named EV); a DUT
    // still on the named EV past the crossings FAILs above.
    r.stop(Verdict::kInconclusive,
           "the first packet the DUT picked after taking the feedback does not show across a real-time bridge: "
           "feedback reaches the DUT up to the timing budget after the taps saw it and the DUT's packets reach "
           "them up to the budget after they left (two crossings: " +
               std::to_string(crossing / 1000) + " us); " + std::to_string(r.judged) +
               " later sends judged, none on the EV the feedback named (judged in-process or through a "
               "lockstep agent, where the first pick shows)");
  }
}

}  // namespace mrc::harness::inv
