// Invariants on the DUT requester's NSCC window (mrc-wire-model.md §4.2, W14), judged
// from the bytes it keeps in flight (inflight.hpp): the window cannot be read off the wire, but
// a window-limited sender's bytes in flight are its window, so each check is built so that the
// window, not the application, limits the DUT (the case keeps more writes posted than the window
// holds) and judges only what that view can show.
//
//   inflight_bounds      never more than max_cwnd bytes in flight (CC-NSCC-BOUNDS, upper half)
//   no_md_below_target   ECN marks whose measured queueing delay is below target leave the
//                        window where it was (CC-NSCC-NO-MD-BELOW-TARGET); feedback the UET
//                        rule gives no RTT sample (inflight.cpp) measures no delay at all
//                        (CC-RTT-FROM-TSETH)
//   md_bounded           a burst of ECN marks inside one base RTT, with the delay above target,
//                        takes one decrease of at most max_md_jump, not one per mark nor a
//                        collapse (CC-NSCC-MD, the lower side of cwnd_decreases)
//   quick_adapt          a trim or loss in an epoch that achieved less than MaxWnd / 2^qa_gate
//                        brings the bytes in flight down to about what was achieved, and (with
//                        min_epoch_ns) not below it, nor there when the epoch achieved more
//                        (CC-NSCC-QUICK-ADAPT)
#include <algorithm>

#include "harness/verdict/inflight.hpp"
#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {
namespace {

std::string bytes_str(std::uint64_t b) { return std::to_string(b) + " bytes"; }

// Bytes the feedback in [to - span, to] newly acknowledged.
std::uint64_t acked_in(const std::vector<InflightEvent>& ev, std::uint64_t to, std::uint64_t span) {
  std::uint64_t sum = 0;
  for (const InflightEvent& e : ev) {
    if (!e.send && e.ts_ns + span >= to && e.ts_ns <= to) sum += e.acked;
  }
  return sum;
}

// What the DUT did in the within_ns after a trim or loss (quick_adapt with min_epoch_ns).
struct SpanAfter {
  bool clean = true;         // no other trim or loss in it: nothing else may have cut the window
  bool sent = false;         // the DUT sent data in its last react_ns
  std::uint64_t achieved_lo = ~std::uint64_t{0};  // the fewest bytes any epoch QuickAdapt can
                                                   // have measured acknowledged
  std::uint64_t reached = 0;  // the most in flight at those last sends
  std::uint64_t before = 0;   // the most in flight at sends in the epoch before the signal
};

// The DUT's QuickAdapt runs at the end of its epoch, at most `epoch` after the signal, over an
// epoch of at least `min_epoch`: it measured at least the fewest bytes acknowledged in any
// min_epoch span ending in that interval. By `within` after the signal the window has settled.
SpanAfter span_after(const std::vector<InflightEvent>& ev, std::size_t s, std::uint64_t epoch, std::uint64_t min_epoch,
                     std::uint64_t within, std::uint64_t react) {
  SpanAfter a;
  const std::uint64_t sig_ts = ev[s].ts_ns;
  for (std::size_t k = s; k-- > 0 && ev[k].ts_ns + epoch >= sig_ts;) {
    if (ev[k].send) a.before = std::max(a.before, ev[k].inflight);
  }
  for (std::size_t k = s + 1; k < ev.size() && ev[k].ts_ns <= sig_ts + within; ++k) {
    const InflightEvent& e = ev[k];
    if (!e.send && e.loss_signal) a.clean = false;
    if (!e.send && e.ts_ns <= sig_ts + epoch) a.achieved_lo = std::min(a.achieved_lo, acked_in(ev, e.ts_ns, min_epoch));
    if (e.send && e.ts_ns + react >= sig_ts + within) {
      a.sent = true;
      a.reached = std::max(a.reached, e.inflight);
    }
  }
  a.achieved_lo = std::min(a.achieved_lo, acked_in(ev, sig_ts, min_epoch));
  return a;
}

}  // namespace

void inflight_bounds(Run& r) {  // W14
  const std::uint64_t max = r.param("max_bytes", 0);
  const std::uint64_t slack = r.param("slack_bytes", 0);
  if (max == 0) return r.stop(Verdict::kError, "needs params.max_bytes: the max_cwnd the case configured");
  const auto ev = inflight_timeline(r.t);
  r.judged_what = "data packets from the DUT";
  std::uint64_t peak = 0;
  for (const InflightEvent& e : ev) {
    if (!e.send) continue;
    ++r.judged;
    peak = std::max(peak, e.inflight);
    if (e.inflight > max + slack) {
      r.violation(r.t.packets[e.packet], "inflight", "<= " + bytes_str(max) + " in flight (max_cwnd)",
                  bytes_str(e.inflight) + " in flight after this packet");
    }
  }
  r.r.metrics["peak_inflight_bytes"] = static_cast<double>(peak);
}

void no_md_below_target(Run& r) {  // W14
  const std::uint64_t target = r.param("target_ns", 0);
  const std::uint64_t w = r.param("window_ns", 20'000);
  const std::uint64_t pct = r.param("min_pct", 75);
  // from_ns: judge from this moment on, against the window just before it, for a case whose
  // earlier events (losses) may legally have shrunk the window first.
  const std::uint64_t from = r.param("from_ns", 0);
  if (target == 0) return r.stop(Verdict::kError, "needs params.target_ns: the target_delay the case configured");
  if (w == 0 || pct == 0 || pct > 100) return r.stop(Verdict::kError, "needs window_ns >= 1 and 1 <= min_pct <= 100");
  const auto ev = inflight_timeline(r.t);
  // Queueing delay = RTT - the smallest RTT seen (the live base RTT, §4.2).
  std::uint64_t min_rtt = ~std::uint64_t{0};
  for (const InflightEvent& e : ev) {
    if (!e.send && e.rtt_ns != 0) min_rtt = std::min(min_rtt, e.rtt_ns);
  }
  std::size_t below = 0;
  std::size_t above = 0;
  std::uint64_t first_mark = 0;
  std::uint64_t last_new = 0;
  for (const InflightEvent& e : ev) {
    if (e.send && e.first_tx) last_new = e.ts_ns;
    if (e.send || !e.ce || e.rtt_ns == 0) continue;
    if (e.rtt_ns - min_rtt < target) {
      if (below++ == 0) first_mark = e.ts_ns;
    } else {
      ++above;
    }
  }
  r.r.metrics["marks_below_target"] = static_cast<double>(below);
  r.r.metrics["marks_at_or_above_target"] = static_cast<double>(above);
  if (above > 0) {
    return r.stop(Verdict::kInconclusive, std::to_string(above) + " ECN-marked feedback frames measured a queueing delay at or "
                                          "above target_ns: the run did not hold the delay below target");
  }
  if (below == 0) return r.stop(Verdict::kInconclusive, "no ECN-marked feedback with a delay sample reached the DUT");
  // The window before any mark: the DUT's first flight (NSCC starts at MaxWnd); with from_ns, the
  // most it had in flight in the window before that moment.
  std::uint64_t baseline = 0;
  for (const InflightEvent& e : ev) {
    if (e.ts_ns >= (from != 0 ? from : first_mark)) break;
    if (e.send && (from == 0 || e.ts_ns + w >= from)) baseline = std::max(baseline, e.inflight);
  }
  if (baseline == 0) {
    return r.stop(Verdict::kInconclusive, from != 0 ? "the DUT sent nothing in the window before from_ns"
                                                    : "the DUT sent nothing before the first ECN-marked feedback");
  }
  r.r.metrics["baseline_inflight_bytes"] = static_cast<double>(baseline);
  // A window measured against one packet in flight tells a window left alone from one cut to its
  // floor by nothing: between packets it holds 0 bytes either way. That is the baseline on a wire
  // whose round trip returns the first mark before the second packet of the first flight left (a
  // real-time bridge at 1 Gb/s; in-process the DUT has its whole first flight out first).
  std::uint32_t largest = 0;
  for (const InflightEvent& e : ev) {
    if (e.send) largest = std::max(largest, r.t.packets[e.packet].payload_len);
  }
  if (baseline < 2 * std::uint64_t{largest}) {
    return r.stop(Verdict::kInconclusive,
                  "the DUT had " + bytes_str(baseline) + " in flight before " +
                      (from != 0 ? std::string("from_ns") : std::string("the first ECN-marked feedback")) +
                      ", less than two of its largest packets (2 x " + bytes_str(largest) +
                      "): the marks came back before its first flight left, so a window left unchanged cannot be "
                      "told from one cut");
  }
  // Windows of w ns from one w after the first mark (time to react), or from from_ns, up to w
  // before the DUT's last new data (after that the application, not the window, limits it).
  r.judged_what = "windows of " + std::to_string(w) + " ns after " + (from != 0 ? "from_ns" : "the first ECN mark");
  std::size_t i = 0;
  std::uint64_t current = 0;  // bytes in flight before the window starts
  for (std::uint64_t start = from != 0 ? from : first_mark + w; last_new >= w && start + w <= last_new - w; start += w) {
    while (i < ev.size() && ev[i].ts_ns < start) current = ev[i++].inflight;
    std::uint64_t peak = current;
    const InflightEvent* first_in = nullptr;
    for (; i < ev.size() && ev[i].ts_ns < start + w; ++i) {
      current = ev[i].inflight;
      if (!ev[i].send) continue;
      peak = std::max(peak, ev[i].inflight);
      if (!first_in) first_in = &ev[i];
    }
    ++r.judged;
    if (peak * 100 < pct * baseline) {
      const PacketRec& at = r.t.packets[first_in ? first_in->packet : ev.front().packet];
      r.violation(at, "inflight",
                  ">= " + std::to_string(pct) + "% of the " + bytes_str(baseline) + " in flight before " +
                      (from != 0 ? "from_ns" : "the marks"),
                  "at most " + bytes_str(peak) + " in [" + std::to_string(start) + ", " + std::to_string(start + w) + ") ns",
                  "every mark measured a queueing delay below " + std::to_string(target) + " ns");
    }
  }
}

void md_bounded(Run& r) {  // W14
  const std::uint64_t base_rtt = r.param("base_rtt_ns", 0);
  const std::uint64_t md_pct = r.param("max_md_pct", 50);
  const std::uint64_t mtu = r.param("mtu", 4096);
  const std::uint64_t declared_react = r.param("react_ns", 5'000);
  if (base_rtt == 0) return r.stop(Verdict::kError, "needs params.base_rtt_ns: the base_rtt the case configured");
  if (md_pct >= 100) return r.stop(Verdict::kError, "needs max_md_pct < 100");
  const std::uint64_t react = r.within(declared_react, "react_ns " + fmt_ns(static_cast<double>(declared_react)));
  const auto ev = inflight_timeline(r.t);
  std::uint64_t first_mark = 0;
  std::uint64_t last_mark = 0;
  std::size_t marks = 0;
  for (const InflightEvent& e : ev) {
    if (e.send || !e.ce) continue;
    if (marks++ == 0) first_mark = e.ts_ns;
    last_mark = e.ts_ns;
  }
  r.r.metrics["marks"] = static_cast<double>(marks);
  if (marks == 0) return r.stop(Verdict::kInconclusive, "no ECN-marked feedback reached the DUT");
  // The shortest hold-off a DUT may use is the configured base RTT (its live base RTT is the
  // smaller of that and the RTTs it measures, which the case keeps longer): marks spread wider
  // than that may legally take two decreases.
  r.r.metrics["marks_spread_ns"] = static_cast<double>(last_mark - first_mark);
  if (last_mark - first_mark >= base_rtt) {
    return r.stop(Verdict::kInconclusive, "the ECN-marked feedback spread over " + std::to_string(last_mark - first_mark) +
                                          " ns, not less than base_rtt_ns " + std::to_string(base_rtt) +
                                          ": more than one decrease would be legal");
  }
  std::uint64_t baseline = 0;  // the window before any mark: the most the DUT had in flight
  for (const InflightEvent& e : ev) {
    if (e.ts_ns >= first_mark) break;
    if (e.send) baseline = std::max(baseline, e.inflight);
  }
  if (baseline == 0) return r.stop(Verdict::kInconclusive, "the DUT sent nothing before the first mark");
  r.r.metrics["baseline_inflight_bytes"] = static_cast<double>(baseline);
  const std::uint64_t keep = baseline * (100 - md_pct) / 100;
  const std::uint64_t floor = keep > mtu ? keep - mtu : 0;
  // One decrease leaves a window of at least `keep`; a window-limited DUT refills its bytes in
  // flight to within one MTU of it as soon as feedback lets it. So after every feedback frame of
  // the marked burst, the bytes in flight are at or above the floor, or the DUT's sends bring them
  // there within react_ns.
  r.judged_what = "feedback frames from the first ECN-marked one to the last";
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const InflightEvent& e = ev[i];
    if (e.send || e.ts_ns < first_mark) continue;
    if (e.ts_ns > last_mark) break;
    ++r.judged;
    std::uint64_t reached = e.inflight;
    for (std::size_t k = i + 1; k < ev.size() && ev[k].ts_ns <= e.ts_ns + react && reached < floor; ++k) {
      if (ev[k].send) reached = std::max(reached, ev[k].inflight);
    }
    if (reached < floor) {
      r.violation(r.t.packets[e.packet], "inflight",
                  ">= " + bytes_str(floor) + " in flight within " + fmt_ns(static_cast<double>(declared_react)) +
                      plus_budget(r.budget()) + ": " + std::to_string(100 - md_pct) + "% of the " + bytes_str(baseline) +
                      " before the marks, less one MTU (one decrease of at most max_md_jump)",
                  "at most " + bytes_str(reached),
                  std::to_string(marks) + " ECN-marked feedback frames within " + std::to_string(last_mark - first_mark) +
                      " ns, under one base RTT");
    }
  }
}

void quick_adapt(Run& r) {  // W14
  const std::uint64_t max_cwnd = r.param("max_cwnd", 0);
  const std::uint64_t epoch = r.param("epoch_ns", 0);
  const std::uint64_t gate_shift = r.param("qa_gate", 3);
  const std::uint64_t declared_within = r.param("within_ns", 100'000);
  const std::uint64_t mtu = r.param("mtu", 4096);
  const std::uint64_t slack_pct = r.param("slack_pct", 10);
  // The lower side, judged when the case gives the shortest epoch a DUT can have (its target
  // delay when the configured base RTT is tiny): QuickAdapt sets the window to what the epoch
  // achieved, not below.
  const std::uint64_t min_epoch = r.param("min_epoch_ns", 0);
  const std::uint64_t declared_react = r.param("react_ns", min_epoch);
  if (max_cwnd == 0 || epoch == 0) {
    return r.stop(Verdict::kError, "needs params.max_cwnd and params.epoch_ns (base_rtt + target_delay) as configured");
  }
  if (gate_shift > 31) return r.stop(Verdict::kError, "qa_gate must be <= 31");
  const std::uint64_t gate = max_cwnd >> gate_shift;
  const std::uint64_t within = r.within(declared_within, "within_ns " + std::to_string(declared_within) + " ns");
  const auto ev = inflight_timeline(r.t);
  r.judged_what = min_epoch != 0 ? "trims and losses" : "trims and losses in starved epochs";
  const std::uint64_t react = min_epoch != 0 ? r.within(declared_react, "react_ns " + std::to_string(declared_react) + " ns") : 0;
  const std::uint64_t keep_pct = 100 - std::min<std::uint64_t>(slack_pct, 100);
  std::size_t lower_judged = 0;
  std::size_t full_judged = 0;
  // The lower side: with no other trim or loss until within_ns after the signal, the window has
  // come down by then and, window-limited, the DUT keeps it full: in the last react_ns before that
  // time its bytes in flight must reach the achieved bytes, less slack_pct and one MTU. A signal
  // whose feedback leaves too little to tell one MTU from the achieved bytes, another signal in
  // the span, or no sends at its end, is not judged on this side.
  const auto judge_lower = [&](std::size_t s, const SpanAfter& a) {
    const std::uint64_t keep = a.achieved_lo * keep_pct / 100;
    if (!a.clean || !a.sent || keep <= 2 * mtu) return;
    const std::uint64_t floor = keep - mtu;
    if (lower_judged++ == 0) {  // the first signal's figures, so a PASS shows what it held to
      r.r.metrics["lower_side_floor_bytes"] = static_cast<double>(floor);
      r.r.metrics["lower_side_reached_bytes"] = static_cast<double>(a.reached);
    }
    if (a.reached >= floor) return;
    r.violation(r.t.packets[ev[s].packet], "inflight",
                ">= " + bytes_str(floor) + " in flight at the DUT's sends " + fmt_ns(static_cast<double>(declared_within)) +
                    plus_budget(r.budget()) + " after this signal (in the last " + fmt_ns(static_cast<double>(declared_react)) +
                    "): at least " + bytes_str(a.achieved_lo) + " acknowledged in every " +
                    fmt_ns(static_cast<double>(min_epoch)) + " epoch QuickAdapt can have measured, less " +
                    std::to_string(slack_pct) + "% and one MTU",
                "at most " + bytes_str(a.reached),
                "QuickAdapt sets the window to the bytes achieved, not below them");
  };
  // The other gate: when every epoch QuickAdapt can have measured achieved MaxWnd / 2^qa_gate or
  // more, it does not fire, and the trim or loss takes one packet off the window. In the last
  // react_ns before within_ns the bytes in flight must reach what they were in the epoch before
  // the signal, less slack_pct and two MTUs (the packet taken off, and one not yet refilled).
  const auto judge_full = [&](std::size_t s, const SpanAfter& a) {
    if (!a.clean || !a.sent || a.achieved_lo < gate || a.before * keep_pct / 100 <= 3 * mtu) return;
    const std::uint64_t floor = a.before * keep_pct / 100 - 2 * mtu;
    if (full_judged++ == 0) {  // the first signal's figures, so a PASS shows what it held to
      r.r.metrics["full_epoch_floor_bytes"] = static_cast<double>(floor);
      r.r.metrics["full_epoch_reached_bytes"] = static_cast<double>(a.reached);
      r.r.metrics["full_epoch_achieved_lo_bytes"] = static_cast<double>(a.achieved_lo);
    }
    if (a.reached >= floor) return;
    r.violation(r.t.packets[ev[s].packet], "inflight",
                ">= " + bytes_str(floor) + " in flight at the DUT's sends " + fmt_ns(static_cast<double>(declared_within)) +
                    plus_budget(r.budget()) + " after this signal (in the last " + fmt_ns(static_cast<double>(declared_react)) +
                    "): the " + bytes_str(a.before) + " before it less " + std::to_string(slack_pct) +
                    "% and two MTUs, since every epoch QuickAdapt can have measured achieved at least " +
                    bytes_str(a.achieved_lo) + " >= MaxWnd/2^qa_gate = " + bytes_str(gate),
                "at most " + bytes_str(a.reached),
                "QuickAdapt fires only in an epoch that achieved less than MaxWnd/2^qa_gate");
  };
  // The DUT's window visibly came down after the signal: its bytes in flight at its last sends
  // before within_ns (react_ns) stayed under what was in flight before it, less slack_pct and one
  // MTU. Only then does "not below the achieved bytes" judge a cut at all.
  const auto cut_seen = [&](const SpanAfter& a, std::uint64_t before) {
    return a.sent && a.reached + mtu < before * keep_pct / 100;
  };
  std::uint64_t judged_until = 0;  // one QuickAdapt answers every signal of its epoch
  std::size_t not_starved = 0;
  std::size_t unseen = 0;  // starved signals whose QuickAdapt the bound could not tell from none
  std::string unseen_what;
  for (std::size_t s = 0; s < ev.size(); ++s) {
    const InflightEvent& sig = ev[s];
    if (sig.send || !sig.loss_signal || (judged_until != 0 && sig.ts_ns <= judged_until)) continue;
    const SpanAfter after = span_after(ev, s, epoch, min_epoch, within, react);  // once per signal
    // Achieved bytes around the signal: an upper bound on any DUT epoch of about epoch_ns that
    // holds it (the DUT's epoch boundaries are not on the wire). Across a real-time bridge the
    // acknowledgements reach the DUT up to the timing budget after the taps saw them, so its epoch
    // may hold those seen that much earlier or later: the span widens by the budget each way.
    const std::uint64_t widen = epoch + r.budget().ns;
    const std::uint64_t lo = sig.ts_ns >= widen ? sig.ts_ns - widen : 0;
    const std::uint64_t hi = sig.ts_ns + 2 * epoch + r.budget().ns;
    std::uint64_t achieved = 0;
    for (const InflightEvent& e : ev) {
      if (!e.send && e.ts_ns >= lo && e.ts_ns <= hi) achieved += e.acked;
    }
    if (achieved >= gate) {
      ++not_starved;
      if (min_epoch != 0) judge_full(s, after);
      continue;
    }
    const std::uint64_t bound = std::max(achieved, mtu) * (100 + slack_pct) / 100 + mtu;
    // Judged only where a window kept as it was breaks the bound: across a real-time bridge the
    // achieved bytes, widened by the budget each way, can reach what was in flight before the
    // signal, and then a DUT whose QuickAdapt never fired meets the bound as well as one whose
    // did (and the lower side below, "not below the achieved bytes", is met by one that never cut).
    const std::uint64_t before = std::max(after.before, sig.inflight);
    const bool tells = bound < before;
    if (!tells && (min_epoch == 0 || !cut_seen(after, before))) {
      if (unseen++ == 0) {
        unseen_what = "at the signal at " + std::to_string(sig.ts_ns) + " ns the achieved bytes, " + bytes_str(achieved) +
                      " over the epochs QuickAdapt can have measured, allow the " + bytes_str(before) +
                      " in flight before it, and the DUT's window did not come down";
      }
      continue;
    }
    if (tells) ++r.judged;
    judged_until = sig.ts_ns + within;
    bool sent = false;
    bool met = false;
    std::uint64_t lowest = ~std::uint64_t{0};
    std::uint64_t at_end = sig.inflight;
    for (std::size_t k = s + 1; k < ev.size() && ev[k].ts_ns <= sig.ts_ns + within; ++k) {
      at_end = ev[k].inflight;
      if (!ev[k].send) continue;
      sent = true;
      lowest = std::min(lowest, ev[k].inflight);
      met |= ev[k].inflight <= bound;
    }
    if (!sent) met = at_end <= bound;
    if (!met) {
      r.violation(r.t.packets[sig.packet], "inflight",
                  "<= " + bytes_str(bound) + " in flight within " + std::to_string(declared_within) + " ns" +
                      plus_budget(r.budget()) + " (achieved " +
                      bytes_str(achieved) + " < MaxWnd/2^qa_gate = " + bytes_str(gate) + ")",
                  sent ? "never below " + bytes_str(lowest) + " at its sends" : bytes_str(at_end) + " and no sends",
                  "QuickAdapt should have set the window to the achieved bytes");
      continue;
    }
    if (min_epoch != 0) judge_lower(s, after);
  }
  r.r.metrics["signals_not_starved"] = static_cast<double>(not_starved);
  r.r.metrics["signals_cut_not_seen"] = static_cast<double>(unseen);
  if (min_epoch != 0) {
    r.r.metrics["signals_lower_side_judged"] = static_cast<double>(lower_judged);
    r.r.metrics["signals_full_epoch_judged"] = static_cast<double>(full_judged);
    r.judged += full_judged + lower_judged;
  }
  if (r.judged == 0 && unseen > 0) {
    r.stop(Verdict::kInconclusive, "nothing to judge: a window QuickAdapt never cut would meet the bound too (" +
                                       unseen_what + ", " + std::to_string(unseen) + " such signal(s))");
  }
}

}  // namespace mrc::harness::inv
