// Shared helpers for the wire tests: seeded random headers, whole-frame cases per EV format mode,
// an independent opcode-layout oracle and field-by-field comparison of specs with decodes.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "reference/wire/codec.hpp"
#include "reference/wire/ev_placement.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::wire::test {

using Rng = std::mt19937_64;

inline std::uint64_t uni(Rng& r, std::uint64_t lo, std::uint64_t hi) {
  return std::uniform_int_distribution<std::uint64_t>(lo, hi)(r);
}
inline bool coin(Rng& r) { return (r() & 1u) != 0; }
template <std::size_t N>
void fill_random(Rng& r, std::array<std::uint8_t, N>& a) {
  for (auto& b : a) b = static_cast<std::uint8_t>(r());
}
inline void fill_random(Rng& r, std::vector<std::uint8_t>& v) {
  for (auto& b : v) b = static_cast<std::uint8_t>(r());
}
// A DSCP that does not mark a trimmed packet (W13, the default trimmed DSCPs).
inline std::uint8_t untrimmed_dscp(Rng& r) {
  std::uint8_t d = static_cast<std::uint8_t>(uni(r, 0, 63));
  const bool trims = d == kDscpTrimmed || ((DscpConfig{}.trimmed_mask() >> d) & 1u) != 0;
  return trims ? kDscpTrimmable : d;
}

// ---- random headers, every field inside its wire width ----
inline Eth random_eth(Rng& r) {
  Eth h;
  fill_random(r, h.dst);
  fill_random(r, h.src);
  h.has_vlan = coin(r);
  h.vlan_tci = h.has_vlan ? static_cast<std::uint16_t>(r()) : 0;
  h.ethertype = coin(r) ? kEthTypeIpv4 : kEthTypeIpv6;
  return h;
}
inline Ipv4 random_ipv4(Rng& r) {
  Ipv4 h;
  h.ihl = static_cast<std::uint8_t>(uni(r, 5, 15));
  h.dscp = untrimmed_dscp(r);
  h.ecn = static_cast<std::uint8_t>(uni(r, 0, 3));
  h.total_length = static_cast<std::uint16_t>(r());
  h.id = static_cast<std::uint16_t>(r());
  h.flags_frag = static_cast<std::uint16_t>(r());
  h.ttl = static_cast<std::uint8_t>(r());
  h.protocol = static_cast<std::uint8_t>(r());
  h.src = static_cast<std::uint32_t>(r());
  h.dst = static_cast<std::uint32_t>(r());
  return h;
}
inline Ipv6 random_ipv6(Rng& r) {
  Ipv6 h;
  h.dscp = untrimmed_dscp(r);
  h.ecn = static_cast<std::uint8_t>(uni(r, 0, 3));
  h.flow_label = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFF));
  h.payload_length = static_cast<std::uint16_t>(r());
  h.next_header = static_cast<std::uint8_t>(r());
  h.hop_limit = static_cast<std::uint8_t>(r());
  fill_random(r, h.src);
  fill_random(r, h.dst);
  return h;
}
inline Udp random_udp(Rng& r) {
  Udp h;
  h.sport = static_cast<std::uint16_t>(r());
  h.dport = static_cast<std::uint16_t>(r());
  h.length = static_cast<std::uint16_t>(r());
  h.checksum = static_cast<std::uint16_t>(r());
  return h;
}
inline Bth random_bth(Rng& r) {
  Bth h;
  h.opcode = static_cast<std::uint8_t>(r());
  h.se = coin(r);
  h.mig_req = coin(r);
  h.pad_count = static_cast<std::uint8_t>(uni(r, 0, 3));
  h.tver = static_cast<std::uint8_t>(uni(r, 0, 15));
  h.pkey = static_cast<std::uint16_t>(r());
  h.fecn = coin(r);
  h.becn = coin(r);
  h.dest_qp = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF));
  h.ack_req = coin(r);
  h.r = coin(r);
  h.rtx = coin(r);
  h.psn = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF));
  return h;  // ts stays false: encode_frame derives it from has_tseth
}
inline Reth random_reth(Rng& r) {
  return Reth{r(), static_cast<std::uint32_t>(r()), static_cast<std::uint32_t>(r())};
}
inline Aeth random_aeth(Rng& r) {
  return Aeth{static_cast<std::uint8_t>(r()), static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF))};
}

// ---- field tuples, so whole headers compare with == and print on failure ----
inline auto fields(const Eth& h) {
  return std::tie(h.dst, h.src, h.has_vlan, h.vlan_tci, h.ethertype);
}
inline auto fields(const Ipv4& h) {
  return std::tie(h.ihl, h.dscp, h.ecn, h.total_length, h.id, h.flags_frag, h.ttl, h.protocol,
                  h.src, h.dst);
}
inline auto fields(const Ipv6& h) {
  return std::tie(h.dscp, h.ecn, h.flow_label, h.payload_length, h.next_header, h.hop_limit,
                  h.src, h.dst);
}
inline auto fields(const Udp& h) { return std::tie(h.sport, h.dport, h.length, h.checksum); }
inline auto fields(const Bth& h) {
  return std::tie(h.opcode, h.se, h.mig_req, h.pad_count, h.tver, h.pkey, h.fecn, h.becn,
                  h.dest_qp, h.ack_req, h.r, h.rtx, h.ts, h.psn);
}
inline auto fields(const Meth& h) { return std::tie(h.rqmsn, h.msn); }
inline auto fields(const Timestamp& h) { return std::tie(h.tx_timestamp, h.tsr, h.ftype); }
inline auto fields(const Prologue& h) { return std::tie(h.type, h.nh); }
inline auto fields(const Seth& h) {
  return std::tuple_cat(fields(h.pro),
                        std::tie(h.m, h.pr, h.ack_psn_offset, h.entropy, h.spdcid, h.dpdcid,
                                 h.cack_psn, h.cc_type, h.cc_flags, h.mpr, h.sack_offset,
                                 h.sack_bitmap));
}
inline auto fields(const CcState& h) {
  return std::tie(h.tx_timestamp, h.ooo_count, h.restore_cwnd, h.rcv_cwnd_pen, h.rcvd_bytes);
}
inline auto fields(const Neth& h) {
  return std::tuple_cat(fields(h.pro), std::tie(h.nack_reason, h.vendor_info, h.entropy, h.spdcid,
                                                h.dpdcid, h.nack_psn, h.cc_type, h.cc_flags,
                                                h.tx_timestamp));
}
inline auto fields(const Peth& h) {
  return std::tuple_cat(fields(h.pro), std::tie(h.vendor_info, h.probe_id, h.spdcid, h.dpdcid),
                        fields(h.ts));
}
inline auto fields(const Erth& h) {
  return std::tuple_cat(fields(h.pro), std::tie(h.op, h.vendor_info, h.port_status_mask),
                        fields(h.ts));
}
inline auto fields(const Eeth& h) {
  return std::tuple_cat(fields(h.pro), std::tie(h.op, h.tx_timestamp));
}
inline Timestamp random_ts(Rng& r) {
  return Timestamp{static_cast<std::uint16_t>(r()), coin(r), static_cast<std::uint8_t>(uni(r, 0, 15))};
}
inline Prologue random_prologue(Rng& r) {
  return Prologue{static_cast<std::uint8_t>(uni(r, 0, 15)), static_cast<std::uint8_t>(uni(r, 0, 31))};
}
inline Seth random_seth(Rng& r) {
  Seth h;
  h.pro = random_prologue(r);
  h.m = static_cast<MpVerdict>(uni(r, 0, 3));
  h.pr = coin(r);
  h.ack_psn_offset = static_cast<std::int16_t>(r());
  h.entropy = static_cast<std::uint32_t>(r());
  h.spdcid = static_cast<std::uint16_t>(r());
  h.dpdcid = static_cast<std::uint16_t>(r());
  h.cack_psn = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF));
  h.cc_type = static_cast<std::uint8_t>(uni(r, 0, 15));
  h.cc_flags = static_cast<std::uint8_t>(uni(r, 0, 15));
  h.mpr = static_cast<std::uint8_t>(r());
  h.sack_offset = static_cast<std::int16_t>(r());
  h.sack_bitmap = r();
  return h;
}
inline CcState random_cc(Rng& r) {
  CcState h;
  h.tx_timestamp = static_cast<std::uint16_t>(r());
  h.ooo_count = static_cast<std::uint16_t>(uni(r, 0, kOooCountMax));
  h.restore_cwnd = coin(r);
  h.rcv_cwnd_pen = static_cast<std::uint8_t>(uni(r, 0, 127));
  h.rcvd_bytes = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF));
  return h;
}
inline Neth random_neth(Rng& r) {
  Neth h;
  h.pro = random_prologue(r);
  h.nack_reason = static_cast<std::uint8_t>(r());
  h.vendor_info = static_cast<std::uint8_t>(r());
  h.entropy = static_cast<std::uint32_t>(r());
  h.spdcid = static_cast<std::uint16_t>(r());
  h.dpdcid = static_cast<std::uint16_t>(r());
  h.nack_psn = static_cast<std::uint32_t>(uni(r, 0, 0xFFFFFF));
  h.cc_type = static_cast<std::uint8_t>(uni(r, 0, 15));
  h.cc_flags = static_cast<std::uint8_t>(uni(r, 0, 15));
  h.tx_timestamp = static_cast<std::uint16_t>(r());
  return h;
}
inline Peth random_peth(Rng& r) {
  Peth h;
  h.pro = random_prologue(r);
  h.vendor_info = static_cast<std::uint8_t>(r());
  h.probe_id = static_cast<std::uint16_t>(r());
  h.spdcid = static_cast<std::uint16_t>(r());
  h.dpdcid = static_cast<std::uint16_t>(r());
  h.ts = random_ts(r);
  return h;
}
inline Erth random_erth(Rng& r) {
  Erth h;
  h.pro = random_prologue(r);
  h.op = static_cast<std::uint8_t>(uni(r, 0, 3));
  h.vendor_info = static_cast<std::uint8_t>(r());
  h.port_status_mask = static_cast<std::uint32_t>(r());
  h.ts = random_ts(r);
  return h;
}
inline auto fields(const Reth& h) { return std::tie(h.va, h.rkey, h.dma_length); }
inline auto fields(const Aeth& h) { return std::tie(h.syndrome, h.msn); }
inline auto fields(const Srh& h) {
  return std::tie(h.next_header, h.hdr_ext_len, h.routing_type, h.segments_left, h.last_entry,
                  h.flags, h.tag);
}
inline bool same_bytes(Bytes a, Bytes b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// ---- independent oracle of which headers follow the BTH (IBA vol 1 Table 38 + W3) ----
inline ExtLayout expected_layout(std::uint8_t op) {
  ExtLayout l;
  l.known = true;
  if (op <= 0x05) {
    l.immdt = op == 0x03 || op == 0x05;
  } else if (op <= 0x0B) {
    l.reth = op == 0x06 || op == 0x0A || op == 0x0B;
    l.immdt = op == 0x09 || op == 0x0B;
  } else if (op == 0x0C) {
    l.reth = true;
  } else if (op >= 0x0D && op <= 0x10) {
    l.aeth = op != 0x0E;
  } else if (op == 0x11 || op == 0x12) {
    l.aeth = true;
  } else if (op == 0x13 || op == 0x14 || op == 0x81) {
  } else if (op == 0x64 || op == 0x65) {  // UD SEND ONLY [IMM]: DETH [+ ImmDt] left in the payload
  } else if (op >= 0xC6 && op <= 0xCB) {  // W3: METH [+ TSETH] + RETH [+ ImmDt]
    l.meth = true;
    l.reth = true;
    l.immdt = op == 0xC9 || op == 0xCB;
  } else if (op == 0xD1) {
    l.aeth = true;
  } else if (op == 0xD8) {
    l.erth = true;
  } else if (op == 0xD9) {
    l.eeth = true;
  } else if (op == 0xDC) {
    l.sack = true;
  } else if (op == 0xDD) {
    l.neth = true;
  } else if (op == 0xDE) {
    l.peth = true;
  } else {
    l.known = false;
  }
  return l;
}

// ---- whole frames per EV format mode ----
enum class Mode {
  kStevIpv6,   // Eth | IPv6 (FL = EV hi) | UDP (sport = EV lo) | BTH | RETH ...
  kUdpIpv4,    // UDP mode over IPv4
  kUdpIpv6,    // UDP mode over IPv6
  kSrv6Srh,    // outer IPv6 | SRH | inner IPv6 | UDP ...
  kSrv6NoSrh,  // outer IPv6 | inner IPv6 | UDP ...
  kPlainSrh,   // IPv6 | SRH (NH 17) | UDP ... (multi-segment, TLVs)
  kOtherRc,    // SEND / READ / atomics / CNP / classic-IBA writes
  kMrcData,    // MRC 1.0 data 0xC6..0xCB: METH [+ TSETH] + RETH [+ ImmDt], STEV or UDP mode
  kMrcControl, // MRC 1.0 control: 0xD1 AETH, 0xDC SACK, 0xDD NETH, 0xDE PETH, 0xD8 ERTH, 0xD9 EETH
};
inline constexpr Mode kAllModes[] = {Mode::kStevIpv6, Mode::kUdpIpv4,  Mode::kUdpIpv6,
                                     Mode::kSrv6Srh,  Mode::kSrv6NoSrh, Mode::kPlainSrh,
                                     Mode::kOtherRc,  Mode::kMrcData,  Mode::kMrcControl};
inline const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kStevIpv6: return "stev-ipv6";
    case Mode::kUdpIpv4: return "udp-ipv4";
    case Mode::kUdpIpv6: return "udp-ipv6";
    case Mode::kSrv6Srh: return "srv6-srh";
    case Mode::kSrv6NoSrh: return "srv6-no-srh";
    case Mode::kPlainSrh: return "ipv6-srh-udp";
    case Mode::kOtherRc: return "other-rc";
    case Mode::kMrcData: return "mrc-data";
    case Mode::kMrcControl: return "mrc-control";
  }
  return "?";
}

inline void PrintTo(Mode m, std::ostream* os) { *os << mode_name(m); }

// A FrameSpec together with the bytes its spans point at. Not copyable: the spans would dangle.
struct FrameCase {
  FrameSpec spec;
  std::vector<std::uint8_t> payload;
  std::array<std::uint8_t, 16> srh_segment{};
  std::vector<std::uint8_t> srh_body;  // segments then TLVs (kPlainSrh)
  FrameCase() = default;
  FrameCase(const FrameCase&) = delete;
  FrameCase& operator=(const FrameCase&) = delete;
};

inline void set_layout(FrameSpec& s, const ExtLayout& l, Rng& r) {
  s.has_meth = l.meth;
  s.has_tseth = l.meth && coin(r);
  if (l.meth) s.meth = Meth{static_cast<std::uint16_t>(r()), static_cast<std::uint16_t>(r())};
  if (s.has_tseth) s.tseth = random_ts(r);
  s.has_sack = l.sack;
  if (l.sack) {
    s.seth = random_seth(r);
    s.cc = random_cc(r);
  }
  s.has_neth = l.neth;
  if (l.neth) s.neth = random_neth(r);
  s.has_peth = l.peth;
  if (l.peth) s.peth = random_peth(r);
  s.has_erth = l.erth;
  if (l.erth) s.erth = random_erth(r);
  s.has_eeth = l.eeth;
  if (l.eeth) {
    s.eeth = Eeth{};
    s.eeth.pro = random_prologue(r);
    s.eeth.op = static_cast<std::uint8_t>(uni(r, 0, 3));
    s.eeth.tx_timestamp = static_cast<std::uint16_t>(r());
  }
  s.has_reth = l.reth;
  s.has_immdt = l.immdt;
  s.has_aeth = l.aeth;
  if (l.reth) s.reth = random_reth(r);
  if (l.immdt) s.immdt = static_cast<std::uint32_t>(r());
  if (l.aeth) s.aeth = random_aeth(r);
}

// Fills `c` with a random valid frame of mode `m` (max_payload bounds the payload size).
inline void make_case(Rng& r, Mode m, FrameCase& c, std::size_t max_payload = 600) {
  c.spec = FrameSpec{};
  FrameSpec& s = c.spec;
  s.eth = random_eth(r);
  s.ip4 = random_ipv4(r);
  s.ip6 = random_ipv6(r);
  s.ip6.dscp = untrimmed_dscp(r);
  s.udp = random_udp(r);
  s.udp.dport = kRoceV2Port;
  s.bth = random_bth(r);
  s.l3 = L3Kind::kIpv6;
  EvBytes ev{};
  fill_random(r, ev);
  const auto ev_index = static_cast<std::uint8_t>(r());
  std::uint8_t op = static_cast<std::uint8_t>(uni(r, 0x06, 0x0B));
  switch (m) {
    case Mode::kStevIpv6:
      place_ev(s, EvFmtMode::kStev, ev, ev_index, c.srh_segment);
      break;
    case Mode::kUdpIpv4:
      s.l3 = L3Kind::kIpv4;
      place_ev(s, EvFmtMode::kUdp, ev, ev_index, c.srh_segment);
      break;
    case Mode::kUdpIpv6:
      place_ev(s, EvFmtMode::kUdp, ev, ev_index, c.srh_segment);
      break;
    case Mode::kSrv6Srh:
    case Mode::kSrv6NoSrh:
      if (m == Mode::kSrv6NoSrh) std::fill(ev.begin() + 16, ev.end(), 0);
      if (m == Mode::kSrv6Srh) ev[16] |= 0x01;  // at least one non-zero SRH byte
      place_ev(s, EvFmtMode::kSrv6, ev, ev_index, c.srh_segment);
      s.inner_ip6.dscp = untrimmed_dscp(r);
      s.inner_ip6.hop_limit = static_cast<std::uint8_t>(r());
      break;
    case Mode::kPlainSrh: {
      const std::size_t nseg = uni(r, 1, 6);
      const std::size_t ntlv = 8 * uni(r, 0, 2);
      c.srh_body.assign(nseg * kSrhSegmentLen + ntlv, 0);
      fill_random(r, c.srh_body);
      s.has_srh = true;
      s.srh = Srh{};
      s.srh.last_entry = static_cast<std::uint8_t>(nseg - 1);
      s.srh.segments_left = static_cast<std::uint8_t>(uni(r, 0, nseg));
      s.srh.flags = static_cast<std::uint8_t>(r());
      s.srh.tag = static_cast<std::uint16_t>(r());
      s.srh.segments = Bytes(c.srh_body.data(), nseg * kSrhSegmentLen);
      s.srh.tlvs = Bytes(c.srh_body.data() + nseg * kSrhSegmentLen, ntlv);
      break;
    }
    case Mode::kMrcData:
      op = static_cast<std::uint8_t>(uni(r, 0xC6, 0xCB));
      if (coin(r)) {
        place_ev(s, EvFmtMode::kStev, ev, ev_index, c.srh_segment);
      } else {
        s.l3 = coin(r) ? L3Kind::kIpv4 : L3Kind::kIpv6;
        place_ev(s, EvFmtMode::kUdp, ev, ev_index, c.srh_segment);
      }
      break;
    case Mode::kMrcControl: {
      static constexpr std::uint8_t kOps[] = {0xD1, 0xD8, 0xD9, 0xDC, 0xDD, 0xDE};
      op = kOps[uni(r, 0, std::size(kOps) - 1)];
      s.l3 = coin(r) ? L3Kind::kIpv4 : L3Kind::kIpv6;
      break;
    }
    case Mode::kOtherRc: {
      static constexpr std::uint8_t kOps[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
                                              0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D,
                                              0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x81};
      op = kOps[uni(r, 0, std::size(kOps) - 1)];
      s.l3 = coin(r) ? L3Kind::kIpv4 : L3Kind::kIpv6;
      break;
    }
  }
  s.bth.opcode = op;
  set_layout(s, expected_layout(op), r);
  const bool feedback = m == Mode::kMrcControl || op == opcode::kRcAck;
  c.payload.assign(uni(r, 0, feedback ? 16 : max_payload), 0);
  fill_random(r, c.payload);
  s.payload = Bytes(c.payload.data(), c.payload.size());
}

// Checks that a decode of encode_frame(spec) gives back what the spec said, plus the fields the
// encoder derives (lengths, next headers, pad, checksum, ICRC).
inline ::testing::AssertionResult frame_matches(const FrameSpec& s, const DecodedFrame& d,
                                                Bytes frame) {
#define MRC_EXPECT_FIELD(a, b)                                                              \
  do {                                                                                      \
    if (!((a) == (b)))                                                                      \
      return ::testing::AssertionFailure() << #a " != " #b ": " << ::testing::PrintToString(a) \
                                           << " vs " << ::testing::PrintToString(b);        \
  } while (0)
  const std::size_t pad = (4 - s.payload.size() % 4) % 4;
  std::size_t ext = (s.has_reth ? kRethLen : 0) + (s.has_immdt ? kImmDtLen : 0) +
                    (s.has_aeth ? kAethLen : 0) + (s.has_meth ? kMethLen : 0) +
                    (s.has_tseth ? kTsethLen : 0) + (s.has_sack ? kSackHdrLen : 0) +
                    (s.has_neth ? kNethLen : 0) + (s.has_peth ? kPethLen : 0) +
                    (s.has_erth ? kErthLen : 0) + (s.has_eeth ? kEethLen : 0);
  const std::size_t udp_len = kUdpLen + kBthLen + ext + s.payload.size() + pad + kIcrcLen;
  Eth eth = s.eth;
  eth.ethertype = s.l3 == L3Kind::kIpv4 ? kEthTypeIpv4 : kEthTypeIpv6;
  MRC_EXPECT_FIELD(fields(d.eth), fields(eth));
  MRC_EXPECT_FIELD(d.l3, s.l3);
  std::size_t ip_off = eth_length(s.eth);
  if (s.l3 == L3Kind::kIpv4) {
    Ipv4 ip = s.ip4;
    ip.total_length = static_cast<std::uint16_t>(ipv4_length(ip) + udp_len);
    ip.protocol = kIpProtoUdp;
    MRC_EXPECT_FIELD(fields(d.ip4), fields(ip));
    MRC_EXPECT_FIELD(ipv4_checksum_ok(frame.subspan(ip_off)), true);
  } else {
    const std::size_t srh_len = s.has_srh ? srh_length(s.srh) : 0;
    Ipv6 ip = s.ip6;
    ip.payload_length =
        static_cast<std::uint16_t>(srh_len + (s.srv6_encap ? kIpv6Len : 0) + udp_len);
    ip.next_header = s.has_srh ? kIpProtoRouting : (s.srv6_encap ? kIpProtoIpv6 : kIpProtoUdp);
    MRC_EXPECT_FIELD(fields(d.ip6), fields(ip));
    MRC_EXPECT_FIELD(d.has_srh, s.has_srh);
    if (s.has_srh) {
      Srh srh = s.srh;
      srh.next_header = s.srv6_encap ? kIpProtoIpv6 : kIpProtoUdp;
      srh.hdr_ext_len = static_cast<std::uint8_t>((s.srh.segments.size() + s.srh.tlvs.size()) / 8);
      MRC_EXPECT_FIELD(fields(d.srh), fields(srh));
      MRC_EXPECT_FIELD(same_bytes(d.srh.segments, s.srh.segments), true);
      MRC_EXPECT_FIELD(same_bytes(d.srh.tlvs, s.srh.tlvs), true);
    }
    MRC_EXPECT_FIELD(d.encapsulated, s.srv6_encap);
    if (s.srv6_encap) {
      Ipv6 in = s.inner_ip6;
      in.payload_length = static_cast<std::uint16_t>(udp_len);
      in.next_header = kIpProtoUdp;
      MRC_EXPECT_FIELD(fields(d.inner_ip6), fields(in));
      ip_off += kIpv6Len + srh_len;
    }
  }
  MRC_EXPECT_FIELD(d.roce_ip_offset, ip_off);
  Udp udp = s.udp;
  udp.length = static_cast<std::uint16_t>(udp_len);
  MRC_EXPECT_FIELD(fields(d.udp), fields(udp));
  Bth bth = s.bth;
  bth.pad_count = static_cast<std::uint8_t>(pad);
  bth.ts = s.has_tseth;
  MRC_EXPECT_FIELD(fields(d.bth), fields(bth));
  MRC_EXPECT_FIELD(d.has_meth, s.has_meth);
  if (s.has_meth) MRC_EXPECT_FIELD(fields(d.meth), fields(s.meth));
  MRC_EXPECT_FIELD(d.has_tseth, s.has_tseth);
  if (s.has_tseth) MRC_EXPECT_FIELD(fields(d.tseth), fields(s.tseth));
  MRC_EXPECT_FIELD(d.has_sack, s.has_sack);
  if (s.has_sack) {
    MRC_EXPECT_FIELD(fields(d.seth), fields(s.seth));
    MRC_EXPECT_FIELD(fields(d.cc), fields(s.cc));
  }
  MRC_EXPECT_FIELD(d.has_neth, s.has_neth);
  if (s.has_neth) MRC_EXPECT_FIELD(fields(d.neth), fields(s.neth));
  MRC_EXPECT_FIELD(d.has_peth, s.has_peth);
  if (s.has_peth) MRC_EXPECT_FIELD(fields(d.peth), fields(s.peth));
  MRC_EXPECT_FIELD(d.has_erth, s.has_erth);
  if (s.has_erth) MRC_EXPECT_FIELD(fields(d.erth), fields(s.erth));
  MRC_EXPECT_FIELD(d.has_eeth, s.has_eeth);
  if (s.has_eeth) MRC_EXPECT_FIELD(fields(d.eeth), fields(s.eeth));
  MRC_EXPECT_FIELD(d.has_reth, s.has_reth);
  if (s.has_reth) MRC_EXPECT_FIELD(fields(d.reth), fields(s.reth));
  MRC_EXPECT_FIELD(d.has_immdt, s.has_immdt);
  if (s.has_immdt) MRC_EXPECT_FIELD(d.immdt, s.immdt);
  MRC_EXPECT_FIELD(d.has_aeth, s.has_aeth);
  if (s.has_aeth) MRC_EXPECT_FIELD(fields(d.aeth), fields(s.aeth));
  MRC_EXPECT_FIELD(same_bytes(d.payload, s.payload), true);
  MRC_EXPECT_FIELD(d.trimmed, false);
  MRC_EXPECT_FIELD(d.icrc_ok, true);
  MRC_EXPECT_FIELD(d.icrc_wire, d.icrc_computed);
  MRC_EXPECT_FIELD(d.frame_length, frame.size());
#undef MRC_EXPECT_FIELD
  return ::testing::AssertionSuccess();
}

}  // namespace mrc::wire::test
