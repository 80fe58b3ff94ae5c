// Whole-frame decoding (frame.hpp): how MRC stacks its headers (W1-W10).
//
// Length policy. Three lengths bound a RoCEv2 packet: the bytes captured, the IP length(s) and
// the UDP length. A header that runs past the captured bytes is kTruncated; one that fits the
// capture but not the length its enclosing header claims is kBadIpLength (IP) or kBadUdpLength
// (UDP). The UDP length ends the RoCE packet (as in Linux rxe): the ICRC is its last 4 bytes.
// Bytes captured past the IP length are Ethernet padding (frames under 60 bytes) and ignored.
//
// Trimmed packets (W13). An MRC data packet (0xC6..0xCB) whose DSCP is one a trimming switch
// writes is trimmed, whatever its lengths: it decodes as kOk with `trimmed` set, as far as its
// bytes go. Any other packet whose RoCE packet runs past the capture (a snap length) keeps every
// captured byte after its headers as `payload`, with no pad or ICRC to strip and icrc_ok false.
//
// The headers after the BTH follow from the opcode alone (and BTH.TS for the TSETH). An untrimmed
// MRC data packet, what a receiver decodes most, reads its METH [+ TSETH] + RETH [+ ImmDt] after
// one bound check for all of them; every other packet walks its opcode's layout, one table lookup
// per frame, bounding each header on its own.
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "reference/wire/codec.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::wire {

std::string_view to_string(WireError e) {
  switch (e) {
    case WireError::kOk: return "ok";
    case WireError::kTruncated: return "truncated";
    case WireError::kBadEthertype: return "bad-ethertype";
    case WireError::kBadIpVersion: return "bad-ip-version";
    case WireError::kBadIpHeaderLength: return "bad-ip-header-length";
    case WireError::kBadIpLength: return "bad-ip-length";
    case WireError::kNotUdp: return "not-udp";
    case WireError::kNotRoce: return "not-roce";
    case WireError::kBadUdpLength: return "bad-udp-length";
    case WireError::kBadSrh: return "bad-srh";
    case WireError::kBadOpcode: return "bad-opcode";
    case WireError::kBadPadCount: return "bad-pad-count";
    case WireError::kBufferTooSmall: return "buffer-too-small";
    case WireError::kBadArgument: return "bad-argument";
  }
  return "unknown-wire-error";
}

namespace {

// The layout table's source of truth; ext_layout() and decode_frame() read the tables below.
constexpr ExtLayout layout_by_opcode(std::uint8_t op) {
  namespace oc = opcode;
  ExtLayout l;
  l.known = true;
  switch (op) {
    case oc::kRcSendFirst:
    case oc::kRcSendMiddle:
    case oc::kRcSendLast:
    case oc::kRcSendOnly:
    case oc::kRcReadRespMiddle:
    case oc::kRcCompareSwap:  // AtomicETH (28 bytes) is left in the payload
    case oc::kRcFetchAdd:
    case oc::kCnp:            // 16 reserved bytes are left in the payload
    case oc::kUdSendOnly:     // DETH (8 bytes) and the MAD are left in the payload
    case oc::kUdSendOnlyImm:  // DETH + ImmDt are left in the payload
      break;
    case oc::kRcSendLastImm:
    case oc::kRcSendOnlyImm:
      l.immdt = true;
      break;
    case oc::kRcWriteFirst:
    case oc::kRcWriteOnly:
    case oc::kRcReadRequest:
      l.reth = true;
      break;
    case oc::kRcWriteMiddle:
    case oc::kRcWriteLast:
      break;
    case oc::kRcWriteLastImm:
      l.immdt = true;
      break;
    case oc::kRcWriteOnlyImm:
      l.reth = true;
      l.immdt = true;
      break;
    case oc::kRcReadRespFirst:
    case oc::kRcReadRespLast:
    case oc::kRcReadRespOnly:
    case oc::kRcAtomicAck:  // AtomicAckETH (8 bytes) is left in the payload
      l.aeth = true;
      break;
    case oc::kRcAck:
      l.aeth = true;
      break;
    // MRC 1.0 (W3): METH [+ TSETH] + RETH on every data packet.
    case oc::kMrcWriteFirst:
    case oc::kMrcWriteMiddle:
    case oc::kMrcWriteLast:
    case oc::kMrcWriteOnly:
      l.meth = true;
      l.reth = true;
      break;
    case oc::kMrcWriteLastImm:
    case oc::kMrcWriteOnlyImm:
      l.meth = true;
      l.reth = true;
      l.immdt = true;
      break;
    case oc::kMrcAck:
      l.aeth = true;
      break;
    case oc::kMrcSack:
      l.sack = true;
      break;
    case oc::kMrcNack:
      l.neth = true;
      break;
    case oc::kMrcProbe:
      l.peth = true;
      break;
    case oc::kMrcEndpointReq:
      l.erth = true;
      break;
    case oc::kMrcEndpointRsp:
      l.eeth = true;
      break;
    default:
      l.known = false;
      break;
  }
  return l;
}

using LayoutTable = std::array<ExtLayout, 256>;

constexpr LayoutTable make_layout_table() {
  LayoutTable t{};
  for (std::size_t op = 0; op < t.size(); ++op) t[op] = layout_by_opcode(static_cast<std::uint8_t>(op));
  return t;
}

// Indexed by opcode: one load per decoded frame instead of a switch.
constexpr LayoutTable kLayouts = make_layout_table();
static_assert(!kLayouts[opcode::kRcWriteMiddle].reth && kLayouts[opcode::kMrcWriteMiddle].reth);
static_assert(!kLayouts[0xC0].known && !kLayouts[0xC1].known);  // no MRC 1.0 opcode (W3)

// What every decode starts from: all fields at their defaults, so no field ever shows a value
// from an earlier frame.
constexpr DecodedFrame kEmptyFrame{};
static_assert(std::is_trivially_copyable_v<DecodedFrame>);

// out = kEmptyFrame as 16-byte block copies. The compiler turns them into stores of constants
// (mostly zero vectors), about a third of the instructions of the plain assignment, which builds a
// temporary or falls back to a string move.
template <std::size_t... Block>
void reset_blocks(std::uint8_t* dst, const std::uint8_t* src, std::index_sequence<Block...>) {
  (std::memcpy(dst + Block * 16, src + Block * 16, 16), ...);
}
void reset(DecodedFrame& out) {
  constexpr std::size_t kBlocks = sizeof(DecodedFrame) / 16;
  constexpr std::size_t kRest = sizeof(DecodedFrame) % 16;
  auto* dst = reinterpret_cast<std::uint8_t*>(&out);
  const auto* src = reinterpret_cast<const std::uint8_t*>(&kEmptyFrame);
  reset_blocks(dst, src, std::make_index_sequence<kBlocks>{});
  if constexpr (kRest > 0) std::memcpy(dst + kBlocks * 16, src + kBlocks * 16, kRest);
}

}  // namespace

ExtLayout ext_layout(std::uint8_t op) { return kLayouts[op]; }

namespace {

DecodeResult fail(WireError e, std::size_t off) { return DecodeResult{e, off}; }

// The IPv6 next-header chain MRC uses (W1): [SRH] -> [inner IPv6] -> UDP.
// On success `off` is the UDP header offset and `udp_ip_end` the end the carrying IP claims.
struct Ipv6Chain {
  std::size_t off;
  std::size_t udp_ip_end;
};

DecodeResult decode_ipv6_chain(Bytes frame, std::size_t ip_off, std::size_t claimed_end,
                               DecodedFrame& out, Ipv6Chain& chain) {
  std::size_t off = ip_off + kIpv6Len;
  std::uint8_t nh = out.ip6.next_header;
  if (nh == kIpProtoRouting) {
    WireError e = decode_srh(frame.subspan(off), out.srh);
    if (e != WireError::kOk) return fail(e, off);
    out.has_srh = true;
    if (off + out.srh.wire_length() > claimed_end) return fail(WireError::kBadIpLength, off);
    nh = out.srh.next_header;
    off += out.srh.wire_length();
  }
  std::size_t udp_ip_end = claimed_end;
  if (nh == kIpProtoIpv6) {  // MODEL: W1 also accepted still encapsulated, one level
    WireError e = decode_ipv6(frame.subspan(off), out.inner_ip6);
    if (e != WireError::kOk) return fail(e, off);
    out.encapsulated = true;
    out.roce_ip_offset = off;
    udp_ip_end = off + kIpv6Len + out.inner_ip6.payload_length;
    if (udp_ip_end > claimed_end) return fail(WireError::kBadIpLength, off);
    nh = out.inner_ip6.next_header;
    off += kIpv6Len;
  }
  if (nh != kIpProtoUdp) return fail(WireError::kNotUdp, off);
  chain = Ipv6Chain{off, udp_ip_end};
  return DecodeResult{};
}

// Decodes one extension header at `off`, bounded by the capture and by the RoCE packet end.
template <typename DecodeFn>
DecodeResult ext_header(Bytes frame, std::size_t& off, std::size_t roce_end, std::size_t len_hint,
                        DecodeFn fn) {
  WireError e = fn(frame.subspan(off));
  if (e != WireError::kOk) return fail(e, off);
  if (off + len_hint > roce_end) return fail(WireError::kBadUdpLength, off);
  off += len_hint;
  return DecodeResult{};
}

// The headers after the BTH at `off`, one at a time in the opcode's layout, each bounded by the
// capture and the RoCE packet end; on success `off` is where they end. decode_frame() reads an
// untrimmed MRC data packet whose headers all fit without it; everything else comes here. Kept out
// of line so that the data-packet path stays short.
[[gnu::noinline]] DecodeResult decode_ext_headers(Bytes frame, std::size_t& off,
                                                  std::size_t roce_end, bool mrc_trim,
                                                  DecodedFrame& out) {
  const std::size_t cap = frame.size();
  const ExtLayout& layout = kLayouts[out.bth.opcode];
  if (!layout.known) return fail(WireError::kBadOpcode, off);
  off += kBthLen;

  DecodeResult r;
  if (layout.meth) {
    r = ext_header(frame, off, roce_end, kMethLen, [&](Bytes b) { return decode_meth(b, out.meth); });
    if (!r.ok()) return r;
    out.has_meth = true;
    if (out.bth.ts) {
      r = ext_header(frame, off, roce_end, kTsethLen,
                     [&](Bytes b) { return decode_tseth(b, out.tseth); });
      if (!r.ok()) return r;
      out.has_tseth = true;
    }
  }
  // A trimmed packet keeps at least BTH + METH [+ TSETH] (MODEL: W13): what follows is decoded
  // only as far as the packet still holds it.
  const auto fits = [&](std::size_t n) { return !mrc_trim || (off + n <= roce_end && off + n <= cap); };
  if (layout.reth && fits(kRethLen)) {
    r = ext_header(frame, off, roce_end, kRethLen,
                   [&](Bytes b) { return decode_reth(b, out.reth); });
    if (!r.ok()) return r;
    out.has_reth = true;
  }
  if (layout.immdt && (!layout.reth || out.has_reth) && fits(kImmDtLen)) {
    r = ext_header(frame, off, roce_end, kImmDtLen,
                   [&](Bytes b) { return decode_immdt(b, out.immdt); });
    if (!r.ok()) return r;
    out.has_immdt = true;
  }
  if (layout.aeth) {
    r = ext_header(frame, off, roce_end, kAethLen,
                   [&](Bytes b) { return decode_aeth(b, out.aeth); });
    if (!r.ok()) return r;
    out.has_aeth = true;
  }
  if (layout.sack) {
    r = ext_header(frame, off, roce_end, kSackHdrLen,
                   [&](Bytes b) { return decode_sack(b, out.seth, out.cc); });
    if (!r.ok()) return r;
    out.has_sack = true;
  }
  if (layout.neth) {
    r = ext_header(frame, off, roce_end, kNethLen, [&](Bytes b) { return decode_neth(b, out.neth); });
    if (!r.ok()) return r;
    out.has_neth = true;
  }
  if (layout.peth) {
    r = ext_header(frame, off, roce_end, kPethLen, [&](Bytes b) { return decode_peth(b, out.peth); });
    if (!r.ok()) return r;
    out.has_peth = true;
  }
  if (layout.erth) {
    r = ext_header(frame, off, roce_end, kErthLen, [&](Bytes b) { return decode_erth(b, out.erth); });
    if (!r.ok()) return r;
    out.has_erth = true;
  }
  if (layout.eeth) {
    r = ext_header(frame, off, roce_end, kEethLen, [&](Bytes b) { return decode_eeth(b, out.eeth); });
    if (!r.ok()) return r;
    out.has_eeth = true;
  }
  return DecodeResult{};
}

// An MRC data packet's headers after the BTH are METH [+ TSETH] + RETH [+ ImmDt] (W3, W4) and
// nothing else: what lets decode_frame() read them without the table walk.
constexpr bool data_layouts_are_meth_reth() {
  for (unsigned op = 0; op < 256; ++op) {
    const ExtLayout& l = kLayouts[op];
    const bool others = l.aeth || l.sack || l.neth || l.peth || l.erth || l.eeth;
    if (is_mrc_data(static_cast<std::uint8_t>(op)) && (!l.known || !l.meth || !l.reth || others)) {
      return false;
    }
  }
  return true;
}
static_assert(data_layouts_are_meth_reth());

// A trimmed MRC data packet (W13), its headers decoded: never placed, no ICRC to check (it is
// stale or cut away): what remains is payload. Out of line: rare, and off the data-packet path.
[[gnu::noinline]] DecodeResult finish_trimmed(Bytes frame, std::size_t hdr_end,
                                              std::size_t roce_end, std::size_t claimed_end,
                                              std::uint8_t roce_dscp, DecodedFrame& out,
                                              const DecodeOptions& opt) {
  const std::size_t cap = frame.size();
  out.trimmed = true;
  out.trim_lasthop = roce_dscp == opt.trimmed_lasthop_dscp;
  out.payload = frame.subspan(hdr_end, std::min(roce_end, cap) - hdr_end);
  if (opt.payload_crc) {
    out.payload_crc = crc32(0, out.payload);
    out.has_payload_crc = true;
  }
  return DecodeResult{WireError::kOk, std::min(claimed_end, cap)};
}

}  // namespace

DecodeResult decode_frame(Bytes frame, DecodedFrame& out, const DecodeOptions& opt) {
  reset(out);
  const std::size_t cap = frame.size();

  // ---- Ethernet ----
  if (WireError e = decode_eth(frame, out.eth); e != WireError::kOk) return fail(e, 0);
  const std::size_t ip_off = eth_length(out.eth);
  out.roce_ip_offset = ip_off;

  // ---- IP (+ SRH + inner IPv6) ----
  std::size_t claimed_end = 0;  // end of the outer IP packet as its length field says
  std::size_t udp_ip_end = 0;   // end of the IP packet that carries the UDP header
  std::size_t off = 0;
  std::uint8_t roce_dscp = 0;  // the DSCP a trimming switch rewrote: outer, or inner when encapsulated and outer is not trimmed
  if (out.eth.ethertype == kEthTypeIpv4) {
    out.l3 = L3Kind::kIpv4;
    if (WireError e = decode_ipv4(frame.subspan(ip_off), out.ip4); e != WireError::kOk) {
      return fail(e, ip_off);
    }
    const std::size_t hl = ipv4_length(out.ip4);
    if (out.ip4.total_length < hl) return fail(WireError::kBadIpLength, ip_off);
    claimed_end = ip_off + out.ip4.total_length;
    if (out.ip4.protocol != kIpProtoUdp) return fail(WireError::kNotUdp, ip_off);
    off = ip_off + hl;
    udp_ip_end = claimed_end;
    roce_dscp = out.ip4.dscp;
  } else {
    out.l3 = L3Kind::kIpv6;
    if (WireError e = decode_ipv6(frame.subspan(ip_off), out.ip6); e != WireError::kOk) {
      return fail(e, ip_off);
    }
    claimed_end = ip_off + kIpv6Len + out.ip6.payload_length;
    Ipv6Chain chain{};
    DecodeResult r = decode_ipv6_chain(frame, ip_off, claimed_end, out, chain);
    if (!r.ok()) return r;
    off = chain.off;
    udp_ip_end = chain.udp_ip_end;
    // W13: a switch rewrites the header it forwards on (the outer one); a decapsulated copy keeps
    // the inner one. Either marks the packet.
    roce_dscp = out.ip6.dscp;
    if (out.encapsulated && ((opt.trimmed_dscps >> (roce_dscp & 63)) & 1u) == 0) {
      roce_dscp = out.inner_ip6.dscp;
    }
  }
  out.frame_length = claimed_end;

  // ---- UDP ----
  if (WireError e = decode_udp(frame.subspan(off), out.udp); e != WireError::kOk) {
    return fail(e, off);
  }
  if (off + kUdpLen > udp_ip_end) return fail(WireError::kBadIpLength, off);
  if (out.udp.dport != kRoceV2Port) return fail(WireError::kNotRoce, off);
  // An MRC data packet carrying a trimmed DSCP (W13) is a trimmed packet: the switch cut its
  // payload and fixed the IP length but left the UDP length (and ICRC) stale, so the RoCE packet
  // ends where the IP packet ends.
  const std::size_t bth_at = off + kUdpLen;
  const bool mrc_trim = bth_at < cap && is_mrc_data(frame[bth_at]) &&
                        ((opt.trimmed_dscps >> (roce_dscp & 63)) & 1u) != 0;
  if (out.udp.length < kUdpLen || (off + out.udp.length > udp_ip_end && !mrc_trim)) {
    return fail(WireError::kBadUdpLength, off);
  }
  const std::size_t roce_end = std::min<std::size_t>(off + out.udp.length, udp_ip_end);
  off += kUdpLen;

  // ---- BTH and the extension headers its opcode carries (W3, W4) ----
  out.bth_offset = off;
  if (WireError e = decode_bth(frame.subspan(off), out.bth); e != WireError::kOk) {
    return fail(e, off);
  }
  if (off + kBthLen > roce_end) return fail(WireError::kBadUdpLength, off);
  // The packet a receiver decodes most: an untrimmed MRC data packet whose headers all fit the
  // capture and the RoCE packet reads them in one go, after one bound check. Every other packet,
  // and a data packet cut inside its headers (for the typed error), goes header by header.
  const std::uint8_t op = out.bth.opcode;
  const std::size_t data_hdr_end = off + kBthLen + kMethLen + (out.bth.ts ? kTsethLen : 0) +
                                   kRethLen + (kLayouts[op].immdt ? kImmDtLen : 0);
  if (is_mrc_data(op) && !mrc_trim && data_hdr_end <= roce_end && data_hdr_end <= cap) {
    const std::uint8_t* p = frame.data() + off + kBthLen;
    read_meth(p, out.meth);
    out.has_meth = true;
    p += kMethLen;
    if (out.bth.ts) {
      read_timestamp(p, out.tseth);
      out.has_tseth = true;
      p += kTsethLen;
    }
    read_reth(p, out.reth);
    out.has_reth = true;
    if (kLayouts[op].immdt) {
      out.immdt = load_be32(p + kRethLen);
      out.has_immdt = true;
    }
    off = data_hdr_end;
  } else if (DecodeResult r = decode_ext_headers(frame, off, roce_end, mrc_trim, out); !r.ok()) {
    return r;
  }
  const std::size_t hdr_end = off;

  if (mrc_trim) return finish_trimmed(frame, hdr_end, roce_end, claimed_end, roce_dscp, out, opt);

  // ---- payload, pad, ICRC ----
  if (roce_end > cap) {
    // The RoCE packet runs past the capture (a snap length): no pad or ICRC to strip.
    out.payload = frame.subspan(hdr_end, cap - hdr_end);
  } else {
    if (roce_end < hdr_end + kIcrcLen) return fail(WireError::kBadUdpLength, hdr_end);
    const std::size_t icrc_off = roce_end - kIcrcLen;
    out.icrc_wire = icrc_read(frame.data() + icrc_off);
    const std::size_t pad = out.bth.pad_count;
    if (hdr_end + pad > icrc_off) return fail(WireError::kBadPadCount, out.bth_offset);
    if (opt.verify_icrc) {
      const Bytes covered = frame.subspan(out.roce_ip_offset, icrc_off - out.roce_ip_offset);
      if (opt.payload_crc) {
        const IcrcSplit sp = icrc_compute_split(covered, hdr_end - out.roce_ip_offset, icrc_off - hdr_end - pad);
        out.icrc_computed = sp.icrc;
        out.payload_crc = sp.payload_crc;
        out.has_payload_crc = true;
      } else {
        out.icrc_computed = icrc_compute(covered);
      }
      out.icrc_ok = out.icrc_computed == out.icrc_wire;
    }
    out.payload = frame.subspan(hdr_end, icrc_off - pad - hdr_end);
  }
  if (opt.payload_crc && !out.has_payload_crc) {  // no ICRC read: past the capture, or verify_icrc off
    out.payload_crc = crc32(0, out.payload);
    out.has_payload_crc = true;
  }
  return DecodeResult{WireError::kOk, std::min(claimed_end, cap)};
}

}  // namespace mrc::wire
