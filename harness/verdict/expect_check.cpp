// The scripted timeline's `expect` steps (ctx.expects): evaluate_expects() (expect_eval.hpp)
// matched them against the DUT's frames when the run's observations were collected; this turns
// those records into a verdict. An unmatched expect is a FAIL with its mismatch text (the closest
// candidate and its first differing field), unless the tap it watched lost packets: then the
// expect could not be judged (INCONCLUSIVE). An absent frame's window that a real-time testbed's
// crossings left empty judged nothing: INCONCLUSIVE when nothing else FAILed, never a PASS.
#include <algorithm>

#include "harness/verdict/check_support.hpp"
#include "harness/verdict/checks.hpp"
#include "harness/verdict/timing_budget.hpp"

namespace mrc::harness {

CheckResult run_expectations(const CheckContext& ctx) {
  CheckResult r = make_result("expect", "expect");
  if (ctx.expects.empty()) {
    conclude(r, Verdict::kInconclusive, "the timeline has no expect steps: nothing to judge");
    return r;
  }
  std::vector<std::size_t> taps;
  for (const ExpectRecord& e : ctx.expects) {
    for (std::size_t i = 0; i < ctx.taps.size(); ++i) {
      const bool watched = e.tap.empty() ? ctx.taps[i].from_dut : ctx.taps[i].name == e.tap;
      if (watched && std::find(taps.begin(), taps.end(), i) == taps.end()) taps.push_back(i);
    }
  }
  if (integrity_gate(ctx, taps, "the frames the expect steps watch", r)) return r;

  // expect_eval.cpp applied the timing budget to every frame window; the message says so.
  std::string budget;
  const bool frames = std::any_of(ctx.expects.begin(), ctx.expects.end(), [](const ExpectRecord& e) { return !e.control; });
  if (frames && ctx.timing_budget.ns != 0) {
    budget = "; frame windows adjusted by the " + budget_text(ctx.timing_budget) +
             " (an expected frame's window grows by it, an absent frame's shrinks)";
    note_budget(r, ctx.timing_budget);
  }
  Findings findings(r);
  std::size_t matched = 0;
  const ExpectRecord* unjudged = nullptr;
  std::size_t unjudged_count = 0;
  for (const ExpectRecord& e : ctx.expects) {
    if (!e.judged) {
      if (unjudged == nullptr) unjudged = &e;
      ++unjudged_count;
      continue;
    }
    if (e.matched) {
      ++matched;
      continue;
    }
    Evidence x;
    const TapCapture* tap = e.tap.empty() ? nullptr : ctx.tap(e.tap);
    x.pcap = tap ? pcap_of(*tap) : e.tap;
    x.packet_index = e.packet_index;
    x.ts_ns = e.window_start_ns;
    x.field = "expect";
    x.expected = e.description + " in [" + std::to_string(e.window_start_ns) + ", " + std::to_string(e.window_end_ns) + "] ns";
    x.observed = e.mismatch.empty() ? "no matching frame" : e.mismatch;
    if (e.packet_index >= 0) x.display_filter = frame_filter(static_cast<std::size_t>(e.packet_index));
    x.note = e.packet_index >= 0 ? "closest candidate" : "";
    findings.add(std::move(x));
  }
  r.metrics["expects"] = static_cast<double>(ctx.expects.size());
  r.metrics["matched"] = static_cast<double>(matched);
  if (findings.count() > 0) {
    const Evidence& e = r.evidence.front();
    conclude(r, Verdict::kFail, std::to_string(findings.count()) + " of " + std::to_string(ctx.expects.size()) +
                                    " expectations unmatched; first: " + e.expected + ": " + e.observed + budget);
    return r;
  }
  if (unjudged != nullptr) {
    r.metrics["unjudged"] = static_cast<double>(unjudged_count);
    conclude(r, Verdict::kInconclusive,
             std::to_string(unjudged_count) + " of " + std::to_string(ctx.expects.size()) +
                 " expectations not judged on this testbed, the others matched; first: " + unjudged->description + ": " +
                 unjudged->mismatch + budget);
    return r;
  }
  conclude(r, Verdict::kPass, "all " + std::to_string(ctx.expects.size()) + " expectations matched" + budget);
  return r;
}

}  // namespace mrc::harness
