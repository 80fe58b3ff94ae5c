// Wire symptoms of the sending-limit defects, each against a control run: exceed-mpr-window,
// ignore-wimm, nscc-no-decrease.
#include <gtest/gtest.h>

#include <numeric>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

constexpr std::uint32_t kSqPsnA = 0x100;  // connect() gives A's QP sq_psn 0x100

std::uint32_t max_unacked(const PairOptions& o, std::uint32_t writes, std::uint32_t len, bool imm) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, static_cast<int>(writes), len, imm);
  p.fabric->run_for(3'000'000);
  return max_unacked_on_wire(decode_taps(*p.fabric), kSqPsnA);
}

TEST(DefectSymptoms, ExceedMprWindow) {
  PairOptions o;
  o.mtu = IBV_MTU_256;
  o.mpr = 1;
  o.mpr_dest = 1;  // window = 128 PSNs
  const std::uint32_t good = max_unacked(o, 200, 4096, false);
  EXPECT_LE(good, 128u);
  EXPECT_GE(good, 64u);  // the window is actually used
  o.defects_a = with(Defect::kExceedMprWindow);
  EXPECT_GT(max_unacked(o, 200, 4096, false), 128u);
}

// Most WRITE-with-IMM messages (ONLY_IMM packets) A had sent and B had not acknowledged.
std::uint32_t max_wimm_outstanding(const PairOptions& o) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 64, 512, true);  // single-packet WRITE WITH IMM messages
  p.fabric->run_for(2'000'000);
  EXPECT_EQ(drain_completions(p).first, 64);
  std::uint32_t cum_next = kSqPsnA;
  std::vector<std::uint32_t> sent;  // ONLY_IMM PSNs
  std::uint32_t worst = 0;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (!w.ok) continue;
    if (w.from() == 1 && is_feedback(w)) {
      const std::uint32_t n = (w.f.bth.psn + 1) & transport::kPsnMask;
      if (transport::psn_before(cum_next, n)) cum_next = n;
    } else if (w.from() == 0 && w.f.bth.opcode == wire::opcode::kMrcWriteOnlyImm) {
      sent.push_back(w.f.bth.psn);
      std::uint32_t open = 0;
      for (std::uint32_t s : sent) open += !transport::psn_before(s, cum_next);
      worst = std::max(worst, open);
    }
  }
  return worst;
}

TEST(DefectSymptoms, IgnoreWimm) {
  PairOptions o;
  o.max_wimm = 2;          // A's limit; B accepts up to 128
  o.max_wimm_dest = 128;
  const std::uint32_t good = max_wimm_outstanding(o);
  EXPECT_LE(good, 2u);
  EXPECT_EQ(good, 2u);
  o.defects_a = with(Defect::kIgnoreWimm);
  EXPECT_GT(max_wimm_outstanding(o), 2u);
}

// Average PSNs in flight on the wire in the second half of a run where every data frame is
// ECN-marked and 10 Gb/s planes build queueing delay.
double late_inflight(const PairOptions& o) {
  Pair p(o, LinkParams{1000, 10.0});
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  p.fabric->filter = [](int side, transport::TxFrame& f, std::uint64_t) {
    if (side == 0) {
      // IPv6 traffic class ECN bits (byte 15 of the frame, bits 5..4) := CE, as a congested
      // switch would; the ICRC masks the traffic class, so the frame stays valid.
      f.bytes[wire::kEthLen + 1] = static_cast<std::uint8_t>(f.bytes[wire::kEthLen + 1] | 0x30);
    }
    return true;
  };
  Traffic t = setup_traffic(p, 16u << 20);
  post_writes(p, t, 1000, 16384);
  p.fabric->run_for(1'000'000);
  const auto frames = decode_taps(*p.fabric);
  std::uint32_t cum_next = kSqPsnA;
  std::vector<double> samples;
  for (const auto& w : frames) {
    if (!w.ok) continue;
    if (w.from() == 1 && is_feedback(w)) {
      const std::uint32_t n = (w.f.bth.psn + 1) & transport::kPsnMask;
      if (transport::psn_before(cum_next, n)) cum_next = n;
    } else if (w.from() == 0 && is_data(w.f) && w.t() > 500'000) {
      samples.push_back(transport::psn_diff(w.f.bth.psn, cum_next) + 1.0);
    }
  }
  EXPECT_FALSE(samples.empty());
  return samples.empty() ? 0 : std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
}

TEST(DefectSymptoms, NsccNoDecrease) {
  PairOptions o;
  const double good = late_inflight(o);
  o.defects_a = with(Defect::kNsccNoDecrease);
  const double bad = late_inflight(o);
  EXPECT_GT(bad, 2 * good) << "control " << good << " PSNs in flight, defect " << bad;
  std::printf("in flight late in the run: control %.1f PSNs, nscc-no-decrease %.1f PSNs\n", good, bad);
}

}  // namespace
}  // namespace mrc::ref::testing
