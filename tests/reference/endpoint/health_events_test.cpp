// The endpoint's hand-over of a QP's EV state changes to the controller (forward_health_events):
// changes the QP's health buffer had to drop are counted in the next EV event's drop_count, even
// when they were the last changes, and the profile's EV states end up as the QP sees them.
#include <gtest/gtest.h>

#include <vector>

#include "reference/endpoint.hpp"

namespace mrc::ref {
namespace {

constexpr std::size_t kEvs = 80;

struct ProfileWith80Evs {
  ev::Controller c;
  std::vector<ev::EvSlotInit> slots = std::vector<ev::EvSlotInit>(kEvs);
  ProfileWith80Evs() {
    std::string why;
    ev::EvProfileAttr a;
    a.state = ev::ProfileState::kOffline;
    a.mode = ev::EvMode::kAuto;
    a.ev_count = kEvs;
    a.ev_min_active = 0;
    a.ev_event_mask = ev::bits(ev::EvState::kGood) | ev::bits(ev::EvState::kAssumedBad);
    EXPECT_EQ(c.modify_ev_profile(0, a, ev::ev_attr::kState | ev::ev_attr::kMode | ev::ev_attr::kCount, &why), 0) << why;
    a.state = ev::ProfileState::kOnline;
    EXPECT_EQ(c.modify_ev_profile(0, a, ev::ev_attr::kState | ev::ev_attr::kMinActive | ev::ev_attr::kEventMask, &why), 0) << why;
    for (std::size_t i = 0; i < kEvs; ++i) slots[i].port = c.ev_array(0)[i].port;
  }
  std::vector<ev::EvEvent> events() {
    std::vector<ev::EvEvent> out(4 * kEvs);
    out.resize(c.poll_events(out));
    return out;
  }
};

TEST(HealthEvents, LostChangesStillReachTheProfileTable) {
  ProfileWith80Evs s;
  ev::EvHealth h(s.slots, ev::HealthParams{});
  for (std::uint16_t i = 0; i < 70; ++i) h.on_timeout(i, 0);  // 64 buffered, 6 dropped
  ASSERT_EQ(h.events().size(), ev::EvHealth::kEventCapacity);
  forward_health_events(h, s.c, 0);
  // 64 events; the 6 lost changes raise none (drop_count will say they were lost) ...
  EXPECT_EQ(s.events().size(), 64u);
  // ... but the profile's EV table shows them: a controller re-reading it after a drop sees the
  // QP's view, not the state from before the lost changes.
  for (std::size_t i = 0; i < kEvs; ++i) {
    EXPECT_EQ(s.c.ev_array(0)[i].state, i < 70 ? ev::EvState::kAssumedBad : ev::EvState::kGood) << i;
  }
  h.on_timeout(75, 10);
  forward_health_events(h, s.c, 0);
  const auto next = s.events();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].drop_count, 6u);  // PRECISE_DROP_CNT
  // The EVs come back GOOD: each return is an event again (the table knew they were bad).
  for (std::uint16_t i = 64; i < 70; ++i) s.c.report_ev_state(0, i, ev::EvState::kGood);
  EXPECT_EQ(s.events().size(), 6u);
}

TEST(HealthEvents, WithoutOverflowEveryChangeIsOneEvent) {
  ProfileWith80Evs s;
  ev::EvHealth h(s.slots, ev::HealthParams{});
  for (std::uint16_t i = 0; i < 10; ++i) h.on_timeout(i, 0);
  forward_health_events(h, s.c, 0);
  const auto ev = s.events();
  ASSERT_EQ(ev.size(), 10u);
  for (const auto& e : ev) EXPECT_EQ(e.drop_count, 0u);
}

}  // namespace
}  // namespace mrc::ref
