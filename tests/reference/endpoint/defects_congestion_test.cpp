// Wire symptoms of the defects in how a requester takes congestion feedback, each against a
// control run: trim-nack-ignored, trim-marks-bad, data-not-ect. One trimmed data packet in 20, and an ACK
// timeout (T = 4.19 ms) far longer than the 2 ms watched, so only the NACKs can make A resend.
#include <gtest/gtest.h>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

struct Counts {
  std::size_t trim_nacks = 0;     // NACK TRIMMED from B
  std::size_t retransmitted = 0;  // data from A with BTH.RTX
  std::size_t probes = 0;         // path probes from A: an EV it holds ASSUMED_BAD
  std::size_t data = 0;           // data from A
  std::size_t not_ect = 0;        // of it, sent Not-ECT
};

Counts trimmed_run(const PairOptions& o, int writes = 200, std::uint32_t len = 8192, double trim = 0.05) {
  Impairment imp;
  imp.trim = trim;
  Pair p(o, LinkParams{}, imp);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, writes, len);
  p.fabric->run_for(2'000'000);
  Counts c;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 1 && is_nack(w) && w.f.neth.nack_reason == wire::nack::kTrimmed) ++c.trim_nacks;
    if (w.from() == 0 && is_data_frame(w) && w.f.bth.rtx) ++c.retransmitted;
    if (w.from() == 0 && is_probe(w)) ++c.probes;
    if (w.from() == 0 && is_data_frame(w)) {
      ++c.data;
      c.not_ect += w.f.ip6.ecn == wire::kEcnNotEct;
    }
  }
  return c;
}

PairOptions long_timeout() {
  PairOptions o;
  o.timeout = 12;
  return o;
}

// One single-packet write, trimmed every time it is sent: nothing after it can reveal the hole in a
// SACK, so only the NACK (or the timer, 4.19 ms away) makes A resend.
TEST(CongestionDefectSymptoms, TrimNackIgnored) {
  PairOptions o = long_timeout();
  const Counts clean = trimmed_run(o, 1, 1024, 1.0);
  ASSERT_GT(clean.trim_nacks, 0u);
  EXPECT_GT(clean.retransmitted, 0u);  // W7: resent at once
  o.defects_a = with(Defect::kTrimNackIgnored);
  const Counts broken = trimmed_run(o, 1, 1024, 1.0);
  ASSERT_GT(broken.trim_nacks, 0u);
  EXPECT_EQ(broken.retransmitted, 0u);  // waiting for a timer that has not fired yet
}

TEST(CongestionDefectSymptoms, TrimMarksBad) {
  PairOptions o = long_timeout();
  const Counts clean = trimmed_run(o);
  ASSERT_GT(clean.trim_nacks, 0u);
  EXPECT_EQ(clean.probes, 0u);  // W11: SKIP, never ASSUMED_BAD, so no EV needs probing
  o.defects_a = with(Defect::kTrimMarksBad);
  const Counts broken = trimmed_run(o);
  ASSERT_GT(broken.trim_nacks, 0u);
  EXPECT_GT(broken.probes, 0u);  // the trimmed EVs were retired and are probed back
}

TEST(CongestionDefectSymptoms, DataNotEct) {
  PairOptions o = long_timeout();
  const Counts clean = trimmed_run(o);
  ASSERT_GT(clean.data, 0u);
  EXPECT_EQ(clean.not_ect, 0u);  // the reference sends ECT(0) (W13)
  o.defects_a = with(Defect::kDataNotEct);
  const Counts broken = trimmed_run(o);
  ASSERT_GT(broken.data, 0u);
  EXPECT_EQ(broken.not_ect, broken.data);
}

}  // namespace
}  // namespace mrc::ref::testing
