// EV selector policy variants (conformant alternatives, reference/variants.hpp): reverse and
// offset rotations stay exactly even and per-packet; pick_other never returns the excluded EV,
// spreads over all others, and leaves the rotation where it was.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <vector>

#include "reference/ev/selector.hpp"

namespace mrc::ev {
namespace {

std::vector<EvSlotInit> slots(std::size_t n, std::size_t ports = 8) {
  std::vector<EvSlotInit> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i].port = static_cast<std::uint8_t>(1 + i % ports);
  return v;
}

std::vector<std::uint16_t> picks(EvSelector& s, int n) {
  std::vector<std::uint16_t> out;
  for (int i = 0; i < n; ++i) out.push_back(*s.pick(0));
  return out;
}

TEST(EvSelectorVariants, ReverseRotationWalksEveryEvInDescendingOrder) {
  EvHealth h(slots(32), HealthParams{});
  SelectorQuirks q;
  q.reverse = true;
  EvSelector s(h, q);
  const auto got = picks(s, 320);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], 31 - i % 32) << i;
}

TEST(EvSelectorVariants, RotationOffsetStartsAtTheLastPortAndEv) {
  EvHealth h(slots(32), HealthParams{});
  SelectorQuirks q;
  q.start_at_last = true;
  EvSelector s(h, q);
  const auto got = picks(s, 320);
  EXPECT_EQ(got[0], 31);  // port 8, its last EV
  EXPECT_EQ(got[1], 24);  // port 1, its last EV
  EXPECT_EQ(got[2], 25);
  EXPECT_EQ(got[9], 0);   // port 1 wraps to its first EV
  std::map<std::uint16_t, int> count;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(h.port(got[i]), 1 + (i + 7) % 8) << i;
    ++count[got[i]];
  }
  ASSERT_EQ(count.size(), 32u);
  for (auto& [ev, n] : count) EXPECT_EQ(n, 10) << ev;
}

TEST(EvSelectorVariants, ReverseRotationSkipsIneligibleEvs) {
  std::vector<EvSlotInit> v = slots(8);
  v[6].denied = true;
  EvHealth h(v, HealthParams{});
  SelectorQuirks q;
  q.reverse = true;
  EvSelector s(h, q);
  EXPECT_EQ(picks(s, 8), (std::vector<std::uint16_t>{7, 5, 4, 3, 2, 1, 0, 7}));
}

TEST(EvSelectorVariants, PickOtherIsUniformOverTheOthersAndKeepsTheRotation) {
  EvHealth h(slots(8), HealthParams{});
  SelectorQuirks q;
  q.retx_random_seed = 99;
  EvSelector s(h, q);
  EXPECT_EQ(*s.pick(0), 0);
  std::map<std::uint16_t, int> count;
  for (int i = 0; i < 7000; ++i) {
    const auto ev = s.pick_other(0, 3);
    ASSERT_TRUE(ev);
    ++count[*ev];
  }
  EXPECT_EQ(count.count(3), 0u);
  ASSERT_EQ(count.size(), 7u);
  for (auto& [ev, n] : count) EXPECT_NEAR(n, 1000, 150) << ev;
  EXPECT_EQ(*s.pick(0), 1);  // the rotation did not move
  // Only the excluded EV eligible: nothing else to take.
  EvHealth one(slots(1), HealthParams{});
  EvSelector s1(one, q);
  EXPECT_FALSE(s1.pick_other(0, 0).has_value());
}

// Not a variant: the reference's retransmission choice at the ev_min_active floor.
TEST(EvSelector, RetransmissionsPassOverForcedActiveEvsWhileOthersAreLeft) {
  HealthParams p;
  p.ev_min_active = 3;
  EvHealth h(slots(4, 4), p);
  h.on_timeout(1, 0);  // marked
  h.on_timeout(2, 0);  // floor reached: forced active
  h.on_timeout(3, 0);  // forced active
  ASSERT_TRUE(h.forced_active(2));
  ASSERT_TRUE(h.forced_active(3));
  EvSelector s(h);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s.pick(0, std::nullopt, true), std::optional<std::uint16_t>(0));
  // New data still sprays over every GOOD EV, forced ones included.
  EXPECT_EQ(picks(s, 3), (std::vector<std::uint16_t>{2, 3, 0}));
  // Excluding the only unforced EV falls back to a forced one rather than to nothing.
  const auto other = s.pick(0, std::uint16_t{0}, true);
  ASSERT_TRUE(other);
  EXPECT_TRUE(*other == 2 || *other == 3);
  SelectorQuirks q;
  q.retx_random_seed = 5;
  EvSelector r(h, q);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(r.pick_other(0, 3, true), std::optional<std::uint16_t>(0));
}

}  // namespace
}  // namespace mrc::ev
