// Per-header codecs: known bytes, and encode->decode->encode round trips on 10,000 seeded random
// instances of every header.
#include <gtest/gtest.h>

#include <vector>

#include "reference/wire/codec.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

constexpr int kInstances = 10'000;

// Encodes `h`, decodes the bytes, re-encodes the decode: fields and bytes must both survive.
template <typename H, typename Enc, typename Dec, typename Len>
void round_trip(std::uint64_t seed, H (*gen)(Rng&), Enc enc, Dec dec, Len len) {
  Rng r(seed);
  std::vector<std::uint8_t> a(4096), b(4096);
  for (int i = 0; i < kInstances; ++i) {
    const H h = gen(r);
    const std::size_t n = len(h);
    enc(h, a.data());
    H d{};
    ASSERT_EQ(dec(Bytes(a.data(), n), d), WireError::kOk) << "instance " << i;
    ASSERT_EQ(fields(d), fields(h)) << "instance " << i;
    ASSERT_EQ(len(d), n);
    enc(d, b.data());
    ASSERT_TRUE(std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin()));
    // One byte short is always kTruncated, never a read past the span.
    ASSERT_EQ(dec(Bytes(a.data(), n - 1), d), WireError::kTruncated) << "instance " << i;
  }
}

TEST(HeaderCodec, EthRoundTrip) {
  round_trip<Eth>(1, random_eth, encode_eth, decode_eth,
                  [](const Eth& h) { return eth_length(h); });
}

TEST(HeaderCodec, Ipv4RoundTripWithChecksum) {
  Rng r(2);
  std::vector<std::uint8_t> a(64);
  for (int i = 0; i < kInstances; ++i) {
    const Ipv4 h = random_ipv4(r);
    encode_ipv4(h, a.data());
    Ipv4 d;
    ASSERT_EQ(decode_ipv4(Bytes(a.data(), ipv4_length(h)), d), WireError::kOk);
    ASSERT_EQ(fields(d), fields(h));
    ASSERT_TRUE(ipv4_checksum_ok(Bytes(a.data(), ipv4_length(h))));
    // The checksum field holds the RFC 1071 sum of the header with that field zeroed.
    std::vector<std::uint8_t> z(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(ipv4_length(h)));
    z[10] = z[11] = 0;
    ASSERT_EQ(d.checksum, ipv4_checksum(z));
    ASSERT_EQ(decode_ipv4(Bytes(a.data(), ipv4_length(h) - 1), d), WireError::kTruncated);
    // Any single flipped bit breaks the checksum.
    const std::size_t bit = uni(r, 0, ipv4_length(h) * 8 - 1);
    a[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    ASSERT_FALSE(ipv4_checksum_ok(Bytes(a.data(), ipv4_length(h))));
  }
}

TEST(HeaderCodec, Ipv4KnownChecksum) {
  // Classic RFC 1071 example header (Wikipedia "IPv4 header checksum"): checksum 0xB861.
  const std::uint8_t hdr[] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                              0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  EXPECT_EQ(ipv4_checksum(hdr), 0xB861);
  Ipv4 d;
  ASSERT_EQ(decode_ipv4(hdr, d), WireError::kOk);
  std::uint8_t out[20];
  encode_ipv4(d, out);
  EXPECT_EQ(out[10], 0xB8);
  EXPECT_EQ(out[11], 0x61);
}

TEST(HeaderCodec, Ipv6RoundTrip) {
  round_trip<Ipv6>(3, random_ipv6, encode_ipv6, decode_ipv6, [](const Ipv6&) { return kIpv6Len; });
}

TEST(HeaderCodec, UdpRoundTrip) {
  round_trip<Udp>(4, random_udp, encode_udp, decode_udp, [](const Udp&) { return kUdpLen; });
}

TEST(HeaderCodec, BthRoundTrip) {
  round_trip<Bth>(5, random_bth, encode_bth, decode_bth, [](const Bth&) { return kBthLen; });
}

TEST(HeaderCodec, RethRoundTrip) {
  round_trip<Reth>(6, random_reth, encode_reth, decode_reth, [](const Reth&) { return kRethLen; });
}

TEST(HeaderCodec, AethRoundTrip) {
  round_trip<Aeth>(7, random_aeth, encode_aeth, decode_aeth, [](const Aeth&) { return kAethLen; });
}

TEST(HeaderCodec, ImmDtRoundTrip) {
  Rng r(8);
  std::uint8_t a[4];
  for (int i = 0; i < kInstances; ++i) {
    const auto v = static_cast<std::uint32_t>(r());
    encode_immdt(v, a);
    EXPECT_EQ(a[0], v >> 24);  // big-endian
    std::uint32_t d = 0;
    ASSERT_EQ(decode_immdt(a, d), WireError::kOk);
    ASSERT_EQ(d, v);
    ASSERT_EQ(decode_immdt(Bytes(a, 3), d), WireError::kTruncated);
  }
}

TEST(HeaderCodec, SrhRoundTripAnySegmentsAndTlvs) {
  Rng r(11);
  std::vector<std::uint8_t> body, a(8 + 255 * 8), b(a.size());
  for (int i = 0; i < kInstances; ++i) {
    const std::size_t nseg = uni(r, 1, 12);
    const std::size_t ntlv = 8 * uni(r, 0, 4);
    body.assign(nseg * 16 + ntlv, 0);
    fill_random(r, body);
    Srh h;
    h.next_header = static_cast<std::uint8_t>(r());
    h.segments_left = static_cast<std::uint8_t>(uni(r, 0, nseg));
    h.last_entry = static_cast<std::uint8_t>(nseg - 1);
    h.flags = static_cast<std::uint8_t>(r());
    h.tag = static_cast<std::uint16_t>(r());
    h.segments = Bytes(body.data(), nseg * 16);
    h.tlvs = Bytes(body.data() + nseg * 16, ntlv);
    h.hdr_ext_len = static_cast<std::uint8_t>((nseg * 16 + ntlv) / 8);
    ASSERT_EQ(check_srh_encodable(h), WireError::kOk);
    encode_srh(h, a.data());
    const std::size_t n = srh_length(h);
    Srh d;
    ASSERT_EQ(decode_srh(Bytes(a.data(), n), d), WireError::kOk);
    ASSERT_EQ(fields(d), fields(h));
    ASSERT_EQ(d.wire_length(), n);
    ASSERT_EQ(d.segment_count(), nseg);
    ASSERT_TRUE(same_bytes(d.segments, h.segments));
    ASSERT_TRUE(same_bytes(d.tlvs, h.tlvs));
    for (std::size_t k = 0; k < nseg; ++k) {
      const Ipv6Addr seg = d.segment(k);
      const auto at = body.begin() + static_cast<std::ptrdiff_t>(k * 16);
      ASSERT_TRUE(std::equal(seg.begin(), seg.end(), at));
    }
    encode_srh(d, b.data());
    ASSERT_TRUE(std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin()));
    ASSERT_EQ(decode_srh(Bytes(a.data(), n - 1), d), WireError::kTruncated);
  }
}

TEST(HeaderCodec, SrhSingleSegmentBytes) {  // W19: 29 02 04 01 00 00 00 00 + 16-byte segment
  std::array<std::uint8_t, 16> seg;
  for (std::size_t i = 0; i < seg.size(); ++i) seg[i] = static_cast<std::uint8_t>(0xA0 + i);
  Srh h;  // defaults: NH 41, RT 4, SL 1, LastEntry 0
  h.segments = Bytes(seg.data(), seg.size());
  std::uint8_t out[24];
  ASSERT_EQ(srh_length(h), 24u);
  encode_srh(h, out);
  const std::uint8_t fixed[] = {0x29, 0x02, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00};
  EXPECT_TRUE(std::equal(std::begin(fixed), std::end(fixed), out));
  EXPECT_TRUE(std::equal(seg.begin(), seg.end(), out + 8));
  Srh d;
  ASSERT_EQ(decode_srh(out, d), WireError::kOk);
  EXPECT_EQ(d.segment(0), seg);
}

TEST(HeaderCodec, SrhRejectsInconsistentHeaders) {
  std::uint8_t b[8 + 32] = {0x29, 0x04, 0x04, 0x01, 0x01, 0x00, 0x00, 0x00};  // 2 segments
  Srh d;
  ASSERT_EQ(decode_srh(b, d), WireError::kOk);
  b[2] = 3;  // routing type 3 (RPL), not SRH
  EXPECT_EQ(decode_srh(b, d), WireError::kBadSrh);
  b[2] = 4;
  b[4] = 2;  // Last Entry 2 needs 48 bytes of segments, hdr_ext_len gives 32
  EXPECT_EQ(decode_srh(b, d), WireError::kBadSrh);
  b[4] = 1;
  b[3] = 3;  // Segments Left > Last Entry + 1
  EXPECT_EQ(decode_srh(b, d), WireError::kBadSrh);
  b[3] = 2;  // Segments Left == Last Entry + 1 is allowed (reduced encapsulation)
  EXPECT_EQ(decode_srh(b, d), WireError::kOk);
  b[1] = 0;  // no room for any segment
  EXPECT_EQ(decode_srh(b, d), WireError::kBadSrh);
  Srh e;
  std::uint8_t odd[24] = {};
  e.segments = Bytes(odd, 15);
  EXPECT_EQ(check_srh_encodable(e), WireError::kBadArgument);
  e.segments = Bytes(odd, 16);
  e.tlvs = Bytes(odd, 4);  // TLVs that do not end on an 8-octet boundary
  EXPECT_EQ(check_srh_encodable(e), WireError::kBadArgument);
}

TEST(HeaderCodec, FieldErrors) {
  std::uint8_t b[64] = {};
  Ipv4 v4;
  b[0] = 0x65;
  EXPECT_EQ(decode_ipv4(Bytes(b, 20), v4), WireError::kBadIpVersion);
  b[0] = 0x44;
  EXPECT_EQ(decode_ipv4(Bytes(b, 20), v4), WireError::kBadIpHeaderLength);
  b[0] = 0x46;  // IHL 6 needs 24 bytes
  EXPECT_EQ(decode_ipv4(Bytes(b, 20), v4), WireError::kTruncated);
  Ipv6 v6;
  b[0] = 0x45;
  EXPECT_EQ(decode_ipv6(Bytes(b, 40), v6), WireError::kBadIpVersion);
  Eth eth;
  std::uint8_t e[18] = {};
  e[12] = 0x88;  // 0x88CC LLDP
  e[13] = 0xCC;
  EXPECT_EQ(decode_eth(e, eth), WireError::kBadEthertype);
  e[12] = 0x81;  // VLAN then VLAN again (QinQ) is refused
  e[13] = 0x00;
  e[16] = 0x81;
  e[17] = 0x00;
  EXPECT_EQ(decode_eth(e, eth), WireError::kBadEthertype);
  EXPECT_EQ(decode_eth(Bytes(e, 17), eth), WireError::kTruncated);
}

TEST(HeaderCodec, BthBitPositions) {
  Bth h;
  h.opcode = 0x0A;
  h.se = true;
  h.pad_count = 3;
  h.tver = 0;
  h.pkey = 0xFFFF;
  h.becn = true;
  h.dest_qp = 0x000123;
  h.ack_req = true;
  h.psn = 0x000010;
  std::uint8_t b[kBthLen];
  encode_bth(h, b);
  const std::uint8_t want[] = {0x0A, 0xB0, 0xFF, 0xFF, 0x40, 0x00,
                              0x01, 0x23, 0x80, 0x00, 0x00, 0x10};
  EXPECT_TRUE(std::equal(std::begin(want), std::end(want), b));
}

}  // namespace
}  // namespace mrc::wire::test
