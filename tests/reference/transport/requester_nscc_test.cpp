// Requester <-> NSCC wiring (W14): cwnd gates data and a packet that fills it sets A, RTT samples are now - send_ts(trig)
// - RTT from the reflected timestamp, SKIP_ONCE marks and delay shrink the window, trims are fed
//   as trims; nscc-no-decrease defect.
#include <gtest/gtest.h>

#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

constexpr std::uint32_t kBase = 0x1000;

cc::NsccParams params(std::uint32_t max_cwnd = 0, std::uint32_t base_rtt = 50'000) {
  cc::NsccConfig c;
  c.base_rtt = base_rtt;
  c.mtu_bytes = 1024;
  c.max_cwnd = max_cwnd;
  const cc::NsccParams p = cc::resolve(c);
  EXPECT_TRUE(p.ok());
  return p;
}

TEST(RequesterNscc, CwndGatesNewData) {
  const cc::NsccParams p = params(8 * 1024);
  Harness h(default_config(), 16, 8, {}, {}, {}, &p);
  ASSERT_EQ(h.write(1, 64 * 1024), 0);
  const auto pkts = h.drain(0);
  EXPECT_EQ(pkts.size(), 8u);  // 8 KiB window, 1 KiB packets
  EXPECT_LE(h.r->inflight_bytes(), h.r->nscc()->cwnd());
  EXPECT_GT(h.r->stats().blocked_cwnd, 0u);
  h.r->on_feedback(ack(psn(kBase, 1), psn(kBase, 1)), 10'000);
  EXPECT_GE(h.drain(10'000).size(), 2u);
}

// W3 (B: UET NSCC.AckRequest): the packet that leaves the window less than one MTU of room asks
// for an immediate SACK, so a lazily SACKing responder cannot hold the window shut; the packets
// before it do not (the 64 KiB message's last packet is far off).
TEST(RequesterNscc, APacketThatFillsTheWindowSetsA) {
  const cc::NsccParams p = params(8 * 1024);
  Harness h(default_config(), 16, 8, {}, {}, {}, &p);
  ASSERT_EQ(h.write(1, 64 * 1024), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 8u);
  for (std::size_t i = 0; i < pkts.size(); ++i) EXPECT_EQ(pkts[i].bth.ack_req, i == 7) << "packet " << i;
}

// W14: the RTT sample is the requester's clock now minus the timestamp the SACK reflects (128 ns
// units), so a responder that adds its service time to it (MODEL: W14) shortens the sample; with
// TSETH off the requester times the PSN itself.
TEST(RequesterNscc, RttSampleComesFromTheReflectedTimestamp) {
  for (bool tseth : {true, false}) {
    const cc::NsccParams p = params(0, 50'000);
    RequesterConfig c = default_config();
    c.tseth = tseth;
    Harness h(c, 16, 8, {}, {}, {}, &p);
    ASSERT_EQ(h.write(1, 100), 0);
    const auto pk = h.drain(1024);
    ASSERT_EQ(pk.size(), 1u);
    ASSERT_EQ(pk[0].has_tseth, tseth);
    FeedbackInfo f = ack(psn(kBase, 0), psn(kBase, 0));
    // Reflected with 8 us (62.5 units) of service time added.
    f.cc.tx_timestamp = static_cast<std::uint16_t>(pk[0].tseth.tx_timestamp + 8000 / 128);
    h.r->on_feedback(f, 1024 + 20'480);
    EXPECT_EQ(h.r->nscc()->live_base_rtt_ns(), tseth ? 20'480u - 62 * 128 : 20'480u);
  }
}

TEST(RequesterNscc, RetransmittedPsnGivesNoRttSample) {
  const cc::NsccParams p = params(0, 50'000);
  Harness h(default_config(), 16, 8, {}, {}, {}, &p);
  ASSERT_EQ(h.write(1, 100), 0);
  h.drain(0);
  const std::uint64_t t = h.r->next_deadline();
  h.r->advance(t);
  h.drain(t);
  h.r->on_feedback(ack(psn(kBase, 0), psn(kBase, 0)), t + 1000);  // ambiguous: which copy?
  EXPECT_EQ(h.r->nscc()->live_base_rtt_ns(), 50'000u);
}

double run_congested(bool never_decrease) {
  const cc::NsccParams p = params(0, 10'000);
  Harness h(default_config(), 16, 8, {}, {}, {}, &p, never_decrease);
  EXPECT_EQ(h.write(1, 4 << 20), 0);
  const double start = h.r->nscc()->cwnd_exact();
  std::uint64_t now = 0;
  std::uint32_t acked = 0;
  // Every ACK is ECN-marked with a 40 us RTT (4x the base RTT): NSCC must shrink the window.
  for (int round = 0; round < 50; ++round) {
    const auto pkts = h.drain(now);
    now += 40'000;
    for (const auto& pk : pkts) {
      FeedbackInfo f = ack(pk.bth.psn, pk.bth.psn);
      f.seth.m = wire::MpVerdict::kSkipOnce;  // W14: marked
      f.cc.tx_timestamp = pk.tseth.tx_timestamp;
      h.r->on_feedback(f, now);
      ++acked;
    }
  }
  EXPECT_GT(acked, 0u);
  return h.r->nscc()->cwnd_exact() / start;
}

TEST(RequesterNscc, EcnAndDelayShrinkTheWindow) { EXPECT_LT(run_congested(false), 0.5); }

TEST(RequesterDefects, NsccNoDecreaseKeepsTheWindow) { EXPECT_GE(run_congested(true), 1.0); }

TEST(RequesterNscc, TrimNackIsFedAsATrim) {
  const cc::NsccParams p = params(0, 10'000);
  Harness h(default_config(), 16, 8, {}, {}, {}, &p);
  ASSERT_EQ(h.write(1, 16 * 1024), 0);
  h.drain(0);
  const double before = h.r->nscc()->cwnd_exact();
  h.r->on_feedback(trim_nack(psn(kBase, 3)), 5000);
  EXPECT_TRUE(h.r->nscc()->fired_count(cc::NsccRule::kTrimShrink) +
                  h.r->nscc()->fired_count(cc::NsccRule::kQuickAdapt) > 0);
  EXPECT_LT(h.r->nscc()->cwnd_exact(), before);
}

}  // namespace
}  // namespace mrc::transport::testing
