// MRC 1.0 headers: encode -> decode -> encode round trips of seeded random instances, and how
// decode_frame reads trimmed data packets (W13) and cut captures.
#include <gtest/gtest.h>

#include <vector>

#include "reference/wire/codec.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

constexpr int kInstances = 10'000;

// Encodes with `enc`, decodes, re-encodes: the bytes survive, and one byte less is kTruncated.
template <typename Enc, typename Dec>
void bytes_round_trip(std::size_t len, Enc enc, Dec dec, int i) {
  std::vector<std::uint8_t> a(len), b(len, 0xEE);
  enc(a.data());
  ASSERT_EQ(dec(Bytes(a.data(), len), b.data()), WireError::kOk) << "instance " << i;
  ASSERT_EQ(a, b) << "instance " << i;
  ASSERT_EQ(dec(Bytes(a.data(), len - 1), b.data()), WireError::kTruncated) << "instance " << i;
}

TEST(MrcHeaderCodec, SethCcStateRoundTrip) {
  Rng r(31);
  for (int i = 0; i < kInstances; ++i) {
    Seth s;
    s.pro = random_prologue(r);
    s.m = static_cast<MpVerdict>(uni(r, 0, 3));
    s.pr = coin(r);
    s.ack_psn_offset = static_cast<std::int16_t>(r());
    s.entropy = static_cast<std::uint32_t>(r());
    s.spdcid = static_cast<std::uint16_t>(r());
    s.dpdcid = static_cast<std::uint16_t>(r());
    s.cack_psn = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF));
    s.cc_type = static_cast<std::uint8_t>(uni(r, 0, 15));
    s.cc_flags = static_cast<std::uint8_t>(uni(r, 0, 15));
    s.mpr = static_cast<std::uint8_t>(r());
    s.sack_offset = static_cast<std::int16_t>(r());
    s.sack_bitmap = r();
    CcState c;
    c.tx_timestamp = static_cast<std::uint16_t>(r());
    c.ooo_count = static_cast<std::uint16_t>(uni(r, 0, kOooCountMax));
    c.restore_cwnd = coin(r);
    c.rcv_cwnd_pen = static_cast<std::uint8_t>(uni(r, 0, 127));
    c.rcvd_bytes = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF));
    bytes_round_trip(
        kSackHdrLen, [&](std::uint8_t* p) { encode_sack(s, c, p); },
        [&](Bytes in, std::uint8_t* p) {
          Seth ds;
          CcState dc;
          const WireError e = decode_sack(in, ds, dc);
          if (e == WireError::kOk) {
            EXPECT_EQ(ds.m, s.m);
            EXPECT_EQ(ds.pr, s.pr);
            EXPECT_EQ(ds.pro.nh, s.pro.nh);
            EXPECT_EQ(ds.ack_psn_offset, s.ack_psn_offset);
            EXPECT_EQ(ds.sack_offset, s.sack_offset);
            EXPECT_EQ(dc.rcvd_bytes, c.rcvd_bytes);
            encode_sack(ds, dc, p);
          }
          return e;
        },
        i);
  }
}

TEST(MrcHeaderCodec, NethPethErthEethMethTsethRoundTrip) {
  Rng r(32);
  for (int i = 0; i < kInstances; ++i) {
    Neth n;
    n.pro = random_prologue(r);
    n.nack_reason = static_cast<std::uint8_t>(r());
    n.vendor_info = static_cast<std::uint8_t>(r());
    n.entropy = static_cast<std::uint32_t>(r());
    n.spdcid = static_cast<std::uint16_t>(r());
    n.dpdcid = static_cast<std::uint16_t>(r());
    n.nack_psn = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF));
    n.cc_type = static_cast<std::uint8_t>(uni(r, 0, 15));
    n.cc_flags = static_cast<std::uint8_t>(uni(r, 0, 15));
    n.tx_timestamp = static_cast<std::uint16_t>(r());
    bytes_round_trip(
        kNethLen, [&](std::uint8_t* p) { encode_neth(n, p); },
        [&](Bytes in, std::uint8_t* p) {
          Neth d;
          const WireError e = decode_neth(in, d);
          if (e == WireError::kOk) encode_neth(d, p);
          return e;
        },
        i);
    Peth pe;
    pe.pro = random_prologue(r);
    pe.vendor_info = static_cast<std::uint8_t>(r());
    pe.probe_id = static_cast<std::uint16_t>(r());
    pe.spdcid = static_cast<std::uint16_t>(r());
    pe.dpdcid = static_cast<std::uint16_t>(r());
    pe.ts = random_ts(r);
    bytes_round_trip(
        kPethLen, [&](std::uint8_t* p) { encode_peth(pe, p); },
        [&](Bytes in, std::uint8_t* p) {
          Peth d;
          const WireError e = decode_peth(in, d);
          if (e == WireError::kOk) encode_peth(d, p);
          return e;
        },
        i);
    Erth er;
    er.pro = random_prologue(r);
    er.op = static_cast<std::uint8_t>(uni(r, 0, 3));
    er.vendor_info = static_cast<std::uint8_t>(r());
    er.port_status_mask = static_cast<std::uint32_t>(r());
    er.ts = random_ts(r);
    bytes_round_trip(
        kErthLen, [&](std::uint8_t* p) { encode_erth(er, p); },
        [&](Bytes in, std::uint8_t* p) {
          Erth d;
          const WireError e = decode_erth(in, d);
          if (e == WireError::kOk) encode_erth(d, p);
          return e;
        },
        i);
    std::array<std::uint8_t, kEethOpaqueLen> opaque{};
    fill_random(r, opaque);
    Eeth ee;
    ee.pro = random_prologue(r);
    ee.op = static_cast<std::uint8_t>(uni(r, 0, 3));
    ee.opaque = Bytes(opaque.data(), opaque.size());
    ee.tx_timestamp = static_cast<std::uint16_t>(r());
    bytes_round_trip(
        kEethLen, [&](std::uint8_t* p) { encode_eeth(ee, p); },
        [&](Bytes in, std::uint8_t* p) {
          Eeth d;
          const WireError e = decode_eeth(in, d);
          if (e == WireError::kOk) encode_eeth(d, p);
          return e;
        },
        i);
    Meth m{static_cast<std::uint16_t>(r()), static_cast<std::uint16_t>(r())};
    bytes_round_trip(
        kMethLen, [&](std::uint8_t* p) { encode_meth(m, p); },
        [&](Bytes in, std::uint8_t* p) {
          Meth d;
          const WireError e = decode_meth(in, d);
          if (e == WireError::kOk) encode_meth(d, p);
          return e;
        },
        i);
    const Tseth t = random_ts(r);
    bytes_round_trip(
        kTsethLen, [&](std::uint8_t* p) { encode_tseth(t, p); },
        [&](Bytes in, std::uint8_t* p) {
          Tseth d;
          const WireError e = decode_tseth(in, d);
          if (e == WireError::kOk) encode_tseth(d, p);
          return e;
        },
        i);
  }
}

TEST(MrcHeaderCodec, NackReasonNames) {
  EXPECT_EQ(nack_reason_name(nack::kTrimmed), "TRIMMED");
  EXPECT_EQ(nack_reason_name(nack::kUnexpEvent), "UNEXP_EVENT");
  EXPECT_TRUE(nack_reason_name(0x03).empty());
  int known = 0;
  for (unsigned c = 0; c < 256; ++c) known += nack_reason_known(static_cast<std::uint8_t>(c)) ? 1 : 0;
  EXPECT_EQ(known, 7);
}

// A data packet with METH, optional TSETH and RETH, 1000 payload bytes.
struct DataFrame {
  std::vector<std::uint8_t> payload = std::vector<std::uint8_t>(1000, 0x5A);
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  std::size_t len = 0;
  explicit DataFrame(bool tseth, std::uint8_t op = opcode::kMrcWriteMiddle) {
    FrameSpec s;
    s.ip6.dscp = 10;
    s.bth.opcode = op;
    s.bth.psn = 77;
    s.has_meth = true;
    s.meth = Meth{0, 3};
    s.has_tseth = tseth;
    s.tseth.tx_timestamp = 0xBEEF;
    s.has_reth = true;
    s.reth = Reth{0x1000, 0x55, 4000};
    if (op == opcode::kMrcWriteLastImm) {
      s.has_immdt = true;
      s.immdt = 0xAB;
    }
    s.payload = Bytes(payload.data(), payload.size());
    const EncodeResult r = encode_frame(s, buf);
    EXPECT_TRUE(r.ok());
    len = r.length;
  }
  // What a trimming switch does (MODEL: W13): keep `keep` bytes of the frame, rewrite the DSCP,
  // fix the IP length, leave the UDP length and the ICRC stale.
  Bytes trim(std::size_t keep, std::uint8_t dscp) {
    buf[kEthLen] = static_cast<std::uint8_t>(0x60 | (dscp >> 2));
    buf[kEthLen + 1] = static_cast<std::uint8_t>(((dscp & 3) << 6) | (buf[kEthLen + 1] & 0x3F));
    const std::size_t plen = keep - kEthLen - kIpv6Len;
    buf[kEthLen + 4] = static_cast<std::uint8_t>(plen >> 8);
    buf[kEthLen + 5] = static_cast<std::uint8_t>(plen);
    return Bytes(buf.data(), keep);
  }
};

constexpr std::size_t kHeadersThroughBth = kEthLen + kIpv6Len + kUdpLen + kBthLen;

TEST(MrcTrimmed, RecognisedByDscpWithStaleUdpLength) {
  for (const bool tseth : {false, true}) {
    DataFrame f(tseth);
    const std::size_t keep = kHeadersThroughBth + kMethLen + (tseth ? kTsethLen : 0) + kRethLen + 64;
    DecodedFrame d;
    const DecodeResult r = decode_frame(f.trim(keep, 11), d);
    ASSERT_TRUE(r.ok()) << to_string(r.error);
    EXPECT_TRUE(d.trimmed);
    EXPECT_FALSE(d.trim_lasthop);
    EXPECT_TRUE(d.has_meth);
    EXPECT_EQ(d.has_tseth, tseth);
    if (tseth) {
      EXPECT_EQ(d.tseth.tx_timestamp, 0xBEEF);
    }
    EXPECT_TRUE(d.has_reth);
    EXPECT_EQ(d.reth.dma_length, 4000u);
    EXPECT_EQ(d.payload.size(), 64u);
    EXPECT_FALSE(d.icrc_ok);
  }
}

TEST(MrcTrimmed, LastHopDscpAndCutBeforeReth) {
  DataFrame f(true);
  const std::size_t keep = kHeadersThroughBth + kMethLen + kTsethLen;  // the least a switch keeps
  DecodedFrame d;
  const DecodeResult r = decode_frame(f.trim(keep, 13), d);
  ASSERT_TRUE(r.ok()) << to_string(r.error);
  EXPECT_TRUE(d.trimmed);
  EXPECT_TRUE(d.trim_lasthop);
  EXPECT_TRUE(d.has_tseth);
  EXPECT_FALSE(d.has_reth);
  EXPECT_TRUE(d.payload.empty());
}

TEST(MrcTrimmed, ConfigurableDscps) {
  DataFrame f(false);
  DecodeOptions opt;
  DscpConfig dscp;
  dscp.trimmed = 20;
  dscp.trimmed_lasthop = 21;
  opt.trimmed_dscps = dscp.trimmed_mask();
  opt.trimmed_lasthop_dscp = dscp.trimmed_lasthop;
  DecodedFrame d;
  const std::size_t keep = kHeadersThroughBth + kMethLen + kRethLen;
  // DSCP 11 is an ordinary DSCP under this configuration: the stale UDP length is an error.
  EXPECT_EQ(decode_frame(f.trim(keep, 11), d, opt).error, WireError::kBadUdpLength);
  ASSERT_TRUE(decode_frame(f.trim(keep, 21), d, opt).ok());
  EXPECT_TRUE(d.trimmed);
  EXPECT_TRUE(d.trim_lasthop);
}

TEST(MrcTrimmed, WholePacketWithBadIcrcIsNotTrimmed) {
  DataFrame f(false);
  f.buf[f.len - 20] ^= 0x01;  // a payload byte
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(f.buf.data(), f.len), d).ok());
  EXPECT_FALSE(d.icrc_ok);
  EXPECT_FALSE(d.trimmed);  // W13: lengths and ICRCs never mark a trim, only the DSCP does
}

TEST(MrcTrimmed, CaptureCutShortIsNotTrimmed) {
  DataFrame f(false, opcode::kMrcWriteLastImm);
  DecodedFrame d;
  const std::size_t cut = kHeadersThroughBth + kMethLen + kRethLen + kImmDtLen + 30;
  const DecodeResult r = decode_frame(Bytes(f.buf.data(), cut), d);
  ASSERT_TRUE(r.ok()) << to_string(r.error);
  EXPECT_FALSE(d.trimmed);
  EXPECT_FALSE(d.icrc_ok);
  EXPECT_TRUE(d.has_immdt);
  EXPECT_EQ(d.payload.size(), 30u);
}

}  // namespace
}  // namespace mrc::wire::test
