// The `invariant` check: the registry of named invariants (invariants_*.cpp) and how their
// findings become a verdict.
#include <algorithm>
#include <array>

#include "harness/verdict/checks.hpp"
#include "harness/verdict/ev_raster.hpp"
#include "harness/verdict/invariants.hpp"

namespace mrc::harness {
namespace {

struct Def {
  std::string_view name;
  inv::Needs needs;
  inv::Fn fn;
};

using N = inv::Needs;
constexpr std::array kDefs{
    Def{"no_denied_ev", N::kFromDut, inv::no_denied_ev},
    Def{"no_assumed_bad_ev", N::kFromDut, inv::no_assumed_bad_ev},
    Def{"no_data_on_failed_ev", N::kFromDut, inv::no_data_on_failed_ev},
    Def{"retx_different_ev", N::kFromDut, inv::retx_different_ev},
    Def{"consecutive_evs_differ", N::kFromDut, inv::consecutive_evs_differ},
    Def{"per_packet_ev_variation", N::kFromDut, inv::per_packet_ev_variation},
    Def{"ev_min_active", N::kFromDut, inv::ev_min_active},
    Def{"stev_placement", N::kFromDut, inv::stev_placement},
    Def{"udp_placement", N::kFromDut, inv::udp_placement},
    Def{"srv6_layout", N::kFromDut, inv::srv6_layout},
    Def{"probe_on_tested_ev", N::kFromDut, inv::probe_on_tested_ev},
    Def{"ev_events", N::kReports, inv::ev_events},
    Def{"ev_event_drop_count", N::kReports, inv::ev_event_drop_count},
    Def{"control_results", N::kReports, inv::control_results},
    Def{"sack_consistent", N::kBoth, inv::sack_consistent},
    Def{"sack_exact", N::kBoth, inv::sack_exact},
    Def{"ev_echo_matches", N::kBoth, inv::ev_echo_matches},
    Def{"trim_nack_per_stub", N::kBoth, inv::trim_nack_per_stub},
    Def{"trim_nack_for_stub", N::kBoth, inv::trim_nack_per_stub},
    Def{"sack_triggers", N::kBoth, inv::sack_triggers},
    Def{"ce_skip_once", N::kBoth, inv::ce_skip_once},
    Def{"trim_retx_prompt", N::kBoth, inv::trim_retx_prompt},
    Def{"congestion_not_bad", N::kBoth, inv::congestion_not_bad},
    Def{"skip_after_congestion", N::kBoth, inv::skip_after_congestion},
    Def{"peer_port_status", N::kBoth, inv::peer_port_status},
    Def{"pdc_ids", N::kBoth, inv::pdc_ids},
    Def{"transport_ack", N::kBoth, inv::transport_ack},
    Def{"probe_answered", N::kBoth, inv::probe_answered},
    Def{"ts_reflected", N::kBoth, inv::ts_reflected},
    Def{"stub_not_placed", N::kBoth, inv::stub_not_placed},
    Def{"not_placed", N::kBoth, inv::not_placed},
    Def{"injected_placed", N::kBoth, inv::injected_placed},
    Def{"silently_dropped", N::kBoth, inv::silently_dropped},
    Def{"responder_window", N::kBoth, inv::responder_window},
    Def{"no_rnr", N::kFromDut, inv::no_rnr},
    Def{"every_psn_delivered", N::kBoth, inv::every_psn_delivered},
    Def{"completions_exactly_once", N::kReports, inv::completions_exactly_once},
    Def{"completion_after_all_psns", N::kBoth, inv::completion_after_all_psns},
    Def{"requester_window", N::kBoth, inv::requester_window},
    Def{"mpr_window", N::kBoth, inv::requester_window},
    Def{"wimm_limit", N::kBoth, inv::wimm_limit},
    Def{"selective_retx", N::kBoth, inv::selective_retx},
    Def{"data_verified", N::kReports, inv::data_verified},
    Def{"cwnd_decreases", N::kBoth, inv::cwnd_decreases},
    Def{"retry_exceeded", N::kFromDut, inv::retry_exceeded},
    Def{"inflight_bounds", N::kBoth, inv::inflight_bounds},
    Def{"no_md_below_target", N::kBoth, inv::no_md_below_target},
    Def{"md_bounded", N::kBoth, inv::md_bounded},
    Def{"quick_adapt", N::kBoth, inv::quick_adapt},
    Def{"reth_every_packet", N::kFromDut, inv::reth_every_packet},
    Def{"meth_every_packet", N::kFromDut, inv::meth_every_packet},
    Def{"icrc_valid", N::kFromDut, inv::icrc_valid},
    Def{"allowed_opcodes", N::kFromDut, inv::allowed_opcodes},
    Def{"dscp_marking", N::kFromDut, inv::dscp_marking},
    Def{"ecn_capable", N::kFromDut, inv::ecn_capable},
    Def{"traffic_classes", N::kFromDut, inv::traffic_classes},
    Def{"req_id_not_reused", N::kBoth, inv::req_id_not_reused},
};

// The EV rules: a FAIL of one carries the raster of which EV the DUT used when (ev_raster.hpp).
constexpr std::array<std::string_view, 10> kEvRules{
    "no_denied_ev",       "no_assumed_bad_ev", "no_data_on_failed_ev", "retx_different_ev",
    "consecutive_evs_differ", "per_packet_ev_variation", "ev_min_active", "probe_on_tested_ev",
    "congestion_not_bad", "skip_after_congestion"};

constexpr bool ev_rules_defined() {
  for (auto rule : kEvRules) {
    bool found = false;
    for (const auto& d : kDefs) found = found || d.name == rule;
    if (!found) return false;
  }
  return true;
}
static_assert(ev_rules_defined(), "every EV rule names an invariant of kDefs");

bool is_ev_rule(std::string_view name) {
  return std::find(kEvRules.begin(), kEvRules.end(), name) != kEvRules.end();
}

constexpr auto make_names() {
  std::array<std::string_view, kDefs.size()> out{};
  for (std::size_t i = 0; i < kDefs.size(); ++i) out[i] = kDefs[i].name;
  return out;
}
constexpr auto kNames = make_names();

}  // namespace

std::span<const std::string_view> implemented_invariants() { return kNames; }

bool invariant_reads_frames(std::string_view name) {
  for (const auto& d : kDefs) {
    if (d.name == name) return d.needs != N::kReports;
  }
  return true;
}

CheckResult run_invariant(const InvariantCheck& spec, const CheckContext& ctx) {
  CheckResult r = make_result("invariant", "invariant/" + spec.name);
  const Def* def = nullptr;
  for (const auto& d : kDefs) {
    if (d.name == spec.name) def = &d;
  }
  if (!def) {
    conclude(r, Verdict::kError, "unknown invariant '" + spec.name + "'");
    return r;
  }
  std::shared_ptr<const Trace> shared;
  if (def->needs != N::kReports) {
    const auto taps = select_taps(ctx, def->needs == N::kFromDut ? TapSide::kFromDut : TapSide::kAll);
    if (integrity_gate(ctx, taps, def->needs == N::kFromDut ? "frames from the DUT" : "frames to and from the DUT", r)) {
      return r;
    }
    shared = trace_of(ctx, taps);
  }
  static const Trace kNoFrames;  // an invariant over the reports only
  const Trace& t = shared ? *shared : kNoFrames;
  inv::Run run(ctx, spec, t, r);
  def->fn(run);
  r.metrics["judged"] = static_cast<double>(run.judged);
  r.metrics["violations"] = static_cast<double>(run.findings.count());
  r.metrics["malformed_frames"] = static_cast<double>(t.malformed);
  if (!run.param_error.empty()) {
    conclude(r, Verdict::kError, spec.name + ": " + run.param_error);
    return r;
  }
  // A time bound widened by a non-zero timing budget is named whatever the verdict.
  const std::string budget = run.budget_note.empty() ? "" : "; bound " + run.budget_note;
  if (run.early != Verdict::kPass) {
    conclude(r, run.early, spec.name + ": " + run.early_message + budget);
    return r;
  }
  const bool reports_malformed = def->fn == inv::icrc_valid || def->fn == inv::allowed_opcodes;
  if (run.findings.count() > 0) {
    std::string msg = spec.name + ": " + std::to_string(run.findings.count()) + " violations in " +
                      std::to_string(run.judged) + " " + run.judged_what;
    if (!r.evidence.empty()) {
      const Evidence& e = r.evidence.front();
      msg += "; first: " + e.field + " expected " + e.expected + ", observed " + e.observed;
      if (!e.pcap.empty()) msg += " (" + e.pcap + " packet " + std::to_string(e.packet_index) + ")";
    }
    if (!reports_malformed) note_decode_issues(ctx, t, r);
    if (is_ev_rule(spec.name) && shared) r.charts.push_back(ev_use_raster(ctx, t));
    conclude(r, Verdict::kFail, msg + budget);
    return r;
  }
  if (!reports_malformed) note_decode_issues(ctx, t, r);
  if (run.judged == 0) {
    conclude(r, Verdict::kInconclusive, spec.name + ": nothing to judge: no " + run.judged_what + " observed" + budget);
    return r;
  }
  conclude(r, Verdict::kPass, spec.name + ": holds over " + std::to_string(run.judged) + " " + run.judged_what + budget);
  return r;
}

}  // namespace mrc::harness
