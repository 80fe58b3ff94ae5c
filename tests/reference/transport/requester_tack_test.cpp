// The requester recovering a lost Transport ACK (W8, requester_tack.cpp): a WR its SACKs retired
// waits for the ACK only one ACK timeout, then resends its last packet (RTX, A) to draw it again.
#include <gtest/gtest.h>

#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

constexpr std::uint64_t kT = 262'144;  // default_config's timeout 8: 1.024 us x 2^8

TEST(RequesterTack, ASackedWrWithoutItsAckResendsItsLastPacket) {
  Harness h;
  ASSERT_EQ(h.write(1, 3000), 0);  // PSNs 0x1000..0x1002
  ASSERT_EQ(h.drain(0).size(), 3u);
  h.r->on_feedback(ack(psn(0x1000, 2), psn(0x1000, 2)), 5000);  // SACKed, no Transport ACK
  EXPECT_TRUE(h.completions().empty());
  const std::uint64_t due = h.r->next_deadline();
  ASSERT_NE(due, UINT64_MAX);
  EXPECT_GE(due, 5000 + kT);
  EXPECT_TRUE(h.drain(due - 1).empty());
  h.r->advance(due);
  const auto again = h.drain(due);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].bth.psn, psn(0x1000, 2));  // the last packet, marked a retransmission
  EXPECT_TRUE(again[0].bth.rtx);
  EXPECT_TRUE(again[0].bth.ack_req);
  EXPECT_EQ(h.r->stats().timeouts, 1u);

  h.r->on_feedback(tack(psn(0x1000, 2)), due + 1000);  // the ACK it drew completes the WR
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].wr_id, 1u);
  EXPECT_EQ(done[0].status, IBV_WC_SUCCESS);
  EXPECT_EQ(h.r->next_deadline(), UINT64_MAX);
}

// Control: with its ACK in time nothing is resent.
TEST(RequesterTack, AnAckInTimeResendsNothing) {
  Harness h;
  ASSERT_EQ(h.write(1, 3000), 0);
  h.drain(0);
  h.r->on_feedback(ack(psn(0x1000, 2), psn(0x1000, 2)), 5000);
  h.r->on_feedback(tack(psn(0x1000, 2)), 6000);
  h.r->advance(10 * kT);
  EXPECT_TRUE(h.drain(10 * kT).empty());
  EXPECT_EQ(h.r->stats().timeouts, 0u);
  EXPECT_EQ(h.completions().size(), 1u);
}

// A responder that never sends the ACK: retries are bounded (W15), the QP errs.
TEST(RequesterTack, RetriesRunOutIntoRetryExceeded) {
  RequesterConfig c = default_config();
  c.timeout = 2;
  c.retry = {2, 2};
  Harness h(c);
  ASSERT_EQ(h.write(1, 1000), 0);
  h.drain(0);
  h.r->on_feedback(ack(psn(0x1000, 0), psn(0x1000, 0)), 100);
  std::size_t resent = 0;
  for (int k = 0; k < 20 && !h.r->in_error(); ++k) {
    const std::uint64_t now = h.r->next_deadline();
    ASSERT_NE(now, UINT64_MAX);
    h.r->advance(now);
    resent += h.drain(now).size();
  }
  EXPECT_TRUE(h.r->in_error());
  EXPECT_GE(resent, 1u);
  const auto done = h.completions();
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done[0].status, IBV_WC_RETRY_EXC_ERR);
}

}  // namespace
}  // namespace mrc::transport::testing
