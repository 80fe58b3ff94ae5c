// Responder error NAKs: remote access error (0x62) for bad R_Key / bounds / access, invalid request
// (0x61) for the opcodes MRC forbids and malformed WRITEs. Both are fatal and place nothing.
#include "tests/reference/transport/responder_fixture.hpp"

namespace mrc::transport::test {
namespace {

namespace op = wire::opcode;

void expect_fatal_nak(const RecordingSink& sink, std::uint8_t syndrome, std::uint32_t psn) {
  ASSERT_EQ(sink.size(), 1u);
  const SentFeedback& fb = sink.last();
  EXPECT_EQ(fb.pkt.bth.opcode, op::kMrcAck);  // W8 Transport NAK
  EXPECT_EQ(fb.syndrome(), syndrome);
  EXPECT_EQ(fb.cum(), psn);  // MODEL: W8 BTH.PSN names the refused packet
}

TEST_F(ResponderTest, BadRkeyDrawsRemoteAccessNakAndPlacesNothing) {
  make();
  DataPacket p = data(op::kMrcWriteOnly, 0, 0, 64, 0x5A);
  p.rkey = mr_.rkey + 1;  // same slot, wrong generation
  EXPECT_EQ(deliver(p, 10), RxOutcome::kNakRemoteAccess);
  expect_fatal_nak(sink_, wire::syndrome::kNakRemoteAccess, 0);
  EXPECT_EQ(memory(0, 64), filled(64, 0));
  EXPECT_TRUE(rsp_->in_error());
  EXPECT_EQ(rsp_->fatal_reason(), FatalReason::kRemoteAccess);
  EXPECT_EQ(rsp_->window().epsn(), 0u);  // the PSN was not consumed
}

TEST_F(ResponderTest, WriteOutsideTheRegionDrawsRemoteAccessNak) {
  make();
  // Starts inside, runs one byte past the 64 KiB region.
  DataPacket p = data(op::kMrcWriteOnly, 0, 64 * 1024 - 63, 64, 0x5A);
  EXPECT_EQ(deliver(p, 10), RxOutcome::kNakRemoteAccess);
  expect_fatal_nak(sink_, wire::syndrome::kNakRemoteAccess, 0);
  EXPECT_EQ(memory(64 * 1024 - 63, 63), filled(63, 0));
}

TEST_F(ResponderTest, RegionWithoutRemoteWriteDrawsRemoteAccessNak) {
  make();
  const auto ro = mem_.register_region(4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
  ASSERT_EQ(ro.status, MemStatus::kOk);
  DataPacket p = data(op::kMrcWriteOnly, 0, 0, 64, 0x5A);
  p.rkey = ro.mr.rkey;
  p.va = ro.mr.addr;
  EXPECT_EQ(deliver(p, 10), RxOutcome::kNakRemoteAccess);
  wire::Bytes v;
  ASSERT_EQ(mem_.local_view(ro.mr.lkey, ro.mr.addr, 64, v), MemStatus::kOk);
  EXPECT_EQ(std::vector<std::uint8_t>(v.begin(), v.end()), filled(64, 0));
}

class ForbiddenOpcode : public ResponderTest, public ::testing::WithParamInterface<std::uint8_t> {};

TEST_P(ForbiddenOpcode, DrawsInvalidRequestNak) {
  make();
  DataPacket p = data(GetParam(), 0, 0, 28, 0x5A);
  EXPECT_EQ(deliver(p, 10), RxOutcome::kNakInvalidRequest);
  expect_fatal_nak(sink_, wire::syndrome::kNakInvalidRequest, 0);
  EXPECT_EQ(rsp_->fatal_reason(), FatalReason::kInvalidRequest);
  EXPECT_EQ(memory(0, 64), filled(64, 0));
}

INSTANTIATE_TEST_SUITE_P(ReadSendAtomic, ForbiddenOpcode,
                         ::testing::Values(op::kRcReadRequest, op::kRcSendOnly, op::kRcSendFirst,
                                           op::kRcSendOnlyImm, op::kRcCompareSwap,
                                           op::kRcFetchAdd));

TEST_F(ResponderTest, PayloadLongerThanTheMessageIsInvalidRequest) {
  make();
  DataPacket whole = data(op::kMrcWriteOnly, 0, 0, 64, 0x5A);
  whole.dma_length = 4096;  // W4: the whole message's length, longer than this packet: fine
  EXPECT_EQ(deliver(whole, 10), RxOutcome::kPlaced);
  DataPacket p = data(op::kMrcWriteOnly, 1, 64, 64, 0x5A);
  p.dma_length = 32;  // a packet cannot carry more than its message
  EXPECT_EQ(deliver(p, 20), RxOutcome::kNakInvalidRequest);
  expect_fatal_nak(sink_, wire::syndrome::kNakInvalidRequest, 1);
  EXPECT_EQ(memory(64, 64), filled(64, 0));
}

TEST_F(ResponderTest, DataWithoutMethOrRcWriteOpcodesAreInvalidRequests) {
  make();
  DataPacket rc = data(op::kRcWriteOnly, 0, 0, 64, 0x5A);  // plain RoCEv2 WRITE: not MRC (W3)
  EXPECT_EQ(deliver(rc, 10), RxOutcome::kNakInvalidRequest);
  EXPECT_EQ(memory(0, 64), filled(64, 0));
}

TEST_F(ResponderTest, PayloadLargerThanPathMtuIsInvalidRequest) {
  ResponderConfig c;
  c.path_mtu = 256;
  make(c);
  EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 0, 0, 512, 0x5A), 10), RxOutcome::kNakInvalidRequest);
  EXPECT_EQ(memory(0, 512), filled(512, 0));
}

TEST_F(ResponderTest, NonRequestOpcodesAreNotForTheResponder) {
  make();
  DataPacket ack = data(op::kMrcAck, 0, 0, 0);  // a Transport ACK arriving at a responder QP
  EXPECT_EQ(deliver(ack, 10), RxOutcome::kDroppedNotRequest);
  EXPECT_EQ(sink_.size(), 0u);
  EXPECT_FALSE(rsp_->in_error());
}

TEST_F(ResponderTest, ZeroLengthWriteNeedsNoValidRkey) {
  make();
  ASSERT_EQ(rsp_->post_recv(3), 0);
  DataPacket p = data(op::kMrcWriteOnlyImm, 0, 0, 0);
  p.rkey = 0;
  p.va = 0;
  EXPECT_EQ(deliver(p, 10), RxOutcome::kPlaced);
  const auto cs = completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].byte_len, 0u);
}

}  // namespace
}  // namespace mrc::transport::test
