// Requester segmentation (MODEL: M3): one packet per path-MTU chunk, RC WRITE opcodes by position,
// a RETH on every packet naming that packet's own first byte and length, ImmDt on the last packet
// of a WRITE WITH IMMEDIATE, PSNs consecutive modulo 2^24, and only WRITE / WRITE_WITH_IMM accepted.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "tests/reference/transport/requester_harness.hpp"

namespace mrc::transport::testing {
namespace {

namespace op = wire::opcode;

TEST(RequesterSegmentation, SplitsByMtuWithPerPacketReth) {
  Harness h;
  ASSERT_EQ(h.write(1, 3 * 1024 + 512, false, 0x20000000, 100), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 4u);
  const std::uint8_t expect_op[] = {op::kRcWriteFirst, op::kRcWriteMiddle, op::kRcWriteMiddle,
                                    op::kRcWriteLast};
  for (std::size_t i = 0; i < 4; ++i) {
    const TxPacket& p = pkts[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(p.bth.opcode, expect_op[i]);
    EXPECT_EQ(p.bth.psn, psn(0x1000, static_cast<std::uint32_t>(i)));
    EXPECT_EQ(p.bth.dest_qp, 0x222u);
    EXPECT_TRUE(p.bth.ack_req);  // M3: A on every packet
    ASSERT_TRUE(p.has_reth);     // M3: RETH on every packet, MIDDLE and LAST included
    EXPECT_EQ(p.reth.va, 0x20000000u + i * 1024);
    EXPECT_EQ(p.reth.rkey, 0x77u);
    const std::uint32_t len = i < 3 ? 1024u : 512u;
    EXPECT_EQ(p.reth.dma_length, len);  // M3: this packet's payload, not the message length
    ASSERT_EQ(p.payload.size(), len);
    EXPECT_EQ(std::memcmp(p.payload.data(), h.buf.data() + 100 + i * 1024, len), 0);
    EXPECT_FALSE(p.has_immdt);
    EXPECT_EQ(p.dscp, wire::kDscpTrimmable);  // M11
    EXPECT_EQ(p.ecn, wire::kEcnEct0);
    EXPECT_EQ(p.path.kind, TxPath::Kind::kQpEv);
    EXPECT_FALSE(p.corrupt_icrc);
  }
}

TEST(RequesterSegmentation, WriteWithImmediateCarriesImmDtOnLastOnly) {
  Harness h;
  ASSERT_EQ(h.write(5, 2048, true), 0);
  ASSERT_EQ(h.write(6, 10, true), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 3u);
  EXPECT_EQ(pkts[0].bth.opcode, op::kRcWriteFirst);
  EXPECT_FALSE(pkts[0].has_immdt);
  EXPECT_EQ(pkts[1].bth.opcode, op::kRcWriteLastImm);
  EXPECT_TRUE(pkts[1].has_immdt);
  EXPECT_EQ(pkts[1].immdt, 5u * 3 + 1);
  EXPECT_EQ(pkts[2].bth.opcode, op::kRcWriteOnlyImm);
  EXPECT_TRUE(pkts[2].has_immdt);
  EXPECT_EQ(pkts[2].immdt, 6u * 3 + 1);
  EXPECT_TRUE(pkts[2].has_reth);
  EXPECT_EQ(pkts[2].reth.dma_length, 10u);
}

TEST(RequesterSegmentation, ExactMultipleAndZeroLength) {
  Harness h;
  ASSERT_EQ(h.write(1, 2048), 0);
  ASSERT_EQ(h.write(2, 0), 0);
  ASSERT_EQ(h.write(3, 1024), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 4u);
  EXPECT_EQ(pkts[0].bth.opcode, op::kRcWriteFirst);
  EXPECT_EQ(pkts[1].bth.opcode, op::kRcWriteLast);
  EXPECT_EQ(pkts[2].bth.opcode, op::kRcWriteOnly);
  EXPECT_EQ(pkts[2].payload.size(), 0u);
  EXPECT_EQ(pkts[2].reth.dma_length, 0u);
  EXPECT_EQ(pkts[3].bth.opcode, op::kRcWriteOnly);
  EXPECT_EQ(pkts[3].payload.size(), 1024u);
}

TEST(RequesterSegmentation, PsnWrapsModulo2To24) {
  RequesterConfig c = default_config();
  c.sq_psn = 0xFFFFFE;
  Harness h(c);
  ASSERT_EQ(h.write(1, 4096), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 4u);
  EXPECT_EQ(pkts[0].bth.psn, 0xFFFFFEu);
  EXPECT_EQ(pkts[1].bth.psn, 0xFFFFFFu);
  EXPECT_EQ(pkts[2].bth.psn, 0x000000u);
  EXPECT_EQ(pkts[3].bth.psn, 0x000001u);
  // A cumulative ACK across the wrap completes the WR.
  h.r->on_feedback(ack(0x000001, 0x000001), 10'000);
  const auto cs = h.completions();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].status, IBV_WC_SUCCESS);
  EXPECT_EQ(h.r->outstanding_psns(), 0u);
}

TEST(RequesterSegmentation, PathMtuSetsPacketSize) {
  for (std::uint32_t mtu : {256u, 512u, 2048u, 4096u}) {
    RequesterConfig c = default_config();
    c.mtu = mtu;
    Harness h(c);
    ASSERT_EQ(h.write(1, 8192), 0);
    const auto pkts = h.drain(0);
    ASSERT_EQ(pkts.size(), 8192u / mtu);
    for (const auto& p : pkts) EXPECT_EQ(p.payload.size(), mtu);
  }
}

TEST(RequesterSegmentation, RefusesOtherOpcodesAndBadLengths) {
  Harness h;
  SendWr wr;
  wr.length = 16;
  for (auto opc : {IBV_WR_RDMA_READ, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_ATOMIC_CMP_AND_SWP,
                   IBV_WR_ATOMIC_FETCH_AND_ADD}) {
    wr.opcode = opc;
    EXPECT_EQ(h.r->post(wr, wire::Bytes(h.buf.data(), 16)), EINVAL);
  }
  wr.opcode = IBV_WR_RDMA_WRITE;
  EXPECT_EQ(h.r->post(wr, wire::Bytes(h.buf.data(), 15)), EINVAL);  // payload / length mismatch
  EXPECT_TRUE(h.drain(0).empty());
  EXPECT_EQ(h.r->stats().posted_wrs, 0u);
}

TEST(RequesterSegmentation, SendQueueDepthIsEnforced) {
  RequesterConfig c = default_config();
  c.max_send_wr = 4;
  Harness h(c);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(h.write(static_cast<std::uint64_t>(i), 8), 0);
  EXPECT_EQ(h.write(9, 8), ENOMEM);
}

TEST(RequesterDefects, NoRethMiddleUsesClassicRcFraming) {
  RequesterConfig c = default_config();
  c.quirks.no_reth_middle = true;
  Harness h(c);
  ASSERT_EQ(h.write(1, 3000), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 3u);
  EXPECT_TRUE(pkts[0].has_reth);
  EXPECT_EQ(pkts[0].reth.dma_length, 3000u);  // message length, RC style
  EXPECT_FALSE(pkts[1].has_reth);
  EXPECT_FALSE(pkts[2].has_reth);
}

TEST(RequesterDefects, WrongIcrcMarksDataPackets) {
  RequesterConfig c = default_config();
  c.quirks.wrong_icrc = true;
  Harness h(c);
  ASSERT_EQ(h.write(1, 100), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 1u);
  EXPECT_TRUE(pkts[0].corrupt_icrc);
}

}  // namespace
}  // namespace mrc::transport::testing
