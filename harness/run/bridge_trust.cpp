#include "harness/run/bridge_trust.hpp"

#include <cstdio>
#include <utility>

namespace mrc::run {
namespace {

std::string us(std::uint64_t ns) { return std::to_string(ns / 1000) + "." + std::to_string(ns % 1000 / 100) + " us"; }

}  // namespace

std::string bridge_note(const harness::BridgeFigures& b, const std::string& who) {
  return "real-time bridge: " + std::to_string(b.tx_frames) + " frames to the " + who + " (lag p50 " +
         us(b.tx_lag.quantile(0.5)) + ", p99 " + us(b.tx_lag.quantile(0.99)) + ", max " + us(b.tx_lag.max()) + "), " +
         std::to_string(b.rx_frames) + " from it (entry delay p99 " + us(b.rx_entry.quantile(0.99)) + ", max " +
         us(b.rx_entry.max()) + "), " + std::to_string(b.kernel_drops + b.rx_overflow) + " lost, " +
         std::to_string(b.tx_errors) + " not sent";
}

harness::BridgeStats bridge_stats(const harness::BridgeFigures& b) {
  harness::BridgeStats s;
  s.to_dut = b.tx_frames;
  s.from_dut = b.rx_frames;
  s.lost = b.kernel_drops + b.rx_overflow + b.tx_errors;
  s.lag_p99_ns = b.tx_lag.quantile(0.99);
  s.lag_max_ns = b.tx_lag.max();
  s.entry_p99_ns = b.rx_entry.quantile(0.99);
  return s;
}

std::string capture_gap(const harness::BridgeFigures& b) {
  const std::uint64_t missed = b.kernel_drops + b.rx_overflow;  // capture rings, the bridge's queue
  if (missed == 0) return "";
  return "the real-time bridge lost " + std::to_string(missed) + " frame(s) from the DUT before the harness saw them";
}

std::string bridge_overrun(const harness::BridgeFigures& b, std::uint64_t budget_ns, const std::string& who) {
  const std::uint64_t lost = b.kernel_drops + b.rx_overflow + b.tx_errors;
  if (lost > 0) return "the real-time bridge lost " + std::to_string(lost) + " frame(s) to or from the " + who;
  // Any frame past the budget, not only the slowest hundredth: a check bounds each frame's time by
  // the budget, and the one frame that was later may be the very one it judges (a SACK bit for a
  // PSN that reached the DUT after the SACK left, a gap between two probes).
  for (const auto& [h, what] : {std::pair{&b.tx_lag, "lag towards"}, std::pair{&b.rx_entry, "entry delay from"}}) {
    if (h->max() > budget_ns) {
      return "the real-time bridge's " + std::string(what) + " the " + who + " reached " + us(h->max()) + " (p99 " +
             us(h->quantile(0.99)) + "), over its declared timing budget of " + us(budget_ns);
    }
  }
  return "";
}

std::string pause_note(const harness::LatencyHistogram& pauses) {
  if (pauses.count() == 0) return "";
  return "the simulated fabric paused " + std::to_string(pauses.count()) + " time(s), longest " + us(pauses.max()) +
         ": this machine left it that far behind real time, and its clock stood still rather than run the gap at once "
         "(to the DUT, network delay)";
}

std::string pause_overrun(const harness::LatencyHistogram& pauses, std::uint64_t lag_max_ns, std::uint64_t budget_ns) {
  if (pauses.count() == 0 || pauses.max() + lag_max_ns <= budget_ns) return "";
  return "the simulated fabric's clock stood still for up to " + us(pauses.max()) + " (this machine left it behind), " +
         "which with the bridge's lag (up to " + us(lag_max_ns) + ") passes its declared timing budget of " + us(budget_ns) +
         ": a time measured across them may be off by that much";
}

std::string real_time_lost(std::uint64_t behind_ns, const harness::BridgeFigures* dut, const harness::BridgeFigures* peer) {
  const auto limit = [] {
    return " (limit " + std::to_string(kMaxBehindNs / 1'000'000) + " ms): this machine cannot carry the "
           "case's traffic across the real-time bridge as it happens, so nothing measured would be real-time";
  };
  // What crossed the bridge so far, so the reader sees whether the case's own traffic or a storm
  // of retransmissions and probes outran this machine. Made only when it is said: the runner asks
  // every turn of its loop, with the fabric held.
  const auto figures = [&] {
    std::string f;
    for (const auto& [b, who] : {std::pair{dut, "DUT"}, std::pair{peer, "peer"}}) {
      if (b != nullptr) f += "; " + bridge_note(*b, who);
    }
    return f;
  };
  if (behind_ns > kMaxBehindNs) {
    return "the simulated fabric fell " + std::to_string(behind_ns / 1'000'000) + " ms behind real time" + limit() +
           figures();
  }
  for (const auto& [b, who] : {std::pair{dut, "DUT"}, std::pair{peer, "peer"}}) {
    if (b != nullptr && b->tx_lag.max() > kMaxBehindNs) {
      return "the real-time bridge's queue towards the " + std::string(who) + " reached " +
             std::to_string(b->tx_lag.max() / 1'000'000) + " ms" + limit() + figures();
    }
  }
  return "";
}

std::string wall_clock_short(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point deadline,
                             std::chrono::steady_clock::time_point now, std::uint64_t testbed_ns) {
  if (deadline <= start || now < start + (deadline - start) / 3 * 2) return "";  // no overflow at max()
  const auto ns = [](auto d) { return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()); };
  const std::uint64_t used = ns(now - start);
  const std::uint64_t paused = used > testbed_ns ? used - testbed_ns : 0;
  char b[320];
  std::snprintf(b, sizeof b,
                "the case used two thirds of its wall-clock bound (%.1f s of %.1f s, timeout_s) in %.3f s of testbed "
                "time: this machine could not run it in real time (the simulated fabric's clock stood still for %.1f s "
                "of it), and the rest of the bound is for collecting and judging what it captured",
                static_cast<double>(used) / 1e9, static_cast<double>(ns(deadline - start)) / 1e9,
                static_cast<double>(testbed_ns) / 1e9, static_cast<double>(paused) / 1e9);
  return b;
}

}  // namespace mrc::run
