#include "harness/run/wire_fit.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
std::string gbps(std::uint64_t bps) {
  char b[40];
  std::snprintf(b, sizeof b, "%.2f Gb/s", static_cast<double>(bps) / 1e9);
  return b;
}
std::string rate(const WireFacts& w) { return gbps(w.rate_bps); }
std::string transfer(std::uint64_t bytes, const WireFacts& w) {
  char b[160];
  std::snprintf(b, sizeof b, "%.1f MB, %.2f ms", static_cast<double>(bytes) / 1e6, transfer_ns(bytes, w) / 1e6);
  return b + (" at the bridge's " + rate(w));
}

std::uint64_t write_bytes(const harness::StimulusStep& s) {
  const auto* t = std::get_if<harness::TrafficStep>(&s.body);
  return t ? static_cast<std::uint64_t>(t->writes) * t->size : 0;
}

// W15 (host API) T = 1.024 us x 2^timeout
std::uint64_t t_ns(std::uint8_t timeout) { return harness::TimeUnits{timeout}.t_ns(); }

// T matters on a wire when the DUT's traffic runs on its timer, or when the case times in T what
// it watches (an injection's absent answer: one T must hold the bridge's two crossings).
bool timer_matters(const harness::Case& c) {
  const bool traffic = std::any_of(c.stimulus.begin(), c.stimulus.end(), [](const harness::StimulusStep& s) {
    return std::holds_alternative<harness::TrafficStep>(s.body);
  });
  return (traffic && c.config.qp.count != 0) || c.t_timed;
}

// The bound a check puts on how soon the DUT leaves a failed path (a fault metric's, the
// no_data_on_failed_ev grace): 0 for any other check, 1 for such a check that writes none.
std::uint64_t detection_bound(const harness::Check& k) {
  using M = harness::TimingMetric;
  if (const auto* t = std::get_if<harness::TimingCheck>(&k.params)) {
    const bool fault = t->metric == M::kStopUsingFailed || t->metric == M::kFirstRetxOtherPath ||
                       t->metric == M::kThroughputRecovered;
    return fault ? std::max<std::uint64_t>(t->bound_ns, 1) : 0;
  }
  const auto* i = std::get_if<harness::InvariantCheck>(&k.params);
  if (i == nullptr || i->name != "no_data_on_failed_ev") return 0;
  std::uint64_t grace = 1;
  for (const auto& [key, value] : i->params) {
    if (key == "grace_ns") grace = std::max<std::uint64_t>(std::strtoull(value.c_str(), nullptr, 10), 1);
  }
  return grace;
}

// A case that times how soon the DUT leaves a path whose failure it must detect (a remote link,
// a switch, a black hole or drops: not its own port going down, which it knows at once), by the
// metrics and the invariant that time it.
bool times_failure_detection(const harness::Case& c) {
  using K = harness::ImpairKind;
  const bool detected = std::any_of(c.stimulus.begin(), c.stimulus.end(), [](const harness::StimulusStep& s) {
    const auto* imp = std::get_if<harness::ImpairStep>(&s.body);
    return imp != nullptr && (imp->kind == K::kLinkDown || imp->kind == K::kSwitchDown || imp->kind == K::kBlackhole ||
                              imp->kind == K::kDrop);
  });
  return detected && std::any_of(c.checks.begin(), c.checks.end(),
                                 [](const harness::Check& k) { return detection_bound(k) != 0; });
}

// One packet on each of the DUT's EVs at the bridge's rate (0 when the case times no failure
// detection): before that the DUT cannot know the last of the paths a failure took is gone.
// A data packet is the frame time F at the bridge's rate (time_expr.hpp).
std::uint64_t ev_cycle_ns(const harness::Case& c, const WireFacts& w) {
  if (w.rate_bps == 0 || w.dut_evs == 0 || !times_failure_detection(c)) return 0;
  const harness::TimeUnits at_bridge{c.config.qp.timeout, c.config.qp.mtu, w.rate_bps};
  return static_cast<std::uint64_t>(static_cast<double>(w.dut_evs) * at_bridge.f_ns());
}

// A bound on failure detection (a fault metric's, no_data_on_failed_ev's grace) shorter than the
// EV cycle.
std::string detection_misfit(const harness::Case& c, const WireFacts& w) {
  const std::uint64_t cycle = ev_cycle_ns(c, w);
  if (cycle == 0) return "";
  for (const harness::Check& k : c.checks) {
    const std::uint64_t bound = detection_bound(k);
    if (bound <= 1 || bound >= cycle) continue;
    const std::string what = std::holds_alternative<harness::TimingCheck>(k.params) ? "its timing check " + k.name
                                                                                    : "its no_data_on_failed_ev grace";
    return what + " bounds failure detection by " + us(bound) + ", but one packet on each of the DUT's " +
           std::to_string(w.dut_evs) + " EVs takes " + us(cycle) + " at the bridge's " + rate(w) +
           " (a DUT learns a path failed only from a packet it sends on it)" +
           (c.timing_scales ? std::string() : ", and its times are fixed (no `timing: scales`)");
  }
  return "";
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

WireFacts wire_facts(const harness::Testbed& tb, const harness::Case& c, int dut_host, int peer_host,
                     std::uint64_t time_limit_ns) {
  const auto facts = tb.network_facts(dut_host, peer_host, c.config.qp.mtu);
  WireFacts w{facts.base_rtt_ns, facts.line_rate_bps, time_limit_ns, tb.timing_budget().ns};
  // The DUT's EVs: its profile's, else the testbed's default set (as many in every format mode).
  w.dut_evs = c.config.ev_profile ? static_cast<std::uint32_t>(c.config.ev_profile->ev_count()) : 0;
  if (w.dut_evs == 0) {
    w.dut_evs = static_cast<std::uint32_t>(tb.default_evs(wire::EvFmtMode::kStev, dut_host, peer_host).evs.size());
  }
  return w;
}

std::uint64_t longest_hold_ns(const harness::Case& c) {
  std::uint64_t longest = 0;
  for (const harness::StimulusStep& s : c.stimulus) {
    const auto* imp = std::get_if<harness::ImpairStep>(&s.body);
    if (imp == nullptr) continue;
    if (imp->kind == harness::ImpairKind::kReorder) {
      // impairment.cpp: a reordered packet is held delay_ns, by default depth x 1 us
      longest = std::max(longest, imp->params.delay_ns.value_or(std::uint64_t{imp->params.depth.value_or(1)} * 1000));
    } else if (imp->kind == harness::ImpairKind::kDelay) {
      longest = std::max(longest, imp->params.delay_ns.value_or(0) + imp->params.jitter_ns.value_or(0));
    }
  }
  return longest;
}

std::optional<std::uint8_t> wire_timeout(const harness::Case& c, const WireFacts& w) {
  const std::uint64_t cycle = ev_cycle_ns(c, w);
  const std::uint64_t need = 2 * std::max(w.base_rtt_ns, w.budget_ns) + cycle + longest_hold_ns(c);
  if (!c.timing_scales || !timer_matters(c) || t_ns(c.config.qp.timeout) >= need) return std::nullopt;
  for (std::uint8_t k = c.config.qp.timeout; k <= harness::kMaxQpTimeout; ++k) {
    if (t_ns(k) >= need) return k;
  }
  return std::nullopt;
}

namespace {

// "timing scaled to this wire: config.qp.timeout 6 -> 10 (...)" for a case given exponent `k`.
std::string timeout_note(const harness::Case& c, const WireFacts& w, std::uint8_t k) {
  const std::uint8_t from = c.config.qp.timeout;
  return "timing scaled to this wire: config.qp.timeout " + std::to_string(from) + " -> " + std::to_string(k) + " (T " +
         us(t_ns(from)) + " -> " + us(t_ns(k)) + ", at least two round trips of " + us(w.base_rtt_ns) +
         " and twice the bridge's timing budget of " + us(w.budget_ns) +
         (ev_cycle_ns(c, w) == 0 ? std::string()
                                 : ", plus one packet on each of the DUT's " + std::to_string(w.dut_evs) +
                                       " EVs at the bridge's rate, " + us(ev_cycle_ns(c, w)) +
                                       ", as the case times failure detection") +
         (longest_hold_ns(c) == 0 ? std::string()
                                  : ", plus the " + us(longest_hold_ns(c)) +
                                        " the case holds packets back (reorder, delay), so a held packet is not taken for lost") +
         "); every time the case writes in T grew with it, those in absolute units stayed";
}

// F as the case was loaded, and at this testbed's spray rate (both capped by its traffic's rate).
harness::TimeUnits frame_units(const harness::Case& c, std::uint64_t spray_bps) {
  return harness::TimeUnits{c.config.qp.timeout, c.config.qp.mtu, spray_bps, c.traffic_bps};
}

std::string frame_note(const harness::Case& c, std::uint64_t spray_bps) {
  const harness::TimeUnits from = frame_units(c, c.spray_bps);
  const harness::TimeUnits to = frame_units(c, spray_bps);
  const auto time = [](double ns) {
    char t[40];
    std::snprintf(t, sizeof t, ns < 1000 ? "%.2f ns" : "%.2f us", ns < 1000 ? ns : ns / 1e3);
    return std::string(t);
  };
  const bool slower = to.rate_bps() < from.rate_bps();
  char b[200];
  std::snprintf(b, sizeof b, " (a %.0f-byte data frame at %s, the rate the DUT's QP sprays at here%s, not %s)",
                c.config.qp.mtu + harness::kFrameHeaderBytes, gbps(to.rate_bps()).c_str(),
                c.traffic_bps == to.rate_bps() ? " (its traffic's rate)" : "", gbps(from.rate_bps()).c_str());
  return "frame time F on this testbed: " + time(from.f_ns()) + " -> " + time(to.f_ns()) + b +
         "; every time the case writes in F " + (slower ? "grew" : "shrank") +
         " with it, so its windows hold as many of the DUT's packets" + (slower ? " and it runs longer" : "");
}

}  // namespace

WireRescale rescale_for_testbed(const harness::Case& c, const WireFacts* wire, std::uint64_t spray_bps,
                                const std::filesystem::path& fallback_clauses) {
  WireRescale r;
  const bool refit_f =
      c.frame_timed && spray_bps != 0 && frame_units(c, spray_bps).rate_bps() != frame_units(c, c.spray_bps).rate_bps();
  harness::LoadOptions opt;
  if (refit_f) opt.spray_bps = spray_bps;
  // The timeout fits the case as it runs here: its holds written in F grow with the rate first.
  std::optional<harness::LoadResult> at_rate;
  if (refit_f && wire != nullptr) {
    at_rate = harness::load_case(c.file, fallback_clauses, opt);
    if (!at_rate->ok()) {
      r.error = "loading " + c.file.string() + " again with F at " + gbps(spray_bps) + " for this testbed failed:\n" +
                at_rate->diagnostics.to_string();
      return r;
    }
  }
  const std::optional<std::uint8_t> k =
      wire == nullptr ? std::nullopt : wire_timeout(at_rate ? *at_rate->value : c, *wire);
  if (!k && !refit_f) return r;
  opt.timeout = k;
  harness::LoadResult again = k || !at_rate ? harness::load_case(c.file, fallback_clauses, opt) : std::move(*at_rate);
  if (!again.ok()) {
    r.error = "loading " + c.file.string() + " again" +
              (k ? " with config.qp.timeout " + std::to_string(*k) : std::string()) +
              (refit_f ? " with F at " + gbps(spray_bps) : std::string()) + " for this testbed failed:\n" +
              again.diagnostics.to_string();
    return r;
  }
  if (k) r.notes.push_back(timeout_note(at_rate ? *at_rate->value : c, *wire, *k));
  if (refit_f) r.notes.push_back(frame_note(c, spray_bps));
  r.rescaled = std::move(again.value);
  return r;
}

std::string wire_misfit(const harness::Case& c, const WireFacts& w) {
  for (std::string why : {ack_timer_misfit(c, w), expect_misfit(c, w), impairment_misfit(c, w), detection_misfit(c, w),
                          horizon_misfit(c), volume_misfit(c, w)}) {
    if (!why.empty()) return why + "; it runs in-process (--testbed mini) or on a faster lab wire";
  }
  return "";
}

}  // namespace mrc::run
