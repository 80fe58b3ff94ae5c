#include "harness/run/wire_fit.hpp"

#include <algorithm>
#include <cstdio>
#include <variant>

namespace mrc::run {
namespace {

std::string us(std::uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f us", static_cast<double>(ns) / 1e3);
  return b;
}

constexpr std::string_view kElsewhere = "; it runs in-process (--testbed mini) or on a faster lab wire";

}  // namespace

std::string wire_misfit(const harness::Case& c, const WireFacts& w) {
  std::uint64_t bytes = 0;
  bool traffic = false;
  for (const harness::StimulusStep& s : c.stimulus) {
    if (const auto* t = std::get_if<harness::TrafficStep>(&s.body)) {
      traffic = true;
      bytes += static_cast<std::uint64_t>(t->writes) * t->size;
    }
  }
  // MODEL: M8 T = 1.024 us x 2^timeout
  const std::uint64_t ack_timeout_ns = std::uint64_t{1024} << c.config.qp.timeout;
  if (traffic && c.config.qp.count > 0 && ack_timeout_ns < 2 * w.base_rtt_ns) {
    return "the case's ACK timeout (config.qp.timeout " + std::to_string(c.config.qp.timeout) + ": " +
           us(ack_timeout_ns) + ") is shorter than two round trips across this wire (2 x " + us(w.base_rtt_ns) +
           " base RTT, fabric and real-time bridge): the DUT would time out packets still crossing the bridge" +
           std::string(kElsewhere);
  }
  // An expect right after a traffic step times that traffic: its window must hold the time the
  // bridge needs for the bytes written so far.
  if (w.rate_bps > 0) {
    std::uint64_t written = 0;
    bool after_traffic = false;
    for (const harness::StimulusStep& s : c.stimulus) {
      const auto* e = std::get_if<harness::ExpectStep>(&s.body);
      if (e != nullptr && after_traffic && !e->absent) {
        const double need_ns = static_cast<double>(written) * 8.0 * 1e9 / static_cast<double>(w.rate_bps);
        if (need_ns > static_cast<double>(e->within_ns)) {
          char b[160];
          std::snprintf(b, sizeof b, "%.1f MB, %.2f ms at the bridge's %.2f Gb/s", static_cast<double>(written) / 1e6,
                        need_ns / 1e6, static_cast<double>(w.rate_bps) / 1e9);
          return "an expect gives the traffic before it " + us(e->within_ns) + ", but it writes " + b +
                 std::string(kElsewhere);
        }
      }
      if (const auto* t = std::get_if<harness::TrafficStep>(&s.body)) written += static_cast<std::uint64_t>(t->writes) * t->size;
      after_traffic = std::holds_alternative<harness::TrafficStep>(s.body);
    }
  }
  for (const harness::StimulusStep& s : c.stimulus) {
    const auto* imp = std::get_if<harness::ImpairStep>(&s.body);
    if (imp == nullptr || !imp->select.time_window) continue;
    const auto [from, to] = *imp->select.time_window;
    if (to > from && to - from < w.base_rtt_ns) {
      return "an impairment selects packets in a window of " + us(to - from) + " (" + us(from) + " .. " + us(to) +
             "), shorter than a round trip across this wire (" + us(w.base_rtt_ns) +
             "): when the DUT's packets reach the fabric depends on the wire, so the window cannot be placed on them" +
             std::string(kElsewhere);
    }
  }
  for (const harness::Check& chk : c.checks) {
    const auto* g = std::get_if<harness::GoldenCheck>(&chk.params);
    if (g == nullptr || std::find(g->masks.begin(), g->masks.end(), "ts") != g->masks.end()) continue;
    return "its golden (" + g->pcap.string() + ") pins packet times taken on the simulated fabric within " +
           us(g->tolerance_ns) + "; across the bridge the DUT is paced by the bridge's rate and delay, so those " +
           "times cannot hold" + std::string(kElsewhere);
  }
  if (w.rate_bps > 0 && w.time_limit_ns > 0) {
    const double need_ns = static_cast<double>(bytes) * 8.0 * 1e9 / static_cast<double>(w.rate_bps);
    if (need_ns > static_cast<double>(w.time_limit_ns) / 2) {
      char b[200];
      std::snprintf(b, sizeof b, "the case writes %.1f MB, %.2f s at the bridge's %.2f Gb/s: more than half of the %.1f s a case gets on this wire",
                    static_cast<double>(bytes) / 1e6, need_ns / 1e9, static_cast<double>(w.rate_bps) / 1e9,
                    static_cast<double>(w.time_limit_ns) / 1e9);
      return b + std::string(kElsewhere);
    }
  }
  return "";
}

}  // namespace mrc::run
