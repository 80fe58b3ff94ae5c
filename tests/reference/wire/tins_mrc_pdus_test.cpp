// libtins PDUs of the MRC 1.0 headers (reference/wire/tins/mrc_pdus.hpp): frames composed with
// libtins decode natively to the same fields, and native frames of every MRC 1.0 opcode parsed by
// libtins + reparse() serialize byte for byte identically.
#include <gtest/gtest.h>
#include <tins/ethernetII.h>
#include <tins/ipv6.h>
#include <tins/rawpdu.h>
#include <tins/udp.h>

#include <vector>

#include "reference/wire/frame.hpp"
#include "reference/wire/tins/mrc_pdus.hpp"
#include "reference/wire/tins/reparse.hpp"
#include "reference/wire/tins/roce_pdus.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

namespace ta = tins_adapters;

Tins::EthernetII base(std::uint16_t sport) {
  Tins::EthernetII eth("02:00:00:00:00:02", "02:00:00:00:00:01");
  Tins::IPv6 ip("fd00::2", "fd00::1");
  ip.hop_limit(64);
  Tins::UDP udp(kRoceV2Port, sport);
  return eth / ip / udp;
}

TEST(TinsMrcPdus, ComposedDataPacketDecodesNatively) {
  Bth bth;
  bth.opcode = opcode::kMrcWriteLastImm;
  bth.dest_qp = 0x123;
  bth.psn = 0x456;
  bth.rtx = true;
  bth.ts = true;  // a TSETH follows: the PDU chain does not derive it
  ta::METH meth(Meth{2, 9});
  ta::TSETH tseth(Tseth{0x7777, false, kFtypeTimestamp});
  const std::vector<std::uint8_t> payload(37, 0xA5);
  Tins::EthernetII pkt = base(0x5678) / ta::BTH(bth) / meth / tseth / ta::RETH(0x1000, 0x55, 4133) /
                         ta::ImmDt(0xCAFE) / Tins::RawPDU(payload.data(), payload.size());
  ASSERT_TRUE(ta::finalize_icrc(pkt).ok());
  const auto bytes = pkt.serialize();
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(bytes.data(), bytes.size()), d).ok());
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_TRUE(d.bth.rtx);
  ASSERT_TRUE(d.has_meth && d.has_tseth && d.has_reth && d.has_immdt);
  EXPECT_EQ(d.meth.rqmsn, 2);
  EXPECT_EQ(d.meth.msn, 9);
  EXPECT_EQ(d.tseth.tx_timestamp, 0x7777);
  EXPECT_EQ(d.reth.dma_length, 4133u);
  EXPECT_EQ(d.immdt, 0xCAFEu);
  EXPECT_EQ(d.payload.size(), payload.size());
}

TEST(TinsMrcPdus, ComposedSackDecodesNatively) {
  Bth bth;
  bth.opcode = opcode::kMrcSack;
  bth.dest_qp = 0x11;
  bth.psn = 4;
  ta::SackFields f;
  f.seth.m = MpVerdict::kAlwaysSkip;
  f.seth.cack_psn = 4;
  f.seth.ack_psn_offset = -3;
  f.seth.sack_bitmap = 0x76;
  f.cc.rcvd_bytes = 0x123456;
  f.cc.ooo_count = 5;
  Tins::EthernetII pkt = base(0x1111) / ta::BTH(bth) / ta::SACK(f);
  ASSERT_TRUE(ta::finalize_icrc(pkt).ok());
  const auto bytes = pkt.serialize();
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(bytes.data(), bytes.size()), d).ok());
  EXPECT_TRUE(d.icrc_ok);
  ASSERT_TRUE(d.has_sack);
  EXPECT_EQ(fields(d.seth), fields(f.seth));
  EXPECT_EQ(fields(d.cc), fields(f.cc));
  EXPECT_EQ(d.seth.ack_psn(), 1u);
}

// Native frames of every MRC 1.0 opcode, parsed by libtins: reparse() builds the PDU chain, the
// ICRC matches, and re-serialization gives the same bytes (EETH's undecoded bytes included).
TEST(TinsMrcPdus, NativeFramesReparseAndSerializeIdentically) {
  Rng r(77);
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  int seen_eeth = 0;
  for (int i = 0; i < 2000; ++i) {
    FrameCase c;
    make_case(r, i % 2 == 0 ? Mode::kMrcData : Mode::kMrcControl, c);
    // libtins parses IPv4 without options and unfragmented only.
    c.spec.ip4.ihl = 5;
    c.spec.ip4.flags_frag = 0x4000;
    std::array<std::uint8_t, kEethOpaqueLen> opaque{};
    if (c.spec.has_eeth) {
      fill_random(r, opaque);
      c.spec.eeth.opaque = Bytes(opaque.data(), opaque.size());
      ++seen_eeth;
    }
    const EncodeResult e = encode_frame(c.spec, buf);
    ASSERT_TRUE(e.ok());
    std::vector<std::uint8_t> native(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(e.length));
    Tins::EthernetII pkt(native.data(), static_cast<std::uint32_t>(native.size()));
    const ta::ReparseResult rr = ta::reparse(pkt);
    ASSERT_TRUE(rr.ok()) << "frame " << i << ": " << to_string(rr.error);
    ASSERT_EQ(rr.replaced, 1u);
    ASSERT_TRUE(rr.icrc_ok) << "frame " << i;
    auto again = pkt.serialize();
    // libtins always writes an RFC 768 UDP checksum; the ICRC masks it, so take libtins' value.
    DecodedFrame d;
    ASSERT_TRUE(decode_frame(Bytes(native.data(), native.size()), d).ok());
    const std::size_t csum = d.bth_offset - kUdpLen + 6;
    ASSERT_LE(csum + 2, again.size());
    native[csum] = again[csum];
    native[csum + 1] = again[csum + 1];
    ASSERT_EQ(std::vector<std::uint8_t>(again.begin(), again.end()), native) << "frame " << i;
    if (c.spec.has_meth) {
      ASSERT_NE(pkt.find_pdu<ta::METH>(), nullptr);
    }
    if (c.spec.has_tseth) {
      ASSERT_NE(pkt.find_pdu<ta::TSETH>(), nullptr);
    }
    if (c.spec.has_sack) {
      ASSERT_EQ(fields(pkt.find_pdu<ta::SACK>()->fields().seth), fields(c.spec.seth));
    }
    if (c.spec.has_neth) {
      ASSERT_EQ(fields(pkt.find_pdu<ta::NETH>()->fields()), fields(c.spec.neth));
    }
    if (c.spec.has_peth) {
      ASSERT_EQ(fields(pkt.find_pdu<ta::PETH>()->fields()), fields(c.spec.peth));
    }
    if (c.spec.has_erth) {
      ASSERT_EQ(fields(pkt.find_pdu<ta::ERTH>()->fields()), fields(c.spec.erth));
    }
    if (c.spec.has_eeth) {
      ASSERT_EQ(pkt.find_pdu<ta::EETH>()->opaque(), opaque);
    }
  }
  EXPECT_GT(seen_eeth, 50);
}

}  // namespace
}  // namespace mrc::wire::test
