#include "harness/verdict/failover_timeline.hpp"

#include <algorithm>

#include "harness/verdict/timing_metrics.hpp"

namespace mrc::harness {
namespace {

constexpr std::uint32_t kEvAssumedBad = 1u << 1;  // host-API EV state bit

bool affected(const FaultEvent& f, std::uint32_t ev) {
  return std::find(f.affected_evs.begin(), f.affected_evs.end(), ev) != f.affected_evs.end();
}

// The wire identity of the EV an event names, or nullopt when the profile has no such EV.
std::optional<std::uint32_t> echo_of(const CheckContext& ctx, const EvEventRecord& e) {
  for (const EvRecord& r : ctx.dut.evs) {
    if (r.index == e.ev_index) return r.echo;
  }
  return std::nullopt;
}

}  // namespace

bool is_failover_metric(TimingMetric m) {
  return m == TimingMetric::kStopUsingFailed || m == TimingMetric::kFirstRetxOtherPath ||
         m == TimingMetric::kThroughputRecovered;
}

Chart failover_timeline(TimingMetric m, const CheckContext& ctx, const Trace& t, double bound_ns) {
  Chart c;
  c.kind = Chart::Kind::kEvents;
  c.title = "failover timeline per trial, from its fault";
  c.x_label = "time since the fault";
  c.y_label = "trial";
  const auto trials = timing::failure_trials(ctx, t);
  const auto prev = previous_transmissions(t);
  auto add = [&](std::size_t row, const char* what, double at) {
    c.labels.emplace_back(what);
    c.values.push_back(at);
    c.expected.push_back(static_cast<double>(row));
  };
  for (std::size_t row = 0; row < trials.size(); ++row) {
    const timing::FailureTrial& tr = trials[row];
    const auto rel = [&](std::uint64_t ts) { return static_cast<double>(ts) - static_cast<double>(tr.start); };
    add(row, "fault", 0);
    std::optional<std::uint64_t> first_loss, last_failed, retx_healthy;
    for (std::size_t i = 0; i < t.packets.size(); ++i) {
      const PacketRec& p = t.packets[i];
      if (p.ts_ns < tr.start || p.ts_ns >= tr.end || !p.from_dut || !p.is_write_data()) continue;
      if (affected(*tr.fault, p.ev)) {
        if (!first_loss) first_loss = p.ts_ns;
        last_failed = p.ts_ns;
      } else if (!retx_healthy && prev[i] != kNoPacket) {
        retx_healthy = p.ts_ns;
      }
    }
    if (first_loss) add(row, "first loss on a failed EV", rel(*first_loss));
    if (last_failed) add(row, "last data on a failed EV", rel(*last_failed));
    if (retx_healthy) add(row, "first retransmission on a healthy EV", rel(*retx_healthy));
    for (const EvEventRecord& e : ctx.dut.ev_events) {
      if (e.at_ns < tr.start || e.at_ns >= tr.end || !(e.state & kEvAssumedBad)) continue;
      const auto echo = echo_of(ctx, e);
      if (!echo || !affected(*tr.fault, *echo)) continue;
      add(row, "failed EV reported ASSUMED_BAD", rel(e.at_ns));
      break;
    }
    double span_start = 0;
    if (m == TimingMetric::kFirstRetxOtherPath && first_loss) span_start = rel(*first_loss);
    if (m == TimingMetric::kStopUsingFailed || m == TimingMetric::kThroughputRecovered) {
      span_start = rel(timing::last_failed_ev_met(tr, t));
      add(row, "last failed EV first used", span_start);
    }
    add(row, "bound (from the span's start)", span_start + bound_ns);
  }
  return c;
}

}  // namespace mrc::harness
