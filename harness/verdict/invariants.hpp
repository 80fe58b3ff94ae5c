// Internal to the invariant check: the state one invariant works with, and the invariant
// functions, one family per file (invariants_ev.cpp, invariants_feedback.cpp,
// invariants_delivery.cpp, invariants_frame.cpp). The registry is invariant_check.cpp.
//
// An invariant walks the trace (or the DUT's reports), counts what it judged, and adds a
// Finding per violation with the packet that shows it. It may instead stop early: ERROR when the
// case or context lacks what it needs (a fault, a configured limit), INCONCLUSIVE when the run
// gave it nothing to judge (an empty run must never pass a "never does X" invariant).
#pragma once

#include <string>
#include <string_view>

#include "harness/case/case_model.hpp"
#include "harness/verdict/check_context.hpp"
#include "harness/verdict/check_support.hpp"
#include "harness/verdict/timing_budget.hpp"
#include "harness/verdict/trace.hpp"

namespace mrc::harness::inv {

struct Run {
  Run(const CheckContext& c, const InvariantCheck& s, const Trace& tr, CheckResult& res)
      : ctx(c), spec(s), t(tr), r(res), findings(res) {}

  const CheckContext& ctx;
  const InvariantCheck& spec;
  const Trace& t;
  CheckResult& r;
  Findings findings;
  std::size_t judged = 0;           // items checked, for the message
  std::string judged_what = "frames";
  Verdict early = Verdict::kPass;   // kError / kInconclusive: stop without judging
  std::string early_message;
  std::string param_error;
  std::string budget_note;          // the bound a non-zero timing budget widened, for the message

  void stop(Verdict v, std::string msg) {
    early = v;
    early_message = std::move(msg);
  }
  std::uint64_t param(std::string_view key, std::uint64_t def) {
    return param_uint(spec.params, key, def, &param_error);
  }
  void violation(const PacketRec& p, std::string field, std::string expected, std::string observed,
                 std::string note = {}) {
    if (!findings.want_more()) return findings.count_only();
    findings.add(packet_evidence(ctx, p, std::move(field), std::move(expected), std::move(observed), std::move(note)));
  }
  void violation(Evidence e) { findings.add(std::move(e)); }

  // A time bound this invariant judges, widened by the run's timing budget (timing_budget.hpp):
  // `within` an upper bound, `not_before` a lower one. Under a non-zero budget `shown` (the bound
  // as the case states it) and the budget join the check's message, whatever the verdict.
  const TimingBudget& budget() const { return ctx.timing_budget; }
  std::uint64_t within(std::uint64_t bound_ns, const std::string& shown) {
    note_bound(shown + plus_budget(budget()));
    return widen_upper(bound_ns, budget());
  }
  std::uint64_t not_before(std::uint64_t bound_ns, const std::string& shown) {
    note_bound(shown + minus_budget(budget()));
    return widen_lower(bound_ns, budget());
  }
  // For an invariant that applies the budget its own way (a shifted window): what it did.
  void note_bound(const std::string& text) {
    if (budget().ns == 0 || !budget_note.empty()) return;
    budget_note = text;
    note_budget(r, budget());
  }
};

// Which frames an invariant needs: none (it judges the DUT's reports only), the DUT's, or both
// directions.
enum class Needs : std::uint8_t { kReports, kFromDut, kBoth };

using Fn = void (*)(Run&);

// ---- EV use (invariants_ev.cpp)
void no_denied_ev(Run& r);
void no_assumed_bad_ev(Run& r);
void no_data_on_failed_ev(Run& r);
void retx_different_ev(Run& r);
void consecutive_evs_differ(Run& r);
void per_packet_ev_variation(Run& r);
void ev_min_active(Run& r);
void stev_placement(Run& r);
void udp_placement(Run& r);
void srv6_layout(Run& r);
void probe_on_tested_ev(Run& r);

// ---- EV events (invariants_ev_events.cpp)
void ev_events(Run& r);
void ev_event_drop_count(Run& r);
void control_results(Run& r);

// ---- the DUT as responder: what its feedback claims (invariants_feedback.cpp)
void sack_consistent(Run& r);
void sack_exact(Run& r);
void ev_echo_matches(Run& r);
void stub_not_placed(Run& r);
void injected_placed(Run& r);
void not_placed(Run& r);
void silently_dropped(Run& r);
void responder_window(Run& r);
void no_rnr(Run& r);
void pdc_ids(Run& r);

// ---- the DUT as responder: when feedback must come (invariants_feedback_triggers.cpp)
void trim_nack_per_stub(Run& r);
void sack_triggers(Run& r);
void ce_skip_once(Run& r);
void transport_ack(Run& r);
void probe_answered(Run& r);
void ts_reflected(Run& r);

// ---- delivery, windows and completions (invariants_delivery.cpp)
void every_psn_delivered(Run& r);
void completions_exactly_once(Run& r);
void completion_after_all_psns(Run& r);
void requester_window(Run& r);
void wimm_limit(Run& r);
void selective_retx(Run& r);
void data_verified(Run& r);
void cwnd_decreases(Run& r);

// ---- the QP error path (invariants_qp_error.cpp)
void retry_exceeded(Run& r);

// ---- per frame (invariants_frame.cpp)
void reth_every_packet(Run& r);
void meth_every_packet(Run& r);
void icrc_valid(Run& r);
void allowed_opcodes(Run& r);
void dscp_marking(Run& r);
void ecn_capable(Run& r);
void traffic_classes(Run& r);

// ---- a requester taking congestion feedback (invariants_congestion.cpp)
void trim_retx_prompt(Run& r);
void congestion_not_bad(Run& r);
void skip_after_congestion(Run& r);

// ---- endpoint operations (invariants_ep.cpp)
void req_id_not_reused(Run& r);
void peer_port_status(Run& r);

// ---- the NSCC window, judged from the bytes in flight (invariants_cc.cpp)
void inflight_bounds(Run& r);
void no_md_below_target(Run& r);
void md_bounded(Run& r);
void quick_adapt(Run& r);

// ---- helpers shared by the families
const EvRecord* ev_by_echo(const CheckContext& ctx, std::uint32_t echo);
const EvRecord* ev_by_index(const CheckContext& ctx, std::uint32_t index);
inline bool dut_data(const PacketRec& p) { return p.from_dut && p.is_write_data(); }
inline bool dut_feedback(const PacketRec& p) { return p.from_dut && p.is_feedback(); }
inline bool to_dut_data(const PacketRec& p) { return !p.from_dut && p.is_data(); }
// The membership bit (bit 15) of a P_Key does not take part in the match (IBA P_Key checks).
inline bool pkey_matches(const CheckContext& ctx, const PacketRec& p) {
  return (p.pkey & 0x7FFF) == (ctx.dut_pkey & 0x7FFF);
}
// A data frame to the DUT that it may place: whole, good ICRC, its QP and P_Key.
inline bool accepted(const CheckContext& ctx, const PacketRec& p) {
  return !p.from_dut && valid_arrival(p) && (ctx.dut.dut_qpn == 0 || p.dqpn == ctx.dut.dut_qpn) && pkey_matches(ctx, p);
}
// Is `psn` acknowledged by this SACK: a bit of its bitmap, or its ack_psn?
bool sack_has(const PacketRec& fb, std::uint32_t psn);
// "evidence.pcapng packet 12": where a record sits in the evidence.
std::string where(const CheckContext& ctx, const PacketRec& p);
// An "EV" label for evidence: "0x01020304 (index 3, port 2)".
std::string ev_label(const CheckContext& ctx, std::uint32_t echo);

}  // namespace mrc::harness::inv
