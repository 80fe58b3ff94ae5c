// Endpoint EV health end to end (W11): a dead plane retires its EVs with ASSUMED_BAD events,
// probes travel on exactly those EVs, recovery comes after the hold-down and two good probes with
// GOOD events; the ev_min_active floor; DENIED set by the controller while traffic runs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

PairOptions quick() {
  PairOptions o;
  o.timeout = 6;  // T = 65.5 us: short, yet above the queueing NSCC allows on 10 Gb/s planes
  return o;
}

constexpr LinkParams kSlow{1000, 10.0};

struct Event {
  std::uint64_t t;
  ev::EvEvent e;
};

TEST(EndpointFailover, DeadPlaneRetiresItsEvsThenRecovers) {
  Pair p(quick(), kSlow);
  ASSERT_EQ(p.error, "");
  p.fabric->record = true;
  const std::uint64_t heal = 300'000;
  p.fabric->filter = [&](int side, transport::TxFrame& f, std::uint64_t now) {
    return !(side == 0 && f.port == 3 && now < heal);
  };
  Traffic t = setup_traffic(p, 16u << 20);
  post_writes(p, t, 1000, 16384);
  std::vector<Event> events;
  int ok = 0;
  p.fabric->run_until(
      [&] {
        ev::EvEvent e;
        while (p.a->poll_ev_event(e)) events.push_back({p.fabric->now(), e});
        ok += drain_completions(p).first;
        return ok == 1000 && p.fabric->now() > 1'000'000;
      },
      20'000'000);
  EXPECT_EQ(ok, 1000);
  // Every EV of plane 3 went ASSUMED_BAD and came back GOOD; no other EV changed.
  std::map<std::uint32_t, std::vector<Event>> by_ev;  // by the EV's first value byte pair
  for (const auto& ev : events) {
    EXPECT_EQ(ev.e.profile_id, 0u);
    EXPECT_EQ(ev.e.ev.port, 3u);
    by_ev[(std::uint32_t{ev.e.ev.val[0]} << 8) | ev.e.ev.val[1] | (std::uint32_t{ev.e.ev.val[2]} << 16)].push_back(ev);
  }
  EXPECT_EQ(by_ev.size(), 4u);  // 32 EVs over 8 planes
  for (const auto& [key, list] : by_ev) {
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].e.state, ev::EvState::kAssumedBad);
    EXPECT_EQ(list[1].e.state, ev::EvState::kGood);
    EXPECT_LT(list[0].t, heal);
    // Hold-down (100 us) and two probes 50 us apart after the heal.
    EXPECT_GE(list[1].t, heal + 50'000);
    EXPECT_GE(list[1].t - list[0].t, 100'000u);
  }
  for (auto s : p.a->ev_states(p.qp.qpn_a)) EXPECT_EQ(s, ev::EvState::kGood);
  EXPECT_GT(p.a->stats().probes_failed, 0u);
  EXPECT_GE(p.a->stats().probes_ok, 8u);
  // Probes only ever tested plane 3.
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0 && is_probe(w)) {
      EXPECT_EQ(w.port(), 3u);
    }
  }
}

// Plane 3 of A is dead for 2 ms on a path of 30 us each way (a 60 us round trip, longer than the
// 50 us probe timeout), then heals: every write completes, and every EV comes back by its probes.
void probes_bring_a_healed_plane_back(PairOptions o) {
  o.timeout = 9;                        // T = 524 us: far above the 60 us round trip
  Pair p(o, LinkParams{30'000, 10.0});  // 30 us each way
  ASSERT_EQ(p.error, "");
  const std::uint64_t heal = 2'000'000;
  p.fabric->filter = [&](int side, transport::TxFrame& f, std::uint64_t now) {
    return !(side == 0 && f.port == 3 && now < heal);
  };
  Traffic t = setup_traffic(p, 16u << 20);
  post_writes(p, t, 400, 16384);
  int ok = 0;
  p.fabric->run_until(
      [&] {
        ok += drain_completions(p).first;
        return ok == 400 && p.fabric->now() > 3'000'000;
      },
      20'000'000);
  EXPECT_EQ(ok, 400);
  EXPECT_GT(p.a->stats().probes_failed, 0u);  // while plane 3 was dead
  EXPECT_GE(p.a->stats().probes_ok, 8u);      // after the heal: two per EV of the plane
  for (auto s : p.a->ev_states(p.qp.qpn_a)) EXPECT_EQ(s, ev::EvState::kGood);
}

// A probe is only declared failed after twice the base RTT (when that exceeds the configured probe
// timeout): on a path whose round trip (60 us here) is longer than the 50 us default, probes of a
// healed plane would otherwise all "fail" and its EVs never come back (seen over a real-time
// bridge).
TEST(EndpointFailover, ProbesOutwaitTwoBaseRttsOnALongPath) {
  PairOptions o;
  o.nscc_config = "base_rtt=60000";  // the probe timeout floor: 120 us
  probes_bring_a_healed_plane_back(o);
}

// Nor does a path longer than the configured base RTT knows: a probe also outwaits twice the
// round trip the QP measured (the base RTT here is the default 12 us, the path's 60 us; a DUT
// behind a real-time bridge is configured for the fabric, not for the bridge).
TEST(EndpointFailover, ProbesOutwaitTwoMeasuredRoundTrips) { probes_bring_a_healed_plane_back(PairOptions{}); }

TEST(EndpointFailover, MinActiveFloorKeepsEvsGoodWithoutEvents) {
  PairOptions o = quick();
  o.nscc = false;  // A is cut off: let the whole window go out and time out at once
  o.ev_min_active = 4;
  Pair p(o, kSlow);
  ASSERT_EQ(p.error, "");
  p.fabric->filter = [](int side, transport::TxFrame&, std::uint64_t) { return side != 0; };  // A is cut off
  Traffic t = setup_traffic(p);
  post_writes(p, t, 200, 4096);
  p.fabric->run_for(3'000'000);
  std::size_t good = 0;
  for (auto s : p.a->ev_states(p.qp.qpn_a)) good += s == ev::EvState::kGood;
  EXPECT_EQ(good, 4u);
  std::size_t bad_events = 0;
  ev::EvEvent e;
  while (p.a->poll_ev_event(e)) bad_events += e.state == ev::EvState::kAssumedBad;
  EXPECT_EQ(bad_events, 28u);  // the 4 forced-active EVs raised none
}

TEST(EndpointFailover, DeniedWhileRunningStopsThatEvAndClearingRestoresIt) {
  Pair p(quick(), kSlow);
  ASSERT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p, 16u << 20);
  post_writes(p, t, 600, 16384);
  p.fabric->run_for(100'000);
  const ev::EvEntry victim = p.a->controller().ev_array(0)[9];
  ev::EvOpEntry op;
  op.ev = victim.ref();
  op.state = ev::EvState::kDenied;
  ASSERT_EQ(p.a->controller().modify_ev_state(0, std::span<const ev::EvOpEntry>(&op, 1)), 0);
  const std::uint64_t denied_at = p.fabric->now();
  p.fabric->run_for(200'000);
  op.state = ev::EvState::kGood;
  ASSERT_EQ(p.a->controller().modify_ev_state(0, std::span<const ev::EvOpEntry>(&op, 1)), 0);
  const std::uint64_t cleared_at = p.fabric->now();
  p.fabric->run_for(200'000);
  std::size_t during = 0, after = 0;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() != 0 || !is_data_frame(w) || w.port() != victim.port) continue;
    const std::uint32_t v = (w.f.ip6.flow_label << 16) | w.f.udp.sport;
    if (v != ((std::uint32_t{victim.wire[0]} << 24) | (std::uint32_t{victim.wire[1]} << 16) |
              (std::uint32_t{victim.wire[2]} << 8) | victim.wire[3])) {
      continue;
    }
    if (w.t() > denied_at && w.t() <= cleared_at) ++during;
    if (w.t() > cleared_at) ++after;
  }
  EXPECT_EQ(during, 0u);
  EXPECT_GT(after, 0u);
}

}  // namespace
}  // namespace mrc::ref::testing
