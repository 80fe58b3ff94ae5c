#include "harness/run/case_result.hpp"

#include <algorithm>
#include <exception>

#include "harness/case/check_types.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/verdict/checks.hpp"
#include "harness/verdict/trace.hpp"

namespace mrc::run {

using harness::CaseResult;
using harness::CheckResult;
using harness::Verdict;

namespace {

// Whether result k of judge_case (the case's checks in order, then the expect steps') rests on
// every frame the DUT sent: false for a check that finds or counts frames, a statistical test of a
// sample (the bridge's losses do not pick frames by their contents) or one of the DUT's reports.
bool rests_on_every_frame(const harness::Case& c, std::size_t k) {
  if (k >= c.checks.size()) {  // the expect steps: a frame seen stays seen, an absence does not
    return std::any_of(c.stimulus.begin(), c.stimulus.end(), [](const harness::StimulusStep& st) {
      const auto* e = std::get_if<harness::ExpectStep>(&st.body);
      return e != nullptr && e->absent;
    });
  }
  const harness::Check& chk = c.checks[k];
  if (std::holds_alternative<harness::PositiveControlCheck>(chk.params)) return false;
  if (std::holds_alternative<harness::DistributionCheck>(chk.params)) return false;
  if (const auto* i = std::get_if<harness::InvariantCheck>(&chk.params)) return harness::invariant_reads_frames(i->name);
  return true;
}

}  // namespace

std::string with_clauses(const std::vector<std::string>& clauses, const std::string& message) {
  if (clauses.empty()) return message;
  std::string out = "[";
  for (std::size_t i = 0; i < clauses.size(); ++i) {
    if (i) out += ',';
    out += clauses[i];
  }
  return out + "] " + message;
}

CaseResult case_header(const harness::Case& c, const std::filesystem::path& suite_root, std::uint64_t seed) {
  CaseResult r;
  r.id = c.id;
  r.title = c.title;
  r.area = std::string(harness::to_string(c.area));
  r.file = relative_to(c.file, suite_root);
  r.clauses = c.clauses;
  r.level = std::string(harness::to_string(c.level));
  r.basis = c.basis;
  r.behaviour = std::string(harness::to_string(c.behaviour));
  r.tags = c.tags;
  r.seed = seed;
  return r;
}

CaseResult judge_case(const harness::Case& as_written, const SessionResult& s, const std::filesystem::path& suite_root,
                      std::uint64_t seed) {
  // A case the runner rescaled for a slow wire is judged with the bounds it ran with.
  const harness::Case& c = s.rescaled ? *s.rescaled : as_written;
  CaseResult r = case_header(c, suite_root, seed);
  r.sim_time_ns = s.sim_time_ns;
  r.timing_budget = s.ctx.timing_budget;
  r.bridge = s.bridge;
  if (s.status != Verdict::kPass) {
    r.verdict = s.status;
    r.message = s.message;
    return r;
  }
  auto judge = [&](const std::vector<std::string>& clauses, auto&& run, const std::string& label) {
    CheckResult cr;
    try {
      cr = run();
    } catch (const std::exception& e) {
      cr = CheckResult{};
      cr.type = label;
      cr.name = label;
      cr.verdict = Verdict::kError;
      cr.message = std::string("the check threw: ") + e.what();
    }
    cr.message = with_clauses(clauses, cr.message);
    r.checks.push_back(std::move(cr));
  };
  const harness::SharedTraces shared(s.ctx);  // the checks below decode each tap set once
  for (const harness::Check& chk : c.checks) {
    const auto& clauses = chk.clauses.empty() ? c.clauses : chk.clauses;
    judge(clauses, [&] { return harness::run_check(chk, s.ctx); }, std::string(chk.type()));
  }
  if (!s.ctx.expects.empty()) {
    judge(c.clauses, [&] { return harness::run_expectations(s.ctx); }, "expect");
  }
  if (!s.ctx.unsent_injects.empty()) {
    // The stimulus the case is about never happened: its checks judged a run without it.
    CheckResult cr;
    cr.type = "stimulus";
    cr.name = "stimulus";
    cr.verdict = Verdict::kInconclusive;
    for (const std::string& u : s.ctx.unsent_injects) cr.message += (cr.message.empty() ? "" : "; ") + u;
    cr.message = with_clauses(c.clauses, cr.message + ": nothing the case is about was judged");
    r.checks.push_back(std::move(cr));
  }
  if (r.checks.empty()) {
    r.verdict = Verdict::kError;
    r.message = "no check ran";
    return r;
  }
  const bool none_lost = !s.bridge || s.bridge->lost == 0;
  if (!s.cut_short.empty()) {
    // The run stopped early: a PASS judged part of it, and a FAIL may be the bridge's. Only the
    // FAIL of a check of the DUT's frames by their own bytes stands, as below.
    for (std::size_t k = 0; k < r.checks.size(); ++k) {
      CheckResult& cr = r.checks[k];
      if (cr.verdict != Verdict::kPass && cr.verdict != Verdict::kFail) continue;
      if (cr.verdict == Verdict::kFail && none_lost && k < c.checks.size() && harness::judges_own_bytes(c.checks[k])) continue;
      cr.message = "not judged, " + s.cut_short + " (on what it captured, " +
                   (cr.verdict == Verdict::kPass ? "it passed: " : "the check found: ") + cr.message + ")";
      cr.verdict = Verdict::kInconclusive;
    }
  }
  if (!s.wire_overrun.empty()) {
    // The bridge changed what the DUT saw (late or lost frames): a FAIL may be the bridge's, so it
    // judges nothing. A PASS stands: the DUT met the requirement under worse conditions. So does
    // the FAIL of a check that judges the DUT's frames by their own bytes (a wrong DSCP or layout
    // is the DUT's however late its frames were) while the bridge lost none of them (one missing
    // from the capture would make its resent copy look like a first one, or a message number skip).
    for (std::size_t k = 0; k < r.checks.size(); ++k) {
      CheckResult& cr = r.checks[k];
      if (cr.verdict != Verdict::kFail) continue;
      if (none_lost && k < c.checks.size() && harness::judges_own_bytes(c.checks[k])) continue;
      cr.verdict = Verdict::kInconclusive;
      cr.message = "not judged, " + s.wire_overrun + " (the checks found: " + cr.message + ")";
    }
  }
  if (!s.capture_gap.empty()) {
    // Frames the DUT sent that the harness never saw: a PASS that rests on every frame (none on a
    // failed EV, each field right, the time of the last one) may have missed the one that breaks
    // it. One that finds or counts frames (a lost frame only lowers a count) or reads the DUT's
    // reports stands; a FAIL was judged above.
    for (std::size_t k = 0; k < r.checks.size(); ++k) {
      CheckResult& cr = r.checks[k];
      if (cr.verdict != Verdict::kPass || !rests_on_every_frame(c, k)) continue;
      cr.message = "not judged, " + s.capture_gap + ": the one that breaks it may be among them (on what it captured, it passed: " +
                   cr.message + ")";
      cr.verdict = Verdict::kInconclusive;
    }
  }
  r.verdict = r.checks.front().verdict;
  for (const auto& cr : r.checks) r.verdict = harness::combine(r.verdict, cr.verdict);
  if (r.verdict == Verdict::kFail) {
    // r.checks holds one result per case check, in order, then the expect steps' (the case's level).
    harness::Level strongest = harness::Level::kMay;
    for (std::size_t k = 0; k < r.checks.size(); ++k) {
      if (r.checks[k].verdict != Verdict::kFail) continue;
      strongest = std::min(strongest, k < c.checks.size() ? c.checks[k].level : c.level);
    }
    if (strongest > c.level) r.fail_level = std::string(harness::to_string(strongest));
  }
  if (r.verdict == Verdict::kPass) {
    r.message = std::to_string(r.checks.size()) + " check(s) passed";
  } else {
    for (const auto& cr : r.checks) {
      if (cr.verdict == r.verdict) {
        r.message = cr.name + ": " + cr.message;
        break;
      }
    }
  }
  for (const auto& n : s.notes) r.message += "; " + n;
  return r;
}

}  // namespace mrc::run
