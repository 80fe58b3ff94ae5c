// Per-frame MRC framing (detect_mrc_framing, DecodeOptions::detect_framing; MODEL: M3, M5): plain
// RoCEv2 frames (ACK without MFEH, WRITE MIDDLE/LAST without RETH, SEND, READ, CM MADs) and MRC
// frames decode side by side, each with its own headers.
#include <gtest/gtest.h>

#include <vector>

#include "reference/wire/codec.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

const std::vector<std::uint8_t>& pattern() {
  static const std::vector<std::uint8_t> p = [] {
    std::vector<std::uint8_t> v(4096);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(i * 7 + 3);
    return v;
  }();
  return p;
}

FrameSpec base_spec(std::uint8_t op, std::size_t payload) {
  FrameSpec s;
  s.l3 = L3Kind::kIpv4;
  s.ip4.src = 0xC0A84104;
  s.ip4.dst = 0xC0A84105;
  s.udp.sport = 0xDF94;
  s.bth.opcode = op;
  s.bth.dest_qp = 0x11;
  s.bth.psn = 9209053;
  s.payload = Bytes(pattern().data(), payload);
  return s;
}

std::vector<std::uint8_t> build(const FrameSpec& s) {
  std::vector<std::uint8_t> v(kMaxFrameLen);
  const EncodeResult r = encode_frame(s, v);
  EXPECT_TRUE(r.ok()) << to_string(r.error);
  v.resize(r.length);
  return v;
}

DecodeResult detect(const std::vector<std::uint8_t>& f, DecodedFrame& d) {
  DecodeOptions o;
  o.detect_framing = true;
  return decode_frame(Bytes(f.data(), f.size()), d, o);
}

TEST(FrameFraming, PlainAckWithoutMfehDecodesOnlyWhenDetecting) {
  FrameSpec s = base_spec(opcode::kRcAck, 0);
  s.has_aeth = true;
  s.aeth = Aeth{0x1F, 1};
  const auto f = build(s);
  ASSERT_EQ(f.size(), 14u + 20 + 8 + 12 + 4 + 4);  // the 62-byte frame of every RC stack
  DecodedFrame d;
  // Assuming MRC framing for the whole capture reads an MFEH that is not there.
  EXPECT_FALSE(decode_frame(Bytes(f.data(), f.size()), d).ok());
  ASSERT_TRUE(detect(f, d).ok());
  EXPECT_TRUE(d.has_aeth);
  EXPECT_FALSE(d.has_mfeh);
  EXPECT_EQ(d.aeth.syndrome, 0x1F);
  EXPECT_EQ(d.aeth.msn, 1u);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_TRUE(d.payload.empty());
}

TEST(FrameFraming, MrcAckWithMfehStillDecodesItsMfeh) {  // MODEL: M5
  FrameSpec s = base_spec(opcode::kRcAck, 0);
  s.has_aeth = true;
  s.aeth = Aeth{0x65, 3};
  s.has_mfeh = true;
  s.mfeh.type = FeedbackType::kTrimNack;
  s.mfeh.trig_psn = 77;
  const auto f = build(s);
  DecodedFrame d;
  ASSERT_TRUE(detect(f, d).ok());
  EXPECT_TRUE(d.has_mfeh);
  EXPECT_EQ(d.mfeh.type, FeedbackType::kTrimNack);
  EXPECT_EQ(d.mfeh.trig_psn, 77u);
  // A NAK with MRC framing off stays plain: the MFEH bytes are then payload.
  DecodeOptions iba;
  iba.mrc_framing = false;
  iba.detect_framing = true;
  ASSERT_TRUE(decode_frame(Bytes(f.data(), f.size()), d, iba).ok());
  EXPECT_FALSE(d.has_mfeh);
  EXPECT_EQ(d.payload.size(), kMfehLen);
}

TEST(FrameFraming, WriteMiddleRethIsRecognisedByItsDmaLength) {  // MODEL: M3
  for (std::uint8_t op : {opcode::kRcWriteMiddle, opcode::kRcWriteLast, opcode::kRcWriteLastImm}) {
    for (std::size_t len : {std::size_t{0}, std::size_t{5}, std::size_t{256}, std::size_t{1023}}) {
      FrameSpec s = base_spec(op, len);
      s.has_immdt = op == opcode::kRcWriteLastImm;
      s.immdt = 0xABCD0123;
      s.has_reth = true;
      s.reth = Reth{0x7f0000001000, 0x1234, static_cast<std::uint32_t>(len)};
      const auto mrc = build(s);
      DecodedFrame d;
      ASSERT_TRUE(detect(mrc, d).ok()) << int(op) << " " << len;
      EXPECT_TRUE(d.has_reth) << int(op) << " " << len;
      EXPECT_EQ(d.reth.va, 0x7f0000001000u);
      EXPECT_EQ(d.payload.size(), len);
      EXPECT_EQ(d.has_immdt, op == opcode::kRcWriteLastImm);

      // The same packet as IBA sends it: no RETH, so the payload bytes are not a DMA length.
      s.has_reth = false;
      s.payload = Bytes(pattern().data(), len + 64);
      const auto iba = build(s);
      ASSERT_TRUE(detect(iba, d).ok()) << int(op) << " " << len;
      EXPECT_FALSE(d.has_reth) << int(op) << " " << len;
      EXPECT_EQ(d.payload.size(), len + 64);
      if (op == opcode::kRcWriteLastImm) {
        EXPECT_EQ(d.immdt, 0xABCD0123u);
      }
    }
  }
}

TEST(FrameFraming, RethWithAnotherDmaLengthIsNotMrc) {
  // A RETH whose DMA length is not this packet's payload is not the per-packet RETH of M3: the
  // frame reads as IBA, its 16 bytes become payload.
  FrameSpec s = base_spec(opcode::kRcWriteMiddle, 100);
  s.has_reth = true;
  s.reth = Reth{0x1000, 7, 101};
  const auto f = build(s);
  DecodedFrame d;
  ASSERT_TRUE(detect(f, d).ok());
  EXPECT_FALSE(d.has_reth);
  EXPECT_EQ(d.payload.size(), 116u);
  // The rule reads only the lengths: IBA payload whose bytes 12..15 spell the right length is
  // taken for a RETH. That is the documented ambiguity, and why endpoints keep detection off.
  std::vector<std::uint8_t> pay(pattern().begin(), pattern().begin() + 80);
  store_be32(pay.data() + 12, 64);
  s.has_reth = false;
  s.payload = Bytes(pay.data(), pay.size());
  const auto g = build(s);
  ASSERT_TRUE(detect(g, d).ok());
  EXPECT_TRUE(d.has_reth);
  EXPECT_EQ(d.payload.size(), 64u);
}

TEST(FrameFraming, DetectionLeavesFramingIndependentOpcodesAlone) {
  const std::uint8_t ops[] = {opcode::kRcSendFirst, opcode::kRcSendLastImm, opcode::kRcSendOnlyImm,
                              opcode::kRcReadRequest, opcode::kRcReadRespFirst,
                              opcode::kRcReadRespMiddle, opcode::kRcReadRespLast,
                              opcode::kRcWriteFirst, opcode::kRcWriteOnly, opcode::kMrcEpReq};
  for (std::uint8_t op : ops) {
    const ExtLayout l = ext_layout(op, true);
    FrameSpec s = base_spec(op, 40);
    s.has_reth = l.reth;
    s.has_immdt = l.immdt;
    s.has_aeth = l.aeth;
    s.has_ep = l.ep;
    const auto f = build(s);
    const std::vector<std::uint8_t> bth(f.begin() + 42, f.end());
    EXPECT_FALSE(detect_mrc_framing(Bytes(bth.data(), bth.size()), bth.size())) << int(op);
    DecodedFrame a;
    DecodedFrame b;
    ASSERT_TRUE(detect(f, a).ok()) << int(op);
    ASSERT_TRUE(decode_frame(Bytes(f.data(), f.size()), b).ok()) << int(op);
    EXPECT_EQ(a.payload.size(), b.payload.size()) << int(op);
    EXPECT_EQ(std::tie(a.has_reth, a.has_immdt, a.has_aeth, a.has_ep),
              std::tie(b.has_reth, b.has_immdt, b.has_aeth, b.has_ep)) << int(op);
  }
}

TEST(FrameFraming, CmMadOnUdQp1DecodesAsBthAndOpaquePayload) {
  // RDMA CM: UD SEND ONLY to QP 1 with DETH (8 bytes) + a 256-byte MAD, in every framing.
  std::vector<std::uint8_t> deth_mad(8 + 256, 0);
  store_be32(deth_mad.data(), 0x80010000);  // the well-known GSI Q_Key
  store_be32(deth_mad.data() + 4, 1);       // source QP 1
  deth_mad[8] = 0x01;                       // MAD base version
  deth_mad[9] = 0x07;                       // management class: CM
  FrameSpec s = base_spec(opcode::kUdSendOnly, 0);
  s.bth.dest_qp = 1;
  s.payload = Bytes(deth_mad.data(), deth_mad.size());
  const auto f = build(s);
  for (bool mrc : {false, true}) {
    DecodeOptions o;
    o.mrc_framing = mrc;
    o.detect_framing = true;
    DecodedFrame d;
    ASSERT_TRUE(decode_frame(Bytes(f.data(), f.size()), d, o).ok()) << mrc;
    EXPECT_EQ(d.bth.opcode, opcode::kUdSendOnly);
    EXPECT_EQ(d.bth.dest_qp, 1u);
    EXPECT_EQ(d.payload.size(), deth_mad.size());
    EXPECT_TRUE(d.icrc_ok);
  }
  // Opcodes no layout covers (UC here) are still refused.
  s.bth.opcode = 0x24;
  const auto g = build(s);
  DecodedFrame d;
  EXPECT_EQ(detect(g, d).error, WireError::kBadOpcode);
}

TEST(FrameFraming, TrimmedMrcStubKeepsItsRethWhenDetecting) {  // MODEL: M3, M11
  FrameSpec s = base_spec(opcode::kRcWriteMiddle, 1000);
  s.has_reth = true;
  s.reth = Reth{0x2000, 9, 1000};
  auto f = build(s);
  f.resize(256);  // the switch trims and leaves the lengths (M11)
  DecodedFrame d;
  ASSERT_TRUE(detect(f, d).ok());
  EXPECT_TRUE(d.trimmed);
  EXPECT_TRUE(d.has_reth);
  EXPECT_EQ(d.reth.dma_length, 1000u);
}

}  // namespace
}  // namespace mrc::wire::test
