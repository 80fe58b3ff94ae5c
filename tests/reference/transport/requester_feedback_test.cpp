// Requester feedback handling (W5-W8): completions in posting order on the Transport ACK only,
// selective retransmission from the SACK bitmap (base = cack_psn + sack_offset), losses inferred
// from SACK holes (MODEL: W6) and their EV retirement, NACK TRIMMED resending the named PSN at once
// on another EV with its EV in SKIP, SKIP_ONCE and ALWAYS_SKIP (W11), fatal Transport NAKs; plus
// the go-back-n defect.
#include <gtest/gtest.h>

#include <set>

#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

constexpr std::uint32_t kBase = 0x1000;

TEST(RequesterFeedback, TransportAckCompletesInPostingOrder) {
  Harness h;
  ASSERT_EQ(h.write(10, 2048), 0);               // PSN 0..1
  ASSERT_EQ(h.write(11, 100, false, 0, 0, 0), 0);  // PSN 2, unsignaled
  ASSERT_EQ(h.write(12, 100), 0);                // PSN 3
  ASSERT_EQ(h.drain(0).size(), 4u);
  h.r->on_feedback(tack(psn(kBase, 0)), 100);
  EXPECT_TRUE(h.completions().empty());          // WR 10 not fully acknowledged
  // A SACK covering everything completes nothing (W8): it is reliability, not completion.
  h.r->on_feedback(ack(psn(kBase, 3), psn(kBase, 3)), 150);
  EXPECT_TRUE(h.completions().empty());
  EXPECT_EQ(h.r->una_psn(), psn(kBase, 4));
  h.r->on_feedback(tack(psn(kBase, 3)), 200);
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
  // cack = PSN 0; the bitmap block starts at cack + sack_offset 65 = PSN 65; PSN 70 arrived.
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

TEST(RequesterFeedback, SackHoleIsInferredLostAndResentOnAnotherEv) {
  Harness h;
  ASSERT_EQ(h.write(1, 8 * 1024), 0);
  const auto sent = h.drain(0);
  // An RTT sample first (the trigger PSN 0): inference waits for one and for 2 RTTs of age.
  h.r->on_feedback(ack(psn(kBase, 0), psn(kBase, 0)), 5'000);
  // PSN 3 missing, 4..7 arrived: more than reorder_tolerance later transmissions acknowledged.
  const FeedbackInfo hole = sack(psn(kBase, 2), psn(kBase, 7), psn(kBase, 3),
                                 {psn(kBase, 4), psn(kBase, 5), psn(kBase, 6), psn(kBase, 7)});
  h.r->on_feedback(hole, 20'000);
  // Sent with PSN 7, which took 20 us: PSN 3 gets as long plus a reordering window (RACK).
  EXPECT_TRUE(h.drain(20'000).empty());
  h.r->on_feedback(hole, 30'000);
  const auto r = h.drain(30'000);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].bth.psn, psn(kBase, 3));
  EXPECT_TRUE(r[0].bth.rtx);  // W3 RTX on every retransmission
  EXPECT_NE(r[0].path.ev_index, sent[3].path.ev_index);
  EXPECT_EQ(h.r->stats().inferred_losses, 1u);
  EXPECT_EQ(h.r->stats().timeouts, 0u);
}

TEST(RequesterFeedback, PsnNoBitmapCoveredIsNotInferredLost) {
  Harness h;
  ASSERT_EQ(h.write(1, 8 * 1024), 0);
  h.drain(0);
  h.r->on_feedback(ack(psn(kBase, 0), psn(kBase, 0)), 5'000);
  // Bitmaps based at PSN 7 say nothing of 2..3: unknown is not missing. PSN 1, right after
  // cack_psn, is missing by definition.
  h.r->on_feedback(sack(psn(kBase, 0), psn(kBase, 7), psn(kBase, 7), {psn(kBase, 7)}), 20'000);
  h.r->on_feedback(sack(psn(kBase, 0), psn(kBase, 6), psn(kBase, 6), {psn(kBase, 6)}), 20'000);
  h.r->on_feedback(sack(psn(kBase, 0), psn(kBase, 5), psn(kBase, 5), {psn(kBase, 5)}), 20'000);
  h.r->on_feedback(sack(psn(kBase, 0), psn(kBase, 4), psn(kBase, 4), {psn(kBase, 4)}), 20'000);
  h.r->on_feedback(sack(psn(kBase, 0), psn(kBase, 4), psn(kBase, 4), {psn(kBase, 4)}), 30'000);
  EXPECT_EQ(h.r->stats().inferred_losses, 1u);
  const auto r = h.drain(30'000);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].bth.psn, psn(kBase, 1));
}

// The SACK an RTX copy draws at once, naming it (W6): the retransmission arrived.
FeedbackInfo rtx_sack(std::uint32_t cum, std::uint32_t psn) {
  FeedbackInfo f = ack(cum, psn);
  f.rtx = true;
  return f;
}

TEST(RequesterFeedback, TwoInferredLossesInARowOnOneEvRetireIt) {
  Harness h;  // 16 EVs: PSN i and i + 16 leave on the same EV
  ASSERT_EQ(h.write(1, 40 * 1024), 0);
  const auto sent = h.drain(0);
  ASSERT_EQ(sent[4].path.ev_index, sent[20].path.ev_index);
  const auto ev = static_cast<std::uint16_t>(sent[4].path.ev_index);
  h.r->on_feedback(ack(psn(kBase, 3), psn(kBase, 3)), 5'000);
  std::vector<std::uint32_t> got;
  for (std::uint32_t i = 5; i < 40; ++i) {
    if (i != 20 && i != 36) got.push_back(psn(kBase, i));
  }
  // A dead EV: PSN 4 missing first, then 20 and 36 too.
  const FeedbackInfo first = sack(psn(kBase, 3), psn(kBase, 10), psn(kBase, 4),
                                  std::vector<std::uint32_t>(got.begin(), got.begin() + 6));
  h.r->on_feedback(first, 50'000);
  h.r->on_feedback(first, 110'000);  // past the RACK window of PSN 10's 50 us
  ASSERT_EQ(h.drain(110'000).size(), 1u);  // PSN 4 again, RTX
  h.r->on_feedback(rtx_sack(psn(kBase, 3), psn(kBase, 4)), 112'000);  // its RTX copy arrived
  EXPECT_EQ(h.r->health().state(ev), ev::EvState::kGood);  // one loss
  const FeedbackInfo second = sack(psn(kBase, 4), psn(kBase, 39), psn(kBase, 5), got);
  h.r->on_feedback(second, 120'000);
  h.r->on_feedback(second, 250'000);
  h.drain(250'000);
  h.r->on_feedback(rtx_sack(psn(kBase, 19), psn(kBase, 20)), 252'000);
  EXPECT_EQ(h.r->health().state(ev), ev::EvState::kAssumedBad);  // MODEL: W11 two in a row
}

TEST(RequesterFeedback, LateFirstCopyIsNotHeldAgainstItsEv) {
  Harness h;
  ASSERT_EQ(h.write(1, 40 * 1024), 0);
  const auto sent = h.drain(0);
  const auto ev = static_cast<std::uint16_t>(sent[4].path.ev_index);
  h.r->on_feedback(ack(psn(kBase, 3), psn(kBase, 3)), 5'000);
  for (std::uint32_t late : {4u, 20u}) {
    std::vector<std::uint32_t> got;
    for (std::uint32_t i = late + 1; i < late + 12; ++i) got.push_back(psn(kBase, i));
    const FeedbackInfo holes = sack(psn(kBase, late - 1), psn(kBase, late + 11), psn(kBase, late), got);
    h.r->on_feedback(holes, 50'000 + late);
    h.r->on_feedback(holes, 200'000 + late);
    h.drain(200'000 + late);
    // The first copy turns up in a bitmap before the RTX copy's SACK: it was late, not lost.
    h.r->on_feedback(sack(psn(kBase, late - 1), psn(kBase, late + 11), psn(kBase, late), {psn(kBase, late)}), 201'000 + late);
    h.r->on_feedback(rtx_sack(psn(kBase, late + 11), psn(kBase, late)), 202'000 + late);
  }
  EXPECT_EQ(h.r->stats().inferred_losses, 2u);
  EXPECT_EQ(h.r->health().state(ev), ev::EvState::kGood);
}

TEST(RequesterFeedback, TrimNackResendsFirstOnAnotherEvAndSkipsTheEv) {
  ev::HealthParams hp;
  hp.skip_ns = 12'000;  // a SKIP timer, so the state can be read at a known time
  Harness h(default_config(), 16, 8, hp);
  ASSERT_EQ(h.write(1, 8 * 1024), 0);
  const auto sent = h.drain(0);
  // A NO_RESOURCE retransmission is queued first; the trim goes ahead of it.
  h.r->on_feedback(nack(psn(kBase, 6), wire::nack::kNoResource), 30'000);
  h.r->on_feedback(trim_nack(psn(kBase, 5)), 30'000);
  const auto trimmed_ev = static_cast<std::uint16_t>(sent[5].path.ev_index);
  EXPECT_TRUE(h.r->health().skipped(trimmed_ev, 30'001));
  EXPECT_EQ(h.r->health().state(trimmed_ev), ev::EvState::kGood);  // congestion is not failure
  EXPECT_FALSE(h.r->health().skipped(static_cast<std::uint16_t>(sent[6].path.ev_index), 30'001));
  const auto r = h.drain(30'000);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].bth.psn, psn(kBase, 5));
  EXPECT_NE(r[0].path.ev_index, trimmed_ev);
  EXPECT_EQ(r[1].bth.psn, psn(kBase, 6));
  EXPECT_EQ(h.r->stats().trim_nacks, 1u);
}

TEST(RequesterFeedback, LastHopTrimResendsWithoutSkip) {
  ev::HealthParams hp;
  hp.skip_ns = 12'000;
  Harness h(default_config(), 16, 8, hp);
  ASSERT_EQ(h.write(1, 4 * 1024), 0);
  const auto sent = h.drain(0);
  h.r->on_feedback(nack(psn(kBase, 2), wire::nack::kTrimmedLastHop), 10'000);
  EXPECT_FALSE(h.r->health().skipped(static_cast<std::uint16_t>(sent[2].path.ev_index), 10'001));
  const auto r = h.drain(10'000);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].bth.psn, psn(kBase, 2));
}

TEST(RequesterFeedback, SkipOnceSkipsTheTriggerEvAndAlwaysSkipRetiresIt) {
  ev::HealthParams hp;
  hp.skip_ns = 12'000;
  Harness h(default_config(), 16, 8, hp);
  ASSERT_EQ(h.write(1, 4 * 1024), 0);
  const auto sent = h.drain(0);
  FeedbackInfo f = ack(psn(kBase, 1), psn(kBase, 1));
  f.seth.m = wire::MpVerdict::kSkipOnce;
  h.r->on_feedback(f, 10'000);
  EXPECT_TRUE(h.r->health().skipped(static_cast<std::uint16_t>(sent[1].path.ev_index), 10'001));
  EXPECT_FALSE(h.r->health().skipped(static_cast<std::uint16_t>(sent[0].path.ev_index), 10'001));
  EXPECT_EQ(h.r->stats().ecn_marks, 1u);
  FeedbackInfo g = ack(psn(kBase, 1), psn(kBase, 3));
  g.seth.m = wire::MpVerdict::kAlwaysSkip;
  h.r->on_feedback(g, 11'000);
  EXPECT_EQ(h.r->health().state(static_cast<std::uint16_t>(sent[3].path.ev_index)), ev::EvState::kAssumedBad);
}

TEST(RequesterFeedback, UnexpectedEventNackFailsTheQp) {
  Harness h;
  ASSERT_EQ(h.write(1, 4 * 1024), 0);
  h.drain(0);
  h.r->on_feedback(nack(psn(kBase, 1), wire::nack::kUnexpEvent), 1000);
  EXPECT_TRUE(h.r->in_error());
  const auto cs = h.completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].status, IBV_WC_REM_OP_ERR);
}

TEST(RequesterFeedback, StaleAndBogusFeedbackIsHarmless) {
  Harness h;
  ASSERT_EQ(h.write(1, 4 * 1024), 0);
  h.drain(0);
  h.r->on_feedback(ack(psn(kBase, 1), psn(kBase, 1)), 100);
  h.r->on_feedback(ack(psn(kBase, 0), psn(kBase, 0)), 200);      // older cumulative ACK
  h.r->on_feedback(ack(psn(kBase, 5000), psn(kBase, 5000)), 300);  // beyond what was sent
  h.r->on_feedback(tack(psn(kBase, 5000)), 300);
  EXPECT_EQ(h.r->una_psn(), psn(kBase, 2));
  h.r->on_feedback(trim_nack(psn(kBase, 900)), 400);  // unknown PSN
  EXPECT_TRUE(h.drain(400).empty());
  EXPECT_FALSE(h.r->in_error());
}

TEST(RequesterFeedback, RemoteAccessNakFailsTheWrAndFlushesTheRest) {
  Harness h;
  ASSERT_EQ(h.write(1, 100), 0);
  ASSERT_EQ(h.write(2, 100), 0);
  ASSERT_EQ(h.write(3, 100), 0);
  h.drain(0);
  h.r->on_feedback(tack(psn(kBase, 0)), 1000);
  // W8 Transport NAK: its PSN is the refused packet.
  h.r->on_feedback(tack(psn(kBase, 1), wire::syndrome::kNakRemoteAccess), 1000);
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
  h.r->on_feedback(trim_nack(psn(kBase, 2)), 50'000);
  std::set<std::uint32_t> resent;
  for (const auto& p : h.drain(50'000)) resent.insert(p.bth.psn);
  EXPECT_EQ(resent.size(), 8u);                   // PSN 2..9, SACKed ones included
  EXPECT_EQ(resent.count(psn(kBase, 4)), 1u);
}

}  // namespace
}  // namespace mrc::transport::testing
