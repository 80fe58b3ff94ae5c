// The requester's Data class (W13): first transmissions carry RequesterConfig::data_dscp and
// retransmissions retx_dscp, whatever values the endpoint was configured with; nothing falls back
// to W13's built-in defaults.
#include <gtest/gtest.h>

#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

TEST(RequesterDscp, DefaultsAreW13sTrimmableForBoth) {
  const RequesterConfig c;
  EXPECT_EQ(c.data_dscp, wire::DscpConfig{}.trimmable);
  EXPECT_EQ(c.retx_dscp, wire::DscpConfig{}.trimmable);
}

TEST(RequesterDscp, FirstTransmissionsAndRetransmissionsCarryTheConfiguredValues) {
  RequesterConfig cfg = default_config();
  cfg.data_dscp = 20;
  cfg.retx_dscp = 22;  // a requester that uses DSCP_TRIMMABLE_RETX for retransmissions
  Harness h(cfg);
  ASSERT_EQ(h.write(1, 3000), 0);
  const auto first = h.drain(1000);
  ASSERT_EQ(first.size(), 3u);
  for (const TxPacket& p : first) {
    EXPECT_FALSE(p.bth.rtx);
    EXPECT_EQ(p.dscp, 20u) << "PSN " << p.bth.psn;
  }
  // No feedback: after T every PSN is resent, each with RTX and the retransmission DSCP.
  const std::uint64_t t = h.r->next_deadline();
  h.r->advance(t);
  const auto again = h.drain(t);
  ASSERT_FALSE(again.empty());
  for (const TxPacket& p : again) {
    EXPECT_TRUE(p.bth.rtx);
    EXPECT_EQ(p.dscp, 22u) << "PSN " << p.bth.psn;
  }
}

}  // namespace
}  // namespace mrc::transport::testing
