// Fixed vectors from mrc-wire-model.md: the §2.5 ICRC frame (W19), the single-segment SRH frame
// layout (W1, W19) and the opcode -> extension-header table (IBA for the RC opcodes, W3 for MRC).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

std::vector<std::uint8_t> from_hex(const std::string& hex) {
  std::vector<std::uint8_t> v;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    v.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return v;
}

Ipv6Addr fd00(std::uint8_t last) {
  Ipv6Addr a{};
  a[0] = 0xfd;
  a[15] = last;
  return a;
}

// §2.5: IPv6 TC 0x68, FL 0x12345, HL 64, fd00::1 -> fd00::2, UDP 0xC0DE -> 4791, WRITE ONLY to
// QP 0x123, A = 1, PSN 0x10, RETH VA 0x10000000 R_Key 0x1234 len 16, payload 00..0f.
struct Section25 {
  std::array<std::uint8_t, 16> payload{};
  FrameSpec spec;
  Section25() {
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i);
    spec.l3 = L3Kind::kIpv6;
    spec.ip6.dscp = 0x68 >> 2;
    spec.ip6.ecn = 0x68 & 3;
    spec.ip6.flow_label = 0x12345;
    spec.ip6.hop_limit = 64;
    spec.ip6.src = fd00(1);
    spec.ip6.dst = fd00(2);
    spec.udp.sport = 0xC0DE;
    spec.bth.opcode = opcode::kRcWriteOnly;
    spec.bth.pkey = 0xFFFF;
    spec.bth.dest_qp = 0x000123;
    spec.bth.ack_req = true;
    spec.bth.psn = 0x000010;
    spec.has_reth = true;
    spec.reth = Reth{0x10000000, 0x1234, 16};
    spec.payload = Bytes(payload.data(), payload.size());
  }
};

constexpr const char* kSection25Hex =
    "6681234500381140fd000000000000000000000000000001fd000000000000000000000000000002c0de12b700"
    "3800000a00ffff000001238000001000000000100000000000123400000010000102030405060708090a0b0c0d"
    "0e0f";

TEST(FrameVector, Section25IcrcFrame) {
  Section25 v;
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  const EncodeResult r = encode_frame(v.spec, buf);
  ASSERT_TRUE(r.ok()) << to_string(r.error);
  const std::vector<std::uint8_t> want = from_hex(kSection25Hex);
  ASSERT_EQ(r.length, kEthLen + want.size() + kIcrcLen);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), buf.begin() + kEthLen));
  const std::uint8_t icrc[] = {0x29, 0x48, 0xfe, 0x41};
  EXPECT_TRUE(std::equal(std::begin(icrc), std::end(icrc), buf.begin() + kEthLen + want.size()));

  DecodedFrame d;
  const DecodeResult dr = decode_frame(Bytes(buf.data(), r.length), d);
  ASSERT_TRUE(dr.ok()) << to_string(dr.error) << " at " << dr.offset;
  EXPECT_EQ(dr.offset, r.length);
  EXPECT_EQ(d.icrc_wire, 0x41FE4829u);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_FALSE(d.trimmed);
  EXPECT_EQ(d.ip6.dscp, 0x1A);
  EXPECT_EQ(d.ip6.flow_label, 0x12345u);
  EXPECT_EQ(d.udp.length, 0x38);
  EXPECT_EQ(d.bth.dest_qp, 0x123u);
  EXPECT_TRUE(d.has_reth);
  EXPECT_EQ(d.reth.va, 0x10000000u);
  EXPECT_EQ(d.bth_offset, kEthLen + kIpv6Len + kUdpLen);
  EXPECT_TRUE(same_bytes(d.payload, v.spec.payload));
  EXPECT_TRUE(frame_matches(v.spec, d, Bytes(buf.data(), r.length)));

  // corrupt_icrc writes the complement; the decoder flags it. A bad ICRC is not a trim (only the
  // DSCP of an MRC data packet is, W13): the frame decodes whole, payload and all.
  v.spec.corrupt_icrc = true;
  ASSERT_TRUE(encode_frame(v.spec, buf).ok());
  EXPECT_EQ(icrc_read(buf.data() + r.length - 4), ~0x41FE4829u);
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d).ok());
  EXPECT_FALSE(d.icrc_ok);
  EXPECT_EQ(d.icrc_computed, 0x41FE4829u);
  EXPECT_EQ(d.icrc_wire, ~0x41FE4829u);
  EXPECT_FALSE(d.trimmed);
  EXPECT_TRUE(same_bytes(d.payload, v.spec.payload));
  DecodeOptions no_icrc;
  no_icrc.verify_icrc = false;
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d, no_icrc).ok());
  EXPECT_FALSE(d.icrc_ok);  // not verified, so not judged good
  EXPECT_FALSE(d.trimmed);
}

TEST(FrameVector, Srv6SingleSegmentLayout) {  // W1, W19
  Section25 v;
  EvBytes ev{};
  for (std::size_t i = 0; i < ev.size(); ++i) ev[i] = static_cast<std::uint8_t>(0x40 + i);
  std::array<std::uint8_t, 16> seg{};
  const Ipv6Addr gid_dst = v.spec.ip6.dst;
  place_ev(v.spec, EvFmtMode::kSrv6, ev, 0x2A, seg);
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  const EncodeResult r = encode_frame(v.spec, buf);
  ASSERT_TRUE(r.ok());
  const std::uint8_t* ip = buf.data() + kEthLen;
  EXPECT_EQ(ip[6], kIpProtoRouting);                                // outer NH 43
  EXPECT_TRUE(std::equal(ev.begin(), ev.begin() + 16, ip + 24));    // outer DA = EV 0..15
  const std::uint8_t srh[] = {0x29, 0x02, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00};
  EXPECT_TRUE(std::equal(std::begin(srh), std::end(srh), ip + 40));
  EXPECT_TRUE(std::equal(ev.begin() + 16, ev.end(), ip + 48));      // Seg[0] = EV 16..31
  const std::uint8_t* inner = ip + 64;
  EXPECT_EQ(inner[0] >> 4, 6);
  EXPECT_EQ(inner[6], kIpProtoUdp);
  EXPECT_TRUE(std::equal(gid_dst.begin(), gid_dst.end(), inner + 24));
  EXPECT_EQ(load_be16(inner + 40), 0xC02A);  // sport = 0xC000 | ev index
  // The ICRC covers the inner packet only: identical to the same inner packet sent plainly.
  const std::size_t inner_len = r.length - kEthLen - 64 - kIcrcLen;
  EXPECT_EQ(icrc_read(buf.data() + r.length - 4), icrc_compute(Bytes(inner, inner_len)));

  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d).ok());
  EXPECT_TRUE(d.encapsulated);
  EXPECT_TRUE(d.has_srh);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_EQ(d.roce_ip_offset, kEthLen + 64);
  EXPECT_EQ(ev_echo_value(d, EvFmtMode::kSrv6), 0xC02Au);  // the inner flow label 0 and sport 0xC02A
  // A switch rewriting the outer DA (uSID shift) or SL does not touch the ICRC.
  buf[kEthLen + 24 + 5] ^= 0xFF;
  buf[kEthLen + 40 + 3] = 0;
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d).ok());
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_FALSE(d.trimmed);
}

TEST(FrameVector, ExtLayoutMatchesIbaTableForAllOpcodes) {
  for (int op = 0; op < 256; ++op) {
    const ExtLayout got = ext_layout(static_cast<std::uint8_t>(op));
    const ExtLayout want = expected_layout(static_cast<std::uint8_t>(op));
    EXPECT_EQ(std::tie(got.known, got.meth, got.reth, got.immdt, got.aeth, got.sack, got.neth,
                       got.peth, got.erth, got.eeth),
              std::tie(want.known, want.meth, want.reth, want.immdt, want.aeth, want.sack,
                       want.neth, want.peth, want.erth, want.eeth))
        << "opcode " << op;
  }
  // The RC WRITEs keep their IBA layout: a RETH on FIRST and ONLY [IMM] only; the ACK is an AETH
  // alone. Their MRC counterparts (RC opcode | 0xC0, W3) carry METH + RETH on every packet.
  EXPECT_TRUE(ext_layout(opcode::kRcWriteFirst).reth);
  EXPECT_FALSE(ext_layout(opcode::kRcWriteMiddle).reth);
  EXPECT_FALSE(ext_layout(opcode::kRcWriteLast).reth);
  EXPECT_FALSE(ext_layout(opcode::kRcWriteLastImm).reth);
  EXPECT_TRUE(ext_layout(opcode::kRcWriteOnlyImm).reth);
  EXPECT_TRUE(ext_layout(opcode::kMrcWriteMiddle).reth && ext_layout(opcode::kMrcWriteMiddle).meth);
  EXPECT_TRUE(ext_layout(opcode::kRcAck).aeth);
  EXPECT_FALSE(ext_layout(opcode::kRcAck).sack || ext_layout(opcode::kRcAck).neth);
  // 0xC0 / 0xC1 are no MRC 1.0 opcode (W3).
  EXPECT_FALSE(ext_layout(0xC0).known);
  EXPECT_FALSE(ext_layout(0xC1).known);
}

TEST(FrameVector, ToStringNamesEveryError) {
  for (int e = 0; e <= static_cast<int>(WireError::kBadArgument); ++e) {
    const std::string_view s = to_string(static_cast<WireError>(e));
    EXPECT_FALSE(s.empty());
    EXPECT_NE(s, "unknown-wire-error") << e;
  }
}

// ---- plain RoCEv2 beside MRC: every RC opcode has its IBA layout, whatever the capture ----

const std::vector<std::uint8_t>& plain_pattern() {
  static const std::vector<std::uint8_t> p = [] {
    std::vector<std::uint8_t> v(4096);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(i * 7 + 3);
    return v;
  }();
  return p;
}

FrameSpec plain_spec(std::uint8_t op, std::size_t payload) {
  FrameSpec s;
  s.l3 = L3Kind::kIpv4;
  s.ip4.src = 0xC0A84104;
  s.ip4.dst = 0xC0A84105;
  s.udp.sport = 0xDF94;
  s.bth.opcode = op;
  s.bth.dest_qp = 0x11;
  s.bth.psn = 9209053;
  s.payload = Bytes(plain_pattern().data(), payload);
  return s;
}

std::vector<std::uint8_t> build(const FrameSpec& s) {
  std::vector<std::uint8_t> v(kMaxFrameLen);
  const EncodeResult r = encode_frame(s, v);
  EXPECT_TRUE(r.ok()) << to_string(r.error);
  v.resize(r.length);
  return v;
}

TEST(PlainRoce, AckIsAethOnly) {
  FrameSpec s = plain_spec(opcode::kRcAck, 0);
  s.has_aeth = true;
  s.aeth = Aeth{syndrome::kAck, 1};
  const auto f = build(s);
  ASSERT_EQ(f.size(), 14u + 20 + 8 + 12 + 4 + 4);  // the 62-byte frame of every RC stack
  DecodedFrame d;
  const DecodeResult r = decode_frame(Bytes(f.data(), f.size()), d);
  ASSERT_TRUE(r.ok()) << to_string(r.error);
  EXPECT_EQ(r.offset, f.size());
  EXPECT_TRUE(d.has_aeth);
  EXPECT_EQ(d.aeth.syndrome, syndrome::kAck);
  EXPECT_EQ(d.aeth.msn, 1u);
  EXPECT_FALSE(d.has_sack || d.has_neth || d.has_meth);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_TRUE(d.payload.empty());
  // A NAK with 32 bytes after its AETH: they are payload, not a header.
  s.aeth = Aeth{syndrome::kNakPsnSeqError, 3};
  s.payload = Bytes(plain_pattern().data(), 32);
  const auto g = build(s);
  ASSERT_TRUE(decode_frame(Bytes(g.data(), g.size()), d).ok());
  EXPECT_EQ(d.aeth.syndrome, syndrome::kNakPsnSeqError);
  EXPECT_EQ(d.payload.size(), 32u);
  EXPECT_TRUE(d.icrc_ok);
}

TEST(PlainRoce, WriteMiddleAndLastCarryNoReth) {
  for (std::uint8_t op : {opcode::kRcWriteMiddle, opcode::kRcWriteLast, opcode::kRcWriteLastImm}) {
    for (std::size_t len : {std::size_t{0}, std::size_t{5}, std::size_t{256}, std::size_t{1023}}) {
      FrameSpec s = plain_spec(op, len);
      s.has_immdt = op == opcode::kRcWriteLastImm;
      s.immdt = 0xABCD0123;
      const auto f = build(s);
      DecodedFrame d;
      ASSERT_TRUE(decode_frame(Bytes(f.data(), f.size()), d).ok()) << int(op) << " " << len;
      EXPECT_FALSE(d.has_reth) << int(op) << " " << len;
      EXPECT_EQ(d.payload.size(), len);
      EXPECT_TRUE(d.icrc_ok);
      EXPECT_EQ(d.has_immdt, op == opcode::kRcWriteLastImm);
      if (op == opcode::kRcWriteLastImm) {
        EXPECT_EQ(d.immdt, 0xABCD0123u);
      }
    }
  }
  // Sixteen bytes after the BTH that would make a RETH naming exactly this payload are still
  // payload: the opcode alone decides the layout, nothing is guessed from the bytes.
  std::vector<std::uint8_t> pay(plain_pattern().begin(), plain_pattern().begin() + 80);
  store_be32(pay.data() + 12, 64);
  FrameSpec s = plain_spec(opcode::kRcWriteMiddle, 0);
  s.payload = Bytes(pay.data(), pay.size());
  const auto g = build(s);
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(g.data(), g.size()), d).ok());
  EXPECT_FALSE(d.has_reth);
  EXPECT_EQ(d.payload.size(), 80u);
}

TEST(PlainRoce, CmMadOnUdQp1DecodesAsBthAndOpaquePayload) {
  // RDMA CM: UD SEND ONLY to QP 1 with DETH (8 bytes) + a 256-byte MAD.
  std::vector<std::uint8_t> deth_mad(8 + 256, 0);
  store_be32(deth_mad.data(), 0x80010000);  // the well-known GSI Q_Key
  store_be32(deth_mad.data() + 4, 1);       // source QP 1
  deth_mad[8] = 0x01;                       // MAD base version
  deth_mad[9] = 0x07;                       // management class: CM
  FrameSpec s = plain_spec(opcode::kUdSendOnly, 0);
  s.bth.dest_qp = 1;
  s.payload = Bytes(deth_mad.data(), deth_mad.size());
  const auto f = build(s);
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(f.data(), f.size()), d).ok());
  EXPECT_EQ(d.bth.opcode, opcode::kUdSendOnly);
  EXPECT_EQ(d.bth.dest_qp, 1u);
  EXPECT_TRUE(same_bytes(d.payload, s.payload));
  EXPECT_TRUE(d.icrc_ok);
  // Opcodes no layout covers (UC here) are still refused.
  s.bth.opcode = 0x24;
  const auto g = build(s);
  EXPECT_EQ(decode_frame(Bytes(g.data(), g.size()), d).error, WireError::kBadOpcode);
}

}  // namespace
}  // namespace mrc::wire::test
