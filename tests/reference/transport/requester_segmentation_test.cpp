// Requester segmentation (W3, W4): one packet per path-MTU chunk, MRC WRITE opcodes by position, a
// METH naming the message and a TSETH on every packet, a RETH on every packet naming that packet's
// own first byte and the whole message's length, A on the last packet of a message, ImmDt on the
// last packet of a WRITE WITH IMMEDIATE, PSNs consecutive modulo 2^24, and only WRITE /
// WRITE_WITH_IMM accepted.
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
  const std::uint8_t expect_op[] = {op::kMrcWriteFirst, op::kMrcWriteMiddle, op::kMrcWriteMiddle,
                                    op::kMrcWriteLast};
  for (std::size_t i = 0; i < 4; ++i) {
    const TxPacket& p = pkts[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(p.bth.opcode, expect_op[i]);
    EXPECT_EQ(p.bth.psn, psn(0x1000, static_cast<std::uint32_t>(i)));
    EXPECT_EQ(p.bth.dest_qp, 0x222u);
    EXPECT_EQ(p.bth.ack_req, i == 3);  // W3: A on the message's last packet
    EXPECT_FALSE(p.bth.rtx);
    ASSERT_TRUE(p.has_meth);           // W4: METH on every packet, one msn per message
    EXPECT_EQ(p.meth.msn, 0u);
    EXPECT_EQ(p.meth.rqmsn, 0u);
    EXPECT_TRUE(p.has_tseth);
    ASSERT_TRUE(p.has_reth);     // W4: RETH on every packet, MIDDLE and LAST included
    EXPECT_EQ(p.reth.va, 0x20000000u + i * 1024);
    EXPECT_EQ(p.reth.rkey, 0x77u);
    const std::uint32_t len = i < 3 ? 1024u : 512u;
    EXPECT_EQ(p.reth.dma_length, 3u * 1024 + 512);  // S1: W4 the whole message's length
    ASSERT_EQ(p.payload.size(), len);
    EXPECT_EQ(std::memcmp(p.payload.data(), h.buf.data() + 100 + i * 1024, len), 0);
    EXPECT_FALSE(p.has_immdt);
    EXPECT_EQ(p.dscp, wire::kDscpTrimmable);  // W13
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
  EXPECT_EQ(pkts[0].bth.opcode, op::kMrcWriteFirst);
  EXPECT_FALSE(pkts[0].has_immdt);
  EXPECT_EQ(pkts[1].bth.opcode, op::kMrcWriteLastImm);
  EXPECT_TRUE(pkts[1].has_immdt);
  EXPECT_EQ(pkts[1].immdt, 5u * 3 + 1);
  EXPECT_EQ(pkts[2].bth.opcode, op::kMrcWriteOnlyImm);
  EXPECT_TRUE(pkts[2].has_immdt);
  EXPECT_EQ(pkts[2].immdt, 6u * 3 + 1);
  EXPECT_TRUE(pkts[2].has_reth);
  EXPECT_EQ(pkts[2].reth.dma_length, 10u);
  // W4: msn counts messages, rqmsn the WRITE_WITH_IMM ones.
  EXPECT_EQ(pkts[0].meth.msn, 0u);
  EXPECT_EQ(pkts[1].meth.msn, 0u);
  EXPECT_EQ(pkts[2].meth.msn, 1u);
  EXPECT_EQ(pkts[0].meth.rqmsn, 0u);
  EXPECT_EQ(pkts[2].meth.rqmsn, 1u);
}

TEST(RequesterSegmentation, MsnAndRqmsnCountMessages) {
  Harness h;
  ASSERT_EQ(h.write(1, 100), 0);
  ASSERT_EQ(h.write(2, 100, true), 0);
  ASSERT_EQ(h.write(3, 2000), 0);
  ASSERT_EQ(h.write(4, 100, true), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 5u);
  const std::uint16_t msn[] = {0, 1, 2, 2, 3};
  const std::uint16_t rqmsn[] = {0, 0, 0, 0, 1};
  for (std::size_t i = 0; i < pkts.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(pkts[i].meth.msn, msn[i]);
    EXPECT_EQ(pkts[i].meth.rqmsn, rqmsn[i]);
  }
}

TEST(RequesterSegmentation, TsethCarriesTheSendTimeOrIsLeftOut) {
  Harness h;
  ASSERT_EQ(h.write(1, 100), 0);
  const auto pkts = h.drain(12'800);  // 100 units of 128 ns
  ASSERT_EQ(pkts.size(), 1u);
  ASSERT_TRUE(pkts[0].has_tseth);
  EXPECT_EQ(pkts[0].tseth.tx_timestamp, 100u);
  EXPECT_FALSE(pkts[0].tseth.tsr);
  EXPECT_EQ(pkts[0].tseth.ftype, wire::kFtypeTimestamp);
  RequesterConfig c = default_config();
  c.tseth = false;
  Harness off(c);
  ASSERT_EQ(off.write(1, 100), 0);
  const auto none = off.drain(0);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none[0].has_tseth);
}

TEST(RequesterSegmentation, ExactMultipleAndZeroLength) {
  Harness h;
  ASSERT_EQ(h.write(1, 2048), 0);
  ASSERT_EQ(h.write(2, 0), 0);
  ASSERT_EQ(h.write(3, 1024), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 4u);
  EXPECT_EQ(pkts[0].bth.opcode, op::kMrcWriteFirst);
  EXPECT_EQ(pkts[1].bth.opcode, op::kMrcWriteLast);
  EXPECT_EQ(pkts[2].bth.opcode, op::kMrcWriteOnly);
  EXPECT_EQ(pkts[2].payload.size(), 0u);
  EXPECT_EQ(pkts[2].reth.dma_length, 0u);
  EXPECT_EQ(pkts[3].bth.opcode, op::kMrcWriteOnly);
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
  // A Transport ACK across the wrap completes the WR.
  h.r->on_feedback(tack(0x000001), 10'000);
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
  EXPECT_EQ(pkts[0].reth.dma_length, 3000u);
  EXPECT_FALSE(pkts[1].has_reth);
  EXPECT_FALSE(pkts[2].has_reth);
}

TEST(RequesterDefects, LastRethLenMtuRoundsTheMessageUp) {
  RequesterConfig c = default_config();
  c.quirks.last_reth_len_mtu = true;
  Harness h(c);
  ASSERT_EQ(h.write(1, 3000), 0);
  ASSERT_EQ(h.write(2, 2048), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 5u);
  EXPECT_EQ(pkts[0].reth.dma_length, 3000u);
  EXPECT_EQ(pkts[2].reth.dma_length, 3072u);  // the edge: 3 packets x 1024
  EXPECT_EQ(pkts[4].reth.dma_length, 2048u);  // a whole number of MTUs: no difference
}

TEST(RequesterDefects, MsnPerPacketNumbersPackets) {
  RequesterConfig c = default_config();
  c.quirks.msn_per_packet = true;
  Harness h(c);
  ASSERT_EQ(h.write(1, 3000), 0);
  const auto pkts = h.drain(0);
  ASSERT_EQ(pkts.size(), 3u);
  EXPECT_EQ(pkts[1].meth.msn, 1u);
  EXPECT_EQ(pkts[2].meth.msn, 2u);
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
