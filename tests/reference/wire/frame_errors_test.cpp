// Crafted frames: every WireError the decoder and encoder can return, trimmed MRC data packets
// (W13) beside plain RoCEv2 frames cut by a snap length or carrying a bad ICRC, Ethernet padding,
// and the offsets errors report.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "reference/wire/icrc.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

const std::array<std::uint8_t, 1024>& pattern() {
  static const std::array<std::uint8_t, 1024> p = [] {
    std::array<std::uint8_t, 1024> a{};
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 7 + 1);
    return a;
  }();
  return p;
}

// A plain RoCEv2 frame; by default RC WRITE FIRST, which carries a RETH (IBA). Its extension
// headers come from the test's own opcode oracle (expected_layout), not the decoder's table.
FrameSpec data_spec(L3Kind l3, std::size_t payload, std::uint8_t op = opcode::kRcWriteFirst) {
  FrameSpec s;
  s.l3 = l3;
  s.ip4.dscp = s.ip6.dscp = kDscpTrimmable;
  s.ip4.src = 0x0A000001;
  s.ip4.dst = 0x0A000002;
  s.ip6.src[0] = s.ip6.dst[0] = 0xfd;
  s.ip6.src[15] = 1;
  s.ip6.dst[15] = 2;
  s.bth.opcode = op;
  s.bth.dest_qp = 0x42;
  s.bth.psn = 0x100;
  s.has_reth = expected_layout(op).reth;
  s.reth = Reth{0x1000, 7, static_cast<std::uint32_t>(payload)};
  s.payload = Bytes(pattern().data(), payload);
  return s;
}

// An MRC 1.0 data packet (W3, W4): METH [+ TSETH] + RETH, by default WRITE MIDDLE (0xC7).
FrameSpec mrc_data_spec(L3Kind l3, std::size_t payload, bool tseth = false,
                        std::uint8_t op = opcode::kMrcWriteMiddle) {
  FrameSpec s = data_spec(l3, payload, op);
  s.has_meth = true;
  s.meth = Meth{0, 5};
  s.has_tseth = tseth;
  s.tseth.tx_timestamp = 0x1234;
  return s;
}

std::vector<std::uint8_t> build(const FrameSpec& s) {
  std::vector<std::uint8_t> v(kMaxFrameLen);
  const EncodeResult r = encode_frame(s, v);
  EXPECT_TRUE(r.ok()) << to_string(r.error);
  v.resize(r.length);
  return v;
}

// Recomputes the ICRC after a test patched bytes, so only the patched field is wrong.
void refresh_icrc(std::vector<std::uint8_t>& f, std::size_t roce_ip, std::size_t end) {
  icrc_write(f.data() + end - 4, icrc_compute(Bytes(f.data() + roce_ip, end - 4 - roce_ip)));
}

struct Outcome {
  WireError error;
  std::size_t offset;
};
Outcome decode(const std::vector<std::uint8_t>& f, DecodedFrame& d) {
  const DecodeResult r = decode_frame(Bytes(f.data(), f.size()), d);
  return Outcome{r.error, r.offset};
}

constexpr std::size_t kIp = kEthLen;                   // IP header offset (no VLAN)
constexpr std::size_t kUdp6 = kEthLen + kIpv6Len;      // UDP offset, plain IPv6
constexpr std::size_t kUdp4 = kEthLen + kIpv4MinLen;   // UDP offset, IPv4
constexpr std::size_t kBth6 = kUdp6 + kUdpLen;

void set_dscp(std::vector<std::uint8_t>& f, std::size_t ip, std::uint8_t dscp) {
  if ((f[ip] >> 4) == 4) {
    f[ip + 1] = static_cast<std::uint8_t>((dscp << 2) | (f[ip + 1] & 3));
  } else {
    const std::uint8_t tc = static_cast<std::uint8_t>((dscp << 2) | (((f[ip + 1] >> 4) & 3)));
    f[ip] = static_cast<std::uint8_t>(0x60 | (tc >> 4));
    f[ip + 1] = static_cast<std::uint8_t>((tc << 4) | (f[ip + 1] & 0x0F));
  }
}

// Decodes crafted frames and remembers every error produced, so one test can show that each
// decoder WireError is reachable.
struct Crafter {
  std::set<WireError> seen;
  void expect(const std::vector<std::uint8_t>& f, WireError e, std::size_t off) {
    DecodedFrame d;
    const Outcome o = decode(f, d);
    EXPECT_EQ(o.error, e) << to_string(o.error);
    EXPECT_EQ(o.offset, off);
    EXPECT_LE(o.offset, f.size());
    seen.insert(o.error);
  }
};

void craft_Truncated(Crafter& t) {
  auto f = build(data_spec(L3Kind::kIpv6, 64));
  t.expect(std::vector<std::uint8_t>(f.begin(), f.begin() + 13), WireError::kTruncated, 0);
  t.expect(std::vector<std::uint8_t>(f.begin(), f.begin() + kIp + 39), WireError::kTruncated, kIp);
  t.expect(std::vector<std::uint8_t>(f.begin(), f.begin() + kUdp6 + 7), WireError::kTruncated,
           kUdp6);
  // Cut inside the BTH or inside the RETH: a capture may end in the payload (snap length), never
  // inside the headers the opcode requires.
  t.expect(std::vector<std::uint8_t>(f.begin(), f.begin() + kBth6 + 5), WireError::kTruncated,
           kBth6);
  t.expect(std::vector<std::uint8_t>(f.begin(), f.begin() + kBth6 + 12 + 15), WireError::kTruncated,
         kBth6 + 12);
  // A trimmed DSCP on a plain RoCEv2 packet changes nothing (W13 trims MRC data opcodes only).
  set_dscp(f, kIp, kDscpTrimmed);
  t.expect(std::vector<std::uint8_t>(f.begin(), f.begin() + kBth6 + 20), WireError::kTruncated,
         kBth6 + 12);
  // A trimmed MRC data packet keeps at least BTH + METH [+ TSETH] (W13): one cut inside them is
  // an error, trimmed DSCP or not.
  for (bool tseth : {false, true}) {
    auto m = build(mrc_data_spec(L3Kind::kIpv6, 64, tseth));
    set_dscp(m, kIp, kDscpTrimmed);
    t.expect(std::vector<std::uint8_t>(m.begin(), m.begin() + kBth6 + kBthLen + 2),
             WireError::kTruncated, kBth6 + kBthLen);
    if (tseth) {
      t.expect(std::vector<std::uint8_t>(m.begin(), m.begin() + kBth6 + kBthLen + kMethLen + 3),
               WireError::kTruncated, kBth6 + kBthLen + kMethLen);
    }
  }
}

void craft_BadEthertypeAndVersion(Crafter& t) {
  auto f = build(data_spec(L3Kind::kIpv6, 8));
  f[12] = 0x08;
  f[13] = 0x06;  // ARP
  t.expect(f, WireError::kBadEthertype, 0);
  f[12] = 0x08;
  f[13] = 0x00;  // says IPv4, carries IPv6
  t.expect(f, WireError::kBadIpVersion, kIp);
}

void craft_BadIpHeaderLengthAndIpLength(Crafter& t) {
  auto f = build(data_spec(L3Kind::kIpv4, 8));
  auto g = f;
  g[kIp] = 0x44;  // IHL 4
  t.expect(g, WireError::kBadIpHeaderLength, kIp);
  g = f;
  store_be16(g.data() + kIp + 2, 12);  // total length shorter than its own header
  t.expect(g, WireError::kBadIpLength, kIp);
  g = f;
  store_be16(g.data() + kIp + 2, 24);  // room for the IP header, not for UDP
  t.expect(g, WireError::kBadIpLength, kUdp4);
  // IPv6: the SRH or the inner IPv6 does not fit the outer payload length.
  FrameCase c;
  Rng r(5);
  make_case(r, Mode::kSrv6Srh, c);
  c.spec.eth.has_vlan = false;
  auto s = build(c.spec);
  g = s;
  store_be16(g.data() + kIp + 4, 16);
  t.expect(g, WireError::kBadIpLength, kUdp6);
  g = s;
  store_be16(g.data() + kIp + 4, 24 + 30);
  t.expect(g, WireError::kBadIpLength, kUdp6 + 24);
  g = s;  // inner claims more than the outer holds
  const std::uint16_t inner_len = load_be16(g.data() + kUdp6 + 24 + 4);
  store_be16(g.data() + kUdp6 + 24 + 4, static_cast<std::uint16_t>(inner_len + 1));
  t.expect(g, WireError::kBadIpLength, kUdp6 + 24);
}

void craft_NotUdpNotRoce(Crafter& t) {
  auto f = build(data_spec(L3Kind::kIpv4, 8));
  f[kIp + 9] = 6;  // TCP
  t.expect(f, WireError::kNotUdp, kIp);
  auto g = build(data_spec(L3Kind::kIpv6, 8));
  g[kIp + 6] = 58;  // ICMPv6
  t.expect(g, WireError::kNotUdp, kUdp6);
  FrameCase c;
  Rng r(6);
  make_case(r, Mode::kSrv6Srh, c);
  c.spec.eth.has_vlan = false;
  auto s = build(c.spec);
  auto h = s;
  h[kUdp6] = 6;  // SRH -> TCP
  t.expect(h, WireError::kNotUdp, kUdp6 + 24);
  h = s;
  h[kUdp6 + 24 + 6] = 43;  // inner IPv6 -> another routing header: one level only
  t.expect(h, WireError::kNotUdp, kUdp6 + 24 + 40);
  FrameSpec sp = data_spec(L3Kind::kIpv6, 8);
  sp.udp.dport = 4792;
  t.expect(build(sp), WireError::kNotRoce, kUdp6);
}

void craft_BadUdpLength(Crafter& t) {
  auto f = build(data_spec(L3Kind::kIpv6, 8));
  auto g = f;
  store_be16(g.data() + kUdp6 + 4, 7);
  t.expect(g, WireError::kBadUdpLength, kUdp6);
  g = f;
  store_be16(g.data() + kUdp6 + 4, static_cast<std::uint16_t>(load_be16(g.data() + kUdp6 + 4) + 4));
  t.expect(g, WireError::kBadUdpLength, kUdp6);  // past the IP payload
  g = f;
  store_be16(g.data() + kUdp6 + 4, kUdpLen + 4);  // no room for the BTH
  t.expect(g, WireError::kBadUdpLength, kBth6);
  g = f;
  store_be16(g.data() + kUdp6 + 4, kUdpLen + kBthLen + 8);  // no room for the RETH
  t.expect(g, WireError::kBadUdpLength, kBth6 + kBthLen);
  g = f;
  store_be16(g.data() + kUdp6 + 4, kUdpLen + kBthLen + kRethLen + 2);  // no room for the ICRC
  t.expect(g, WireError::kBadUdpLength, kBth6 + kBthLen + kRethLen);
}

void craft_BadSrh(Crafter& t) {
  FrameCase c;
  Rng r(7);
  make_case(r, Mode::kSrv6Srh, c);
  c.spec.eth.has_vlan = false;
  auto s = build(c.spec);
  s[kUdp6 + 2] = 0;  // routing type 0 (deprecated RH0)
  t.expect(s, WireError::kBadSrh, kUdp6);
}

void craft_BadOpcode(Crafter& t) {
  FrameSpec sp = data_spec(L3Kind::kIpv6, 8, 0x24);  // UC opcode: no MRC layout
  t.expect(build(sp), WireError::kBadOpcode, kBth6);
  // 0xC0 / 0xC1 (the older model's endpoint request / response) and 0xC2 sit in the
  // manufacturer range but are no MRC 1.0 opcode (W3).
  for (std::uint8_t op : {std::uint8_t{0xC0}, std::uint8_t{0xC1}, std::uint8_t{0xC2}}) {
    sp.bth.opcode = op;
    t.expect(build(sp), WireError::kBadOpcode, kBth6);
  }
}

void craft_BadPadCount(Crafter& t) {
  FrameSpec sp = data_spec(L3Kind::kIpv6, 0);  // no payload, so pad 0
  auto f = build(sp);
  f[kBth6 + 1] |= 0x30;  // pad count 3 with nothing to strip
  refresh_icrc(f, kIp, f.size());
  t.expect(f, WireError::kBadPadCount, kBth6);
  // The same with a stale ICRC, or a trimmed DSCP on this plain RoCEv2 packet: neither makes it
  // a trimmed packet (W13), so the pad count is still checked.
  auto g = f;
  g.back() ^= 0xFF;
  t.expect(g, WireError::kBadPadCount, kBth6);
  set_dscp(f, kIp, kDscpTrimmed);
  t.expect(f, WireError::kBadPadCount, kBth6);
  // An untrimmed MRC data packet (METH + RETH) and an MRC control packet (SACK) likewise.
  auto m = build(mrc_data_spec(L3Kind::kIpv6, 0));
  m[kBth6 + 1] |= 0x30;
  refresh_icrc(m, kIp, m.size());
  t.expect(m, WireError::kBadPadCount, kBth6);
  FrameSpec sack = data_spec(L3Kind::kIpv6, 0, opcode::kMrcSack);
  sack.has_sack = true;
  auto k = build(sack);
  k[kBth6 + 1] |= 0x10;
  refresh_icrc(k, kIp, k.size());
  t.expect(k, WireError::kBadPadCount, kBth6);
}

// The MRC 1.0 headers after the BTH are bounded by the UDP length like the IBA ones: each of
// SETH + CC_STATE, NETH, PETH, ERTH, EETH and METH that the UDP length cuts short.
void craft_MrcHeadersPastUdpLength(Crafter& t) {
  const std::pair<std::uint8_t, std::size_t> kControl[] = {
      {opcode::kMrcSack, kSackHdrLen},    {opcode::kMrcNack, kNethLen},
      {opcode::kMrcProbe, kPethLen},      {opcode::kMrcEndpointReq, kErthLen},
      {opcode::kMrcEndpointRsp, kEethLen}};
  for (const auto& [op, len] : kControl) {
    FrameSpec sp = data_spec(L3Kind::kIpv6, 8, op);
    const ExtLayout l = expected_layout(op);
    sp.has_sack = l.sack;
    sp.has_neth = l.neth;
    sp.has_peth = l.peth;
    sp.has_erth = l.erth;
    sp.has_eeth = l.eeth;
    auto f = build(sp);
    store_be16(f.data() + kUdp6 + 4, static_cast<std::uint16_t>(kUdpLen + kBthLen + len - 1));
    t.expect(f, WireError::kBadUdpLength, kBth6 + kBthLen);
  }
  auto m = build(mrc_data_spec(L3Kind::kIpv6, 8));
  store_be16(m.data() + kUdp6 + 4, static_cast<std::uint16_t>(kUdpLen + kBthLen + kMethLen - 1));
  t.expect(m, WireError::kBadUdpLength, kBth6 + kBthLen);
}

TEST(DecoderErrors, EveryDecoderErrorIsProducedByACraftedFrame) {
  Crafter t;
  {
    SCOPED_TRACE("Truncated");
    craft_Truncated(t);
  }
  {
    SCOPED_TRACE("BadEthertypeAndVersion");
    craft_BadEthertypeAndVersion(t);
  }
  {
    SCOPED_TRACE("BadIpHeaderLengthAndIpLength");
    craft_BadIpHeaderLengthAndIpLength(t);
  }
  {
    SCOPED_TRACE("NotUdpNotRoce");
    craft_NotUdpNotRoce(t);
  }
  {
    SCOPED_TRACE("BadUdpLength");
    craft_BadUdpLength(t);
  }
  {
    SCOPED_TRACE("BadSrh");
    craft_BadSrh(t);
  }
  {
    SCOPED_TRACE("BadOpcode");
    craft_BadOpcode(t);
  }
  {
    SCOPED_TRACE("BadPadCount");
    craft_BadPadCount(t);
  }
  {
    SCOPED_TRACE("MrcHeadersPastUdpLength");
    craft_MrcHeadersPastUdpLength(t);
  }
  // Every decoder error (all but the encoder-only kBufferTooSmall / kBadArgument, the last two).
  for (int e = 1; e < static_cast<int>(WireError::kBufferTooSmall); ++e) {
    EXPECT_TRUE(t.seen.count(static_cast<WireError>(e))) << to_string(static_cast<WireError>(e));
  }
}

TEST(EncoderErrors, BufferTooSmallAndBadArgument) {
  FrameSpec sp = data_spec(L3Kind::kIpv6, 100);
  std::array<std::uint8_t, 64> small{};
  EXPECT_EQ(encode_frame(sp, small).error, WireError::kBufferTooSmall);
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  const std::size_t exact = encode_frame(sp, buf).length;
  EXPECT_EQ(encode_frame(sp, MutBytes(buf.data(), exact - 1)).error, WireError::kBufferTooSmall);
  EXPECT_TRUE(encode_frame(sp, MutBytes(buf.data(), exact)).ok());
  FrameSpec v4 = data_spec(L3Kind::kIpv4, 8);
  v4.srv6_encap = true;
  EXPECT_EQ(encode_frame(v4, buf).error, WireError::kBadArgument);
  v4.srv6_encap = false;
  v4.ip4.ihl = 4;
  EXPECT_EQ(encode_frame(v4, buf).error, WireError::kBadArgument);
  FrameSpec srh = data_spec(L3Kind::kIpv6, 8);
  srh.has_srh = true;
  srh.srh.segments = Bytes(pattern().data(), 20);
  EXPECT_EQ(encode_frame(srh, buf).error, WireError::kBadArgument);
  static std::vector<std::uint8_t> huge(70'000);
  FrameSpec big = data_spec(L3Kind::kIpv6, 8);
  big.payload = Bytes(huge.data(), huge.size());
  std::vector<std::uint8_t> out(80'000);
  EXPECT_EQ(encode_frame(big, out).error, WireError::kBadArgument);
}

// ---- trimmed packets (W13) and what is not one ----
// Only an MRC data packet (0xC6..0xCB) whose DSCP is a trimmed one is `trimmed`; a plain RoCEv2
// packet cut by the capture, carrying a bad ICRC or DSCP 11 is reported as what it is.

TEST(TrimmedPackets, Dscp11OnAPlainRoceFrameIsNotATrim) {
  for (L3Kind l3 : {L3Kind::kIpv4, L3Kind::kIpv6}) {
    auto f = build(data_spec(l3, 100));
    set_dscp(f, kIp, kDscpTrimmed);
    DecodedFrame d;
    ASSERT_EQ(decode(f, d).error, WireError::kOk);
    EXPECT_FALSE(d.trimmed);
    EXPECT_FALSE(d.trim_lasthop);
    EXPECT_TRUE(d.icrc_ok);  // DSCP is masked in the ICRC, so it is still checked and good
    EXPECT_EQ(d.payload.size(), 100u);
  }
}

TEST(TrimmedPackets, Dscp11OnACompleteMrcDataPacket) {
  // The DSCP alone marks the trim (W13), whatever the lengths: the ICRC is not checked.
  for (L3Kind l3 : {L3Kind::kIpv4, L3Kind::kIpv6}) {
    auto f = build(mrc_data_spec(l3, 100));
    set_dscp(f, kIp, kDscpTrimmed);
    DecodedFrame d;
    const Outcome o = decode(f, d);
    ASSERT_EQ(o.error, WireError::kOk);
    EXPECT_EQ(o.offset, f.size());
    EXPECT_TRUE(d.trimmed);
    EXPECT_FALSE(d.trim_lasthop);
    EXPECT_FALSE(d.icrc_ok);
    EXPECT_EQ(d.icrc_computed, 0u);
    EXPECT_TRUE(d.has_meth && d.has_reth);
    set_dscp(f, kIp, DscpConfig{}.trimmed_lasthop);
    ASSERT_EQ(decode(f, d).error, WireError::kOk);
    EXPECT_TRUE(d.trimmed);
    EXPECT_TRUE(d.trim_lasthop);
  }
}

TEST(TrimmedPackets, Srv6OuterOrInnerDscp11) {
  // W13: the switch rewrites the header it forwards on (outer); a decapsulated copy keeps the
  // inner one. Either marks an MRC data packet, neither a plain RoCEv2 packet.
  for (int which = 0; which < 2; ++which) {
    for (bool mrc : {true, false}) {
      FrameCase c;
      Rng r(8);
      make_case(r, Mode::kSrv6Srh, c);
      c.spec.eth.has_vlan = false;
      c.spec.bth.opcode = mrc ? opcode::kMrcWriteMiddle : opcode::kRcWriteFirst;
      set_layout(c.spec, expected_layout(c.spec.bth.opcode), r);
      auto f = build(c.spec);
      set_dscp(f, which == 0 ? kIp : kIp + kIpv6Len + 24, kDscpTrimmed);
      DecodedFrame d;
      ASSERT_EQ(decode(f, d).error, WireError::kOk) << which << " " << mrc;
      EXPECT_TRUE(d.encapsulated);
      EXPECT_EQ(d.trimmed, mrc) << which;
      EXPECT_EQ(d.icrc_ok, !mrc) << which;  // checked (and good) unless trimmed
    }
  }
}

TEST(TrimmedPackets, MrcDataCutToTrimLengthWithStaleLengths) {
  // A switch that cuts to 256 bytes, rewrites the DSCP and fixes no length (the fuzz seed
  // stub_trimmed_256): trimmed, decoded as far as the capture goes.
  for (L3Kind l3 : {L3Kind::kIpv4, L3Kind::kIpv6}) {
    auto f = build(mrc_data_spec(l3, 1000, true));
    const std::size_t full = f.size();
    f.resize(kTrimLength);
    set_dscp(f, kIp, kDscpTrimmed);
    DecodedFrame d;
    const Outcome o = decode(f, d);
    ASSERT_EQ(o.error, WireError::kOk);
    EXPECT_EQ(o.offset, kTrimLength);
    EXPECT_EQ(d.frame_length, full);
    EXPECT_TRUE(d.trimmed);
    EXPECT_FALSE(d.icrc_ok);
    EXPECT_TRUE(d.has_meth && d.has_tseth && d.has_reth);
    EXPECT_EQ(d.tseth.tx_timestamp, 0x1234);
    EXPECT_EQ(d.reth.dma_length, 1000u);
    const std::size_t hdr_end = d.bth_offset + kBthLen + kMethLen + kTsethLen + kRethLen;
    EXPECT_EQ(d.payload.data(), f.data() + hdr_end);
    EXPECT_EQ(d.payload.size(), kTrimLength - hdr_end);
    // Without the trimmed DSCP the same bytes are a capture cut short: not trimmed either.
    set_dscp(f, kIp, kDscpTrimmable);
    ASSERT_EQ(decode(f, d).error, WireError::kOk);
    EXPECT_FALSE(d.trimmed);
    EXPECT_EQ(d.payload.size(), kTrimLength - hdr_end);
  }
}

TEST(SnapLength, PlainRoceFrameCutByTheCaptureKeepsItsBytes) {
  for (L3Kind l3 : {L3Kind::kIpv4, L3Kind::kIpv6}) {
    auto f = build(data_spec(l3, 1000));
    const std::size_t full = f.size();
    f.resize(kTrimLength);
    DecodedFrame d;
    Outcome o = decode(f, d);
    ASSERT_EQ(o.error, WireError::kOk);
    EXPECT_EQ(o.offset, kTrimLength);
    EXPECT_EQ(d.frame_length, full);
    EXPECT_FALSE(d.trimmed);  // only the DSCP of an MRC data packet marks a trim (W13)
    EXPECT_FALSE(d.icrc_ok);  // the ICRC was not captured
    EXPECT_TRUE(d.has_reth);
    EXPECT_EQ(d.reth.va, 0x1000u);
    const std::size_t hdr_end = d.bth_offset + kBthLen + kRethLen;
    EXPECT_EQ(d.payload.data(), f.data() + hdr_end);
    EXPECT_EQ(d.payload.size(), kTrimLength - hdr_end);  // no pad or ICRC stripped
    set_dscp(f, kIp, kDscpTrimmed);
    ASSERT_EQ(decode(f, d).error, WireError::kOk);
    EXPECT_FALSE(d.trimmed);
    // Cut right after the RETH: still decodes, with an empty payload.
    f.resize(hdr_end);
    o = decode(f, d);
    ASSERT_EQ(o.error, WireError::kOk);
    EXPECT_EQ(o.offset, hdr_end);
    EXPECT_FALSE(d.trimmed);
    EXPECT_TRUE(d.payload.empty());
  }
  // An RC WRITE MIDDLE carries no RETH (IBA): its cut payload starts right after the BTH.
  auto m = build(data_spec(L3Kind::kIpv6, 600, opcode::kRcWriteMiddle));
  m.resize(kTrimLength);
  DecodedFrame d;
  ASSERT_EQ(decode(m, d).error, WireError::kOk);
  EXPECT_FALSE(d.has_reth);
  EXPECT_FALSE(d.trimmed);
  EXPECT_EQ(d.payload.size(), kTrimLength - kBth6 - kBthLen);
}

TEST(TrimmedPackets, LengthsFixedUpIcrcBrokenIsCorruptNotTrimmed) {
  // A switch that trims and rewrites IP/UDP lengths but not the DSCP of a plain RoCEv2 packet:
  // the frame is complete by its lengths, and its ICRC is simply bad.
  auto f = build(data_spec(L3Kind::kIpv6, 400));
  const std::size_t cut = 200;
  f.resize(cut);
  store_be16(f.data() + kIp + 4, static_cast<std::uint16_t>(cut - kUdp6));
  store_be16(f.data() + kUdp6 + 4, static_cast<std::uint16_t>(cut - kUdp6));
  DecodedFrame d;
  ASSERT_EQ(decode(f, d).error, WireError::kOk);
  EXPECT_FALSE(d.icrc_ok);
  EXPECT_NE(d.icrc_computed, d.icrc_wire);
  EXPECT_FALSE(d.trimmed);
  // The last 4 bytes are taken for the ICRC; the pad count (0 for 400 bytes) strips nothing.
  EXPECT_EQ(d.payload.size(), cut - kBth6 - kBthLen - kRethLen - kIcrcLen);
  // Not verifying the ICRC: the same decode, icrc_ok left false.
  DecodeOptions no_icrc;
  no_icrc.verify_icrc = false;
  ASSERT_TRUE(decode_frame(Bytes(f.data(), f.size()), d, no_icrc).ok());
  EXPECT_FALSE(d.trimmed);
  EXPECT_FALSE(d.icrc_ok);
  EXPECT_EQ(d.icrc_computed, 0u);
  // A pad count larger than what is left is kBadPadCount, bad ICRC or not (no stub exception).
  f.resize(kBth6 + kBthLen + kRethLen + 6);
  f[kBth6 + 1] |= 0x30;
  store_be16(f.data() + kIp + 4, static_cast<std::uint16_t>(f.size() - kUdp6));
  store_be16(f.data() + kUdp6 + 4, static_cast<std::uint16_t>(f.size() - kUdp6));
  const Outcome o = decode(f, d);
  EXPECT_EQ(o.error, WireError::kBadPadCount);
  EXPECT_EQ(o.offset, kBth6);
}

TEST(EthernetPadding, ShortFrameUsesIpLength) {
  // The smallest RoCEv2 frame: IPv4, classic WRITE MIDDLE, no payload = 58 bytes, padded to 60.
  FrameSpec sp = data_spec(L3Kind::kIpv4, 0, opcode::kRcWriteMiddle);
  auto f = build(sp);
  ASSERT_EQ(f.size(), 58u);
  f.resize(60, 0);
  DecodedFrame d;
  Outcome o = decode(f, d);
  ASSERT_EQ(o.error, WireError::kOk);
  EXPECT_EQ(o.offset, 58u);
  EXPECT_EQ(d.frame_length, 58u);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_FALSE(d.trimmed);
  EXPECT_TRUE(d.payload.empty());
  // A trailing FCS-like tail on a full-size frame is ignored the same way.
  auto g = build(data_spec(L3Kind::kIpv6, 64));
  const std::size_t n = g.size();
  g.insert(g.end(), {0xDE, 0xAD, 0xBE, 0xEF});
  o = decode(g, d);
  ASSERT_EQ(o.error, WireError::kOk);
  EXPECT_EQ(o.offset, n);
  EXPECT_TRUE(d.icrc_ok);
}

}  // namespace
}  // namespace mrc::wire::test
