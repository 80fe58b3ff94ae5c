// Wire symptoms of the responder-side defects, seen through two endpoints (the responder's own
// tests check the same defects on its packets before encoding): sack-off-by-one, wrong-ev-echo,
// no-trim-nack, no-ce-sack, no-ts-reflect, accept-out-of-window, drop-encapsulated. Each against a
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
    if (w.from() == 1 && is_feedback(w)) out.push_back(w);
  }
  return out;
}

// SACK bits naming a PSN that had not reached B when the feedback left it.
std::size_t sack_bits_without_arrival(const std::vector<WireFrame>& frames) {
  std::set<std::uint32_t> arrived;  // A's data PSNs not dropped by an impairment, by send time
  std::size_t bad = 0;
  for (const auto& w : frames) {
    if (w.from() == 0 && is_data_frame(w) && !w.tap->filtered) arrived.insert(w.f.bth.psn);
    if (w.from() == 1 && is_sack(w)) {
      const std::uint32_t base = w.f.seth.sack_base();
      for (unsigned i = 0; i < 64; ++i) {
        if (w.f.seth.sack_bit(i) && !arrived.count((base + i) & transport::kPsnMask)) ++bad;
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

// SACKs and NACKs whose entropy differs from the EV value (flow label << 16 | sport) of the data
// copy of the PSN they answer that A sent last before the feedback.
std::size_t wrong_echoes(const std::vector<WireFrame>& frames) {
  std::map<std::uint32_t, std::uint32_t> ev_of_psn;
  std::size_t bad = 0, checked = 0;
  for (const auto& w : frames) {
    if (w.from() == 0 && is_data_frame(w)) ev_of_psn[w.f.bth.psn] = (w.f.ip6.flow_label << 16) | w.f.udp.sport;
    if (w.from() == 1 && (is_sack(w) || is_nack(w)) && !(is_sack(w) && w.f.seth.pr)) {
      const auto it = ev_of_psn.find(is_sack(w) ? w.f.seth.ack_psn() : w.f.neth.nack_psn);
      if (it == ev_of_psn.end()) continue;
      ++checked;
      bad += it->second != (is_sack(w) ? w.f.seth.entropy : w.f.neth.entropy);
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

std::size_t count_nacks(const std::vector<WireFrame>& frames, std::uint8_t reason) {
  std::size_t n = 0;
  for (const auto& w : feedback_from_b(frames)) n += is_nack(w) && w.f.neth.nack_reason == reason;
  return n;
}

TEST(ResponderDefectWire, NoTrimNack) {
  Impairment imp;
  imp.trim = 0.05;
  PairOptions o;
  o.timeout = 6;
  const Capture clean = capture(o, imp);
  EXPECT_GT(count_nacks(clean, wire::nack::kTrimmed) + count_nacks(clean, wire::nack::kTrimmedLastHop), 0u);
  o.defects_b = with(Defect::kNoTrimNack);
  const Capture broken = capture(o, imp);
  EXPECT_EQ(count_nacks(broken, wire::nack::kTrimmed) + count_nacks(broken, wire::nack::kTrimmedLastHop), 0u);
}

// SACKs with m = SKIP_ONCE: an ECN-CE mark each (W6).
std::size_t skip_once_sacks(const std::vector<WireFrame>& frames) {
  std::size_t n = 0;
  for (const auto& w : feedback_from_b(frames)) n += is_sack(w) && w.f.seth.m == wire::MpVerdict::kSkipOnce;
  return n;
}

TEST(ResponderDefectWire, NoCeSack) {
  Impairment imp;
  imp.ecn = 0.05;
  PairOptions o;
  EXPECT_GT(skip_once_sacks(capture(o, imp)), 0u);
  o.defects_b = with(Defect::kNoCeSack);
  EXPECT_EQ(skip_once_sacks(capture(o, imp)), 0u);
}

// SACKs that name (ack_psn) a PSN past cack_psn + 128: B took a PSN beyond its window.
std::size_t beyond_window_sacks(const std::vector<WireFrame>& frames) {
  std::size_t n = 0;
  for (const auto& w : feedback_from_b(frames)) {
    if (!is_sack(w) || w.f.seth.pr) continue;
    const std::uint32_t d = transport::psn_diff(w.f.seth.ack_psn(), w.f.seth.cack_psn);
    n += d > 128 && d < (1u << 23);
  }
  return n;
}

TEST(ResponderDefectWire, AcceptOutOfWindow) {
  PairOptions o;
  o.mtu = IBV_MTU_256;
  o.mpr = 1;
  o.mpr_dest = 1;
  o.defects_a = with(Defect::kExceedMprWindow);  // A pushes past B's 128-PSN window
  EXPECT_EQ(beyond_window_sacks(capture(o, {}, 100, 4096, true)), 0u);  // MODEL: W12 silent drop
  o.defects_b = with(Defect::kAcceptOutOfWindow);
  EXPECT_GT(beyond_window_sacks(capture(o, {}, 100, 4096, true)), 0u);
}

// SACKs answering data that reflect a timestamp other than 0 (a TSETH sent in the first 128 ns
// of the run is 0, so some clean ones may be 0 too).
std::size_t reflections(const std::vector<WireFrame>& frames) {
  std::size_t n = 0;
  for (const auto& w : feedback_from_b(frames)) n += is_sack(w) && !w.f.seth.pr && w.f.cc.tx_timestamp != 0;
  return n;
}

TEST(ResponderDefectWire, NoTsReflect) {
  PairOptions o;
  EXPECT_GT(reflections(capture(o, {})), 0u);
  o.defects_b = with(Defect::kNoTsReflect);
  const Capture frames = capture(o, {});
  EXPECT_FALSE(feedback_from_b(frames).empty());
  EXPECT_EQ(reflections(frames), 0u);
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
// outer header (the form W1 lets a receiver get). The clean responder places and acknowledges
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
  std::size_t data_feedback = 0;  // a probe's answer (pr = 1) is not about the WRITEs it dropped
  for (const auto& w : feedback_from_b(broken)) data_feedback += !(is_sack(w) && w.f.seth.pr);
  EXPECT_EQ(data_feedback, 0u);
  EXPECT_EQ(drain_completions(*broken.pair).first, 0);

  o.fmt = wire::EvFmtMode::kStev;
  Capture stev = capture(o, {}, 20, 8192);
  EXPECT_EQ(encapsulated_data_from_a(stev), 0u);
  EXPECT_EQ(drain_completions(*stev.pair), std::make_pair(20, 0));
}

}  // namespace
}  // namespace mrc::ref::testing
