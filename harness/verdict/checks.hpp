// The checks: pure analysis of a CheckContext into a CheckResult (verdict.hpp), one function per
// check type of the case model (harness/case/case_model.hpp), plus the registry the runner calls.
//
// Every check applies the capture-integrity gate to the taps it reads (an incomplete capture
// gives INCONCLUSIVE, never PASS or FAIL), never crashes on a malformed frame (it becomes
// evidence), and reports failures at field level: pcap file, packet index, expected and observed
// values and a Wireshark display filter. Messages do not name requirements; the runner prefixes
// the clause ids.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/verdict/check_context.hpp"
#include "harness/verdict/trace.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// Field-level diff of the DUT's frames against a golden pcap (diff.hpp does the work).
CheckResult run_golden(const GoldenCheck& spec, const CheckContext& ctx);
// Goodness-of-fit of the DUT's data packets over EVs, planes or ports, with a power analysis.
CheckResult run_distribution(const DistributionCheck& spec, const CheckContext& ctx);
// A latency measured from the capture, per trial, judged at a percentile against a bound.
CheckResult run_timing(const TimingCheck& spec, const CheckContext& ctx);
// A named protocol invariant over the whole run (implemented_invariants()).
CheckResult run_invariant(const InvariantCheck& spec, const CheckContext& ctx);
// Traffic was actually sent and seen, so an empty capture never passes.
CheckResult run_positive_control(const PositiveControlCheck& spec, const CheckContext& ctx);
// A predicate on one field of the selected frames.
CheckResult run_field(const FieldCheck& spec, const CheckContext& ctx);
// The scripted timeline's `expect` steps (ctx.expects): any unmatched one is a FAIL. The case
// model has no check type for these (they are stimulus steps): the runner calls this whenever
// the case has expect steps.
CheckResult run_expectations(const CheckContext& ctx);

// Dispatches on the check's type and labels the result with the check's name (or its type, and
// for an invariant its name).
CheckResult run_check(const Check& check, const CheckContext& ctx);

// Names run_invariant() knows: the case vocabulary's invariants plus a few more
// (no_assumed_bad_ev, per_packet_ev_variation, data_verified, and the aliases mpr_window =
// requester_window, trim_nack_for_stub = trim_nack_per_stub).
std::span<const std::string_view> implemented_invariants();
// Whether the invariant reads frames (the DUT's, or both ways), not only the DUT's reports
// (completions, events, control results). True for a name run_invariant() does not know.
bool invariant_reads_frames(std::string_view name);

// Where a packet of a merged capture came from.
struct TapRef {
  std::uint16_t tap = 0;    // index into ctx.taps
  std::uint32_t index = 0;  // packet index in that tap's capture
};
// The chosen taps' packets merged into one capture in timestamp order (ties: tap order, then
// capture order). This is what a golden pcap holds for the DUT's side (TapSide::kFromDut): the
// golden generator must write exactly this.
Capture merge_taps(const CheckContext& ctx, TapSide side, std::vector<TapRef>* origin = nullptr);

}  // namespace mrc::harness
