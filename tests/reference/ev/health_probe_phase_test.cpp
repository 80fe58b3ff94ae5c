// EV health probe phases (W11's timing fixes hold-down and interval, not when probing starts): the
// reference probes at the end of the hold-down; probe-eager from the failure on (answers inside
// the hold-down do not count); probe-lazy one interval late. Recovery always needs the hold-down
// and two good probes sent after it.
#include <gtest/gtest.h>

#include <vector>

#include "reference/ev/health.hpp"

namespace mrc::ev {
namespace {

constexpr std::uint64_t kUs = 1000;

std::vector<EvSlotInit> slots(std::size_t n) {
  std::vector<EvSlotInit> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i].port = static_cast<std::uint8_t>(1 + i % 8);
  return v;
}

// Fails EV 0 at t = 10 us, then answers every probe well; returns the probe times and when the EV
// came back GOOD.
struct Trace {
  std::vector<std::uint64_t> probes;
  std::uint64_t good_at = 0;
};
Trace run(ProbePhase phase) {
  HealthParams p;
  p.probe_phase = phase;
  EvHealth h(slots(8), p);
  h.on_timeout(0, 10 * kUs);
  EXPECT_EQ(h.state(0), EvState::kAssumedBad);
  Trace r;
  for (std::uint64_t t = 10 * kUs; t < 1000 * kUs && r.good_at == 0;) {
    const auto due = h.next_deadline();
    if (!due) break;
    t = std::max(t, *due);
    while (const auto ev = h.next_probe(t)) {
      r.probes.push_back(t);
      h.on_probe_result(*ev, true, wire::MpVerdict::kNone, t + kUs);  // answered 1 us later
      if (h.state(0) == EvState::kGood) r.good_at = t + kUs;
    }
  }
  return r;
}

TEST(EvHealthProbePhase, ReferenceProbesFromTheEndOfTheHoldDown) {
  const Trace r = run(ProbePhase::kAtHoldDownEnd);
  EXPECT_EQ(r.probes, (std::vector<std::uint64_t>{110 * kUs, 160 * kUs}));
  EXPECT_EQ(r.good_at, 161 * kUs);
}

TEST(EvHealthProbePhase, EagerProbesThroughTheHoldDownButOnlyLaterAnswersCount) {
  const Trace r = run(ProbePhase::kFromFailure);
  EXPECT_EQ(r.probes, (std::vector<std::uint64_t>{10 * kUs, 60 * kUs, 110 * kUs, 160 * kUs}));
  EXPECT_EQ(r.good_at, 161 * kUs);
}

TEST(EvHealthProbePhase, LazyProbesOneIntervalAfterTheHoldDown) {
  const Trace r = run(ProbePhase::kOneIntervalLate);
  EXPECT_EQ(r.probes, (std::vector<std::uint64_t>{160 * kUs, 210 * kUs}));
  EXPECT_EQ(r.good_at, 211 * kUs);
}

}  // namespace
}  // namespace mrc::ev
