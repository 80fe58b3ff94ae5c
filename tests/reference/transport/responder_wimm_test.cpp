// WRITE WITH IMMEDIATE at the responder (W4, W16): completion only after every PSN of the
// message is placed, exactly once, in message order; no posted receive is a fatal QP error.
#include "tests/reference/transport/responder_fixture.hpp"

namespace mrc::transport::test {
namespace {

namespace op = wire::opcode;

TEST_F(ResponderTest, WimmCompletesOnlyAfterAllItsPsnsArePlaced) {
  make();
  ASSERT_EQ(rsp_->post_recv(0x1001), 0);
  DataPacket last = data(op::kMrcWriteLastImm, 2, 128, 40);
  last.imm = 0xCAFEF00D;
  deliver(data(op::kMrcWriteFirst, 0, 0, 64), 10);
  deliver(last, 20);
  EXPECT_TRUE(completions().empty());  // PSN 1 missing
  deliver(data(op::kMrcWriteMiddle, 1, 64, 64), 30);
  const auto cs = completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].wr_id, 0x1001u);
  EXPECT_EQ(cs[0].status, IBV_WC_SUCCESS);
  EXPECT_EQ(cs[0].opcode, IBV_WC_RECV_RDMA_WITH_IMM);
  EXPECT_EQ(cs[0].imm_data, 0xCAFEF00Du);
  EXPECT_EQ(cs[0].byte_len, 64u + 64u + 40u);
  EXPECT_EQ(cs[0].qp_num, kLocalQpn);
  EXPECT_FALSE(cs[0].is_send);
  EXPECT_EQ(rsp_->msn(), 1u);
  EXPECT_EQ(rsp_->posted_receives(), 0u);
}

TEST_F(ResponderTest, WimmCompletesExactlyOnceDespiteDuplicates) {
  make();
  ASSERT_EQ(rsp_->post_recv(1), 0);
  ASSERT_EQ(rsp_->post_recv(2), 0);
  DataPacket only = data(op::kMrcWriteOnlyImm, 0, 0, 32);
  only.imm = 7;
  deliver(only, 10);
  EXPECT_EQ(deliver(only, 20), RxOutcome::kDuplicate);  // after completion
  const auto cs = completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].wr_id, 1u);
  EXPECT_EQ(rsp_->posted_receives(), 1u);  // receive 2 untouched
  // A duplicate of a LAST still waiting for an earlier PSN does not complete it either.
  DataPacket last = data(op::kMrcWriteLastImm, 2, 64, 32);
  deliver(last, 30);
  deliver(last, 40);
  EXPECT_TRUE(completions().empty());
  deliver(data(op::kMrcWriteFirst, 1, 32, 32), 50);
  EXPECT_EQ(completions().size(), 1u);
}

TEST_F(ResponderTest, WimmCompletionsComeInMessageOrder) {
  make();
  ASSERT_EQ(rsp_->post_recv(0xA), 0);
  ASSERT_EQ(rsp_->post_recv(0xB), 0);
  // Message A: PSN 0 FIRST, PSN 1 LAST_IMM (imm 0xAAAA). Message B: PSN 2 ONLY_IMM (imm 0xBBBB).
  DataPacket b = data(op::kMrcWriteOnlyImm, 2, 256, 16);
  b.imm = 0xBBBB;
  DataPacket a_last = data(op::kMrcWriteLastImm, 1, 64, 64);
  a_last.imm = 0xAAAA;
  deliver(b, 10);  // B is whole, but A is not
  EXPECT_TRUE(completions().empty());
  deliver(a_last, 20);
  EXPECT_TRUE(completions().empty());
  deliver(data(op::kMrcWriteFirst, 0, 0, 64), 30);
  const auto cs = completions();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].imm_data, 0xAAAAu);
  EXPECT_EQ(cs[0].wr_id, 0xAu);
  EXPECT_EQ(cs[0].byte_len, 128u);
  EXPECT_EQ(cs[1].imm_data, 0xBBBBu);
  EXPECT_EQ(cs[1].wr_id, 0xBu);
  EXPECT_EQ(cs[1].byte_len, 16u);
  EXPECT_EQ(rsp_->msn(), 2u);
}

TEST_F(ResponderTest, WimmWaitsForAnEarlierPlainWrite) {
  make();
  ASSERT_EQ(rsp_->post_recv(5), 0);
  deliver(data(op::kMrcWriteOnlyImm, 1, 64, 16), 10);
  EXPECT_TRUE(completions().empty());  // the WRITE at PSN 0 is not placed yet
  deliver(data(op::kMrcWriteOnly, 0, 0, 64), 20);
  EXPECT_EQ(completions().size(), 1u);
}

TEST_F(ResponderTest, WimmWithoutPostedReceiveIsFatal) {
  make();
  DataPacket p = data(op::kMrcWriteOnlyImm, 0, 0, 64, 0x77);
  EXPECT_EQ(deliver(p, 10), RxOutcome::kNakRemoteOpError);
  ASSERT_EQ(sink_.size(), 1u);
  EXPECT_EQ(sink_.last().syndrome(), wire::syndrome::kNakRemoteOpError);
  EXPECT_EQ(sink_.last().cum(), 0u);  // MODEL: W8 a Transport NAK names the refused PSN
  EXPECT_TRUE(rsp_->in_error());
  EXPECT_EQ(rsp_->fatal_reason(), FatalReason::kNoReceive);
  EXPECT_EQ(memory(0, 64), filled(64, 0));  // nothing placed
  // The QP is dead: later data is dropped without feedback.
  EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 0, 0, 64), 20), RxOutcome::kDroppedQpError);
  EXPECT_EQ(sink_.size(), 1u);
  // Receives posted in ERR complete at once as flushed.
  EXPECT_EQ(rsp_->post_recv(9), 0);
  const auto cs = completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].wr_id, 9u);
  EXPECT_EQ(cs[0].status, IBV_WC_WR_FLUSH_ERR);
}

TEST_F(ResponderTest, EachPendingWimmReservesItsOwnReceive) {
  make();
  ASSERT_EQ(rsp_->post_recv(1), 0);
  // Two WIMMs held behind a hole at PSN 0: the second has no receive left.
  EXPECT_EQ(deliver(data(op::kMrcWriteOnlyImm, 1, 0, 16), 10), RxOutcome::kPlaced);
  EXPECT_EQ(deliver(data(op::kMrcWriteOnlyImm, 2, 16, 16), 20), RxOutcome::kNakRemoteOpError);
  EXPECT_EQ(rsp_->fatal_reason(), FatalReason::kNoReceive);
  // Going to ERR flushes the receive the first one had reserved.
  const auto cs = completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].status, IBV_WC_WR_FLUSH_ERR);
}

TEST_F(ResponderTest, MoreWimmsPendingThanMaxWimmDestIsFatal) {
  ResponderConfig c;
  c.max_wimm_dest = 2;
  make(c);
  for (std::uint64_t i = 0; i < 4; ++i) ASSERT_EQ(rsp_->post_recv(i), 0);
  EXPECT_EQ(deliver(data(op::kMrcWriteOnlyImm, 1, 0, 16), 10), RxOutcome::kPlaced);
  EXPECT_EQ(deliver(data(op::kMrcWriteOnlyImm, 2, 16, 16), 20), RxOutcome::kPlaced);
  EXPECT_EQ(deliver(data(op::kMrcWriteOnlyImm, 3, 32, 16), 30), RxOutcome::kNakRemoteOpError);
  EXPECT_EQ(rsp_->fatal_reason(), FatalReason::kWimmOverflow);
}

TEST_F(ResponderTest, ReceiveQueueIsBounded) {
  ResponderConfig c;
  c.max_recv_wr = 2;
  make(c);
  EXPECT_EQ(rsp_->post_recv(1), 0);
  EXPECT_EQ(rsp_->post_recv(2), 0);
  EXPECT_EQ(rsp_->post_recv(3), ENOMEM);
  rsp_->set_error();
  EXPECT_EQ(rsp_->fatal_reason(), FatalReason::kLocal);
  EXPECT_EQ(completions().size(), 2u);
}

}  // namespace
}  // namespace mrc::transport::test
