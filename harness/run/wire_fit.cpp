#include "harness/run/wire_fit.hpp"

#include <algorithm>
#include <cstdio>
#include <variant>

#include "harness/case/case_loader.hpp"
#include "harness/case/time_expr.hpp"
#include "harness/case/vocabulary.hpp"
#include "harness/stimulus/timeline.hpp"

namespace mrc::run {
namespace {

std::string us(std::uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f us", static_cast<double>(ns) / 1e3);
  return b;
}

// How long `bytes` take at the bridge's rate, and that as "1.0 MB, 8.39 ms at the bridge's 1.00 Gb/s".
double transfer_ns(std::uint64_t bytes, const WireFacts& w) {
  return static_cast<double>(bytes) * 8.0 * 1e9 / static_cast<double>(w.rate_bps);
}
std::string transfer(std::uint64_t bytes, const WireFacts& w) {
  char b[160];
  std::snprintf(b, sizeof b, "%.1f MB, %.2f ms at the bridge's %.2f Gb/s", static_cast<double>(bytes) / 1e6,
                transfer_ns(bytes, w) / 1e6, static_cast<double>(w.rate_bps) / 1e9);
  return b;
}

std::uint64_t write_bytes(const harness::StimulusStep& s) {
  const auto* t = std::get_if<harness::TrafficStep>(&s.body);
  return t ? static_cast<std::uint64_t>(t->writes) * t->size : 0;
}

// W15 (host API) T = 1.024 us x 2^timeout
std::uint64_t t_ns(std::uint8_t timeout) { return harness::TimeUnits{timeout}.t_ns(); }

bool timer_matters(const harness::Case& c) {
  const bool traffic = std::any_of(c.stimulus.begin(), c.stimulus.end(), [](const harness::StimulusStep& s) {
    return std::holds_alternative<harness::TrafficStep>(s.body);
  });
  return traffic && c.config.qp.count != 0;
}

std::string ack_timer_misfit(const harness::Case& c, const WireFacts& w) {
  const std::uint64_t ack_timeout_ns = t_ns(c.config.qp.timeout);
  if (!timer_matters(c) || ack_timeout_ns >= 2 * w.base_rtt_ns) return "";
  return "the case's ACK timeout (config.qp.timeout " + std::to_string(c.config.qp.timeout) + ": " + us(ack_timeout_ns) +
         ") is shorter than two round trips across this wire (2 x " + us(w.base_rtt_ns) +
         " base RTT, fabric and real-time bridge): the DUT would time out packets still crossing the bridge" +
         (c.timing_scales ? std::string()
                          : ", and its times are fixed (no `timing: scales`: a bound it judges is not written in T)");
}

// An expect right after a traffic step times that traffic: its window must hold the time the
// bridge needs for the bytes written so far.
std::string expect_misfit(const harness::Case& c, const WireFacts& w) {
  if (w.rate_bps == 0) return "";
  std::uint64_t written = 0;
  bool after_traffic = false;
  for (const harness::StimulusStep& s : c.stimulus) {
    const auto* e = std::get_if<harness::ExpectStep>(&s.body);
    if (e != nullptr && after_traffic && !e->absent && transfer_ns(written, w) > static_cast<double>(e->within_ns)) {
      return "an expect gives the traffic before it " + us(e->within_ns) + ", but it writes " + transfer(written, w);
    }
    written += write_bytes(s);
    after_traffic = std::holds_alternative<harness::TrafficStep>(s.body);
  }
  return "";
}

std::string impairment_misfit(const harness::Case& c, const WireFacts& w) {
  for (const harness::StimulusStep& s : c.stimulus) {
    const auto* imp = std::get_if<harness::ImpairStep>(&s.body);
    if (imp == nullptr || !imp->select.time_window) continue;
    const auto [from, to] = *imp->select.time_window;
    if (to > from && to - from < w.base_rtt_ns) {
      return "an impairment selects packets in a window of " + us(to - from) + " (" + us(from) + " .. " + us(to) +
             "), shorter than a round trip across this wire (" + us(w.base_rtt_ns) +
             "): when the DUT's packets reach the fabric depends on the wire, so the window cannot be placed on them";
    }
  }
  return "";
}

std::string golden_misfit(const harness::Case& c) {
  for (const harness::Check& chk : c.checks) {
    const auto* g = std::get_if<harness::GoldenCheck>(&chk.params);
    if (g == nullptr || std::find(g->masks.begin(), g->masks.end(), "ts") != g->masks.end()) continue;
    return "its golden (" + g->pcap.string() + ") pins packet times taken on the simulated fabric within " +
           us(g->tolerance_ns) + "; across the bridge the DUT is paced by the bridge's rate and delay, so those " +
           "times cannot hold";
  }
  return "";
}

// On a wire the testbed's clock is the wall clock: a timeline longer than the case's wall-clock
// bound (timeout_s) cannot finish there.
std::string horizon_misfit(const harness::Case& c) {
  const std::uint64_t horizon = harness::stim::plan_timeline(c).horizon_ns;
  const std::uint64_t bound = std::uint64_t{c.timeout_s} * 1'000'000'000ull;
  if (horizon < bound) return "";
  char b[200];
  std::snprintf(b, sizeof b, "its timeline runs %.1f s, real time on this wire: past the case's wall-clock bound of "
                "%u s (timeout_s)", static_cast<double>(horizon) / 1e9, c.timeout_s);
  return b;
}

std::string volume_misfit(const harness::Case& c, const WireFacts& w) {
  if (w.rate_bps == 0 || w.time_limit_ns == 0) return "";
  std::uint64_t bytes = 0;
  for (const harness::StimulusStep& s : c.stimulus) bytes += write_bytes(s);
  const double need_ns = transfer_ns(bytes, w);
  if (need_ns <= static_cast<double>(w.time_limit_ns) / 2) return "";
  char b[200];
  std::snprintf(b, sizeof b, "the case writes %.1f MB, %.2f s at the bridge's %.2f Gb/s: more than half of the %.1f s a "
                "case gets on this wire", static_cast<double>(bytes) / 1e6, need_ns / 1e9,
                static_cast<double>(w.rate_bps) / 1e9, static_cast<double>(w.time_limit_ns) / 1e9);
  return b;
}

}  // namespace

std::optional<std::uint8_t> wire_timeout(const harness::Case& c, const WireFacts& w) {
  const std::uint64_t need = 2 * std::max(w.base_rtt_ns, w.budget_ns);
  if (!c.timing_scales || !timer_matters(c) || t_ns(c.config.qp.timeout) >= need) return std::nullopt;
  for (std::uint8_t k = c.config.qp.timeout; k <= harness::kMaxQpTimeout; ++k) {
    if (t_ns(k) >= need) return k;
  }
  return std::nullopt;
}

WireRescale rescale_for_wire(const harness::Case& c, const WireFacts& w, const std::filesystem::path& fallback_clauses) {
  WireRescale r;
  const std::optional<std::uint8_t> k = wire_timeout(c, w);
  if (!k) return r;
  harness::LoadResult again = harness::load_case(c.file, fallback_clauses, harness::LoadOptions{*k});
  if (!again.ok()) {
    r.error = "loading " + c.file.string() + " again with config.qp.timeout " + std::to_string(*k) +
              " for this wire failed:\n" + again.diagnostics.to_string();
    return r;
  }
  const std::uint8_t from = c.config.qp.timeout;
  r.note = "timing scaled to this wire: config.qp.timeout " + std::to_string(from) + " -> " + std::to_string(*k) +
           " (T " + us(t_ns(from)) + " -> " + us(t_ns(*k)) + ", at least two round trips of " + us(w.base_rtt_ns) +
           " and twice the bridge's timing budget of " + us(w.budget_ns) +
           "); every time the case writes in T grew with it, those in absolute units stayed";
  r.rescaled = std::move(again.value);
  return r;
}

std::string wire_misfit(const harness::Case& c, const WireFacts& w) {
  for (std::string why : {ack_timer_misfit(c, w), expect_misfit(c, w), impairment_misfit(c, w), golden_misfit(c),
                          horizon_misfit(c), volume_misfit(c, w)}) {
    if (!why.empty()) return why + "; it runs in-process (--testbed mini) or on a faster lab wire";
  }
  return "";
}

}  // namespace mrc::run
