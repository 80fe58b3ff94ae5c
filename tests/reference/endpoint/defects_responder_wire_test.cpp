// Wire symptoms of the responder-side defects, seen through two endpoints (the responder's own
// tests check the same defects on its packets before encoding): sack-off-by-one, wrong-ev-echo,
// no-trim-nack, no-nack-loss, accept-out-of-window, no-service-time, drop-encapsulated. Each against a
// control run.
// (place-trimmed-stub, early-completion and double-completion show in memory and completions, not
// on the wire; tests/reference/transport/responder_defects_test.cpp covers them.)
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

// `hole`: the first copy of A's first PSN (0x100) is lost, so B's window stays put for a while.
// The decoded frames view the pair's taps, so both travel together.
struct Capture {
  std::unique_ptr<Pair> pair;
  std::vector<WireFrame> frames;
  operator const std::vector<WireFrame>&() const { return frames; }  // NOLINT(google-explicit-constructor)
};

Capture capture(const PairOptions& o, const Impairment& imp, int writes = 200, std::uint32_t len = 8192,
                bool hole = false) {
  Capture c;
  c.pair = std::make_unique<Pair>(o, LinkParams{}, imp);
  Pair& p = *c.pair;
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  if (hole) {
    auto dropped = std::make_shared<bool>(false);
    p.fabric->filter = [dropped](int side, transport::TxFrame& f, std::uint64_t) {
      wire::DecodedFrame d;
      if (side != 0 || *dropped || !wire::decode_frame(f.view(), d).ok() || !is_data(d) || d.bth.psn != 0x100) {
        return true;
      }
      *dropped = true;
      return false;
    };
  }
  Traffic t = setup_traffic(p);
  post_writes(p, t, writes, len);
  p.fabric->run_for(3'000'000);
  c.frames = decode_taps(*p.fabric);
  return c;
}

std::vector<WireFrame> feedback_from_b(const std::vector<WireFrame>& frames) {
  std::vector<WireFrame> out;
  for (const auto& w : frames) {
    if (w.from() == 1 && is_feedback(w) && w.f.has_mfeh) out.push_back(w);
  }
  return out;
}

// SACK bits naming a PSN that had not reached B when the feedback left it.
std::size_t sack_bits_without_arrival(const std::vector<WireFrame>& frames) {
  std::set<std::uint32_t> arrived;  // A's data PSNs not dropped by an impairment, by send time
  std::size_t bad = 0;
  for (const auto& w : frames) {
    if (w.from() == 0 && is_data_frame(w) && !w.tap->filtered) arrived.insert(w.f.bth.psn);
    if (w.from() == 1 && is_feedback(w) && w.f.has_mfeh && w.f.mfeh.sack_valid) {
      const std::uint32_t base = (w.f.bth.psn + 1 + w.f.mfeh.sack_base_off) & transport::kPsnMask;
      for (unsigned i = 0; i < 64; ++i) {
        if (w.f.mfeh.sack_bit(i) && !arrived.count((base + i) & transport::kPsnMask)) ++bad;
      }
    }
  }
  return bad;
}

TEST(ResponderDefectWire, SackOffByOne) {
  Impairment imp;
  imp.reorder = 0.3;  // holes, so SACK bitmaps appear
  PairOptions o;
  EXPECT_EQ(sack_bits_without_arrival(capture(o, imp)), 0u);
  o.defects_b = with(Defect::kSackOffByOne);
  EXPECT_GT(sack_bits_without_arrival(capture(o, imp)), 0u);
}

// Feedback whose ev_echo differs from the EV value (flow label << 16 | sport) of the data copy of
// trig_psn that A sent last before the feedback.
std::size_t wrong_echoes(const std::vector<WireFrame>& frames) {
  std::map<std::uint32_t, std::uint32_t> ev_of_psn;
  std::size_t bad = 0, checked = 0;
  for (const auto& w : frames) {
    if (w.from() == 0 && is_data_frame(w)) ev_of_psn[w.f.bth.psn] = (w.f.ip6.flow_label << 16) | w.f.udp.sport;
    if (w.from() == 1 && is_feedback(w) && w.f.has_mfeh && w.f.mfeh.ev_valid) {
      const auto it = ev_of_psn.find(w.f.mfeh.trig_psn);
      if (it == ev_of_psn.end()) continue;
      ++checked;
      bad += it->second != w.f.mfeh.ev_echo;
    }
  }
  EXPECT_GT(checked, 0u);
  return bad;
}

TEST(ResponderDefectWire, WrongEvEcho) {
  PairOptions o;
  EXPECT_EQ(wrong_echoes(capture(o, {})), 0u);
  o.defects_b = with(Defect::kWrongEvEcho);
  EXPECT_GT(wrong_echoes(capture(o, {})), 0u);
}

std::size_t count_syndrome(const std::vector<WireFrame>& frames, std::uint8_t syndrome) {
  std::size_t n = 0;
  for (const auto& w : feedback_from_b(frames)) n += w.f.aeth.syndrome == syndrome;
  return n;
}

TEST(ResponderDefectWire, NoTrimNack) {
  Impairment imp;
  imp.trim = 0.05;
  PairOptions o;
  o.timeout = 6;
  EXPECT_GT(count_syndrome(capture(o, imp), wire::syndrome::kNakTrim), 0u);
  o.defects_b = with(Defect::kNoTrimNack);
  EXPECT_EQ(count_syndrome(capture(o, imp), wire::syndrome::kNakTrim), 0u);
}

TEST(ResponderDefectWire, NoNackLoss) {
  Impairment imp;
  imp.drop = 0.02;
  imp.data_only = true;
  PairOptions o;
  o.timeout = 6;
  EXPECT_GT(count_syndrome(capture(o, imp), wire::syndrome::kNakPsnSeqError), 0u);
  o.defects_b = with(Defect::kNoNackLoss);
  EXPECT_EQ(count_syndrome(capture(o, imp), wire::syndrome::kNakPsnSeqError), 0u);
}

std::size_t out_of_range_feedback(const std::vector<WireFrame>& frames) {
  std::size_t n = 0;
  for (const auto& w : feedback_from_b(frames)) n += w.f.mfeh.type == wire::FeedbackType::kPsnOutOfRange;
  return n;
}

TEST(ResponderDefectWire, AcceptOutOfWindow) {
  PairOptions o;
  o.mtu = IBV_MTU_256;
  o.mpr = 1;
  o.mpr_dest = 1;
  o.defects_a = with(Defect::kExceedMprWindow);  // A pushes past B's 128-PSN window
  EXPECT_GT(out_of_range_feedback(capture(o, {}, 100, 4096, true)), 0u);  // M9: type 4
  o.defects_b = with(Defect::kAcceptOutOfWindow);
  EXPECT_EQ(out_of_range_feedback(capture(o, {}, 100, 4096, true)), 0u);
}

std::size_t with_service_time(const std::vector<WireFrame>& frames) {
  std::size_t n = 0;
  for (const auto& w : feedback_from_b(frames)) n += w.f.mfeh.svc_valid;
  return n;
}

TEST(ResponderDefectWire, NoServiceTime) {
  PairOptions o;
  EXPECT_GT(with_service_time(capture(o, {})), 0u);
  o.defects_b = with(Defect::kNoServiceTime);
  const Capture frames = capture(o, {});
  EXPECT_FALSE(feedback_from_b(frames).empty());
  EXPECT_EQ(with_service_time(frames), 0u);
}

}  // namespace
}  // namespace mrc::ref::testing

namespace mrc::ref::testing {
namespace {

std::size_t encapsulated_data_from_a(const std::vector<WireFrame>& frames) {
  std::size_t n = 0;
  for (const auto& w : frames) n += w.ok && w.from() == 0 && is_data(w.f) && w.f.encapsulated;
  return n;
}

// drop-encapsulated: the pair has no leaf, so A's SRv6 frames reach B as A built them, with the
// outer header (the form M1 lets a receiver get). The clean responder places and acknowledges
// them; the defect drops them all. Control: STEV frames carry no outer header, so the defect
// changes nothing there.
TEST(ResponderDefectWire, DropEncapsulated) {
  PairOptions o;
  o.fmt = wire::EvFmtMode::kSrv6;
  Capture clean = capture(o, {}, 20, 8192);
  EXPECT_GT(encapsulated_data_from_a(clean), 0u);
  EXPECT_GT(feedback_from_b(clean).size(), 0u);
  EXPECT_EQ(drain_completions(*clean.pair), std::make_pair(20, 0));

  o.defects_b = with(Defect::kDropEncapsulated);
  Capture broken = capture(o, {}, 20, 8192);
  EXPECT_GT(encapsulated_data_from_a(broken), 0u);
  EXPECT_EQ(feedback_from_b(broken).size(), 0u);
  EXPECT_EQ(drain_completions(*broken.pair).first, 0);

  o.fmt = wire::EvFmtMode::kStev;
  Capture stev = capture(o, {}, 20, 8192);
  EXPECT_EQ(encapsulated_data_from_a(stev), 0u);
  EXPECT_EQ(drain_completions(*stev.pair), std::make_pair(20, 0));
}

}  // namespace
}  // namespace mrc::ref::testing
