// Fixed vectors from mrc-wire-model.md: the §2.5 ICRC frame (M13), the single-segment SRH frame
// layout (M1, M13) and the opcode -> extension-header table (M3, M5, M6).
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

  // corrupt_icrc writes the complement; the decoder flags it and calls the frame a stub (M11).
  v.spec.corrupt_icrc = true;
  ASSERT_TRUE(encode_frame(v.spec, buf).ok());
  EXPECT_EQ(icrc_read(buf.data() + r.length - 4), ~0x41FE4829u);
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d).ok());
  EXPECT_FALSE(d.icrc_ok);
  EXPECT_TRUE(d.trimmed);
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d, DecodeOptions{true, false}).ok());
  EXPECT_FALSE(d.trimmed);  // not verified, so not judged
}

TEST(FrameVector, Srv6SingleSegmentLayout) {  // MODEL: M1, M13
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
  EXPECT_EQ(ev_echo_value(d, EvFmtMode::kSrv6), 0x2Au);
  // A switch rewriting the outer DA (uSID shift) or SL does not touch the ICRC.
  buf[kEthLen + 24 + 5] ^= 0xFF;
  buf[kEthLen + 40 + 3] = 0;
  ASSERT_TRUE(decode_frame(Bytes(buf.data(), r.length), d).ok());
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_FALSE(d.trimmed);
}

TEST(FrameVector, ExtLayoutMatchesIbaTableForAllOpcodes) {
  for (int framing = 0; framing < 2; ++framing) {
    for (int op = 0; op < 256; ++op) {
      const ExtLayout got = ext_layout(static_cast<std::uint8_t>(op), framing != 0);
      const ExtLayout want = expected_layout(static_cast<std::uint8_t>(op), framing != 0);
      EXPECT_EQ(std::tie(got.known, got.meth, got.reth, got.immdt, got.aeth, got.sack, got.neth,
                         got.peth, got.erth, got.eeth, got.mfeh, got.ep),
                std::tie(want.known, want.meth, want.reth, want.immdt, want.aeth, want.sack,
                         want.neth, want.peth, want.erth, want.eeth, want.mfeh, want.ep))
          << "opcode " << op << " mrc_framing " << framing;
    }
  }
  // The cases MRC framing changes (M3): WRITE MIDDLE/LAST/LAST_IMM carry a RETH; ACK an MFEH.
  EXPECT_TRUE(ext_layout(opcode::kRcWriteMiddle, true).reth);
  EXPECT_FALSE(ext_layout(opcode::kRcWriteMiddle, false).reth);
  EXPECT_TRUE(ext_layout(opcode::kRcWriteLastImm, true).reth);
  EXPECT_TRUE(ext_layout(opcode::kRcAck, true).mfeh);
  EXPECT_FALSE(ext_layout(opcode::kRcAck, false).mfeh);
}

TEST(FrameVector, ToStringNamesEveryError) {
  for (int e = 0; e <= static_cast<int>(WireError::kBadArgument); ++e) {
    const std::string_view s = to_string(static_cast<WireError>(e));
    EXPECT_FALSE(s.empty());
    EXPECT_NE(s, "unknown-wire-error") << e;
  }
}

}  // namespace
}  // namespace mrc::wire::test
