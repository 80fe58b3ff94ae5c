// Responder: frames that name a QP this responder is not, and frames too short for their headers.
// Both are dropped without placement or feedback; the accept_wrong_qpn / accept_truncated quirks
// (the shape a NIC that gets this wrong would have) place or answer them instead.
#include <gtest/gtest.h>

#include "tests/reference/transport/responder_fixture.hpp"

namespace mrc::transport::test {
namespace {

class ResponderInvalid : public ResponderTest {};

TEST_F(ResponderInvalid, WrongQpnIsDroppedSilently) {
  make();
  DataPacket p = data(wire::opcode::kMrcWriteOnly, 0, 0, 64, 0x5A);
  p.dest_qp = 0xABCDE;
  p.ack_req = true;
  EXPECT_EQ(deliver(p, 1000), RxOutcome::kDroppedWrongQp);
  rsp_->advance(100'000, sink_);
  EXPECT_EQ(sink_.size(), 0u);
  EXPECT_EQ(memory(0, 64), filled(64, 0));
  EXPECT_EQ(rsp_->stats().wrong_qp, 1u);
  EXPECT_EQ(rsp_->window().epsn(), 0u);
}

TEST_F(ResponderInvalid, AcceptWrongQpnQuirkPlacesAndAcknowledges) {
  ResponderQuirks q;
  q.accept_wrong_qpn = true;
  make({}, q);
  DataPacket p = data(wire::opcode::kMrcWriteOnly, 0, 0, 64, 0x5A);
  p.dest_qp = 0xABCDE;
  p.ack_req = true;
  EXPECT_EQ(deliver(p, 1000), RxOutcome::kPlaced);
  EXPECT_EQ(sink_.count(&SentFeedback::is_sack), 1u);
  ASSERT_EQ(sink_.count(&SentFeedback::is_ack), 1u);
  EXPECT_EQ(sink_.last_of(&SentFeedback::is_ack).syndrome(), wire::syndrome::kAck);
  EXPECT_EQ(memory(0, 64), filled(64, 0x5A));
}

TEST_F(ResponderInvalid, TruncatedFrameIsDroppedSilently) {
  make();
  EXPECT_EQ(deliver(data(wire::opcode::kMrcWriteOnly, 0), 1000), RxOutcome::kPlaced);
  rsp_->advance(10'000, sink_);  // the delayed SACK and ACK of PSN 0
  sink_.clear();
  rsp_->on_truncated(1, 20'000, sink_);
  rsp_->advance(100'000, sink_);
  EXPECT_EQ(sink_.size(), 0u);
  EXPECT_EQ(rsp_->stats().truncated, 1u);
  EXPECT_EQ(rsp_->window().epsn(), 1u);
}

TEST_F(ResponderInvalid, AcceptTruncatedQuirkReAcknowledges) {
  ResponderQuirks q;
  q.accept_truncated = true;
  make({}, q);
  EXPECT_EQ(deliver(data(wire::opcode::kMrcWriteOnly, 0), 1000), RxOutcome::kPlaced);
  sink_.clear();
  rsp_->on_truncated(3, 2000, sink_);
  ASSERT_EQ(sink_.count(&SentFeedback::is_ack), 1u);
  const SentFeedback& ack = sink_.last_of(&SentFeedback::is_ack);
  EXPECT_EQ(ack.syndrome(), wire::syndrome::kAck);
  EXPECT_EQ(ack.cum(), 0u);
  EXPECT_EQ(ack.egress.arrival_port, 3u);
  EXPECT_EQ(rsp_->window().epsn(), 1u);  // nothing placed
}

}  // namespace
}  // namespace mrc::transport::test
