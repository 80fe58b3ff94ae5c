// The MRC 1.0 header vectors of mrc-wire-model.md W19 (V1-V6), byte for byte both ways, plus the
// opcode -> header table of W3. The vectors repeat the model's layouts, so they pin the codecs to
// the model; they are not independent evidence of the spec.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference/wire/codec.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::wire::test {
namespace {

std::vector<std::uint8_t> hex(const std::string& text) {
  std::vector<std::uint8_t> v;
  std::string digits;
  for (char c : text) {
    if (c != ' ') digits.push_back(c);
  }
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2) {
    v.push_back(static_cast<std::uint8_t>(std::stoul(digits.substr(i, 2), nullptr, 16)));
  }
  return v;
}

TEST(MrcVectors, V1SethCcStateEveryFieldDistinct) {
  const auto bytes = hex(
      "00 22 ff fe de ad be ef 00 11 00 22 00 00 00 10 0a 02 00 05 80 00 00 00 00 00 00 01 be ef "
      "12 34 95 ab cd ef");
  ASSERT_EQ(bytes.size(), kSackHdrLen);
  Seth s;
  CcState c;
  ASSERT_EQ(decode_sack(bytes, s, c), WireError::kOk);
  EXPECT_EQ(s.m, MpVerdict::kSkipOnce);
  EXPECT_TRUE(s.pr);
  EXPECT_EQ(s.ack_psn_offset, -2);
  EXPECT_EQ(s.entropy, 0xDEADBEEFu);
  EXPECT_EQ(s.spdcid, 0x0011);
  EXPECT_EQ(s.dpdcid, 0x0022);
  EXPECT_EQ(s.cack_psn, 0x10u);
  EXPECT_EQ(s.cc_type, 0);
  EXPECT_EQ(s.cc_flags, 0xA);
  EXPECT_EQ(s.mpr, 2);
  EXPECT_EQ(s.sack_offset, 5);
  EXPECT_EQ(s.sack_bitmap, 0x8000000000000001ull);
  EXPECT_TRUE(s.sack_bit(0));   // byte 27 bit 0: the base PSN (S1 W5 bit order)
  EXPECT_TRUE(s.sack_bit(63));  // byte 20 bit 7: base + 63
  EXPECT_EQ(s.sack_base(), 0x15u);
  EXPECT_EQ(c.tx_timestamp, 0xBEEF);
  EXPECT_EQ(c.ooo_count, 0x1234);
  EXPECT_TRUE(c.restore_cwnd);
  EXPECT_EQ(c.rcv_cwnd_pen, 0x15);
  EXPECT_EQ(c.rcvd_bytes, 0xABCDEFu);
  std::vector<std::uint8_t> out(kSackHdrLen, 0xEE);
  encode_sack(s, c, out.data());
  EXPECT_EQ(out, bytes);
}

TEST(MrcVectors, V2SackOfTheExplainerExample) {
  // PSNs 0..11 sent, 5 and 8 lost; the trigger is PSN 11, CE-marked, EV 0x12345678, TSETH 0x0100.
  Seth s;
  s.m = MpVerdict::kSkipOnce;
  s.cack_psn = 4;
  s.ack_psn_offset = 7;
  s.entropy = 0x12345678;
  s.spdcid = 0x0022;
  s.dpdcid = 0x0011;
  s.sack_offset = 1;
  for (std::uint32_t psn : {6u, 7u, 9u, 10u, 11u}) s.set_sack_bit(psn - s.sack_base());
  EXPECT_EQ(s.sack_bitmap, 0x76u);
  EXPECT_EQ(s.ack_psn(), 11u);
  CcState c;
  c.tx_timestamp = 0x0100;
  c.ooo_count = 5;
  c.rcvd_bytes = 0x30;
  FrameSpec spec;
  spec.bth.opcode = opcode::kMrcSack;
  spec.bth.dest_qp = 0x000011;
  spec.bth.psn = s.cack_psn;
  spec.has_sack = true;
  spec.seth = s;
  spec.cc = c;
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  const EncodeResult r = encode_frame(spec, buf);
  ASSERT_TRUE(r.ok());
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d).ok());
  ASSERT_TRUE(d.has_sack);
  const std::size_t bth = d.bth_offset;
  EXPECT_EQ(std::vector<std::uint8_t>(buf.begin() + bth, buf.begin() + bth + kBthLen),
            hex("dc 00 ff ff 00 00 00 11 00 00 00 04"));
  EXPECT_EQ(std::vector<std::uint8_t>(buf.begin() + bth + kBthLen, buf.begin() + bth + kBthLen + kSackHdrLen),
            hex("00 20 00 07 12 34 56 78 00 22 00 11 00 00 00 04 00 00 00 01 00 00 00 00 00 00 00 76 "
                "01 00 00 05 00 00 00 30"));
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_EQ(d.seth.ack_psn(), 11u);
}

TEST(MrcVectors, V3Neth) {
  const auto bytes = hex("00 00 0b 77 ca fe f0 0d 00 22 00 11 00 12 34 56 23 00 43 21");
  Neth n;
  ASSERT_EQ(decode_neth(bytes, n), WireError::kOk);
  EXPECT_EQ(n.nack_reason, nack::kPsnOorWindow);
  EXPECT_EQ(nack_reason_name(n.nack_reason), "PSN_OOR_WINDOW");
  EXPECT_EQ(n.vendor_info, 0x77);
  EXPECT_EQ(n.entropy, 0xCAFEF00Du);
  EXPECT_EQ(n.spdcid, 0x22);
  EXPECT_EQ(n.dpdcid, 0x11);
  EXPECT_EQ(n.nack_psn, 0x123456u);
  EXPECT_EQ(n.cc_type, 2);
  EXPECT_EQ(n.cc_flags, 3);
  EXPECT_EQ(n.tx_timestamp, 0x4321);
  std::vector<std::uint8_t> out(kNethLen, 0xEE);
  encode_neth(n, out.data());
  EXPECT_EQ(out, bytes);
}

TEST(MrcVectors, V4Peth) {
  const auto bytes = hex("00 00 00 5a 99 99 00 00 00 11 00 22 11 11 80 01");
  Peth p;
  ASSERT_EQ(decode_peth(bytes, p), WireError::kOk);
  EXPECT_EQ(p.vendor_info, 0x5A);
  EXPECT_EQ(p.probe_id, 0x9999);
  EXPECT_EQ(p.spdcid, 0x11);
  EXPECT_EQ(p.dpdcid, 0x22);
  EXPECT_EQ(p.ts.tx_timestamp, 0x1111);
  EXPECT_TRUE(p.ts.tsr);
  EXPECT_EQ(p.ts.ftype, kFtypeTimestamp);
  std::vector<std::uint8_t> out(kPethLen, 0xEE);
  encode_peth(p, out.data());
  EXPECT_EQ(out, bytes);
}

TEST(MrcVectors, V5EndpointRequest) {
  FrameSpec spec;
  spec.bth.opcode = opcode::kMrcEndpointReq;
  spec.bth.dest_qp = kEndpointQpn;
  spec.bth.psn = 0xABCD;
  spec.has_erth = true;
  spec.erth.op = static_cast<std::uint8_t>(EpWireOp::kEvProbe);
  spec.erth.vendor_info = 0x42;
  spec.erth.port_status_mask = 0x0F;
  spec.erth.ts = Timestamp{0x2222, false, kFtypeTimestamp};
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  const EncodeResult r = encode_frame(spec, buf);
  ASSERT_TRUE(r.ok());
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d).ok());
  ASSERT_TRUE(d.has_erth);
  const std::size_t bth = d.bth_offset;
  EXPECT_EQ(std::vector<std::uint8_t>(buf.begin() + bth, buf.begin() + bth + kBthLen + kErthLen),
            hex("d8 00 ff ff 00 00 00 02 00 00 ab cd 00 01 00 42 00 00 00 0f 00 00 00 00 22 22 00 01"));
  EXPECT_EQ(d.erth.op, 1);
  EXPECT_EQ(d.erth.ts.tx_timestamp, 0x2222);
}

Ipv6Addr fd00(std::uint8_t last) {
  Ipv6Addr a{};
  a[0] = 0xfd;
  a[15] = last;
  return a;
}

// V6: a whole STEV data packet with METH, TSETH, RETH and 16 payload bytes, and its ICRC.
TEST(MrcVectors, V6StevDataPacketWithIcrc) {
  std::array<std::uint8_t, 16> payload{};
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i);
  FrameSpec spec;
  spec.l3 = L3Kind::kIpv6;
  spec.ip6.dscp = 0x68 >> 2;
  spec.ip6.ecn = 0x68 & 3;
  spec.ip6.flow_label = 0x01234;  // EV 0x12345678, option A: FL = V >> 16
  spec.ip6.hop_limit = 64;
  spec.ip6.src = fd00(1);
  spec.ip6.dst = fd00(2);
  spec.udp.sport = 0x5678;
  spec.bth.opcode = opcode::kMrcWriteOnly;
  spec.bth.dest_qp = 0x000123;
  spec.bth.ack_req = true;
  spec.bth.psn = 0x000010;
  spec.has_meth = true;
  spec.has_tseth = true;
  spec.tseth = Tseth{0x1234, false, kFtypeTimestamp};
  spec.has_reth = true;
  spec.reth = Reth{0x10000000, 0x1234, 16};
  spec.payload = Bytes(payload.data(), payload.size());
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  const EncodeResult r = encode_frame(spec, buf);
  ASSERT_TRUE(r.ok());
  const auto packet = hex(
      "6680123400401140fd000000000000000000000000000001fd000000000000000000000000000002567812b70040"
      "0000ca00ffff0000012390000010000000001234000100000000100000000000123400000010000102030405060708"
      "090a0b0c0d0e0f");
  const std::size_t ip = kEthLen;
  ASSERT_EQ(r.length, ip + packet.size() + kIcrcLen);
  EXPECT_EQ(std::vector<std::uint8_t>(buf.begin() + ip, buf.begin() + ip + packet.size()), packet);
  EXPECT_EQ(icrc_compute(Bytes(buf.data() + ip, packet.size())), 0x4A8E9CCDu);
  const std::size_t tail = ip + packet.size();
  EXPECT_EQ(std::vector<std::uint8_t>(buf.begin() + tail, buf.begin() + tail + 4), hex("cd9c8e4a"));

  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d).ok());
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_FALSE(d.trimmed);
  EXPECT_TRUE(d.has_meth);
  EXPECT_TRUE(d.has_tseth);
  EXPECT_TRUE(d.bth.ts);
  EXPECT_TRUE(d.bth.ack_req);
  EXPECT_EQ(d.tseth.tx_timestamp, 0x1234);
  EXPECT_EQ(d.reth.dma_length, 16u);
  EXPECT_EQ(d.payload.size(), 16u);
}

// W3: which headers follow the BTH of each MRC opcode; every other opcode of the manufacturer
// range 0xC0..0xFF (0xC0 / 0xC1 included) has none the decoder knows.
TEST(MrcVectors, OpcodeTable) {
  for (unsigned op = 0xC6; op <= 0xCB; ++op) {
    const ExtLayout l = ext_layout(static_cast<std::uint8_t>(op));
    EXPECT_TRUE(l.known && l.meth && l.reth) << op;
    EXPECT_EQ(l.immdt, op == 0xC9 || op == 0xCB) << op;
    EXPECT_FALSE(l.aeth || l.sack || l.neth || l.peth || l.erth || l.eeth) << op;
    EXPECT_TRUE(is_mrc_data(static_cast<std::uint8_t>(op)));
  }
  EXPECT_TRUE(ext_layout(opcode::kMrcAck).aeth);
  EXPECT_TRUE(ext_layout(opcode::kMrcSack).sack);
  EXPECT_TRUE(ext_layout(opcode::kMrcNack).neth);
  EXPECT_TRUE(ext_layout(opcode::kMrcProbe).peth);
  EXPECT_TRUE(ext_layout(opcode::kMrcEndpointReq).erth);
  EXPECT_TRUE(ext_layout(opcode::kMrcEndpointRsp).eeth);
  int known = 0;
  for (unsigned op = 0xC0; op <= 0xFF; ++op) {
    if (ext_layout(static_cast<std::uint8_t>(op)).known) ++known;
    EXPECT_EQ(ext_layout(static_cast<std::uint8_t>(op)).known,
              is_mrc_opcode(static_cast<std::uint8_t>(op)))
        << op;
  }
  EXPECT_EQ(known, 12);
}

}  // namespace
}  // namespace mrc::wire::test
