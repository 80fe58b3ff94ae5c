// EV selector (W11): ports first, uniform over EVs, never ineligible EVs, exclusion, quirks.
#include "reference/ev/selector.hpp"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace mrc::ev {
namespace {

std::vector<EvSlotInit> slots(std::size_t n, std::size_t ports = 8) {
  std::vector<EvSlotInit> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i].port = static_cast<std::uint8_t>(1 + i % ports);
  return v;
}

TEST(EvSelector, RotatesOverPortsFirstThenEvsWithinPort) {
  EvHealth h(slots(32), HealthParams{});
  EvSelector s(h);
  EXPECT_EQ(s.port_count(), 8u);
  std::vector<std::uint16_t> picks;
  for (int i = 0; i < 320; ++i) {
    auto ev = s.pick(0);
    ASSERT_TRUE(ev);
    picks.push_back(*ev);
  }
  // Consecutive picks cycle ports 1..8.
  for (std::size_t i = 0; i < picks.size(); ++i) {
    EXPECT_EQ(h.port(picks[i]), 1 + i % 8) << i;
  }
  // Within port 1 (EVs 0, 8, 16, 24) the picks cycle in index order.
  EXPECT_EQ(picks[0], 0);
  EXPECT_EQ(picks[8], 8);
  EXPECT_EQ(picks[16], 16);
  EXPECT_EQ(picks[24], 24);
  EXPECT_EQ(picks[32], 0);
  // Exactly uniform over EVs.
  std::map<std::uint16_t, int> count;
  for (auto p : picks) ++count[p];
  ASSERT_EQ(count.size(), 32u);
  for (auto& [ev, n] : count) EXPECT_EQ(n, 10) << ev;
}

TEST(EvSelector, UnevenPortsStillAlternatePorts) {
  // Port 1 has 3 EVs, port 2 has 1: picks alternate ports, port 1's EVs cycle.
  std::vector<EvSlotInit> v{{1, false}, {1, false}, {2, false}, {1, false}};
  EvHealth h(v, HealthParams{});
  EvSelector s(h);
  std::vector<std::uint16_t> got;
  for (int i = 0; i < 6; ++i) got.push_back(*s.pick(0));
  EXPECT_EQ(got, (std::vector<std::uint16_t>{0, 2, 1, 2, 3, 2}));
}

// A SKIP timer (the skip-timer variant) keeps an EV in SKIP for a known time.
HealthParams skip_for(std::uint64_t ns) {
  HealthParams p;
  p.skip_ns = ns;
  return p;
}

TEST(EvSelector, NeverPicksDeniedBadOrSkipped) {
  std::vector<EvSlotInit> v = slots(16);
  v[4].denied = true;
  EvHealth h(v, skip_for(12'000));
  h.on_timeout(7, 0);        // ASSUMED_BAD
  h.on_skip(9, 0);           // SKIP for 12 us
  h.set_port_up(6, false);   // EVs 5 and 13
  EvSelector s(h);
  std::map<std::uint16_t, int> count;
  std::map<int, int> per_port;
  for (int i = 0; i < 1400; ++i) {
    const std::uint16_t ev = *s.pick(1'000);
    ++count[ev];
    ++per_port[h.port(ev)];
  }
  for (std::uint16_t bad : {4, 7, 9, 5, 13}) EXPECT_EQ(count.count(bad), 0u) << bad;
  EXPECT_EQ(count.size(), 11u);
  // Planes first: the 7 usable ports share equally; a port's share splits over its usable EVs.
  ASSERT_EQ(per_port.size(), 7u);
  for (auto& [port, n] : per_port) EXPECT_EQ(n, 200) << "port " << port;
  for (std::uint16_t single : {1, 12, 15}) EXPECT_EQ(count[single], 200) << single;
  for (std::uint16_t pair : {0, 8, 2, 10, 3, 11, 6, 14}) EXPECT_EQ(count[pair], 100) << pair;
  // After its SKIP EV 9 comes back.
  bool saw9 = false;
  for (int i = 0; i < 100; ++i) saw9 |= *s.pick(20'000) == 9;
  EXPECT_TRUE(saw9);
}

TEST(EvSelector, ExcludeKeepsRetransmissionOffTheFailedEv) {
  EvHealth h(slots(8), skip_for(1'000'000));
  EvSelector s(h);
  for (int i = 0; i < 50; ++i) EXPECT_NE(*s.pick(0, std::uint16_t{3}), 3);
  // Only EV 3 eligible: excluded -> nullopt; without exclusion -> 3.
  for (std::uint16_t i = 0; i < 8; ++i) {
    if (i != 3) h.on_skip(i, 0);
  }
  EvSelector s2(h);
  EXPECT_FALSE(s2.pick(1, std::uint16_t{3}).has_value());
  EXPECT_EQ(s2.pick(1), std::optional<std::uint16_t>(3));
}

// A suspect EV (a PSN timed out on it, not yet reported to EvHealth) stays GOOD and keeps its
// share of new data, but a retransmission passes over it while another EV is eligible: the
// requester's mass-loss stall of 7 dead planes of 8 (tests/reference/endpoint/endpoint_plane_loss_test.cpp).
TEST(EvSelector, RetransmissionsPassOverSuspectEvsWhileOthersAreLeft) {
  EvHealth h(slots(8), HealthParams{});
  for (std::uint16_t i = 1; i < 8; ++i) h.on_timeout_pending(i);  // only EV 0 not suspect
  EXPECT_EQ(h.state(3), EvState::kGood);
  EXPECT_TRUE(h.suspect(3));
  EvSelector s(h);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(s.pick(0, std::nullopt, true), std::optional<std::uint16_t>(0));
  std::set<std::uint16_t> fresh;  // new data: every GOOD EV
  for (int i = 0; i < 16; ++i) fresh.insert(*s.pick(0));
  EXPECT_EQ(fresh.size(), 8u);
  // Excluding the only clean EV falls back to a suspect one rather than to nothing.
  EXPECT_TRUE(s.pick(0, std::uint16_t{0}, true).has_value());
  // Resolved (reported, or acknowledged after all): eligible for retransmissions again; a second
  // pending timeout on the same EV needs its own resolution.
  h.on_timeout_pending(5);
  h.on_timeout_resolved(5);
  EXPECT_TRUE(h.suspect(5));
  h.on_timeout_resolved(5);
  EXPECT_FALSE(h.suspect(5));
  std::set<std::uint16_t> retx;
  for (int i = 0; i < 20; ++i) retx.insert(*s.pick(0, std::nullopt, true));
  EXPECT_EQ(retx, (std::set<std::uint16_t>{0, 5}));
  // The random retransmission choice (retx-any-other-ev) keeps off suspects alike.
  SelectorQuirks q;
  q.retx_random_seed = 7;
  EvSelector r(h, q);
  for (int i = 0; i < 20; ++i) {
    const auto ev = r.pick_other(0, 0, true);
    EXPECT_EQ(ev, std::optional<std::uint16_t>(5));
  }
  h.clear_suspects();
  EXPECT_FALSE(h.suspect(1));
}

// S1: W11 the rotation restores a SKIP EV when it reaches it, passes it over for that packet, and
// restores at most one per packet; alone, the restored EV is used (MODEL: W11, F7).
TEST(EvSelector, RotationRestoresOneSkipEvPerPickAndPassesItOver) {
  EvHealth h(slots(4), HealthParams{});
  EvSelector s(h);
  h.on_skip(1, 0);
  h.on_skip(2, 0);
  std::vector<std::uint16_t> got;
  for (int i = 0; i < 4; ++i) got.push_back(*s.pick(0));
  // 0, then 1 is restored and passed over for 2, which is restored in the next pick only.
  EXPECT_EQ(got[0], 0);
  EXPECT_FALSE(h.skipped(1, 0));
  EXPECT_NE(got[1], 1);
  std::set<std::uint16_t> seen(got.begin(), got.end());
  for (int i = 0; i < 8; ++i) seen.insert(*s.pick(0));
  EXPECT_EQ(seen.size(), 4u);  // both back in the rotation
  EXPECT_FALSE(h.skipped(2, 0));
  // Alone: every other EV bad, the restored EV carries the packet.
  EvHealth lone(slots(2), HealthParams{});
  lone.on_timeout(0, 0);
  lone.on_skip(1, 0);
  EvSelector sl(lone);
  EXPECT_EQ(sl.pick(0), std::optional<std::uint16_t>(1));
}

TEST(EvSelector, AllIneligibleReturnsNullopt) {
  EvHealth h(slots(4), HealthParams{});
  for (std::uint16_t i = 0; i < 4; ++i) h.on_timeout(i, 0);
  EvSelector s(h);
  EXPECT_FALSE(s.pick(0).has_value());
  EvHealth empty(std::vector<EvSlotInit>{}, HealthParams{});
  EvSelector se(empty);
  EXPECT_FALSE(se.pick(0).has_value());
}

TEST(EvSelector, QuirkSpraySingleEv) {
  EvHealth h(slots(8), skip_for(1'000'000));
  h.on_skip(0, 0);
  SelectorQuirks q;
  q.spray_single_ev = true;
  EvSelector s(h, q);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(s.pick(1), std::optional<std::uint16_t>(1));
  EXPECT_EQ(s.pick(1, std::uint16_t{1}), std::optional<std::uint16_t>(2));
}

TEST(EvSelector, QuirkUseDenied) {
  std::vector<EvSlotInit> v = slots(4);
  v[2].denied = true;
  EvHealth h(v, HealthParams{});
  SelectorQuirks q;
  q.use_denied = true;
  EvSelector s(h, q);
  bool saw2 = false;
  for (int i = 0; i < 8; ++i) saw2 |= *s.pick(0) == 2;
  EXPECT_TRUE(saw2);
  EXPECT_TRUE(s.usable(2, 0));
  EvSelector strict(h);
  EXPECT_FALSE(strict.usable(2, 0));
}

}  // namespace
}  // namespace mrc::ev

namespace mrc::ev {
namespace {

TEST(EvSelector, RandomPolicyIsUniformNeverRepeatsAndIsSeeded) {
  EvHealth h(slots(16), HealthParams{});
  SelectorQuirks q;
  q.random_seed = 42;
  EvSelector s(h, q);
  std::array<int, 16> count{};
  std::optional<std::uint16_t> prev;
  std::vector<std::uint16_t> first;
  for (int i = 0; i < 16000; ++i) {
    const auto ev = s.pick(0);
    ASSERT_TRUE(ev);
    EXPECT_NE(prev, ev) << "consecutive picks must differ while more than one EV is eligible";
    prev = ev;
    ++count[*ev];
    if (i < 64) first.push_back(*ev);
  }
  for (int c : count) {
    EXPECT_GT(c, 850);  // expectation 1000; binomial sd ~31
    EXPECT_LT(c, 1150);
  }
  // Not a round robin: the first 64 picks are not a rotation with period 16.
  bool periodic = true;
  for (std::size_t i = 16; i < first.size(); ++i) periodic &= first[i] == first[i - 16];
  EXPECT_FALSE(periodic);
  // The same seed gives the same sequence; another seed another one.
  EvSelector again(h, q);
  for (std::size_t i = 0; i < first.size(); ++i) ASSERT_EQ(again.pick(0), first[i]);
  q.random_seed = 43;
  EvSelector other(h, q);
  bool differs = false;
  for (std::size_t i = 0; i < first.size(); ++i) differs |= other.pick(0) != first[i];
  EXPECT_TRUE(differs);
  // One eligible EV: it is used again rather than nothing.
  EvHealth one(slots(1), HealthParams{});
  EvSelector lone(one, q);
  EXPECT_EQ(lone.pick(0), std::optional<std::uint16_t>(0));
  EXPECT_EQ(lone.pick(0), std::optional<std::uint16_t>(0));
}

}  // namespace
}  // namespace mrc::ev
