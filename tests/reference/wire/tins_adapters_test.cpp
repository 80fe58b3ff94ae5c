// libtins adapters (reference/wire/tins): frames composed with libtins decode with the native
// decode_frame() to the same fields, native frames parsed by libtins + reparse() give the same
// fields, and both ways serialize byte for byte identically. 1,000+ random frames per header kind:
// RC WRITEs (IBA layout), RC ACK / NAK (AETH), and the MRC 1.0 endpoint operations (ERTH / EETH).
#include <gtest/gtest.h>
#include <tins/ethernetII.h>
#include <tins/exceptions.h>
#include <tins/ip.h>
#include <tins/ipv6.h>
#include <tins/rawpdu.h>
#include <tins/udp.h>

#include <array>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "reference/wire/codec.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/tins/mrc_pdus.hpp"
#include "reference/wire/tins/reparse.hpp"
#include "reference/wire/tins/roce_pdus.hpp"

namespace mrc::wire {
namespace {

namespace ta = tins_adapters;
using Frame = std::vector<std::uint8_t>;

auto tie(const Bth& b) {
  return std::tie(b.opcode, b.se, b.mig_req, b.pad_count, b.tver, b.pkey, b.fecn, b.becn, b.dest_qp,
                  b.ack_req, b.psn);
}
auto tie(const Reth& r) { return std::tie(r.va, r.rkey, r.dma_length); }
auto tie(const Aeth& a) { return std::tie(a.syndrome, a.msn); }
auto tie(const Erth& e) {
  return std::tie(e.pro.type, e.pro.nh, e.op, e.vendor_info, e.port_status_mask, e.ts.tx_timestamp,
                  e.ts.tsr, e.ts.ftype);
}
auto tie(const Eeth& e) { return std::tie(e.pro.type, e.pro.nh, e.op, e.tx_timestamp); }
auto tie(const Ipv6& h) {
  return std::tie(h.dscp, h.ecn, h.flow_label, h.next_header, h.hop_limit, h.src, h.dst);
}

// The transport part of one random frame; L3/EV placement is chosen separately.
enum class Kind { kWrite, kWriteImm, kAck, kEndpoint };
enum class L3 { kIpv4, kIpv6, kSrv6 };

struct Sample {
  Kind kind;
  L3 l3;
  FrameSpec spec;
  std::vector<std::uint8_t> payload;
  std::array<std::uint8_t, 16> segment{};
  std::array<std::uint8_t, kEethOpaqueLen> eeth_opaque{};  // EETH bytes 2..27 (kEndpoint)
};

class Random {
 public:
  explicit Random(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t bits(unsigned n) { return n >= 64 ? rng_() : rng_() & ((1ull << n) - 1); }
  template <class T>
  T pick(std::initializer_list<T> v) {
    return v.begin()[bits(16) % v.size()];
  }

 private:
  std::mt19937_64 rng_;
};

void random_addr(Random& r, Ipv6Addr& a) {
  for (auto& b : a) b = static_cast<std::uint8_t>(r.bits(8));
}

// A random, valid frame of `kind` over `l3` (every field random, lengths left to encoders).
void fill(Random& r, Kind kind, L3 l3, Sample& s) {
  s.kind = kind;
  s.l3 = l3;
  FrameSpec& f = s.spec;
  f = FrameSpec{};
  for (auto& b : f.eth.dst) b = static_cast<std::uint8_t>(r.bits(8) & 0xFE);
  for (auto& b : f.eth.src) b = static_cast<std::uint8_t>(r.bits(8) & 0xFE);
  const std::uint8_t dscp = static_cast<std::uint8_t>(r.pick<int>({10, 46, 0, 26}));
  const std::uint8_t ecn = static_cast<std::uint8_t>(r.bits(2));
  if (l3 == L3::kIpv4) {
    f.l3 = L3Kind::kIpv4;
    f.eth.ethertype = kEthTypeIpv4;
    f.ip4.dscp = dscp;
    f.ip4.ecn = ecn;
    f.ip4.id = static_cast<std::uint16_t>(r.bits(16));
    f.ip4.flags_frag = 0x4000;
    f.ip4.ttl = static_cast<std::uint8_t>(1 + r.bits(7));
    f.ip4.src = static_cast<std::uint32_t>(r.bits(32));
    f.ip4.dst = static_cast<std::uint32_t>(r.bits(32));
  } else {
    f.l3 = L3Kind::kIpv6;
    f.eth.ethertype = kEthTypeIpv6;
    f.ip6.dscp = dscp;
    f.ip6.ecn = ecn;
    f.ip6.flow_label = l3 == L3::kSrv6 ? 0 : static_cast<std::uint32_t>(r.bits(16));  // W2
    f.ip6.hop_limit = static_cast<std::uint8_t>(1 + r.bits(7));
    random_addr(r, f.ip6.src);
    random_addr(r, f.ip6.dst);
  }
  if (l3 == L3::kSrv6) {  // W1 outer IPv6 + single-segment SRH + inner IPv6
    f.srv6_encap = true;
    f.has_srh = true;
    f.ip6.next_header = kIpProtoRouting;
    random_addr(r, s.segment);
    f.srh.next_header = kIpProtoIpv6;
    f.srh.segments_left = 1;
    f.srh.last_entry = 0;
    f.srh.tag = static_cast<std::uint16_t>(r.bits(16));
    f.srh.segments = Bytes(s.segment.data(), s.segment.size());
    f.inner_ip6.dscp = dscp;
    f.inner_ip6.hop_limit = 64;
    random_addr(r, f.inner_ip6.src);
    random_addr(r, f.inner_ip6.dst);
  }
  f.udp.sport =
      static_cast<std::uint16_t>(l3 == L3::kSrv6 ? (kSrv6SportBase | r.bits(8)) : r.bits(16));
  f.udp.dport = kRoceV2Port;
  Bth& b = f.bth;
  b.se = r.bits(1);
  b.mig_req = r.bits(1);
  b.pkey = static_cast<std::uint16_t>(r.bits(16));
  b.fecn = r.bits(1);
  b.becn = r.bits(1);
  b.dest_qp = static_cast<std::uint32_t>(r.bits(24));
  b.ack_req = r.bits(1);
  b.psn = static_cast<std::uint32_t>(r.bits(24));
  s.payload.clear();
  switch (kind) {
    case Kind::kWrite:
    case Kind::kWriteImm:
      b.opcode = kind == Kind::kWrite ? r.pick({opcode::kRcWriteFirst, opcode::kRcWriteMiddle,
                                                opcode::kRcWriteLast, opcode::kRcWriteOnly})
                                      : r.pick({opcode::kRcWriteLastImm, opcode::kRcWriteOnlyImm});
      s.payload.resize(r.bits(9));
      for (auto& x : s.payload) x = static_cast<std::uint8_t>(r.bits(8));
      // IBA: a RETH on the first packet of a WRITE only (FIRST, ONLY, ONLY_IMM).
      f.has_reth = b.opcode == opcode::kRcWriteFirst || b.opcode == opcode::kRcWriteOnly ||
                   b.opcode == opcode::kRcWriteOnlyImm;
      f.reth = Reth{r.bits(64), static_cast<std::uint32_t>(r.bits(32)),
                    static_cast<std::uint32_t>(s.payload.size())};
      f.has_immdt = kind == Kind::kWriteImm;
      f.immdt = static_cast<std::uint32_t>(r.bits(32));
      break;
    case Kind::kAck:
      b.opcode = opcode::kRcAck;
      f.has_aeth = true;  // and nothing else after the BTH
      f.aeth = Aeth{r.pick({syndrome::kAck, syndrome::kNakPsnSeqError, syndrome::kNakRemoteAccess}),
                    static_cast<std::uint32_t>(r.bits(24))};
      break;
    case Kind::kEndpoint: {  // W10: ERTH (0xD8) or EETH (0xD9), to the endpoint QPN
      b.opcode = r.pick({opcode::kMrcEndpointReq, opcode::kMrcEndpointRsp});
      b.dest_qp = kEndpointQpn;
      const EpOp op = r.bits(1) ? EpOp::kPortStatusUpdate : EpOp::kEvProbe;
      const Prologue pro{static_cast<std::uint8_t>(r.bits(4)), static_cast<std::uint8_t>(r.bits(5))};
      if (b.opcode == opcode::kMrcEndpointReq) {
        f.has_erth = true;
        Erth& e = f.erth;
        e.pro = pro;
        e.op = ep_op_to_wire(op);
        e.vendor_info = static_cast<std::uint8_t>(r.bits(8));
        e.port_status_mask = static_cast<std::uint32_t>(r.bits(32));
        e.ts = Timestamp{static_cast<std::uint16_t>(r.bits(16)), r.bits(1) != 0,
                         static_cast<std::uint8_t>(r.bits(4))};
      } else {
        f.has_eeth = true;
        Eeth& e = f.eeth;
        e.pro = pro;
        e.op = ep_op_to_wire(op);
        e.tx_timestamp = static_cast<std::uint16_t>(r.bits(16));
        for (auto& x : s.eeth_opaque) x = static_cast<std::uint8_t>(r.bits(8));
        e.opaque = Bytes(s.eeth_opaque.data(), s.eeth_opaque.size());
      }
      break;
    }
  }
  f.payload = Bytes(s.payload.data(), s.payload.size());
}

Tins::HWAddress<6> mac(const MacAddr& m) { return Tins::HWAddress<6>(m.data()); }
Tins::IPv6Address v6(const Ipv6Addr& a) { return Tins::IPv6Address(a.data()); }

Tins::IPv6 make_ipv6(const Ipv6& h) {
  Tins::IPv6 ip(v6(h.dst), v6(h.src));
  ip.traffic_class(static_cast<std::uint8_t>((h.dscp << 2) | h.ecn));
  ip.flow_label(h.flow_label);
  ip.hop_limit(h.hop_limit);
  return ip;
}

// The same frame composed Scapy-style with libtins, ICRC filled by finalize_icrc().
Tins::EthernetII compose(const Sample& s) {
  const FrameSpec& f = s.spec;
  Tins::EthernetII pkt(mac(f.eth.dst), mac(f.eth.src));
  if (s.l3 == L3::kIpv4) {
    Tins::IP ip(Tins::IPv4Address(Tins::Endian::host_to_be(f.ip4.dst)),
                Tins::IPv4Address(Tins::Endian::host_to_be(f.ip4.src)));
    ip.tos(static_cast<std::uint8_t>((f.ip4.dscp << 2) | f.ip4.ecn));
    ip.id(f.ip4.id);
    ip.flags(Tins::IP::DONT_FRAGMENT);
    ip.ttl(f.ip4.ttl);
    pkt /= ip;
  } else if (s.l3 == L3::kIpv6) {
    pkt /= make_ipv6(f.ip6);
  } else {
    Tins::IPv6 outer = make_ipv6(f.ip6);
    // SRH after its first two bytes (next header, length), which libtins writes itself.
    std::vector<std::uint8_t> srh = {kSrhRoutingType,
                                     f.srh.segments_left,
                                     f.srh.last_entry,
                                     f.srh.flags,
                                     static_cast<std::uint8_t>(f.srh.tag >> 8),
                                     static_cast<std::uint8_t>(f.srh.tag)};
    srh.insert(srh.end(), s.segment.begin(), s.segment.end());
    outer.add_header(Tins::IPv6::ext_header(Tins::IPv6::ROUTING, srh.size(), srh.data()));
    pkt /= outer;
    pkt /= make_ipv6(f.inner_ip6);
  }
  pkt /= Tins::UDP(f.udp.dport, f.udp.sport);
  pkt /= ta::BTH(f.bth);
  if (f.has_reth) pkt /= ta::RETH(f.reth);
  if (f.has_immdt) pkt /= ta::ImmDt(f.immdt);
  if (f.has_aeth) pkt /= ta::AETH(f.aeth);
  if (f.has_erth) pkt /= ta::ERTH(f.erth);
  if (f.has_eeth) pkt /= ta::EETH(f.eeth);
  if (!s.payload.empty())
    pkt /= Tins::RawPDU(s.payload.data(), static_cast<std::uint32_t>(s.payload.size()));
  EXPECT_TRUE(ta::finalize_icrc(pkt).ok());
  return pkt;
}

// Patches the (ICRC-masked) UDP checksum to the RFC 768 value, as libtins always writes one.
void set_udp_checksum(Frame& fr, const DecodedFrame& d, bool v4) {
  const std::size_t udp = d.bth_offset - kUdpLen;
  const std::size_t len = d.udp.length;
  std::uint32_t sum = 0;
  auto add = [&](const std::uint8_t* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) sum += (i % 2 == 0) ? p[i] << 8 : p[i];
  };
  const std::uint8_t* ip = fr.data() + d.roce_ip_offset;
  if (v4)
    add(ip + 12, 8);
  else
    add(ip + 8, 32);
  sum += kIpProtoUdp + len;
  fr[udp + 6] = fr[udp + 7] = 0;
  add(fr.data() + udp, len);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  std::uint16_t c = static_cast<std::uint16_t>(~sum);
  if (c == 0) c = 0xFFFF;
  fr[udp + 6] = static_cast<std::uint8_t>(c >> 8);
  fr[udp + 7] = static_cast<std::uint8_t>(c);
}

Frame encode(const FrameSpec& f) {
  Frame out(kMaxFrameLen);
  const EncodeResult r = encode_frame(f, MutBytes(out.data(), out.size()));
  EXPECT_TRUE(r.ok()) << to_string(r.error);
  out.resize(r.length);
  return out;
}

// Spec fields a decode must give back (pad count is the encoder's, from the payload).
void expect_transport(const Sample& s, const DecodedFrame& d) {
  const FrameSpec& f = s.spec;
  Bth want = f.bth;
  want.pad_count = static_cast<std::uint8_t>((4 - s.payload.size() % 4) % 4);
  EXPECT_EQ(tie(d.bth), tie(want));
  ASSERT_EQ(d.has_reth, f.has_reth);
  if (f.has_reth) {
    EXPECT_EQ(tie(d.reth), tie(f.reth));
  }
  ASSERT_EQ(d.has_immdt, f.has_immdt);
  if (f.has_immdt) {
    EXPECT_EQ(d.immdt, f.immdt);
  }
  ASSERT_EQ(d.has_aeth, f.has_aeth);
  if (f.has_aeth) {
    EXPECT_EQ(tie(d.aeth), tie(f.aeth));
  }
  ASSERT_EQ(d.has_erth, f.has_erth);
  if (f.has_erth) {
    EXPECT_EQ(tie(d.erth), tie(f.erth));
  }
  ASSERT_EQ(d.has_eeth, f.has_eeth);
  if (f.has_eeth) {
    EXPECT_EQ(tie(d.eeth), tie(f.eeth));
    EXPECT_EQ(Frame(d.eeth.opaque.begin(), d.eeth.opaque.end()),
              Frame(s.eeth_opaque.begin(), s.eeth_opaque.end()));
  }
  EXPECT_EQ(Frame(d.payload.begin(), d.payload.end()), s.payload);
  EXPECT_EQ(d.udp.sport, f.udp.sport);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_FALSE(d.trimmed);
}

constexpr int kFramesPerKind = 1000;
constexpr Kind kKinds[] = {Kind::kWrite, Kind::kWriteImm, Kind::kAck, Kind::kEndpoint};

TEST(TinsAdapters, ComposedWithTinsDecodesNativelyAndReencodesIdentically) {
  Random r(0x7105);
  Sample s;
  int frames = 0;
  for (Kind kind : kKinds) {
    for (int i = 0; i < kFramesPerKind; ++i) {
      fill(r, kind, static_cast<L3>(i % 3), s);
      Tins::EthernetII pkt = compose(s);
      const Frame bytes = pkt.serialize();
      DecodedFrame d;
      const DecodeResult res = decode_frame(Bytes(bytes.data(), bytes.size()), d);
      ASSERT_TRUE(res.ok()) << to_string(res.error) << " at " << res.offset << ", frame " << i;
      expect_transport(s, d);
      if (s.l3 == L3::kIpv6) {
        EXPECT_EQ(tie(d.ip6), tie(s.spec.ip6));
      }
      if (s.l3 == L3::kSrv6) {
        ASSERT_TRUE(d.encapsulated && d.has_srh);
        EXPECT_EQ(d.srh.segment(0), s.segment);
        EXPECT_EQ(tie(d.inner_ip6), tie(s.spec.inner_ip6));
      }
      if (s.l3 == L3::kIpv4) {
        EXPECT_EQ(std::tie(d.ip4.dscp, d.ip4.ecn, d.ip4.id, d.ip4.ttl, d.ip4.src, d.ip4.dst),
                  std::tie(s.spec.ip4.dscp, s.spec.ip4.ecn, s.spec.ip4.id, s.spec.ip4.ttl,
                           s.spec.ip4.src, s.spec.ip4.dst));
      }
      // One layout: the native encoder, given libtins' UDP checksum, writes the same bytes.
      FrameSpec again = s.spec;
      again.udp.checksum = d.udp.checksum;
      ASSERT_EQ(encode(again), bytes) << "frame " << i;
      if (HasFailure()) return;
      ++frames;
    }
  }
  EXPECT_EQ(frames, 4 * kFramesPerKind);
}

TEST(TinsAdapters, NativeFramesReparseToTheSameFieldsAndSerializeIdentically) {
  Random r(0x7106);
  Sample s;
  for (Kind kind : kKinds) {
    for (int i = 0; i < kFramesPerKind; ++i) {
      fill(r, kind, static_cast<L3>(i % 3), s);
      Frame bytes = encode(s.spec);
      DecodedFrame d;
      ASSERT_TRUE(decode_frame(Bytes(bytes.data(), bytes.size()), d).ok());
      set_udp_checksum(bytes, d, s.l3 == L3::kIpv4);

      Tins::EthernetII pkt(bytes.data(), static_cast<std::uint32_t>(bytes.size()));
      const ta::ReparseResult rr = ta::reparse(pkt);
      ASSERT_TRUE(rr.ok()) << to_string(rr.error) << ", frame " << i;
      ASSERT_EQ(rr.replaced, 1u);
      EXPECT_TRUE(rr.icrc_ok);
      EXPECT_FALSE(rr.nonzero_pad);

      const auto* bth = pkt.find_pdu<ta::BTH>();
      ASSERT_NE(bth, nullptr);
      EXPECT_EQ(tie(bth->fields()), tie(d.bth));
      EXPECT_EQ(bth->icrc(), d.icrc_wire);
      EXPECT_EQ(bth->parent_pdu()->pdu_type(), Tins::PDU::UDP);
      const auto* reth = pkt.find_pdu<ta::RETH>();
      ASSERT_EQ(reth != nullptr, d.has_reth);
      if (reth) {
        EXPECT_EQ(std::make_tuple(reth->va(), reth->rkey(), reth->dma_length()), tie(d.reth));
      }
      const auto* imm = pkt.find_pdu<ta::ImmDt>();
      ASSERT_EQ(imm != nullptr, d.has_immdt);
      if (imm) {
        EXPECT_EQ(imm->value(), d.immdt);
      }
      const auto* aeth = pkt.find_pdu<ta::AETH>();
      ASSERT_EQ(aeth != nullptr, d.has_aeth);
      if (aeth) {
        EXPECT_EQ(std::make_tuple(aeth->syndrome(), aeth->msn()), tie(d.aeth));
      }
      const auto* erth = pkt.find_pdu<ta::ERTH>();
      ASSERT_EQ(erth != nullptr, d.has_erth);
      if (erth) {
        EXPECT_EQ(tie(erth->fields()), tie(d.erth));
      }
      const auto* eeth = pkt.find_pdu<ta::EETH>();
      ASSERT_EQ(eeth != nullptr, d.has_eeth);
      if (eeth) {
        EXPECT_EQ(tie(eeth->fields()), tie(d.eeth));
        EXPECT_EQ(Frame(eeth->opaque().begin(), eeth->opaque().end()),
                  Frame(d.eeth.opaque.begin(), d.eeth.opaque.end()));
      }
      const auto* raw = pkt.find_pdu<Tins::RawPDU>();
      EXPECT_EQ(raw != nullptr, !d.payload.empty());
      if (raw) {
        EXPECT_EQ(raw->payload(), Frame(d.payload.begin(), d.payload.end()));
      }
      if (s.l3 == L3::kSrv6) {
        // libtins: outer IPv6 (Routing ext header 43 kept generic) -> inner IPv6 -> UDP.
        const auto* outer = pkt.find_pdu<Tins::IPv6>();
        ASSERT_NE(outer, nullptr);
        ASSERT_EQ(outer->headers().size(), 1u);
        EXPECT_EQ(outer->headers()[0].option(), kIpProtoRouting);
        EXPECT_EQ(outer->inner_pdu()->pdu_type(), Tins::PDU::IPv6);
      }
      ASSERT_EQ(pkt.serialize(), bytes) << "frame " << i;
      if (HasFailure()) return;
    }
  }
}

TEST(TinsAdapters, BthDerivesPadAndOwnsTheIcrcTrailer) {
  const std::vector<std::uint8_t> pay(5, 0xAB);
  Tins::EthernetII pkt = Tins::EthernetII() / Tins::IP("10.0.0.2", "10.0.0.1") /
                         Tins::UDP(kRoceV2Port, 0xC001) / ta::BTH() / ta::RETH(0x1000, 7, 5) /
                         Tins::RawPDU(pay.data(), static_cast<std::uint32_t>(pay.size()));
  const auto& bth = pkt.rfind_pdu<ta::BTH>();
  EXPECT_EQ(bth.pad_bytes(), 3u);
  EXPECT_EQ(bth.size(), kBthLen + kRethLen + 5 + 3 + kIcrcLen);
  ASSERT_TRUE(ta::finalize_icrc(pkt).ok());
  const Frame bytes = pkt.serialize();
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(bytes.data(), bytes.size()), d).ok());
  EXPECT_EQ(d.bth.pad_count, 3);
  EXPECT_TRUE(d.icrc_ok);
  EXPECT_EQ(d.payload.size(), 5u);
  EXPECT_EQ(ta::compute_icrc(pkt).icrc, d.icrc_wire);
}

TEST(TinsAdapters, FinalizeWithoutBthUnderUdpIsATypedError) {
  Tins::EthernetII no_bth = Tins::EthernetII() / Tins::IP() / Tins::UDP(kRoceV2Port, 1);
  EXPECT_EQ(ta::finalize_icrc(no_bth).error, WireError::kBadArgument);
  Tins::EthernetII bare = Tins::EthernetII() / ta::BTH();  // no IP/UDP above it
  EXPECT_EQ(ta::finalize_icrc(bare).error, WireError::kBadArgument);
}

TEST(TinsAdapters, ReparseRejectsBadPayloadsAndLeavesThemRaw) {
  Random r(3);
  Sample s;
  fill(r, Kind::kAck, L3::kIpv6, s);
  Frame bytes = encode(s.spec);
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(bytes.data(), bytes.size()), d).ok());
  // An opcode with no layout.
  Frame bad = bytes;
  bad[d.bth_offset] = 0x7F;
  Tins::EthernetII p1(bad.data(), static_cast<std::uint32_t>(bad.size()));
  EXPECT_EQ(ta::reparse(p1).error, WireError::kBadOpcode);
  EXPECT_NE(p1.find_pdu<Tins::RawPDU>(), nullptr);
  EXPECT_EQ(p1.find_pdu<ta::BTH>(), nullptr);
  // A pad count of 3 with nothing after the AETH to strip (as decode_frame() says).
  ASSERT_TRUE(d.payload.empty());
  bad = bytes;
  bad[d.bth_offset + 1] |= 0x30;
  Tins::EthernetII p2(bad.data(), static_cast<std::uint32_t>(bad.size()));
  EXPECT_EQ(ta::reparse(p2).error, WireError::kBadPadCount);
  EXPECT_NE(p2.find_pdu<Tins::RawPDU>(), nullptr);
  EXPECT_EQ(p2.find_pdu<ta::AETH>(), nullptr);
  EXPECT_EQ(decode_frame(Bytes(bad.data(), bad.size()), d).error, WireError::kBadPadCount);
  // A corrupted ICRC is reported, not fatal.
  bad = bytes;
  bad.back() ^= 0x01;
  Tins::EthernetII p3(bad.data(), static_cast<std::uint32_t>(bad.size()));
  const ta::ReparseResult r3 = ta::reparse(p3);
  EXPECT_TRUE(r3.ok());
  EXPECT_FALSE(r3.icrc_ok);
  // Not RoCE at all.
  Tins::EthernetII p4 = Tins::EthernetII() / Tins::IP() / Tins::UDP(53, 1000) / Tins::RawPDU("x");
  EXPECT_EQ(ta::reparse(p4).error, WireError::kNotRoce);
}

TEST(TinsAdapters, RcWriteMiddleCarriesNoReth) {
  Random r(4);
  Sample s;
  fill(r, Kind::kWrite, L3::kIpv4, s);
  s.spec.bth.opcode = opcode::kRcWriteMiddle;
  s.spec.has_reth = false;  // IBA: a MIDDLE packet has no RETH
  s.payload.assign(40, 0x3C);  // never empty, so the RawPDU check below always runs
  s.spec.payload = Bytes(s.payload.data(), s.payload.size());
  Frame bytes = encode(s.spec);
  DecodedFrame d;
  ASSERT_TRUE(decode_frame(Bytes(bytes.data(), bytes.size()), d).ok());
  EXPECT_FALSE(d.has_reth);
  set_udp_checksum(bytes, d, true);
  Tins::EthernetII pkt(bytes.data(), static_cast<std::uint32_t>(bytes.size()));
  const ta::ReparseResult rr = ta::reparse(pkt);
  ASSERT_TRUE(rr.ok());
  EXPECT_TRUE(rr.icrc_ok);
  EXPECT_EQ(pkt.find_pdu<ta::RETH>(), nullptr);
  EXPECT_EQ(pkt.rfind_pdu<Tins::RawPDU>().payload(), s.payload);
  EXPECT_EQ(pkt.serialize(), bytes);
}

TEST(TinsAdapters, CapturesCutShortAreOutOfReachForLibtins) {
  // A frame cut to 256 bytes by the capture (snap length) keeps the original IP length. libtins
  // throws on IPv6 (payload length past the data) and reparse() gives a typed error on IPv4.
  Random r(5);
  Sample s;
  for (L3 l3 : {L3::kIpv4, L3::kIpv6}) {
    fill(r, Kind::kWrite, l3, s);
    s.spec.bth.opcode = opcode::kRcWriteOnly;  // with a RETH (IBA)
    s.spec.has_reth = true;
    s.payload.assign(600, 0x5A);
    s.spec.payload = Bytes(s.payload.data(), s.payload.size());
    s.spec.reth.dma_length = 600;
    Frame cut = encode(s.spec);
    cut.resize(kTrimLength);
    if (l3 == L3::kIpv6) {
      EXPECT_THROW(Tins::EthernetII(cut.data(), static_cast<std::uint32_t>(cut.size())),
                   Tins::malformed_packet);
    } else {
      Tins::EthernetII pkt(cut.data(), static_cast<std::uint32_t>(cut.size()));
      EXPECT_EQ(ta::reparse(pkt).error, WireError::kBadUdpLength);
    }
    DecodedFrame d;  // the native decoder handles it: every captured byte after the RETH
    ASSERT_TRUE(decode_frame(Bytes(cut.data(), cut.size()), d).ok());
    EXPECT_FALSE(d.trimmed);  // only the DSCP of an MRC data packet marks a trim (W13)
    EXPECT_FALSE(d.icrc_ok);
    EXPECT_EQ(tie(d.reth), tie(s.spec.reth));
    EXPECT_EQ(d.payload.data() + d.payload.size(), cut.data() + cut.size());
  }
}

}  // namespace
}  // namespace mrc::wire
