// Requester feedback handling (MODEL: M5): cumulative ACK and in-order completions, selective
// retransmission from the SACK bitmap (base = BTH.PSN + 1 + sack_base_off), NACK-loss and TRIM
// NACK retransmitting the named PSN at once on another EV, ECN/trim cooldown and NACK-loss EV
// retirement (MODEL: M7), fatal NAKs; plus the go-back-n defect.
#include <gtest/gtest.h>

#include <set>

#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

constexpr std::uint32_t kBase = 0x1000;

TEST(RequesterFeedback, CumulativeAckCompletesInPostingOrder) {
  Harness h;
  ASSERT_EQ(h.write(10, 2048), 0);               // PSN 0..1
  ASSERT_EQ(h.write(11, 100, false, 0, 0, 0), 0);  // PSN 2, unsignaled
  ASSERT_EQ(h.write(12, 100), 0);                // PSN 3
  ASSERT_EQ(h.drain(0).size(), 4u);
  h.r->on_feedback(ack(psn(kBase, 0), psn(kBase, 0)), 100);
  EXPECT_TRUE(h.completions().empty());          // WR 10 not fully acknowledged
  h.r->on_feedback(ack(psn(kBase, 3), psn(kBase, 3)), 200);
  const auto cs = h.completions();
  ASSERT_EQ(cs.size(), 2u);                      // the unsignaled WR has no completion
  EXPECT_EQ(cs[0].wr_id, 10u);
  EXPECT_EQ(cs[0].status, IBV_WC_SUCCESS);
  EXPECT_EQ(cs[0].opcode, IBV_WC_RDMA_WRITE);
  EXPECT_EQ(cs[0].byte_len, 2048u);
  EXPECT_EQ(cs[0].qp_num, 0x111u);
  EXPECT_TRUE(cs[0].is_send);
  EXPECT_EQ(cs[1].wr_id, 12u);
  EXPECT_EQ(h.r->queued_wrs(), 0u);
}

TEST(RequesterFeedback, SackedPsnsAreNotResentOnTimeout) {
  Harness h;
  ASSERT_EQ(h.write(1, 10 * 1024), 0);  // PSN 0..9
  ASSERT_EQ(h.drain(0).size(), 10u);
  // PSN 0..1 arrived in order, 2 and 5 are missing, the rest arrived (base = cum + 1 + 0).
  h.r->on_feedback(sack(psn(kBase, 1), psn(kBase, 9), psn(kBase, 2),
                        {psn(kBase, 3), psn(kBase, 4), psn(kBase, 6), psn(kBase, 7), psn(kBase, 8),
                         psn(kBase, 9)}),
                   1000);
  EXPECT_EQ(h.r->stats().sacked_psns, 6u);
  h.r->advance(h.r->next_deadline());
  std::set<std::uint32_t> resent;
  for (const auto& p : h.drain(h.r->next_deadline())) resent.insert(p.bth.psn);
  EXPECT_EQ(resent, (std::set<std::uint32_t>{psn(kBase, 2), psn(kBase, 5)}));
}

TEST(RequesterFeedback, SackBaseHonoursTheOffset) {
  ev::HealthParams hp;
  hp.ev_min_active = 16;  // a mass timeout must not retire every EV in this test
  Harness h(default_config(), 16, 8, hp);
  ASSERT_EQ(h.write(1, 80 * 1024), 0);  // PSN 0..79
  ASSERT_EQ(h.drain(0).size(), 80u);
  // cum = PSN 0; the bitmap block starts at cum + 1 + 64 = PSN 65; PSN 70 arrived.
  FeedbackInfo f = sack(psn(kBase, 0), psn(kBase, 70), psn(kBase, 65), {psn(kBase, 70)});
  h.r->on_feedback(f, 1000);
  EXPECT_EQ(h.r->stats().sacked_psns, 1u);
  h.r->advance(h.r->next_deadline());
  std::set<std::uint32_t> resent;
  for (const auto& p : h.drain(h.r->next_deadline())) resent.insert(p.bth.psn);
  EXPECT_EQ(resent.size(), 78u);
  EXPECT_EQ(resent.count(psn(kBase, 70)), 0u);
  EXPECT_EQ(resent.count(psn(kBase, 0)), 0u);
}

TEST(RequesterFeedback, NackLossResendsTheNamedPsnNowOnAnotherEv) {
  Harness h;
  ASSERT_EQ(h.write(1, 8 * 1024), 0);
  const auto sent = h.drain(0);
  h.r->on_feedback(nack_loss(psn(kBase, 2), psn(kBase, 3)), 20'000);
  const auto r = h.drain(20'000);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].bth.psn, psn(kBase, 3));
  EXPECT_NE(r[0].path.ev_index, sent[3].path.ev_index);
  EXPECT_EQ(h.r->stats().nack_loss, 1u);
  EXPECT_EQ(h.r->stats().timeouts, 0u);
}

TEST(RequesterFeedback, TwoNackLossesOnOneEvWithin1msRetireIt) {
  Harness h;  // 16 EVs: PSN i and i + 16 leave on the same EV
  ASSERT_EQ(h.write(1, 40 * 1024), 0);
  const auto sent = h.drain(0);
  ASSERT_EQ(sent[4].path.ev_index, sent[20].path.ev_index);
  const auto ev = static_cast<std::uint16_t>(sent[4].path.ev_index);
  h.r->on_feedback(nack_loss(psn(kBase, 3), psn(kBase, 4)), 50'000);
  EXPECT_EQ(h.r->health().state(ev), ev::EvState::kGood);
  h.r->on_feedback(nack_loss(psn(kBase, 3), psn(kBase, 20)), 60'000);
  EXPECT_EQ(h.r->health().state(ev), ev::EvState::kAssumedBad);  // M7
}

TEST(RequesterFeedback, TrimNackResendsFirstOnAnotherEvAndCoolsTheEv) {
  ev::HealthParams hp;
  hp.cooldown_ns = 12'000;
  Harness h(default_config(), 16, 8, hp);
  ASSERT_EQ(h.write(1, 8 * 1024), 0);
  const auto sent = h.drain(0);
  // A timeout-driven retransmission is queued first; the trim goes ahead of it.
  h.r->on_feedback(nack_loss(psn(kBase, 0) - 1, psn(kBase, 6)), 30'000);
  h.r->on_feedback(trim_nack(psn(kBase, 0) - 1, psn(kBase, 5)), 30'000);
  const auto trimmed_ev = static_cast<std::uint16_t>(sent[5].path.ev_index);
  EXPECT_TRUE(h.r->health().cooling(trimmed_ev, 30'001));
  EXPECT_EQ(h.r->health().state(trimmed_ev), ev::EvState::kGood);  // congestion is not failure
  const auto r = h.drain(30'000);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].bth.psn, psn(kBase, 5));
  EXPECT_NE(r[0].path.ev_index, trimmed_ev);
  EXPECT_EQ(r[1].bth.psn, psn(kBase, 6));
  EXPECT_EQ(h.r->stats().trim_nacks, 1u);
}

TEST(RequesterFeedback, EcnMarkCoolsTheTriggerEv) {
  ev::HealthParams hp;
  hp.cooldown_ns = 12'000;
  Harness h(default_config(), 16, 8, hp);
  ASSERT_EQ(h.write(1, 4 * 1024), 0);
  const auto sent = h.drain(0);
  FeedbackInfo f = ack(psn(kBase, 1), psn(kBase, 1));
  f.ce = true;
  h.r->on_feedback(f, 10'000);
  EXPECT_TRUE(h.r->health().cooling(static_cast<std::uint16_t>(sent[1].path.ev_index), 10'001));
  EXPECT_FALSE(h.r->health().cooling(static_cast<std::uint16_t>(sent[0].path.ev_index), 10'001));
  EXPECT_EQ(h.r->stats().ecn_marks, 1u);
}

TEST(RequesterFeedback, StaleAndBogusFeedbackIsHarmless) {
  Harness h;
  ASSERT_EQ(h.write(1, 4 * 1024), 0);
  h.drain(0);
  h.r->on_feedback(ack(psn(kBase, 1), psn(kBase, 1)), 100);
  h.r->on_feedback(ack(psn(kBase, 0), psn(kBase, 0)), 200);      // older cumulative ACK
  h.r->on_feedback(ack(psn(kBase, 5000), psn(kBase, 5000)), 300);  // beyond what was sent
  EXPECT_EQ(h.r->una_psn(), psn(kBase, 2));
  h.r->on_feedback(nack_loss(psn(kBase, 1), psn(kBase, 900)), 400);  // unknown PSN
  EXPECT_TRUE(h.drain(400).empty());
  EXPECT_FALSE(h.r->in_error());
}

TEST(RequesterFeedback, RemoteAccessNakFailsTheWrAndFlushesTheRest) {
  Harness h;
  ASSERT_EQ(h.write(1, 100), 0);
  ASSERT_EQ(h.write(2, 100), 0);
  ASSERT_EQ(h.write(3, 100), 0);
  h.drain(0);
  FeedbackInfo f = ack(psn(kBase, 0), psn(kBase, 1));
  f.syndrome = wire::syndrome::kNakRemoteAccess;
  h.r->on_feedback(f, 1000);
  EXPECT_TRUE(h.r->in_error());
  const auto cs = h.completions();
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0].wr_id, 1u);  // acknowledged before the NAK
  EXPECT_EQ(cs[0].status, IBV_WC_SUCCESS);
  EXPECT_EQ(cs[1].wr_id, 2u);
  EXPECT_EQ(cs[1].status, IBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(cs[2].wr_id, 3u);
  EXPECT_EQ(cs[2].status, IBV_WC_WR_FLUSH_ERR);
}

TEST(RequesterDefects, GoBackNResendsSackedPsns) {
  RequesterConfig c = default_config();
  c.quirks.go_back_n = true;
  Harness h(c);
  ASSERT_EQ(h.write(1, 10 * 1024), 0);
  h.drain(0);
  h.r->on_feedback(sack(psn(kBase, 1), psn(kBase, 9), psn(kBase, 2),
                        {psn(kBase, 3), psn(kBase, 4), psn(kBase, 5)}),
                   1000);
  h.r->on_feedback(nack_loss(psn(kBase, 1), psn(kBase, 2)), 50'000);
  std::set<std::uint32_t> resent;
  for (const auto& p : h.drain(50'000)) resent.insert(p.bth.psn);
  EXPECT_EQ(resent.size(), 8u);                   // PSN 2..9, SACKed ones included
  EXPECT_EQ(resent.count(psn(kBase, 4)), 1u);
}

}  // namespace
}  // namespace mrc::transport::testing
