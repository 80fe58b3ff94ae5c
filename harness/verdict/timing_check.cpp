// The `timing` check (anchors G7): a latency measured from the capture per trial
// (timing_metrics.cpp), judged at a declared percentile against bound_ns, and optionally every
// measured value against min_ns.
//
// Censored trials (the end event had not happened when the trial ended) are lower bounds: the
// judged percentile is computed twice, with censored values as measured (best case) and as
// infinite (worst case). Best case above the bound: FAIL. Worst case within it: PASS. Otherwise
// the trials were too short to tell: INCONCLUSIVE. Timestamps come from the taps, whose clocks
// are ns-accurate (the integrity gate requires it); a testbed that adds latency declares a timing
// budget (timing_budget.hpp), by which bound_ns grows and min_ns shrinks. Either way the error
// budget is stated in the message.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "harness/verdict/check_support.hpp"
#include "harness/verdict/checks.hpp"
#include "harness/verdict/failover_timeline.hpp"
#include "harness/verdict/timing_budget.hpp"
#include "harness/verdict/timing_metrics.hpp"

namespace mrc::harness {
namespace {

// Nearest-rank percentile of sorted values, p in (0, 100].
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const auto i = static_cast<std::size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size()))) - 1;
  return sorted[i];
}

std::string pct_name(double p) { return p >= 100 ? "max" : "p" + fmt_double(p, 4); }

}  // namespace

CheckResult run_timing(const TimingCheck& spec, const CheckContext& ctx) {
  const std::string metric(enum_name(kTimingMetricNames, spec.metric));
  CheckResult r = make_result("timing", "timing/" + metric);
  const auto taps = select_taps(ctx, timing::taps_needed(spec.metric));
  if (integrity_gate(ctx, taps, "the frames this timing needs", r)) return r;
  const auto shared = trace_of(ctx, taps);
  const Trace& t = *shared;
  note_decode_issues(ctx, t, r);
  const timing::MetricParams params{spec.window_ns, spec.recovered_pct / 100.0};
  const timing::Measurement m = timing::measure(spec.metric, ctx, t, params);
  if (m.early != Verdict::kPass) {
    conclude(r, m.early, metric + ": " + m.message);
    return r;
  }

  std::vector<double> best;
  std::vector<double> worst;
  std::size_t censored = 0;
  for (const auto& s : m.samples) {
    best.push_back(s.ns);
    worst.push_back(s.censored ? std::numeric_limits<double>::infinity() : s.ns);
    censored += s.censored ? 1 : 0;
  }
  std::sort(best.begin(), best.end());
  std::sort(worst.begin(), worst.end());
  const double p = spec.percentile;
  const TimingBudget& tb = ctx.timing_budget;
  const double bound = static_cast<double>(widen_upper(spec.bound_ns, tb));  // the bound judged
  const std::string bound_text = fmt_ns(static_cast<double>(spec.bound_ns)) + plus_budget(tb);
  const double v_best = percentile(best, p);
  const double v_worst = percentile(worst, p);

  r.metrics["trials"] = static_cast<double>(m.samples.size());
  r.metrics["trials_required"] = spec.trials;
  r.metrics["skipped_trials"] = static_cast<double>(m.skipped);
  r.metrics["censored"] = static_cast<double>(censored);
  r.metrics["bound_ns"] = static_cast<double>(spec.bound_ns);
  r.metrics["percentile"] = p;
  r.metrics["timestamp_error_ns"] = static_cast<double>(tb.ns);  // 0: ns-accurate tap clocks
  note_budget(r, tb);
  const double p50 = percentile(best, 50);
  const double p99 = percentile(best, 99);
  const double mx = best.empty() ? 0 : best.back();
  if (!best.empty()) {
    r.metrics["p50_ns"] = p50;
    r.metrics["p99_ns"] = p99;
    r.metrics["max_ns"] = mx;
    r.metrics["min_ns"] = best.front();
    r.metrics["mean_ns"] = std::accumulate(best.begin(), best.end(), 0.0) / static_cast<double>(best.size());
    r.metrics["value_ns"] = v_best;
  }

  // The duration of every trial against the bound judged, on one time unit; and for a failover
  // metric, each trial's steps from its fault.
  Chart chart;
  chart.kind = Chart::Kind::kLatency;
  chart.title = metric + " per trial against its bound";
  chart.x_label = "trial start";
  chart.y_label = metric;
  for (const auto& s : m.samples) {
    chart.labels.emplace_back(s.censored ? "censored trial (at least)" : "trial");
    chart.values.push_back(static_cast<double>(s.start_ns));
    chart.expected.push_back(s.ns);
  }
  chart.limits.push_back(bound);
  if (spec.min_ns) chart.limits.push_back(static_cast<double>(widen_lower(*spec.min_ns, tb)));  // "not before"
  r.charts.push_back(std::move(chart));
  if (is_failover_metric(spec.metric)) r.charts.push_back(failover_timeline(spec.metric, ctx, t, bound));

  // Evidence: the slowest trials first, each with the packet that ends its span.
  std::vector<std::size_t> order(m.samples.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return m.samples[a].ns > m.samples[b].ns; });
  auto evidence_for = [&](std::size_t k, const std::string& expected) {
    const timing::Sample& s = m.samples[k];
    const std::string obs = (s.censored ? ">= " : "") + fmt_ns(s.ns);
    const std::string note = std::string(s.what) + "; span starts at " + std::to_string(s.start_ns) + " ns";
    if (s.anchor >= 0) return packet_evidence(ctx, t.packets[static_cast<std::size_t>(s.anchor)], metric, expected, obs, note);
    Evidence e;
    e.field = metric;
    e.expected = expected;
    e.observed = obs;
    e.ts_ns = s.start_ns;
    e.note = note;
    return e;
  };
  Findings below_min(r);
  const std::string min_text = spec.min_ns ? fmt_ns(static_cast<double>(*spec.min_ns)) + minus_budget(tb) : "";
  if (spec.min_ns) {
    const double min = static_cast<double>(widen_lower(*spec.min_ns, tb));
    for (std::size_t k = 0; k < m.samples.size(); ++k) {
      if (!m.samples[k].censored && m.samples[k].ns < min) below_min.add(evidence_for(k, ">= " + min_text));
    }
  }
  // A non-zero budget is named with the bound it widened; zero keeps the original statement.
  const std::string budget = tb.ns == 0 ? "; timestamp error budget 0 ns (ns-accurate tap clocks)" : "";
  const std::string stats = pct_name(p) + " = " + fmt_ns(v_best) + (censored ? " (" + std::to_string(censored) + " censored)" : "") +
                            " over " + std::to_string(m.samples.size()) + " trials (p50 " +
                            fmt_ns(p50) + ", p99 " + fmt_ns(p99) + ", max " + fmt_ns(mx) + ")";
  if (below_min.count() > 0) {
    conclude(r, Verdict::kFail, metric + ": " + std::to_string(below_min.count()) + " trials below min " + min_text + "; " +
                                    stats + budget);
    return r;
  }
  if (m.samples.size() < spec.trials) {
    std::string msg = metric + ": need " + std::to_string(spec.trials) + " trials, measured " +
                      std::to_string(m.samples.size());
    if (m.skipped) msg += " (" + std::to_string(m.skipped) + " skipped: " + m.skip_reason + ")";
    if (tb.ns != 0) msg += "; bound " + bound_text;
    conclude(r, Verdict::kInconclusive, msg);
    return r;
  }
  if (v_best > bound) {
    Findings over(r);
    for (auto k : order) {
      if (m.samples[k].ns > bound) over.add(evidence_for(k, "<= " + bound_text));
    }
    if (!m.fail_withheld.empty()) {
      conclude(r, Verdict::kInconclusive,
               metric + ": " + stats + " exceeds the bound " + bound_text + ", not judged: " + m.fail_withheld);
      return r;
    }
    conclude(r, Verdict::kFail, metric + ": " + stats + " exceeds the bound " + bound_text + budget);
    return r;
  }
  if (!order.empty()) r.evidence.push_back(evidence_for(order.front(), "<= " + bound_text));
  if (v_worst > bound) {
    conclude(r, Verdict::kInconclusive, metric + ": " + std::to_string(censored) +
                                            " trials ended before the event, so " + pct_name(p) +
                                            " may exceed the bound " + bound_text + "; " + stats + budget);
    return r;
  }
  conclude(r, Verdict::kPass, metric + ": " + stats + " within the bound " + bound_text + budget);
  return r;
}

}  // namespace mrc::harness
