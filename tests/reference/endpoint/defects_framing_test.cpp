// Wire symptoms of the framing and placement defects (reference/defects.hpp), each against a
// control run without the defect: spray-single-ev, use-denied-ev, no-flow-label-ev, usid-reverse,
// srh-wrong-sl, srv6-tag-constant, wrong-icrc, no-reth-middle.
#include <gtest/gtest.h>

#include <set>

#include "reference/wire/ev_placement.hpp"
#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

// Runs `n` writes of `len` bytes from A and returns the decoded capture.
struct Capture {
  explicit Capture(PairOptions o, int n = 64, std::uint32_t len = 4096)
      : pair(o) {
    EXPECT_EQ(pair.error, "");
    pair.fabric->record = true;
    Traffic t = setup_traffic(pair);
    post_writes(pair, t, n, len);
    pair.fabric->run_for(2'000'000);
    frames = decode_taps(*pair.fabric);
  }
  std::vector<WireFrame> data_from_a() const {
    std::vector<WireFrame> out;
    for (const auto& w : frames) {
      if (w.from() == 0 && w.ok && is_data(w.f)) out.push_back(w);
    }
    return out;
  }
  Pair pair;
  std::vector<WireFrame> frames;
};

std::size_t distinct_evs(const Capture& r) {
  std::set<EvKey> evs;
  for (const auto& w : r.data_from_a()) evs.insert(ev_key(w));
  return evs.size();
}

TEST(DefectSymptoms, SpraySingleEv) {
  PairOptions o;
  EXPECT_GE(distinct_evs(Capture(o)), 32u);
  o.defects_a = with(Defect::kSpraySingleEv);
  EXPECT_EQ(distinct_evs(Capture(o)), 1u);
}

std::size_t frames_on_denied(PairOptions o) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  // The controller denies EV 5 of A's profile before traffic starts.
  const ev::EvEntry denied = p.a->controller().ev_array(0)[5];
  ev::EvOpEntry op;
  op.ev = denied.ref();
  op.state = ev::EvState::kDenied;
  EXPECT_EQ(p.a->controller().modify_ev_state(0, std::span<const ev::EvOpEntry>(&op, 1)), 0);
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 64, 4096);
  p.fabric->run_for(2'000'000);
  std::size_t n = 0;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() != 0 || !is_data_frame(w)) continue;
    const std::uint32_t v = (w.f.ip6.flow_label << 16) | w.f.udp.sport;
    if (w.port() == denied.port && v == wire::stev_value(denied.wire)) ++n;
  }
  EXPECT_GT(drain_completions(p).first, 0);
  return n;
}

TEST(DefectSymptoms, UseDeniedEv) {
  PairOptions o;
  EXPECT_EQ(frames_on_denied(o), 0u);
  o.defects_a = with(Defect::kUseDeniedEv);
  EXPECT_GT(frames_on_denied(o), 0u);
}

TEST(DefectSymptoms, NoFlowLabelEv) {
  PairOptions o;
  auto nonzero_labels = [](const Capture& r) {
    std::size_t n = 0;
    for (const auto& w : r.data_from_a()) n += w.f.ip6.flow_label != 0;
    return n;
  };
  Capture good(o);
  EXPECT_EQ(nonzero_labels(good), good.data_from_a().size());  // W2: flow label = V >> 16
  o.defects_a = with(Defect::kNoFlowLabelEv);
  Capture bad(o);
  EXPECT_FALSE(bad.data_from_a().empty());
  EXPECT_EQ(nonzero_labels(bad), 0u);
}

// Outer DAs of A's data frames that are not the first 16 bytes of any EV of A's profile.
std::size_t foreign_das(const Capture& r) {
  std::set<wire::Ipv6Addr> valid;
  for (const auto& e : r.pair.a->controller().ev_array(0)) {
    wire::Ipv6Addr da{};
    std::copy(e.wire.begin(), e.wire.begin() + 16, da.begin());
    valid.insert(da);
  }
  std::size_t n = 0;
  for (const auto& w : r.data_from_a()) {
    EXPECT_TRUE(w.f.encapsulated);
    n += valid.count(w.f.ip6.dst) == 0;
  }
  return n;
}

TEST(DefectSymptoms, UsidReverse) {
  PairOptions o;
  o.fmt = wire::EvFmtMode::kSrv6;
  Capture good(o);
  EXPECT_FALSE(good.data_from_a().empty());
  EXPECT_EQ(foreign_das(good), 0u);
  o.defects_a = with(Defect::kUsidReverse);
  Capture bad(o);
  EXPECT_EQ(foreign_das(bad), bad.data_from_a().size());
  EXPECT_FALSE(bad.data_from_a().empty());
}

TEST(DefectSymptoms, Srv6TagConstant) {
  PairOptions o;
  o.fmt = wire::EvFmtMode::kSrv6;
  auto tags = [](Capture& c) {
    std::set<std::uint32_t> seen;
    for (const auto& w : c.data_from_a()) seen.insert(wire::ev_echo_value(w.f, wire::EvFmtMode::kSrv6));
    return seen;
  };
  Capture good(o);
  ASSERT_FALSE(good.data_from_a().empty());
  EXPECT_GT(tags(good).size(), 1u);  // W2: one tag per EV, 0xC000 | index
  o.defects_a = with(Defect::kSrv6TagConstant);
  Capture bad(o);
  ASSERT_FALSE(bad.data_from_a().empty());
  EXPECT_EQ(tags(bad), (std::set<std::uint32_t>{wire::kSrv6SportBase}));
}

TEST(DefectSymptoms, SrhWrongSegmentsLeft) {
  PairOptions o;
  o.fmt = wire::EvFmtMode::kSrv6;
  o.srh = true;
  Capture good(o);
  ASSERT_FALSE(good.data_from_a().empty());
  for (const auto& w : good.data_from_a()) {
    ASSERT_TRUE(w.f.has_srh);
    EXPECT_EQ(w.f.srh.segments_left, 1u);  // W1 single-segment SRH, reduced encapsulation
  }
  EXPECT_GT(drain_completions(good.pair).first, 0);
  o.defects_a = with(Defect::kSrhWrongSegmentsLeft);
  Capture bad(o);
  ASSERT_FALSE(bad.data_from_a().empty());
  for (const auto& w : bad.data_from_a()) EXPECT_EQ(w.f.srh.segments_left, 0u);
}

TEST(DefectSymptoms, WrongIcrc) {
  PairOptions o;
  Capture good(o);
  for (const auto& w : good.data_from_a()) EXPECT_TRUE(w.f.icrc_ok);
  o.defects_a = with(Defect::kWrongIcrc);
  Capture bad(o, 8);
  ASSERT_FALSE(bad.data_from_a().empty());
  for (const auto& w : bad.data_from_a()) EXPECT_FALSE(w.f.icrc_ok);
  EXPECT_EQ(drain_completions(bad.pair).first, 0);  // B drops every one of them
}

TEST(DefectSymptoms, NoRethOnMiddle) {
  PairOptions o;
  auto reth_mismatches = [](const Capture& r) {
    std::size_t n = 0;
    for (const auto& w : r.data_from_a()) {
      // W4: every packet's RETH names the whole 4096-byte message.
      n += !w.f.has_reth || w.f.reth.dma_length != 4096;
    }
    return n;
  };
  Capture good(o, 16, 4096);
  EXPECT_EQ(reth_mismatches(good), 0u);
  o.defects_a = with(Defect::kNoRethOnMiddle);
  Capture bad(o, 16, 4096);
  EXPECT_GT(reth_mismatches(bad), 0u);
}

}  // namespace
}  // namespace mrc::ref::testing
