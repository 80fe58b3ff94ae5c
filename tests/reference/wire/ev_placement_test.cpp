// EV placement per mode (W1, W2): STEV split, UDP mode, SRv6 outer DA + single-segment
// SRH, re-placement on one spec, and the EV echo a receiver reads back from a decoded frame.
#include <gtest/gtest.h>

#include "reference/wire/ev_placement.hpp"
#include "reference/wire/usid.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

EvBytes ev_of(std::initializer_list<std::uint8_t> b) {
  EvBytes e{};
  std::copy(b.begin(), b.end(), e.begin());
  return e;
}

TEST(EvPlacement, StevSplitIsBigEndian) {  // W2
  const EvBytes ev = ev_of({0x13, 0x03, 0x21, 0x02});  // §1.5 worked example 1 wire bytes
  const std::uint32_t v = stev_value(ev);
  EXPECT_EQ(v, 0x13032102u);
  EXPECT_EQ(stev_flow_label(v), 0x1303u);
  EXPECT_EQ(stev_sport(v), 0x2102u);
  EXPECT_EQ(udp_mode_sport(ev), 0x1303u);
  FrameSpec s;
  std::array<std::uint8_t, 16> seg{};
  place_ev(s, EvFmtMode::kStev, ev, 9, seg);
  EXPECT_EQ(s.l3, L3Kind::kIpv6);
  EXPECT_EQ(s.ip6.flow_label, 0x1303u);
  EXPECT_EQ(s.udp.sport, 0x2102);
  EXPECT_FALSE(s.srv6_encap);
}

TEST(EvPlacement, UdpModeKeepsL3AndClearsFlowLabel) {
  FrameSpec s;
  s.l3 = L3Kind::kIpv4;
  s.ip6.flow_label = 0xABCDE;
  std::array<std::uint8_t, 16> seg{};
  place_ev(s, EvFmtMode::kUdp, ev_of({0xBE, 0xEF, 0x55}), 0, seg);
  EXPECT_EQ(s.l3, L3Kind::kIpv4);
  EXPECT_EQ(s.udp.sport, 0xBEEF);
  EXPECT_EQ(s.ip6.flow_label, 0u);
}

TEST(EvPlacement, Srv6Example2OuterDa) {  // §1.5 example 2 -> DA 1313:1313:109:20b:307:409::
  const EvBytes ev =
      ev_of({0x13, 0x13, 0x13, 0x13, 0x01, 0x09, 0x02, 0x0b, 0x03, 0x07, 0x04, 0x09});
  FrameSpec s;
  s.ip6.src[15] = 1;  // local GID
  s.ip6.dst[15] = 2;  // remote GID
  s.ip6.dscp = kDscpTrimmable;
  std::array<std::uint8_t, 16> seg{};
  place_ev(s, EvFmtMode::kSrv6, ev, 0x17, seg);
  const Ipv6Addr want = {0x13, 0x13, 0x13, 0x13, 0x01, 0x09, 0x02, 0x0b,
                         0x03, 0x07, 0x04, 0x09, 0, 0, 0, 0};
  EXPECT_EQ(s.ip6.dst, want);
  EXPECT_EQ(s.ip6.src[15], 1);
  EXPECT_TRUE(s.srv6_encap);
  EXPECT_FALSE(s.has_srh);  // bytes 16..31 are zero: no SRH
  EXPECT_EQ(s.inner_ip6.src[15], 1);
  EXPECT_EQ(s.inner_ip6.dst[15], 2);
  EXPECT_EQ(s.inner_ip6.dscp, kDscpTrimmable);
  EXPECT_EQ(s.udp.sport, 0xC017);
  EXPECT_EQ(usid_count(s.ip6.dst), 4u);

  // Placed again on the same spec (next packet, other EV): the inner GIDs stay.
  EvBytes ev3 = ev;
  ev3[16] = 0xde;
  ev3[17] = 0xca;
  place_ev(s, EvFmtMode::kSrv6, ev3, 0x18, seg);
  EXPECT_EQ(s.inner_ip6.dst[15], 2);
  EXPECT_TRUE(s.has_srh);
  EXPECT_EQ(s.srh.segment_count(), 1u);
  EXPECT_EQ(s.srh.segments.data(), seg.data());
  EXPECT_EQ(s.srh.segment(0)[0], 0xde);
  EXPECT_EQ(s.srh.segments_left, 1);
  EXPECT_EQ(s.srh.last_entry, 0);
  EXPECT_EQ(s.udp.sport, 0xC018);

  // Back to STEV: the GIDs return to the (only) IPv6 header.
  place_ev(s, EvFmtMode::kStev, ev, 0, seg);
  EXPECT_FALSE(s.srv6_encap);
  EXPECT_FALSE(s.has_srh);
  EXPECT_EQ(s.ip6.dst[15], 2);
  EXPECT_EQ(s.ip6.dst[0], 0);
}

TEST(EvPlacement, EchoValueRoundTripsThroughTheWire) {  // the EV identity SETH / NETH echo
  Rng r(99);
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  for (int i = 0; i < 2000; ++i) {
    FrameCase c;
    EvBytes ev{};
    fill_random(r, ev);
    const auto idx = static_cast<std::uint8_t>(r());
    const EvFmtMode modes[] = {EvFmtMode::kStev, EvFmtMode::kUdp, EvFmtMode::kSrv6};
    const EvFmtMode mode = modes[i % 3];
    make_case(r, Mode::kStevIpv6, c);
    place_ev(c.spec, mode, ev, idx, c.srh_segment);
    const EncodeResult e = encode_frame(c.spec, buf);
    ASSERT_TRUE(e.ok());
    DecodedFrame d;
    ASSERT_TRUE(decode_frame(Bytes(buf.data(), e.length), d).ok());
    const std::uint32_t want = mode == EvFmtMode::kStev  ? stev_value(ev)
                               : mode == EvFmtMode::kUdp ? udp_mode_sport(ev)
                                                         : kSrv6SportBase | idx;
    ASSERT_EQ(ev_echo_value(d, mode), want) << i;
    ASSERT_EQ(ev_echo_identity(mode, ev, idx), want) << i;  // the sender's side agrees
  }
}

}  // namespace
}  // namespace mrc::wire::test
