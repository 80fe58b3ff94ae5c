// Requester EV choice (W11): per-packet round-robin over eligible EVs rotating over ports,
// DENIED and SKIP EVs passed over, ports that are down skipped; plus the spray-single-ev and
// use-denied-ev defects.
#include <gtest/gtest.h>

#include <set>

#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

TEST(RequesterSpray, EveryPacketMovesToTheNextPortAndEv) {
  Harness h;  // 16 EVs on 8 ports
  ASSERT_EQ(h.write(1, 32 * 1024), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 32u);
  std::set<std::uint32_t> first16;
  for (std::size_t i = 0; i < pkts.size(); ++i) {
    const std::uint32_t ev = pkts[i].path.ev_index;
    if (i < 16) first16.insert(ev);
    if (i > 0) {
      // Consecutive packets leave on different planes.
      EXPECT_NE(h.evs[ev].port, h.evs[pkts[i - 1].path.ev_index].port) << i;
    }
  }
  EXPECT_EQ(first16.size(), 16u);  // all 16 EVs used once before any repeats
  EXPECT_EQ(pkts[16].path.ev_index, pkts[0].path.ev_index);
}

TEST(RequesterSpray, DeniedEvNeverCarriesData) {
  Harness h;
  h.r->health().set_denied(3, true);
  ASSERT_EQ(h.write(1, 64 * 1024), 0);
  for (const auto& p : h.drain(0)) EXPECT_NE(p.path.ev_index, 3u);
}

TEST(RequesterSpray, DownPortNeverCarriesData) {
  Harness h;
  h.r->health().set_port_up(2, false);
  ASSERT_EQ(h.write(1, 64 * 1024), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 64u);
  for (const auto& p : pkts) EXPECT_NE(h.evs[p.path.ev_index].port, 2u);
}

TEST(RequesterSpray, SkippedEvIsPassedOverUntilItsSkipEnds) {
  ev::HealthParams hp;
  hp.skip_ns = 10'000;  // the skip-timer variant: SKIP for a known time
  Harness h(default_config(), 16, 8, hp);
  h.r->health().on_skip(5, 0);
  ASSERT_EQ(h.write(1, 32 * 1024), 0);
  auto pkts = h.drain(1000, 16);
  for (const auto& p : pkts) EXPECT_NE(p.path.ev_index, 5u);
  bool used = false;
  for (const auto& p : h.drain(20'000)) used |= p.path.ev_index == 5u;
  EXPECT_TRUE(used);
}

TEST(RequesterSpray, NoEligibleEvHoldsTraffic) {
  Harness h(default_config(), 2, 2);
  h.r->health().set_denied(0, true);
  h.r->health().set_denied(1, true);
  ASSERT_EQ(h.write(1, 1024), 0);
  EXPECT_TRUE(h.drain(0).empty());
  EXPECT_GT(h.r->stats().blocked_no_ev, 0u);
  h.r->health().set_denied(1, false);
  EXPECT_EQ(h.drain(0).size(), 1u);
}

TEST(RequesterDefects, SpraySingleEvPutsEverythingOnOneEv) {
  ev::SelectorQuirks sq;
  sq.spray_single_ev = true;
  Harness h(default_config(), 16, 8, {}, {}, sq);
  ASSERT_EQ(h.write(1, 32 * 1024), 0);
  std::set<std::uint32_t> used;
  for (const auto& p : h.drain(0)) used.insert(p.path.ev_index);
  EXPECT_EQ(used.size(), 1u);
}

TEST(RequesterDefects, UseDeniedEvSendsOnDeniedEv) {
  ev::SelectorQuirks sq;
  sq.use_denied = true;
  ev::HealthQuirks hq;
  hq.use_denied = true;
  Harness h(default_config(), 16, 8, {}, hq, sq);
  h.r->health().set_denied(3, true);
  ASSERT_EQ(h.write(1, 32 * 1024), 0);
  bool used = false;
  for (const auto& p : h.drain(0)) used |= p.path.ev_index == 3u;
  EXPECT_TRUE(used);
}

}  // namespace
}  // namespace mrc::transport::testing
