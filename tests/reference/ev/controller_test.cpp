// Controller model: profile state machines, required attributes per transition, and errnos.
#include "reference/ev/controller.hpp"

#include <gtest/gtest.h>

#include <cerrno>

namespace mrc::ev {
namespace {

constexpr std::uint32_t kToOfflineExp =
    ev_attr::kState | ev_attr::kMode | ev_attr::kFmtId | ev_attr::kCount | ev_attr::kFields;
constexpr std::uint32_t kToOnline = ev_attr::kState | ev_attr::kMinActive | ev_attr::kEventMask;

FmtProfileAttr stev_fmt(ProfileState st) {
  FmtProfileAttr a;
  a.state = st;
  a.mode = wire::EvFmtMode::kStev;
  a.widths = {16, 16};
  return a;
}

EvProfileAttr exp_profile(std::uint32_t count, ProfileState st = ProfileState::kOffline) {
  EvProfileAttr a;
  a.state = st;
  a.mode = EvMode::kExp;
  a.fmt_id = 0;
  a.ev_count = count;
  a.fields = {{16, 0, 0, 0, 0xFFFF}, {16, 0, 0, 0, 0xFFFF}};
  a.ev_min_active = 1;
  a.ev_event_mask = bits(EvState::kGood) | bits(EvState::kAssumedBad);
  return a;
}

void fmt_online(Controller& c, ProfileId id = 0) {
  std::string why;
  ASSERT_EQ(c.modify_fmt_profile(id, stev_fmt(ProfileState::kOffline),
                                 fmt_attr::kState | fmt_attr::kMode, &why), 0) << why;
  ASSERT_EQ(c.modify_fmt_profile(id, stev_fmt(ProfileState::kOnline),
                                 fmt_attr::kState | fmt_attr::kFields, &why), 0) << why;
}

// Fills every slot of an explicit profile with distinct EVs 0x0001.., ports cycling 1..8.
void populate(Controller& c, ProfileId id, std::uint32_t count) {
  std::vector<EvOpEntry> ops;
  for (std::uint32_t i = 0; i < count; ++i) {
    EvOpEntry op;  // ev = UNPOPULATED: each replace takes the lowest-index unpopulated slot
    op.ev_new.val[0] = static_cast<std::uint8_t>((i + 1) >> 8);
    op.ev_new.val[1] = static_cast<std::uint8_t>(i + 1);
    op.ev_new.port = static_cast<std::uint8_t>(1 + i % 8);
    ops.push_back(op);
  }
  std::string why;
  std::size_t done = 0;
  ASSERT_EQ(c.replace_ev(id, ops, &done, &why), 0) << why;
  ASSERT_EQ(done, count);
}

TEST(EvController, FormatProfileLifecycle) {
  Controller c;
  std::string why;
  // INIT -> ONLINE directly is not a transition.
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOnline), fmt_attr::kState, &why), EINVAL);
  // To OFFLINE requires MODE.
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOffline), fmt_attr::kState, &why), EINVAL);
  EXPECT_NE(why.find("MODE"), std::string::npos);
  ASSERT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOffline),
                                 fmt_attr::kState | fmt_attr::kMode, &why), 0);
  // To ONLINE requires MODIFY_FIELDS.
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOnline), fmt_attr::kState, &why), EINVAL);
  EXPECT_NE(why.find("MODIFY_FIELDS"), std::string::npos);
  // Unsupportable fields: E2BIG.
  FmtProfileAttr wide = stev_fmt(ProfileState::kOnline);
  wide.widths = {32, 16};
  EXPECT_EQ(c.modify_fmt_profile(0, wide, fmt_attr::kFields, &why), E2BIG);
  ASSERT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOnline),
                                 fmt_attr::kState | fmt_attr::kFields, &why), 0);
  // ONLINE: fields may not change.
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOnline), fmt_attr::kFields, &why), EBUSY);
  // ONLINE -> INIT is not a transition.
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kInit), fmt_attr::kState, &why), EINVAL);
  // Query with a too-small array reports the needed size.
  FmtProfileAttr q;
  std::size_t needed = 0;
  EXPECT_EQ(c.query_fmt_profile(0, &q, fmt_attr::kFields, 1, &needed, &why), E2BIG);
  EXPECT_EQ(needed, 2u);
  ASSERT_EQ(c.query_fmt_profile(0, &q, fmt_attr::kFields, 2, &needed, &why), 0);
  EXPECT_EQ(q.state, ProfileState::kOnline);
  EXPECT_EQ(q.widths, (std::vector<std::uint32_t>{16, 16}));
  ASSERT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOffline), fmt_attr::kState, &why), 0);
  ASSERT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kInit), fmt_attr::kState, &why), 0);
  ASSERT_EQ(c.query_fmt_profile(0, &q, 0, SIZE_MAX, nullptr, &why), 0);
  EXPECT_EQ(q.state, ProfileState::kInit);
  // Unknown ids.
  EXPECT_EQ(c.modify_fmt_profile(999, stev_fmt(ProfileState::kOffline), fmt_attr::kState, &why), ENOENT);
  EXPECT_EQ(c.query_fmt_profile(999, &q, 0), ENOENT);
  // CUR_STATE is query-only; an empty mask changes nothing.
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOffline), fmt_attr::kCurState, &why), EINVAL);
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOffline), 0, &why), EINVAL);
}

TEST(EvController, FormatInUseIsBusy) {
  Controller c;
  fmt_online(c);
  std::string why;
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(8), kToOfflineExp, &why), 0) << why;
  // OFFLINE EV profile refers to it: going INIT is EBUSY, going OFFLINE is fine.
  ASSERT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOffline), fmt_attr::kState, &why), 0);
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kInit), fmt_attr::kState, &why), EBUSY);
  ASSERT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOnline), fmt_attr::kState, &why), 0);
  populate(c, 0, 8);
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(8, ProfileState::kOnline), kToOnline, &why), 0) << why;
  // ONLINE EV profile uses it: going OFFLINE is EBUSY.
  EXPECT_EQ(c.modify_fmt_profile(0, stev_fmt(ProfileState::kOffline), fmt_attr::kState, &why), EBUSY);
}

TEST(EvController, EvProfileRequiredAttributesPerTransition) {
  Controller c;
  fmt_online(c);
  std::string why;
  const EvProfileAttr a = exp_profile(8);
  EXPECT_EQ(c.modify_ev_profile(0, a, kToOfflineExp & ~ev_attr::kMode, &why), EINVAL);
  EXPECT_NE(why.find("MODE"), std::string::npos);
  EXPECT_EQ(c.modify_ev_profile(0, a, kToOfflineExp & ~ev_attr::kCount, &why), EINVAL);
  EXPECT_NE(why.find("COUNT"), std::string::npos);
  EXPECT_EQ(c.modify_ev_profile(0, a, kToOfflineExp & ~ev_attr::kFmtId, &why), EINVAL);
  EXPECT_NE(why.find("FMT_ID"), std::string::npos);
  EXPECT_EQ(c.modify_ev_profile(0, a, kToOfflineExp & ~ev_attr::kFields, &why), EINVAL);
  EXPECT_NE(why.find("MODIFY_FIELDS"), std::string::npos);
  // INIT accepts nothing but STATE(OFFLINE).
  EXPECT_EQ(c.modify_ev_profile(0, a, ev_attr::kCount, &why), EINVAL);
  ASSERT_EQ(c.modify_ev_profile(0, a, kToOfflineExp, &why), 0) << why;
  populate(c, 0, 8);
  const EvProfileAttr on = exp_profile(8, ProfileState::kOnline);
  EXPECT_EQ(c.modify_ev_profile(0, on, kToOnline & ~ev_attr::kMinActive, &why), EINVAL);
  EXPECT_NE(why.find("MIN_ACTIVE"), std::string::npos);
  EXPECT_EQ(c.modify_ev_profile(0, on, kToOnline & ~ev_attr::kEventMask, &why), EINVAL);
  EXPECT_NE(why.find("EVENT_MASK"), std::string::npos);
  // Attributes set earlier while OFFLINE count for the transition.
  ASSERT_EQ(c.modify_ev_profile(0, on, ev_attr::kMinActive | ev_attr::kEventMask, &why), 0) << why;
  ASSERT_EQ(c.modify_ev_profile(0, on, ev_attr::kState, &why), 0) << why;
  EXPECT_EQ(c.ev_profile_state(0), ProfileState::kOnline);
  // AUTO needs no format profile or fields.
  EvProfileAttr autop;
  autop.state = ProfileState::kOffline;
  autop.mode = EvMode::kAuto;
  autop.ev_count = 16;
  ASSERT_EQ(c.modify_ev_profile(1, autop, ev_attr::kState | ev_attr::kMode | ev_attr::kCount, &why), 0)
      << why;
  EXPECT_EQ(c.ev_array(1).size(), 16u);
}

TEST(EvController, EvProfileTransitionsAndErrnos) {
  Controller c;
  fmt_online(c);
  std::string why;
  EXPECT_EQ(c.modify_ev_profile(64, exp_profile(8), kToOfflineExp, &why), ENOENT);
  EXPECT_EQ(c.modify_ev_profile(0, exp_profile(8, ProfileState::kOnline), ev_attr::kState, &why), EINVAL);
  // Unknown format profile id: ENOENT; format still in INIT: EINVAL.
  EvProfileAttr bad_fmt = exp_profile(8);
  bad_fmt.fmt_id = 99;
  EXPECT_EQ(c.modify_ev_profile(0, bad_fmt, kToOfflineExp, &why), ENOENT);
  bad_fmt.fmt_id = 1;
  EXPECT_EQ(c.modify_ev_profile(0, bad_fmt, kToOfflineExp, &why), EINVAL);
  // Fields that break a §1.5 rule against the format: errno from the expansion rules.
  EvProfileAttr three = exp_profile(8);
  three.fields.push_back({8, 0, 0, 0, 0xFF});
  EXPECT_EQ(c.modify_ev_profile(0, three, kToOfflineExp, &why), E2BIG);
  EXPECT_NE(why.find("k <= m"), std::string::npos);
  // Count over the per-profile limit: E2BIG.
  EXPECT_EQ(c.modify_ev_profile(0, exp_profile(4097), kToOfflineExp, &why), E2BIG);
  EXPECT_NE(why.find("ev_max_count_profile"), std::string::npos);
  // Event mask may only hold GOOD and ASSUMED_BAD.
  EvProfileAttr em = exp_profile(8);
  em.ev_event_mask = bits(EvState::kDenied);
  EXPECT_EQ(c.modify_ev_profile(0, em, kToOfflineExp | ev_attr::kEventMask, &why), EINVAL);
  // min_active > count.
  EvProfileAttr ma = exp_profile(8);
  ma.ev_min_active = 9;
  EXPECT_EQ(c.modify_ev_profile(0, ma, kToOfflineExp | ev_attr::kMinActive, &why), EINVAL);
  // ev_count is rounded up to ev_count_align (8).
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(5), kToOfflineExp, &why), 0) << why;
  EvProfileAttr q;
  ASSERT_EQ(c.query_ev_profile(0, &q, ev_attr::kCount), 0);
  EXPECT_EQ(q.ev_count, 8u);
  EXPECT_EQ(q.state, ProfileState::kOffline);
  // UNPOPULATED EVs at ONLINE: EINVAL.
  EXPECT_EQ(c.modify_ev_profile(0, exp_profile(8, ProfileState::kOnline), kToOnline, &why), EINVAL);
  EXPECT_NE(why.find("UNPOPULATED"), std::string::npos);
  populate(c, 0, 8);
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(8, ProfileState::kOnline), kToOnline, &why), 0) << why;
  // ONLINE -> INIT is not a transition.
  EXPECT_EQ(c.modify_ev_profile(0, exp_profile(8, ProfileState::kInit), ev_attr::kState, &why), EINVAL);
  // Count cannot change while ONLINE.
  EXPECT_EQ(c.modify_ev_profile(0, exp_profile(16), ev_attr::kCount, &why), EBUSY);
  // With MODIFY_ONLINE the event mask may change.
  EvProfileAttr m2 = exp_profile(8);
  m2.ev_event_mask = bits(EvState::kAssumedBad);
  EXPECT_EQ(c.modify_ev_profile(0, m2, ev_attr::kEventMask, &why), 0) << why;
  // In use by a QP: leaving ONLINE is EBUSY; after detach it works; then back to INIT.
  ASSERT_EQ(c.attach_ev_profile(0), 0);
  EXPECT_EQ(c.modify_ev_profile(0, exp_profile(8), ev_attr::kState, &why), EBUSY);
  ASSERT_EQ(c.detach_ev_profile(0), 0);
  EXPECT_EQ(c.detach_ev_profile(0), EINVAL);
  const std::uint64_t gen = c.ev_generation(0);
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(8), ev_attr::kState, &why), 0) << why;
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(8, ProfileState::kInit), ev_attr::kState, &why), 0);
  EXPECT_TRUE(c.ev_array(0).empty());
  EXPECT_GT(c.ev_generation(0), gen);
  EXPECT_EQ(c.attach_ev_profile(0), EINVAL);  // not ONLINE
}

TEST(EvController, ModifyOnlineWithoutCapabilityIsBusy) {
  DeviceLimits lim;
  lim.caps &= ~cap::kEvProfileModifyOnline;
  Controller c(lim);
  fmt_online(c);
  std::string why;
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(8), kToOfflineExp, &why), 0);
  populate(c, 0, 8);
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(8, ProfileState::kOnline), kToOnline, &why), 0);
  EXPECT_EQ(c.modify_ev_profile(0, exp_profile(8), ev_attr::kEventMask, &why), EBUSY);
  EXPECT_NE(why.find("MODIFY_ONLINE"), std::string::npos);
  EvOpEntry op;
  op.ev = c.ev_array(0)[0].ref();
  op.ev_new = op.ev;
  op.ev_new.val[0] = 0x7F;
  EXPECT_EQ(c.replace_ev(0, std::span<const EvOpEntry>(&op, 1), nullptr, &why), EBUSY);
  // DENIED may still be set while ONLINE.
  op.state = EvState::kDenied;
  EXPECT_EQ(c.modify_ev_state(0, std::span<const EvOpEntry>(&op, 1), nullptr, &why), 0) << why;
}

TEST(EvController, TotalEvCountAcrossProfiles) {
  DeviceLimits lim;
  lim.ev_max_count = 24;
  Controller c(lim);
  fmt_online(c);
  std::string why;
  ASSERT_EQ(c.modify_ev_profile(0, exp_profile(16), kToOfflineExp, &why), 0) << why;
  EXPECT_EQ(c.ev_free_count(), 8u);
  EXPECT_EQ(c.modify_ev_profile(1, exp_profile(16), kToOfflineExp, &why), E2BIG);
  EXPECT_NE(why.find("free EV count"), std::string::npos);
  ASSERT_EQ(c.modify_ev_profile(1, exp_profile(8), kToOfflineExp, &why), 0) << why;
  EXPECT_EQ(c.ev_free_count(), 0u);
}

TEST(EvController, CcProfileLifecycle) {
  DeviceLimits lim;
  lim.caps &= ~cap::kCcProfileModifyOnline;
  Controller c(lim);
  std::string why;
  CcProfileAttr a;
  a.state = ProfileState::kOffline;
  a.algorithm = kCcAlgoNscc;
  EXPECT_EQ(c.modify_cc_profile(0, a, cc_attr::kState, &why), EINVAL);  // needs ALGORITHM
  CcProfileAttr wrong = a;
  wrong.algorithm = "mrc-smtrk-1.00";
  EXPECT_EQ(c.modify_cc_profile(0, wrong, cc_attr::kState | cc_attr::kAlgorithm, &why), EINVAL);
  ASSERT_EQ(c.modify_cc_profile(0, a, cc_attr::kState | cc_attr::kAlgorithm, &why), 0) << why;
  a.state = ProfileState::kOnline;
  EXPECT_EQ(c.modify_cc_profile(0, a, cc_attr::kState, &why), EINVAL);  // needs CONFIG
  EXPECT_NE(why.find("CONFIG"), std::string::npos);
  EXPECT_EQ(c.modify_cc_profile(0, a, cc_attr::kState | cc_attr::kConfig, &why), EINVAL);  // empty
  a.config = {1, 2, 3, 4};
  ASSERT_EQ(c.modify_cc_profile(0, a, cc_attr::kState | cc_attr::kConfig, &why), 0) << why;
  EXPECT_EQ(c.modify_cc_profile(0, a, cc_attr::kConfig, &why), EBUSY);  // no MODIFY_ONLINE cap
  ASSERT_EQ(c.attach_cc_profile(0), 0);
  a.state = ProfileState::kOffline;
  EXPECT_EQ(c.modify_cc_profile(0, a, cc_attr::kState, &why), EBUSY);
  ASSERT_EQ(c.detach_cc_profile(0), 0);
  ASSERT_EQ(c.modify_cc_profile(0, a, cc_attr::kState, &why), 0);
  CcProfileAttr q;
  ASSERT_EQ(c.query_cc_profile(0, &q), 0);
  EXPECT_EQ(q.state, ProfileState::kOffline);
  EXPECT_EQ(q.algorithm, kCcAlgoNscc);
  EXPECT_EQ(q.config, (std::vector<std::uint8_t>{1, 2, 3, 4}));
  a.state = ProfileState::kInit;
  ASSERT_EQ(c.modify_cc_profile(0, a, cc_attr::kState, &why), 0);
  EXPECT_EQ(c.cc_profile(0), nullptr);
  EXPECT_EQ(c.modify_cc_profile(16, a, cc_attr::kState, &why), ENOENT);
}

TEST(EvController, CcModifyOnlineWithCapability) {
  Controller c;
  std::string why;
  CcProfileAttr a;
  a.state = ProfileState::kOnline;
  a.algorithm = kCcAlgoNscc;
  a.config = {9};
  a.state = ProfileState::kOffline;
  ASSERT_EQ(c.modify_cc_profile(3, a, cc_attr::kState | cc_attr::kAlgorithm, &why), 0);
  a.state = ProfileState::kOnline;
  ASSERT_EQ(c.modify_cc_profile(3, a, cc_attr::kState | cc_attr::kConfig, &why), 0);
  a.config = {7, 7};
  EXPECT_EQ(c.modify_cc_profile(3, a, cc_attr::kConfig, &why), 0) << why;
  EXPECT_EQ(c.modify_cc_profile(3, a, cc_attr::kAlgorithm, &why), EBUSY);
  ASSERT_NE(c.cc_profile(3), nullptr);
  EXPECT_EQ(c.cc_profile(3)->config, (std::vector<std::uint8_t>{7, 7}));
}

}  // namespace
}  // namespace mrc::ev
