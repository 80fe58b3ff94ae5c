// Controller model: REPLACE_EV (single copy and ALL_COPIES), MODIFY/QUERY_EV_STATE,
// QUERY_EV_ARRAY sizing, generated EVs, EXPLICIT_RANGE, EV events and drop counts.
#include <gtest/gtest.h>

#include <bit>
#include <cerrno>
#include <set>

#include "reference/ev/controller.hpp"

namespace mrc::ev {
namespace {

constexpr std::uint32_t kToOffline =
    ev_attr::kState | ev_attr::kMode | ev_attr::kFmtId | ev_attr::kCount | ev_attr::kFields;
constexpr std::uint32_t kToOnline = ev_attr::kState | ev_attr::kMinActive | ev_attr::kEventMask;

// A 12-bit EV value (the profile below uses 12 EV bits), MSB-first: bytes vv v0.
EvRef ev12(std::uint16_t v, std::uint8_t port) {
  EvRef r;
  r.val[0] = static_cast<std::uint8_t>(v >> 4);
  r.val[1] = static_cast<std::uint8_t>((v & 0xF) << 4);
  r.port = port;
  return r;
}

class EvOps : public ::testing::Test {
 protected:
  explicit EvOps(DeviceLimits lim = {}) : c(std::move(lim)) {}

  void SetUp() override {
    FmtProfileAttr f;
    f.state = ProfileState::kOffline;
    f.mode = wire::EvFmtMode::kStev;
    f.widths = {16, 16};
    ASSERT_EQ(c.modify_fmt_profile(0, f, fmt_attr::kState | fmt_attr::kMode | fmt_attr::kFields), 0);
    f.state = ProfileState::kOnline;
    ASSERT_EQ(c.modify_fmt_profile(0, f, fmt_attr::kState), 0);
  }

  EvProfileAttr exp(std::uint32_t count, ProfileState st) {
    EvProfileAttr a;
    a.state = st;
    a.mode = EvMode::kExp;
    a.ev_count = count;
    a.fields = {{16, 0x1000, 0, 0, 0x0FFF}};  // 12 EV bits
    a.ev_min_active = 1;
    a.ev_event_mask = bits(EvState::kGood) | bits(EvState::kAssumedBad);
    return a;
  }

  int replace(const EvRef& from, const EvRef& to, std::uint32_t flags = 0, std::size_t* done = nullptr) {
    EvOpEntry op;
    op.ev = from;
    op.ev_new = to;
    op.flags = flags;
    return c.replace_ev(0, std::span<const EvOpEntry>(&op, 1), done, &why);
  }

  // OFFLINE explicit profile with 8 slots: A A B A C D E F (three copies of A).
  void make_with_duplicates() {
    ASSERT_EQ(c.modify_ev_profile(0, exp(8, ProfileState::kOffline), kToOffline, &why), 0) << why;
    const std::uint16_t vals[8] = {0xA, 0xA, 0xB, 0xA, 0xC, 0xD, 0xE, 0xF};
    for (int i = 0; i < 8; ++i) {
      ASSERT_EQ(replace(EvRef{}, ev12(vals[i], static_cast<std::uint8_t>(1 + (vals[i] & 7)))), 0) << why;
    }
  }

  Controller c;
  std::string why;
};

TEST_F(EvOps, ReplaceSingleCopyTakesLowestIndex) {
  make_with_duplicates();
  const EvRef a = ev12(0xA, 3);
  ASSERT_EQ(replace(a, ev12(0x111, 4)), 0) << why;
  auto arr = c.ev_array(0);
  EXPECT_EQ(arr[0].ref(), ev12(0x111, 4));
  EXPECT_EQ(arr[1].ref(), a);
  EXPECT_EQ(arr[3].ref(), a);
  ASSERT_EQ(replace(a, ev12(0x222, 4)), 0);
  EXPECT_EQ(c.ev_array(0)[1].ref(), ev12(0x222, 4));
  EXPECT_EQ(c.ev_array(0)[3].ref(), a);
}

TEST_F(EvOps, ReplaceAllCopies) {
  make_with_duplicates();
  const EvRef a = ev12(0xA, 3);
  std::size_t done = 0;
  ASSERT_EQ(replace(a, ev12(0x333, 5), kOpAllCopies, &done), 0) << why;
  EXPECT_EQ(done, 1u);
  auto arr = c.ev_array(0);
  for (int i : {0, 1, 3}) EXPECT_EQ(arr[i].ref(), ev12(0x333, 5)) << i;
  EXPECT_EQ(arr[2].ref(), ev12(0xB, 4));
  // Gone now: ENOENT. Port is part of the match.
  EXPECT_EQ(replace(a, ev12(0x1, 1)), ENOENT);
  EXPECT_EQ(replace(ev12(0xB, 5), ev12(0x1, 1)), ENOENT);
}

TEST_F(EvOps, ReplaceValidatesNewEv) {
  make_with_duplicates();
  EXPECT_EQ(replace(ev12(0xB, 4), ev12(0x1, 9)), EINVAL);  // port 9 not on an 8-port device
  EXPECT_NE(why.find("phy_port_mask"), std::string::npos);
  EXPECT_EQ(replace(ev12(0xB, 4), ev12(0x1, 0)), EINVAL);  // port 0
  EvRef wide = ev12(0x1, 1);
  wide.val[1] |= 0x01;  // EV bit 15: past the 12 bits the profile uses
  EXPECT_EQ(replace(ev12(0xB, 4), wide), EINVAL);
  EXPECT_NE(why.find("past the 12 bits"), std::string::npos);
  // Batch: first entries apply, the failing one stops the batch.
  std::vector<EvOpEntry> ops(3);
  ops[0].ev = ev12(0xC, 5);
  ops[0].ev_new = ev12(0x10, 1);
  ops[1].ev = ev12(0x99, 1);  // not present
  ops[1].ev_new = ev12(0x20, 1);
  ops[2].ev = ev12(0xD, 6);
  ops[2].ev_new = ev12(0x30, 1);
  std::size_t done = 99;
  EXPECT_EQ(c.replace_ev(0, ops, &done, &why), ENOENT);
  EXPECT_EQ(done, 1u);
  EXPECT_EQ(c.ev_array(0)[4].ref(), ev12(0x10, 1));
  EXPECT_EQ(c.ev_array(0)[5].ref(), ev12(0xD, 6));
}

TEST_F(EvOps, ReplaceOnlineExpandsAndNeedsPopulatedEv) {
  make_with_duplicates();
  ASSERT_EQ(c.modify_ev_profile(0, exp(8, ProfileState::kOnline), kToOnline, &why), 0) << why;
  // Wire bytes: init 0x1000 with 12 EV bits 0x00A -> 0x100A.
  EXPECT_EQ(c.ev_array(0)[0].wire[0], 0x10);
  EXPECT_EQ(c.ev_array(0)[0].wire[1], 0x0A);
  EXPECT_EQ(replace(ev12(0xB, 4), EvRef{}), EINVAL);  // no un-populating while ONLINE
  ASSERT_EQ(replace(ev12(0xB, 4), ev12(0xABC, 2)), 0) << why;
  EXPECT_EQ(c.ev_array(0)[2].wire[0], 0x1A);
  EXPECT_EQ(c.ev_array(0)[2].wire[1], 0xBC);
}

TEST_F(EvOps, ModifyAndQueryEvState) {
  make_with_duplicates();
  EvOpEntry op;
  op.ev = ev12(0xA, 3);
  op.state = EvState::kDenied;
  ASSERT_EQ(c.modify_ev_state(0, std::span<const EvOpEntry>(&op, 1), nullptr, &why), 0) << why;
  EXPECT_EQ(c.ev_array(0)[0].state, EvState::kDenied);
  EXPECT_EQ(c.ev_array(0)[1].state, EvState::kGood);  // single copy: lowest index only
  op.flags = kOpAllCopies;
  ASSERT_EQ(c.modify_ev_state(0, std::span<const EvOpEntry>(&op, 1), nullptr, &why), 0);
  EXPECT_EQ(c.ev_array(0)[3].state, EvState::kDenied);
  // Query.
  std::vector<EvOpEntry> q(2);
  q[0].ev = ev12(0xA, 3);
  q[1].ev = ev12(0xB, 4);
  ASSERT_EQ(c.query_ev_state(0, q, &why), 0);
  EXPECT_EQ(q[0].state, EvState::kDenied);
  EXPECT_EQ(q[1].state, EvState::kGood);
  q[1].ev = ev12(0x77, 1);
  EXPECT_EQ(c.query_ev_state(0, q, &why), ENOENT);
  // Clear DENIED with GOOD; ASSUMED_BAD/UNKNOWN are not the controller's to set.
  op.state = EvState::kGood;
  ASSERT_EQ(c.modify_ev_state(0, std::span<const EvOpEntry>(&op, 1), nullptr, &why), 0);
  EXPECT_EQ(c.ev_array(0)[0].state, EvState::kGood);
  op.state = EvState::kAssumedBad;
  EXPECT_EQ(c.modify_ev_state(0, std::span<const EvOpEntry>(&op, 1), nullptr, &why), EINVAL);
  op.state = EvState::kDenied;
  op.ev = ev12(0x55, 1);
  EXPECT_EQ(c.modify_ev_state(0, std::span<const EvOpEntry>(&op, 1), nullptr, &why), ENOENT);
  EXPECT_EQ(c.modify_ev_state(7, std::span<const EvOpEntry>(&op, 1), nullptr, &why), EINVAL);  // INIT
  EXPECT_EQ(c.modify_ev_state(640, std::span<const EvOpEntry>(&op, 1), nullptr, &why), ENOENT);
}

TEST_F(EvOps, QueryEvArraySizing) {
  make_with_duplicates();
  std::vector<EvOpEntry> out(7);
  std::size_t count = 0;
  EXPECT_EQ(c.query_ev_array(0, out, &count, &why), E2BIG);
  EXPECT_EQ(count, 8u);
  out.resize(count);
  ASSERT_EQ(c.query_ev_array(0, out, &count, &why), 0);
  EXPECT_EQ(out[2].ev, ev12(0xB, 4));
  EXPECT_EQ(out[2].state, EvState::kGood);
  EXPECT_EQ(c.query_ev_array(5, out, &count, &why), EINVAL);  // INIT profile has no array
}

TEST_F(EvOps, UnpopulatedStateAndBatchCap) {
  ASSERT_EQ(c.modify_ev_profile(0, exp(8, ProfileState::kOffline), kToOffline, &why), 0);
  std::vector<EvOpEntry> out(8);
  std::size_t count = 0;
  ASSERT_EQ(c.query_ev_array(0, out, &count), 0);
  EXPECT_TRUE(is_unpopulated(out[0].ev));
  EXPECT_EQ(out[0].state, EvState::kUnknown);
  std::vector<EvOpEntry> many(1025);
  EXPECT_EQ(c.replace_ev(0, many, nullptr, &why), E2BIG);
  EXPECT_NE(why.find("ev_op_max_entries"), std::string::npos);
}

TEST_F(EvOps, GeneratedEvsWithinBoundsDeterministicAndSpread) {
  EvProfileAttr g;
  g.state = ProfileState::kOffline;
  g.mode = EvMode::kGen;
  g.ev_count = 250;  // rounds up to 256
  g.fields = {{16, 0x1000, 1, 0xFF, 0x0F0F}, {16, 0x2000, 3, 0x11, 0x0F0F}};
  g.gen_seed = 42;
  ASSERT_EQ(c.modify_ev_profile(0, g, kToOffline | ev_attr::kGenSeed, &why), 0) << why;
  auto arr = c.ev_array(0);
  ASSERT_EQ(arr.size(), 256u);
  std::set<std::uint32_t> seen;
  std::array<int, 9> per_port{};
  for (const EvEntry& e : arr) {
    const auto f0 = static_cast<std::uint32_t>(read_bits(e.val, 0, 8));
    const auto f1 = static_cast<std::uint32_t>(read_bits(e.val, 8, 8));
    EXPECT_GE(f0, 1u);
    EXPECT_LE(f0, 0xFFu);
    EXPECT_GE(f1, 3u);
    EXPECT_LE(f1, 0x11u);
    EXPECT_EQ(validate_ev_bits(g.fields, e.val, nullptr), 0);
    seen.insert(f0 << 8 | f1);
    ASSERT_GE(e.port, 1);
    ASSERT_LE(e.port, 8);
    ++per_port[e.port];
    EXPECT_EQ(e.state, EvState::kGood);
  }
  EXPECT_GT(seen.size(), 100u);  // actually random-looking
  for (int p = 1; p <= 8; ++p) EXPECT_EQ(per_port[p], 32) << p;
  // Same seed, same bytes; other seed, other bytes.
  std::vector<EvEntry> again, other;
  generate_evs(g.fields, 256, 42, 0xFF, again);
  generate_evs(g.fields, 256, 43, 0xFF, other);
  bool differs = false;
  for (std::size_t i = 0; i < 256; ++i) {
    EXPECT_EQ(again[i].val, arr[i].val);
    differs |= other[i].val != arr[i].val;
  }
  EXPECT_TRUE(differs);
  // Pinned first value: splitmix64 is the same everywhere, so this never changes.
  SplitMix64 r(42);
  EXPECT_EQ(r.next(), 0xBDD732262FEB6E95ull);
  // Wire bytes after ONLINE.
  g.state = ProfileState::kOnline;
  ASSERT_EQ(c.modify_ev_profile(0, g, kToOnline, &why), 0) << why;
  std::string w;
  wire::EvBytes expect{};
  ASSERT_EQ(expand(FormatProfile{wire::EvFmtMode::kStev, {16, 16}}, g.fields, c.ev_array(0)[7].val,
                   expect, &w), 0);
  EXPECT_EQ(c.ev_array(0)[7].wire, expect);
  EXPECT_EQ(c.ev_array(0)[7].index, 7);
}

TEST_F(EvOps, GeneratedCountClippedToDeviceLimits) {
  EvProfileAttr g;
  g.state = ProfileState::kOffline;
  g.mode = EvMode::kGen;
  g.ev_count = 65536;  // like the 256x16x16 example: clipped to ev_max_count_profile
  g.fields = {{16, 0, 0, 255, 0x00FF}, {16, 0, 0, 255, 0x0FF0}};
  ASSERT_EQ(c.modify_ev_profile(0, g, kToOffline, &why), 0) << why;
  EXPECT_EQ(c.ev_array(0).size(), 4096u);
  // min > max for a generated field is EINVAL.
  g.fields[1].min_val = 9;
  g.fields[1].max_val = 3;
  EXPECT_EQ(c.modify_ev_profile(1, g, kToOffline, &why), EINVAL);
  EXPECT_NE(why.find("min_val > max_val"), std::string::npos);
}

class EvOpsNarrow : public EvOps {
 protected:
  static DeviceLimits lim() {
    DeviceLimits l;
    l.ev_max_width = 8;
    l.caps |= cap::kExplicitRange;
    return l;
  }
  EvOpsNarrow() : EvOps(lim()) {}
};

TEST_F(EvOpsNarrow, EvMaxWidthAndExplicitRange) {
  EvProfileAttr a = exp(8, ProfileState::kOffline);  // 12 EV bits > 8
  EXPECT_EQ(c.modify_ev_profile(0, a, kToOffline, &why), E2BIG);
  EXPECT_NE(why.find("ev_max_width"), std::string::npos);
  a.fields = {{16, 0x1000, 0, 0, 0x00FF}};
  ASSERT_EQ(c.modify_ev_profile(0, a, kToOffline, &why), 0) << why;
  // Contiguous 0x10..0x17 except slot 5 (0x20): EXPLICIT_RANGE rejects at ONLINE.
  for (int i = 0; i < 8; ++i) {
    EvRef r;
    r.val[0] = static_cast<std::uint8_t>(i == 5 ? 0x20 : 0x10 + i);
    r.port = static_cast<std::uint8_t>(1 + i);
    ASSERT_EQ(replace(EvRef{}, r), 0) << why;
  }
  EXPECT_EQ(c.modify_ev_profile(0, exp(8, ProfileState::kOnline), kToOnline, &why), EINVAL);
  EXPECT_NE(why.find("EXPLICIT_RANGE"), std::string::npos);
  EvRef bad;
  bad.val[0] = 0x20;
  bad.port = 6;
  EvRef good;
  good.val[0] = 0x15;
  good.port = 6;
  ASSERT_EQ(replace(bad, good), 0);
  EXPECT_EQ(c.modify_ev_profile(0, exp(8, ProfileState::kOnline), kToOnline, &why), 0) << why;
}

TEST_F(EvOps, EventsFollowMaskAndReportDrops) {
  make_with_duplicates();
  EvProfileAttr on = exp(8, ProfileState::kOnline);
  on.ev_event_mask = bits(EvState::kAssumedBad);  // GOOD not monitored
  ASSERT_EQ(c.modify_ev_profile(0, on, kToOnline, &why), 0) << why;
  EXPECT_EQ(c.report_ev_state(0, 2, EvState::kAssumedBad, &why), 0);
  EXPECT_EQ(c.report_ev_state(0, 2, EvState::kAssumedBad, &why), 0);  // no change, no event
  EXPECT_EQ(c.report_ev_state(0, 2, EvState::kGood, &why), 0);        // masked out
  EXPECT_EQ(c.report_ev_state(0, 2, EvState::kDenied, &why), EINVAL);
  EXPECT_EQ(c.report_ev_state(0, 8, EvState::kGood, &why), EINVAL);
  std::array<EvEvent, 4> ev{};
  ASSERT_EQ(c.poll_events(ev), 1u);
  EXPECT_EQ(ev[0].profile_id, 0u);
  EXPECT_EQ(ev[0].ev, ev12(0xB, 4));
  EXPECT_EQ(ev[0].state, EvState::kAssumedBad);
  EXPECT_EQ(ev[0].drop_count, 0u);
  EXPECT_EQ(c.ev_array(0)[2].state, EvState::kGood);
}

struct SmallQueue {
  static DeviceLimits lim(bool precise) {
    DeviceLimits l;
    l.event_queue_depth = 2;
    if (!precise) l.caps &= ~cap::kPreciseDropCnt;
    return l;
  }
};

void overflow_and_check(bool precise, std::uint32_t expect_drop) {
  Controller c(SmallQueue::lim(precise));
  std::string why;
  EvProfileAttr a;
  a.state = ProfileState::kOffline;
  a.mode = EvMode::kAuto;
  a.ev_count = 8;
  a.ev_min_active = 0;
  a.ev_event_mask = bits(EvState::kGood) | bits(EvState::kAssumedBad);
  ASSERT_EQ(c.modify_ev_profile(0, a, ev_attr::kState | ev_attr::kMode | ev_attr::kCount, &why), 0) << why;
  a.state = ProfileState::kOnline;
  ASSERT_EQ(c.modify_ev_profile(0, a, kToOnline, &why), 0) << why;
  for (std::size_t i = 0; i < 5; ++i) ASSERT_EQ(c.report_ev_state(0, i, EvState::kAssumedBad), 0);
  EXPECT_EQ(c.pending_events(), 2u);  // 3 dropped, queue never overruns
  std::array<EvEvent, 8> out{};
  ASSERT_EQ(c.poll_events(out), 2u);
  EXPECT_EQ(out[0].drop_count, 0u);
  ASSERT_EQ(c.report_ev_state(0, 7, EvState::kAssumedBad), 0);
  ASSERT_EQ(c.poll_events(out), 1u);
  EXPECT_EQ(out[0].drop_count, expect_drop);
  EXPECT_EQ(out[0].ev.port, c.ev_array(0)[7].port);
  ASSERT_EQ(c.report_ev_state(0, 6, EvState::kAssumedBad), 0);
  ASSERT_EQ(c.poll_events(out), 1u);
  EXPECT_EQ(out[0].drop_count, 0u);
  // Drops reported from upstream (a QP's health buffer) ride on the next event too.
  c.note_dropped_events(2);
  ASSERT_EQ(c.report_ev_state(0, 6, EvState::kGood), 0);
  ASSERT_EQ(c.poll_events(out), 1u);
  EXPECT_EQ(out[0].drop_count, precise ? 2u : 1u);
  EXPECT_EQ(out[0].state, EvState::kGood);
}

TEST(EvEvents, PreciseDropCount) { overflow_and_check(true, 3); }
TEST(EvEvents, ImpreciseDropFlag) { overflow_and_check(false, 1); }

TEST(EvEvents, NoEventsWithoutCapability) {
  DeviceLimits l;
  l.caps &= ~cap::kEvEvent;
  Controller c(l);
  EvProfileAttr a;
  a.state = ProfileState::kOffline;
  a.mode = EvMode::kAuto;
  a.ev_count = 8;
  a.ev_event_mask = bits(EvState::kAssumedBad);
  ASSERT_EQ(c.modify_ev_profile(0, a, ev_attr::kState | ev_attr::kMode | ev_attr::kCount), 0);
  a.state = ProfileState::kOnline;
  ASSERT_EQ(c.modify_ev_profile(0, a, kToOnline), 0);
  ASSERT_EQ(c.report_ev_state(0, 1, EvState::kAssumedBad), 0);
  EXPECT_EQ(c.pending_events(), 0u);
  EXPECT_EQ(c.ev_array(0)[1].state, EvState::kAssumedBad);
}

}  // namespace
}  // namespace mrc::ev
