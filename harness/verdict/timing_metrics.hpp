// Internal to the timing check: measuring one latency per trial from the trace.
//
// Each metric turns the capture into samples. A sample whose end event never happened before
// its trial ended is `censored`: its value is only a lower bound (the judge then treats it as
// "at least this long"). Trials that cannot be measured at all (no data after the fault, nothing
// was retransmitted) produce no sample and are counted in `skipped` with the reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/case/vocabulary.hpp"
#include "harness/verdict/check_context.hpp"
#include "harness/verdict/trace.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness::timing {

// What a metric may take from its check besides the bounds: throughput_recovered measures the
// DUT's data rate over a sliding window of window_ns and counts it as recovered at recovered_pct
// of its pre-fault rate (TimingCheck's defaults: 20 us, 90 %).
struct MetricParams {
  std::uint64_t window_ns = 20'000;
  double recovered_fraction = 0.9;
};

struct Sample {
  double ns = 0;
  bool censored = false;        // the end event did not happen before the trial ended
  std::uint64_t start_ns = 0;   // where the span starts (the fault time, the first send, ...)
  std::int64_t anchor = -1;     // position in Trace::packets of the packet that ends the span
  const char* what = "";        // what the anchor packet is
};

// One trial of a failover metric: a failure event, from its time until the next failure or
// until its target comes back up.
struct FailureTrial {
  const FaultEvent* fault = nullptr;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};
std::vector<FailureTrial> failure_trials(const CheckContext& ctx, const Trace& t);
// When the DUT's traffic met the last of the failed EVs it used: its first data packet there after
// the trial's fault (the trial's start when it used none). stop_using_failed and
// throughput_recovered time from it.
std::uint64_t last_failed_ev_met(const FailureTrial& tr, const Trace& t);

struct Measurement {
  std::vector<Sample> samples;
  Verdict early = Verdict::kPass;          // kError / kInconclusive: nothing to judge
  std::string message;                     // why, when early is set
  std::size_t skipped = 0;                 // trials that gave no sample
  std::string skip_reason;                 // the first reason
  // Set when a value past the bound would not be the DUT's to answer for (why): the check then
  // says INCONCLUSIVE with what it measured instead of FAIL. A value within the bound stands.
  std::string fail_withheld;
};

// Which taps a metric reads (feedback to the DUT, or only what the DUT sends).
TapSide taps_needed(TimingMetric m);

Measurement measure(TimingMetric m, const CheckContext& ctx, const Trace& t, const MetricParams& params = {});

}  // namespace mrc::harness::timing
