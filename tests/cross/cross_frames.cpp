// Profile::kMrc: MRC 1.0 frames as mrc-wire-model.md section 5 lays them out (W1-W13). Kinds,
// rotating with the frame index (kMrcKinds):
//   0..5   data packets 0xC6..0xCB (W4): METH, TSETH on some, RETH on every packet, ImmDt on the
//          IMM opcodes; LAST/ONLY payloads of any length (pad 0..3), FIRST/MIDDLE one PMTU
//   6, 7   a data packet trimmed by a switch (W13): DSCP_TRIMMED / DSCP_TRIMMED_LASTHOP on the
//          outer IP header, cut after its headers (or inside them), IP length fixed, UDP length
//          and ICRC stale
//   8      Transport ACK 0xD1 + AETH (W8)      9  SACK 0xDC, SETH + CC_STATE (W5)
//   10     NACK 0xDD, NETH (W7)                11 reliability probe 0xDE, PETH (W9)
//   12, 13 endpoint request 0xD8 (ERTH) and response 0xD9 (EETH), DestQP 0x2, id in PSN (W10)
// each over one EV placement (W1, W2): UDP mode over IPv4 and IPv6, STEV, SRv6 with and without
// SRH.
#include "tests/cross/cross_frames.hpp"

#include <array>
#include <bit>
#include <cstdio>
#include <string>

#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"
#include "reference/wire/mrc_headers.hpp"
#include "tests/cross/frame_finish.hpp"

namespace mrc::cross {
namespace {

using namespace mrc::wire;
using nlohmann::json;

// MODEL: W13 the DSCP numbers are configuration; these frames use the reference's defaults.
constexpr DscpConfig kDscp{};

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(d[p[i] >> 4]);
    s.push_back(d[p[i] & 15]);
  }
  return s;
}

// How the EV rides in the frame (W1, W2). kUdp6 is UDP mode over IPv6 (flow label 0).
enum class Placement : std::uint8_t { kUdp4, kUdp6, kStev, kSrv6Srh, kSrv6NoSrh };
constexpr std::array<Placement, 5> kPlaces = {Placement::kUdp4, Placement::kUdp6, Placement::kStev,
                                              Placement::kSrv6Srh, Placement::kSrv6NoSrh};
constexpr std::array<const char*, 5> kPlaceNames = {"udp4", "udp6", "stev", "srv6_srh", "srv6"};

// Storage the FrameSpec's spans point into; lives as long as one frame is being built.
struct Scratch {
  std::vector<std::uint8_t> payload;
  std::array<std::uint8_t, 16> srh_segment{};
};

// Frame kinds (see the top of the file).
constexpr unsigned kTrimmed = 6, kTrimmedLastHop = 7, kTack = 8, kSack = 9, kNack = 10, kProbe = 11,
                   kEpRequest = 12, kEpResponse = 13;

// The 32-bit EV tag a frame carries (W2): UDP mode has only the 16 source-port bits (flow label
// 0), STEV keeps its upper half non-zero so the flow label shows it, SRv6 uses all 32 bits
// (MODEL: W2 which 32 bits an SRv6 EV is tagged with is the requester's choice: any value).
template <class Bits>
std::uint32_t ev_tag(Placement p, Bits&& bits) {
  if (p == Placement::kUdp4 || p == Placement::kUdp6) return static_cast<std::uint32_t>(bits(16));
  if (p == Placement::kStev) {
    return static_cast<std::uint32_t>((1 + bits(15)) << 16 | bits(16));
  }
  return static_cast<std::uint32_t>(bits(32));
}

// Ethernet, IP (+ the SRv6 outer header and SRH) and the UDP ports for placement `p`, carrying
// the EV tag `v`, and the EV expectations. Every IP header gets `dscp`.
template <class Bits>
void place(FrameSpec& s, Placement p, std::uint8_t dscp, std::uint8_t ecn, std::uint32_t v,
           Scratch& scratch, json& e, Bits&& bits) {
  for (auto& b : s.eth.dst) b = static_cast<std::uint8_t>(bits(8));
  for (auto& b : s.eth.src) b = static_cast<std::uint8_t>(bits(8));
  s.eth.dst[0] &= 0xFE;  // unicast
  s.eth.src[0] &= 0xFE;
  auto random_gid = [&](Ipv6Addr& a) {
    a[0] = 0xfd;
    for (std::size_t i = 1; i < 16; ++i) a[i] = static_cast<std::uint8_t>(bits(8));
  };
  s.udp.dport = kRoceV2Port;
  s.udp.sport = static_cast<std::uint16_t>(v & 0xFFFF);  // MODEL: W2 option A: sport = V[15:0]
  e["dscp"] = dscp;
  e["_placement"] = kPlaceNames[static_cast<unsigned>(p)];
  e["ev.sport"] = s.udp.sport;
  if (p == Placement::kUdp4) {
    s.eth.ethertype = kEthTypeIpv4;
    s.l3 = L3Kind::kIpv4;
    s.ip4.dscp = dscp;
    s.ip4.ecn = ecn;
    s.ip4.id = static_cast<std::uint16_t>(bits(16));
    s.ip4.ttl = static_cast<std::uint8_t>(2 + bits(6));  // TTL 1 would draw a Wireshark note
    s.ip4.src = 0x0A000000u | static_cast<std::uint32_t>(bits(24));
    s.ip4.dst = 0x0A000000u | static_cast<std::uint32_t>(bits(24));
    e["_l3"] = "ipv4";
    e["ev.mode"] = "UDP (IPv4)";
    e["ev.value"] = s.udp.sport;  // S1: W2 on IPv4 the upper 16 bits are 0
    return;
  }
  // MODEL: W2 option A: flow label[15:0] = V[31:16] (bits 19..16 sent 0).
  const std::uint32_t fl = v >> 16;
  s.eth.ethertype = kEthTypeIpv6;
  s.l3 = L3Kind::kIpv6;
  e["_l3"] = "ipv6";
  e["ev.value"] = v;
  e["ev.flow_label"] = fl;
  s.ip6.dscp = dscp;
  s.ip6.ecn = ecn;
  s.ip6.hop_limit = static_cast<std::uint8_t>(2 + bits(6));
  s.ip6.flow_label = fl;  // under SRv6: MODEL: W2 the outer flow label copies the inner one
  random_gid(s.ip6.src);
  if (p == Placement::kUdp6 || p == Placement::kStev) {
    random_gid(s.ip6.dst);
    e["ev.mode"] = fl != 0 ? "STEV" : "UDP (flow label 0)";
    return;
  }
  // SRv6 (W1): outer DA = uSID container (32-bit block + 1..6 uSIDs), an optional one-segment SRH,
  // then the inner IPv6 to the destination NIC, whose flow label carries the EV tag (W2).
  s.srv6_encap = true;
  Ipv6Addr& da = s.ip6.dst;
  da = {};
  const std::uint32_t block = 0xFC000000u | static_cast<std::uint32_t>(bits(24));
  for (int i = 0; i < 4; ++i) da[i] = static_cast<std::uint8_t>(block >> (24 - 8 * i));
  const unsigned usids = 1 + static_cast<unsigned>(bits(8) % 6);
  for (unsigned u = 0; u < usids; ++u) {
    const std::uint16_t id = static_cast<std::uint16_t>(1 + bits(15));
    da[4 + 2 * u] = static_cast<std::uint8_t>(id >> 8);
    da[5 + 2 * u] = static_cast<std::uint8_t>(id);
  }
  e["ev.mode"] = "SRv6";
  e["ev.outer_da"] = hex(da.data(), 16);
  s.has_srh = p == Placement::kSrv6Srh;
  if (s.has_srh) {
    auto& seg = scratch.srh_segment;
    seg = {};
    seg[0] = 0xFC;
    for (std::size_t i = 1; i < 4 + 2 * (1 + bits(8) % 6); ++i)
      seg[i] = static_cast<std::uint8_t>(bits(8));
    s.srh = Srh{};
    s.srh.hdr_ext_len = 2;
    s.srh.segments_left = 1;  // MODEL: W1 reduced encapsulation, the segment is the next container
    s.srh.last_entry = 0;
    s.srh.segments = Bytes(seg.data(), seg.size());
    e["ev.srh_segment"] = hex(seg.data(), 16);
    e["ev.srh_segments_left"] = s.srh.segments_left;
  }
  s.inner_ip6 = Ipv6{};
  s.inner_ip6.dscp = dscp;
  s.inner_ip6.ecn = ecn;
  s.inner_ip6.flow_label = fl;
  s.inner_ip6.src = s.ip6.src;
  random_gid(s.inner_ip6.dst);
  e["dscp_inner"] = dscp;
}

// A QPN an MRC QP may have: 0x0-0x2 are reserved (W10, W18).
template <class Bits>
std::uint32_t qpn(Bits&& bits) {
  return 3 + static_cast<std::uint32_t>(bits(24) % (0xFFFFFFu - 2));
}

// The BTH as MRC sends it (W3): P_Key 0xFFFF, TVer 0, var-res (IBA FECN/BECN) 0, MigReq 0, every
// flag clear; the builders set SE, A, RTX and TS where W3 allows them.
Bth mrc_bth(std::uint8_t op, std::uint32_t dqpn, std::uint32_t psn) {
  Bth b;
  b.opcode = op;
  b.pkey = 0xFFFF;
  b.dest_qp = dqpn;
  b.psn = psn & 0xFFFFFFu;
  return b;
}

// The BTH expectations, MRC names included: byte 4 (var_res) and byte 8 split into its flags.
void expect_mrc_bth(const Bth& b, json& e) {
  expect_bth(b, e);
  const unsigned flags =
      (b.ack_req ? 0x80u : 0u) | (b.r ? 0x40u : 0u) | (b.rtx ? 0x20u : 0u) | (b.ts ? 0x10u : 0u);
  e["bth.var_res"] = (b.fecn ? 0x80u : 0u) | (b.becn ? 0x40u : 0u);
  e["bth.flags"] = flags;
  e["bth.r"] = b.r ? 1 : 0;
  e["bth.rtx"] = b.rtx ? 1 : 0;
  e["bth.ts"] = b.ts ? 1 : 0;
  e["bth.inv_res"] = 0;
  if (b.opcode == opcode::kMrcEndpointReq || b.opcode == opcode::kMrcEndpointRsp) {
    e["ep.id"] = b.psn & 0xFFFF;  // W10: the request id is BTH.PSN[15:0]
  }
  if (b.opcode == opcode::kMrcAck) e["tack.cack_psn"] = b.psn;  // S1: W3
}

void expect_ts(const char* prefix, const char* name, const Timestamp& t, json& e) {
  const std::string p(prefix);
  e[p + "." + name] = t.tx_timestamp;
  e[p + ".tsr"] = t.tsr ? 1 : 0;
  e[p + ".ftype"] = t.ftype;
}

// A data packet `op` (W4) with a payload of at least `min_payload` bytes (LAST/ONLY); sets the
// BTH flags it may carry. Returns the bytes of its headers after the BTH.
template <class Bits>
std::size_t data_packet(FrameSpec& s, std::uint8_t op, std::size_t min_payload, Scratch& scratch,
                        json& e, Bits&& bits) {
  const bool imm = op == opcode::kMrcWriteLastImm || op == opcode::kMrcWriteOnlyImm;
  const bool only = op == opcode::kMrcWriteOnly || op == opcode::kMrcWriteOnlyImm;
  const bool full = op == opcode::kMrcWriteFirst || op == opcode::kMrcWriteMiddle;
  s.bth = mrc_bth(op, qpn(bits), static_cast<std::uint32_t>(bits(24)));
  s.bth.se = imm && bits(1);  // MODEL: W3 SE only on the IMM packet of a solicited WR
  s.bth.ack_req = bits(1);
  s.bth.rtx = bits(2) == 0;
  s.has_meth = true;
  s.meth.rqmsn = imm ? static_cast<std::uint16_t>(bits(16)) : 0;  // S1: W4 0 on plain WRITEs
  s.meth.msn = static_cast<std::uint16_t>(bits(16));
  e["meth.rqmsn"] = s.meth.rqmsn;
  e["meth.msn"] = s.meth.msn;
  s.has_tseth = bits(1);
  s.bth.ts = s.has_tseth;  // W3: TS says a TSETH follows (the encoder derives it the same way)
  if (s.has_tseth) {
    s.tseth.tx_timestamp = static_cast<std::uint16_t>(bits(16));
    s.tseth.tsr = bits(3) == 0;  // tsr = 1 is legal on the wire, its resolution open (W4)
    s.tseth.ftype = kFtypeTimestamp;
    expect_ts("tseth", "ts", s.tseth, e);
  }
  // W4: every packet but LAST/ONLY carries exactly one PMTU; LAST/ONLY lengths exercise the pad.
  const std::size_t pmtu = std::size_t{256} << (bits(8) % 3);
  scratch.payload.resize(full ? pmtu : min_payload + bits(11));
  for (auto& b : scratch.payload) b = static_cast<std::uint8_t>(bits(8));
  s.payload = Bytes(scratch.payload.data(), scratch.payload.size());
  s.has_reth = true;
  s.reth.va = bits(64);
  s.reth.rkey = static_cast<std::uint32_t>(bits(32));
  // S1: W4 DMALength is the whole message, the same in every packet of it.
  s.reth.dma_length =
      static_cast<std::uint32_t>(scratch.payload.size() + (only ? 0 : pmtu * (1 + bits(4))));
  e["reth.va"] = s.reth.va;
  e["reth.rkey"] = s.reth.rkey;
  e["reth.len"] = s.reth.dma_length;
  if (imm) {
    s.has_immdt = true;
    s.immdt = static_cast<std::uint32_t>(bits(32));
    e["immdt"] = s.immdt;
  }
  return kMethLen + (s.has_tseth ? kTsethLen : 0) + kRethLen + (imm ? kImmDtLen : 0);
}

// MODEL: W13 what the trimming switch keeps after the BTH: usually everything through the RETH
// [+ ImmDt] with part of the payload, one time in four only the minimum BTH + METH + [TSETH].
// Drops the expectations of what it cut.
template <class Bits>
std::size_t trim_keep(const FrameSpec& s, std::size_t hdrs, json& e, Bits&& bits) {
  const std::size_t least = kMethLen + (s.has_tseth ? kTsethLen : 0);
  if (bits(2) == 0) {
    for (const char* k : {"reth.va", "reth.rkey", "reth.len", "immdt"}) e.erase(k);
    return least;
  }
  const std::size_t keep = hdrs + bits(16) % (s.payload.size() + 1);
  e["payload_len"] = keep - hdrs;
  return keep;
}

template <class Bits>
void sack_packet(FrameSpec& s, json& e, Bits&& bits) {
  Seth& h = s.seth;
  CcState& c = s.cc;
  h.m = static_cast<MpVerdict>(bits(8) % 3);  // NONE, SKIP_ONCE, ALWAYS_SKIP (3 is reserved)
  h.pr = bits(3) == 0;
  h.ack_psn_offset = static_cast<std::int16_t>(bits(16));  // with pr = 1: the probe_id (S1: W5)
  h.entropy = static_cast<std::uint32_t>(bits(32));
  h.spdcid = static_cast<std::uint16_t>(bits(16));
  h.dpdcid = static_cast<std::uint16_t>(bits(16));
  h.cack_psn = static_cast<std::uint32_t>(bits(24));
  h.cc_type = 0;
  h.cc_flags = 0;  // MODEL: W5 sent 0
  h.mpr = static_cast<std::uint8_t>(bits(8) % 33);
  h.sack_offset = bits(2) == 0 ? static_cast<std::int16_t>(bits(16)) : std::int16_t{1};
  h.sack_bitmap = bits(64);
  c.tx_timestamp = static_cast<std::uint16_t>(bits(16));
  c.ooo_count = static_cast<std::uint16_t>(bits(15));
  c.restore_cwnd = bits(1);
  c.rcv_cwnd_pen = static_cast<std::uint8_t>(bits(7));
  c.rcvd_bytes = static_cast<std::uint32_t>(bits(24));
  s.has_sack = true;
  s.bth = mrc_bth(opcode::kMrcSack, qpn(bits), h.cack_psn);  // W3: BTH.PSN = cack_psn
  s.bth.rtx = bits(2) == 0;                                  // S1: W3 echoes the trigger's RTX
  // W5: the derived PSNs, computed here from the field definitions.
  const std::uint32_t base =
      (h.cack_psn + static_cast<std::uint32_t>(std::int32_t{h.sack_offset})) & 0xFFFFFFu;
  e["seth.m"] = static_cast<unsigned>(h.m);
  e["seth.pr"] = h.pr ? 1 : 0;
  if (h.pr) {
    e["seth.probe_id"] = static_cast<std::uint16_t>(h.ack_psn_offset);
  } else {
    e["seth.ack_psn_offset"] = h.ack_psn_offset;
    e["seth.ack_psn"] =
        (h.cack_psn + static_cast<std::uint32_t>(std::int32_t{h.ack_psn_offset})) & 0xFFFFFFu;
  }
  e["seth.entropy"] = h.entropy;
  e["seth.spdcid"] = h.spdcid;
  e["seth.dpdcid"] = h.dpdcid;
  e["seth.cack_psn"] = h.cack_psn;
  e["seth.cc_type"] = h.cc_type;
  e["seth.cc_flags"] = h.cc_flags;
  e["seth.mpr"] = h.mpr;
  e["seth.sack_offset"] = h.sack_offset;
  e["seth.sack_base"] = base;
  e["seth.sack_bitmap"] = h.sack_bitmap;
  e["seth.sack_count"] = std::popcount(h.sack_bitmap);
  e["cc.tx_timestamp"] = c.tx_timestamp;
  e["cc.ooo_count"] = c.ooo_count;
  e["cc.restore_cwnd"] = c.restore_cwnd ? 1 : 0;
  e["cc.rcv_cwnd_pen"] = c.rcv_cwnd_pen;
  e["cc.rcvd_bytes"] = c.rcvd_bytes;
}

template <class Bits>
void nack_packet(FrameSpec& s, json& e, Bits&& bits) {
  static constexpr std::array<std::uint8_t, 7> kReasons = {
      nack::kTrimmed,    nack::kTrimmedLastHop, nack::kNoBitmap,  nack::kNoPktBuffer,
      nack::kNoResource, nack::kPsnOorWindow,   nack::kUnexpEvent};
  Neth& n = s.neth;
  n.nack_reason = kReasons[bits(8) % kReasons.size()];
  n.vendor_info = static_cast<std::uint8_t>(bits(8));  // vendor-defined: any value is legal
  n.entropy = static_cast<std::uint32_t>(bits(32));
  n.spdcid = static_cast<std::uint16_t>(bits(16));
  n.dpdcid = static_cast<std::uint16_t>(bits(16));
  n.nack_psn = static_cast<std::uint32_t>(bits(24));
  n.cc_type = 2;
  n.cc_flags = 0;  // MODEL: W7 sent 0
  n.tx_timestamp = static_cast<std::uint16_t>(bits(16));
  s.has_neth = true;
  s.bth = mrc_bth(opcode::kMrcNack, qpn(bits), n.nack_psn);  // W3: BTH.PSN = nack_psn
  e["neth.reason"] = n.nack_reason;
  e["neth.vendor_info"] = n.vendor_info;
  e["neth.entropy"] = n.entropy;
  e["neth.spdcid"] = n.spdcid;
  e["neth.dpdcid"] = n.dpdcid;
  e["neth.nack_psn"] = n.nack_psn;
  e["neth.cc_type"] = n.cc_type;
  e["neth.cc_flags"] = n.cc_flags;
  e["neth.tx_timestamp"] = n.tx_timestamp;
}

// The control packets (W5-W10). Returns whether the packet travels in the Data class (W9: the
// probe; W13: an endpoint request may use any class) rather than Control.
template <class Bits>
bool control_packet(unsigned kind, FrameSpec& s, json& e, Bits&& bits) {
  Timestamp ts;
  ts.tx_timestamp = static_cast<std::uint16_t>(bits(16));
  switch (kind) {
    case kTack:
      s.bth = mrc_bth(opcode::kMrcAck, qpn(bits), static_cast<std::uint32_t>(bits(24)));
      s.has_aeth = true;
      // S1: W8 0x1F = ACK, credit field invalid; Transport NAKs keep the IBA codes.
      s.aeth.syndrome = std::array<std::uint8_t, 5>{
          syndrome::kAck, syndrome::kAck, syndrome::kNakInvalidRequest, syndrome::kNakRemoteAccess,
          syndrome::kNakRemoteOpError}[bits(8) % 5];
      s.aeth.msn = static_cast<std::uint32_t>(bits(24));
      e["aeth.syndrome"] = s.aeth.syndrome;
      e["aeth.msn"] = s.aeth.msn;
      return false;
    case kSack:
      sack_packet(s, e, bits);
      return false;
    case kNack:
      nack_packet(s, e, bits);
      return false;
    case kProbe:
      s.bth = mrc_bth(opcode::kMrcProbe, qpn(bits), 0);  // W3: a probe consumes no PSN, sends 0
      s.has_peth = true;
      s.peth.vendor_info = static_cast<std::uint8_t>(bits(8));
      s.peth.probe_id = static_cast<std::uint16_t>(bits(16));
      s.peth.spdcid = static_cast<std::uint16_t>(bits(16));
      s.peth.dpdcid = static_cast<std::uint16_t>(bits(16));
      if (bits(2) == 0) ts = Timestamp{0, false, kFtypeNone};  // W9: no timestamp, ftype 0
      s.peth.ts = ts;
      e["peth.vendor_info"] = s.peth.vendor_info;
      e["peth.probe_id"] = s.peth.probe_id;
      e["peth.spdcid"] = s.peth.spdcid;
      e["peth.dpdcid"] = s.peth.dpdcid;
      expect_ts("peth", "tx_timestamp", ts, e);
      return true;
    case kEpRequest: {
      // W10: DestQP 0x2, PSN[15:0] = the request id, PSN[23:16] = 0.
      s.bth = mrc_bth(opcode::kMrcEndpointReq, kEndpointQpn, static_cast<std::uint32_t>(bits(16)));
      s.has_erth = true;
      const bool port_status = bits(1);
      s.erth.op =
          static_cast<std::uint8_t>(port_status ? EpWireOp::kPortStatusUpdate : EpWireOp::kEvProbe);
      s.erth.vendor_info = static_cast<std::uint8_t>(bits(8));
      // MODEL: W10 bit N = port N (bit 0 unused); EV_PROBE sends 0.
      s.erth.port_status_mask = port_status ? static_cast<std::uint32_t>(bits(8) << 1) : 0;
      s.erth.ts = ts;
      e["erth.op"] = s.erth.op;
      e["erth.vendor_info"] = s.erth.vendor_info;
      e["erth.port_status_mask"] = s.erth.port_status_mask;
      expect_ts("erth", "tx_timestamp", ts, e);
      return bits(1);  // W13: the request uses the caller's req_tc
    }
    default:  // kEpResponse
      s.bth = mrc_bth(opcode::kMrcEndpointRsp, kEndpointQpn, static_cast<std::uint32_t>(bits(16)));
      s.has_eeth = true;
      s.eeth.op = static_cast<std::uint8_t>(bits(1));  // the request's op echoed
      s.eeth.tx_timestamp = ts.tx_timestamp;           // MODEL: W10 ERTH.tx_timestamp reflected
      e["eeth.op"] = s.eeth.op;
      e["eeth.tx_timestamp"] = s.eeth.tx_timestamp;
      return false;
  }
}

}  // namespace

std::uint64_t FrameFactory::bits(unsigned n) {
  const std::uint64_t v = rng_();
  return n >= 64 ? v : (v & ((std::uint64_t{1} << n) - 1));
}

GeneratedFrame FrameFactory::make(std::uint32_t index) {
  return profile_ == Profile::kRoce ? make_roce(index) : make_mrc(index);
}

GeneratedFrame FrameFactory::make_mrc(std::uint32_t index) {
  auto rnd = [this](unsigned n) { return bits(n); };
  const unsigned kind = index % kMrcKinds;
  const Placement p = kPlaces[(index / kMrcKinds + bits(3)) % kPlaces.size()];
  FrameSpec s;
  Scratch scratch;
  json e;
  e["_index"] = index;
  e["mrc_hdrs"] = 1;
  std::size_t keep = 0;
  std::uint8_t dscp = kDscp.control;
  bool data_class = false;
  const char* family = "data";
  if (kind <= kTrimmedLastHop) {
    const bool trim = kind >= kTrimmed;
    const std::uint8_t op =
        static_cast<std::uint8_t>(opcode::kMrcWriteFirst + (trim ? bits(8) % 6 : kind));
    const std::size_t hdrs = data_packet(s, op, trim ? 64 : 0, scratch, e, rnd);
    if (trim) {
      keep = trim_keep(s, hdrs, e, rnd);
      family = "trimmed";
    }
    data_class = true;
    // W13: retransmissions in DSCP_TRIMMABLE_RETX; untrimmed first sends sometimes DSCP_NO_TRIM.
    dscp = s.bth.rtx ? kDscp.trimmable_retx
                     : (!trim && bits(3) == 0 ? kDscp.no_trim : kDscp.trimmable);
  } else {
    static constexpr std::array<const char*, 6> kFamilies = {"tack",  "sack",  "nack",
                                                             "probe", "epreq", "eprsp"};
    family = kFamilies[kind - kTack];
    data_class = control_packet(kind, s, e, rnd);
    if (data_class) dscp = kDscp.trimmable;
  }
  // MODEL: W13 data is sent ECT(0) (CE when a switch marked it), control not ECT.
  const std::uint8_t ecn = data_class ? (bits(2) == 0 ? kEcnCe : kEcnEct0) : kEcnNotEct;
  place(s, p, dscp, ecn, ev_tag(p, rnd), scratch, e, rnd);
  if (keep != 0) {
    // W13: the switch rewrites the DSCP of the header it forwards on, the outer one under SRv6.
    const std::uint8_t t = kind == kTrimmed ? kDscp.trimmed : kDscp.trimmed_lasthop;
    (s.l3 == L3Kind::kIpv4 ? s.ip4.dscp : s.ip6.dscp) = t;
    e["dscp"] = t;
  }
  expect_mrc_bth(s.bth, e);
  char name[48];
  std::snprintf(name, sizeof name, "%s_0x%02x_%s", family, s.bth.opcode,
                kPlaceNames[static_cast<unsigned>(p)]);
  e["_kind"] = name;
  GeneratedFrame g = finish(s, std::move(e), keep);
  if (!is_mrc_data(s.bth.opcode)) g.expect.erase("payload_len");  // control packets carry none
  return g;
}

}  // namespace mrc::cross
