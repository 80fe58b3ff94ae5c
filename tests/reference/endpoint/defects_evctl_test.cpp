// The EV-controller defects (reference/defects.hpp: no-ev-events ... modify-online-without-cap),
// each against the same host-API call sequence on a defect-free endpoint, and the endpoint's
// forwarding of QP health events into the controller (drop counts survive a full QP buffer).
#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include "reference/endpoint.hpp"

namespace mrc::ref::testing {
namespace {

using ev::EvState;
using ev::ProfileState;
namespace ea = ev::ev_attr;

constexpr std::uint32_t kToOffline = ea::kState | ea::kMode | ea::kFmtId | ea::kCount | ea::kFields;
constexpr std::uint32_t kToOnline = ea::kState | ea::kMinActive | ea::kEventMask;
constexpr std::uint32_t kBoth = ev::bits(EvState::kGood) | ev::bits(EvState::kAssumedBad);

// An endpoint whose controller has an ONLINE STEV format profile 0 ([16, 16]).
struct Device {
  explicit Device(Defect d, bool with_defect, ev::DeviceLimits lim = {}) {
    EndpointConfig cfg;
    cfg.limits = lim;
    if (with_defect) cfg.defects.add(d);
    ep = std::make_unique<Endpoint>(cfg);
    ev::FmtProfileAttr f;
    f.state = ProfileState::kOffline;
    f.mode = wire::EvFmtMode::kStev;
    f.widths = {16, 16};
    EXPECT_EQ(c().modify_fmt_profile(0, f, ev::fmt_attr::kState | ev::fmt_attr::kMode | ev::fmt_attr::kFields), 0);
    f.state = ProfileState::kOnline;
    EXPECT_EQ(c().modify_fmt_profile(0, f, ev::fmt_attr::kState), 0);
  }
  ev::Controller& c() { return ep->controller(); }
  std::unique_ptr<Endpoint> ep;
};

ev::EvProfileAttr generated(std::uint32_t count, std::uint32_t event_mask) {
  ev::EvProfileAttr a;
  a.state = ProfileState::kOffline;
  a.mode = ev::EvMode::kGen;
  a.ev_count = count;
  a.fields = {{16, 0, 1, 255, 0x00FF}, {16, 0, 1, 255, 0x00FF}};
  a.ev_min_active = 1;
  a.ev_event_mask = event_mask;
  return a;
}

// Brings EV profile `id` ONLINE as a generated profile.
void online(ev::Controller& c, ev::ProfileId id, std::uint32_t count, std::uint32_t event_mask) {
  ev::EvProfileAttr a = generated(count, event_mask);
  ASSERT_EQ(c.modify_ev_profile(id, a, kToOffline | ea::kGenSeed), 0);
  a.state = ProfileState::kOnline;
  ASSERT_EQ(c.modify_ev_profile(id, a, kToOnline), 0);
}

std::vector<ev::EvEvent> drain(Endpoint& ep) {
  std::vector<ev::EvEvent> out;
  ev::EvEvent e;
  while (ep.poll_ev_event(e)) out.push_back(e);
  return out;
}

TEST(ForwardHealthEvents, OverflowedQpBufferShowsAsExactDropCount) {
  Device d(Defect::kCount, false);
  online(d.c(), 0, 128, kBoth);
  std::vector<ev::EvSlotInit> slots(128);
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i].port = static_cast<std::uint8_t>(1 + i % 8);
  ev::EvHealth h(slots, ev::HealthParams{});
  // 70 EVs fail before anyone reads the QP's buffer: 64 fit, 6 are lost.
  for (std::uint16_t i = 0; i < 70; ++i) h.on_timeout(i, 1000);
  forward_health_events(h, d.c(), 0);
  EXPECT_TRUE(h.events().empty());
  h.on_timeout(100, 2000);  // the next change carries the 6 the buffer lost
  forward_health_events(h, d.c(), 0);
  const auto events = drain(*d.ep);
  ASSERT_EQ(events.size(), 65u);
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(events[i].drop_count, 0u) << i;
  EXPECT_EQ(events[64].drop_count, 6u);
  EXPECT_EQ(events[64].state, EvState::kAssumedBad);
}

// Events for one EV going ASSUMED_BAD and back, with `mask` monitored.
std::vector<ev::EvEvent> flap(Defect d, bool with_defect, std::uint32_t mask) {
  Device dev(d, with_defect);
  online(dev.c(), 0, 8, mask);
  EXPECT_EQ(dev.c().report_ev_state(0, 3, EvState::kAssumedBad), 0);
  EXPECT_EQ(dev.c().report_ev_state(0, 3, EvState::kGood), 0);
  return drain(*dev.ep);
}

TEST(EvctlDefectSymptoms, NoEvEvents) {
  EXPECT_EQ(flap(Defect::kNoEvEvents, false, kBoth).size(), 2u);
  EXPECT_TRUE(flap(Defect::kNoEvEvents, true, kBoth).empty());
}

TEST(EvctlDefectSymptoms, EventsIgnoreMask) {
  const std::uint32_t bad_only = ev::bits(EvState::kAssumedBad);
  const auto good = flap(Defect::kEventsIgnoreMask, false, bad_only);
  ASSERT_EQ(good.size(), 1u);
  EXPECT_EQ(good[0].state, EvState::kAssumedBad);
  const auto broken = flap(Defect::kEventsIgnoreMask, true, bad_only);
  ASSERT_EQ(broken.size(), 2u);
  EXPECT_EQ(broken[1].state, EvState::kGood);  // GOOD was masked out
}

// Drop count of the first event after 3 were lost to a one-entry queue.
std::uint32_t drop_after_three_lost(bool with_defect) {
  ev::DeviceLimits lim;
  lim.event_queue_depth = 1;
  Device d(Defect::kImpreciseDropCount, with_defect, lim);
  online(d.c(), 0, 8, kBoth);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(d.c().report_ev_state(0, i, EvState::kAssumedBad), 0);
  EXPECT_EQ(drain(*d.ep).size(), 1u);
  EXPECT_EQ(d.c().report_ev_state(0, 5, EvState::kAssumedBad), 0);
  const auto e = drain(*d.ep);
  EXPECT_EQ(e.size(), 1u);
  return e.empty() ? 0 : e[0].drop_count;
}

TEST(EvctlDefectSymptoms, ImpreciseDropCount) {
  EXPECT_EQ(drop_after_three_lost(false), 3u);
  EXPECT_EQ(drop_after_three_lost(true), 1u);
}

TEST(EvctlDefectSymptoms, BadProfileTransition) {
  for (bool defect : {false, true}) {
    Device d(Defect::kBadProfileTransition, defect);
    online(d.c(), 1, 8, kBoth);
    ev::EvProfileAttr a;
    a.state = ProfileState::kInit;
    std::string why;
    const int rc = d.c().modify_ev_profile(1, a, ea::kState, &why);
    EXPECT_EQ(rc, defect ? 0 : EINVAL) << why;
    EXPECT_EQ(d.c().ev_profile_state(1), defect ? ProfileState::kInit : ProfileState::kOnline);
  }
}

TEST(EvctlDefectSymptoms, AcceptInvalidProfile) {
  for (bool defect : {false, true}) {
    Device d(Defect::kAcceptInvalidProfile, defect);
    ev::EvProfileAttr a = generated(8, kBoth);
    a.fields[1].max_val = 256;  // not below 2^popcount(0x00FF)
    EXPECT_EQ(d.c().modify_ev_profile(1, a, kToOffline), defect ? 0 : EINVAL);
    a.fields = {{16, 0, 1, 255, 0x00FF}, {16, 0, 1, 255, 0x00FF}, {8, 0, 0, 0, 0}};  // 3 fields, 2 formats
    EXPECT_EQ(d.c().modify_ev_profile(2, a, kToOffline), defect ? 0 : E2BIG);
  }
}

TEST(EvctlDefectSymptoms, IgnoreCountLimits) {
  for (bool defect : {false, true}) {
    Device d(Defect::kIgnoreCountLimits, defect);
    ev::EvProfileAttr a = generated(8, kBoth);
    a.mode = ev::EvMode::kExp;
    a.fields = {{16, 0, 0, 255, 0x00FF}};
    a.ev_count = 5000;  // over ev_max_count_profile (4096)
    EXPECT_EQ(d.c().modify_ev_profile(1, a, kToOffline), defect ? 0 : E2BIG);
    a.ev_count = 8;
    a.ev_min_active = 9;
    EXPECT_EQ(d.c().modify_ev_profile(2, a, kToOffline | ea::kMinActive), defect ? 0 : EINVAL);
  }
}

TEST(EvctlDefectSymptoms, OnlineUnpopulated) {
  for (bool defect : {false, true}) {
    Device d(Defect::kOnlineUnpopulated, defect);
    ev::EvProfileAttr a = generated(4, kBoth);
    a.mode = ev::EvMode::kExp;
    a.fields = {{16, 0, 0, 255, 0x00FF}};
    ASSERT_EQ(d.c().modify_ev_profile(1, a, kToOffline), 0);
    ev::EvOpEntry op;  // fill one of the four slots
    op.ev_new.val[0] = 0x11;
    op.ev_new.port = 1;
    ASSERT_EQ(d.c().replace_ev(1, std::span<const ev::EvOpEntry>(&op, 1)), 0);
    a.state = ProfileState::kOnline;
    EXPECT_EQ(d.c().modify_ev_profile(1, a, kToOnline), defect ? 0 : EINVAL);
  }
}

TEST(EvctlDefectSymptoms, ModifyOnlineWithoutCap) {
  ev::DeviceLimits lim;
  lim.caps &= ~(ev::cap::kEvProfileModifyOnline | ev::cap::kCcProfileModifyOnline);
  for (bool defect : {false, true}) {
    Device d(Defect::kModifyOnlineWithoutCap, defect, lim);
    online(d.c(), 1, 8, kBoth);
    ev::EvProfileAttr a;
    a.ev_event_mask = ev::bits(EvState::kAssumedBad);
    EXPECT_EQ(d.c().modify_ev_profile(1, a, ea::kEventMask), defect ? 0 : EBUSY);
    ev::CcProfileAttr cc;
    cc.state = ProfileState::kOffline;
    cc.algorithm = ev::kCcAlgoNscc;
    cc.config = {'x'};
    ASSERT_EQ(d.c().modify_cc_profile(1, cc, ev::cc_attr::kState | ev::cc_attr::kAlgorithm | ev::cc_attr::kConfig), 0);
    cc.state = ProfileState::kOnline;
    ASSERT_EQ(d.c().modify_cc_profile(1, cc, ev::cc_attr::kState), 0);
    cc.config = {'y'};
    EXPECT_EQ(d.c().modify_cc_profile(1, cc, ev::cc_attr::kConfig), defect ? 0 : EBUSY);
  }
}

}  // namespace
}  // namespace mrc::ref::testing
