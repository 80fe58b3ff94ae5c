#include "tests/cross/cross_frames.hpp"
#include "tests/cross/frame_finish.hpp"

#include <array>
#include <cstdio>
#include <stdexcept>

#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::cross {
namespace {

using namespace mrc::wire;
using nlohmann::json;

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(d[p[i] >> 4]);
    s.push_back(d[p[i] & 15]);
  }
  return s;
}

// How the EV rides in the frame (M1, M2). kUdp6 is UDP mode over IPv6 (flow label 0).
enum class Placement : std::uint8_t { kUdp4, kUdp6, kStev, kSrv6Srh, kSrv6NoSrh };

const char* placement_name(Placement p) {
  switch (p) {
    case Placement::kUdp4:
      return "udp4";
    case Placement::kUdp6:
      return "udp6";
    case Placement::kStev:
      return "stev";
    case Placement::kSrv6Srh:
      return "srv6_srh";
    case Placement::kSrv6NoSrh:
      return "srv6";
  }
  return "?";
}

// Storage the FrameSpec's spans point into; lives as long as one frame is being built.
struct Scratch {
  std::vector<std::uint8_t> payload;
  std::array<std::uint8_t, 16> srh_segment{};
};

}  // namespace

std::uint64_t FrameFactory::bits(unsigned n) {
  const std::uint64_t v = rng_();
  return n >= 64 ? v : (v & ((std::uint64_t{1} << n) - 1));
}

unsigned FrameFactory::kinds() const {
  switch (profile_) {
    case Profile::kIba:
      return 7u;
    case Profile::kMrc:
      return 12u;
    case Profile::kRoce:
      return kRoceKinds;
  }
  return 0;
}

GeneratedFrame FrameFactory::make(std::uint32_t index) {
  switch (profile_) {
    case Profile::kIba:
      return make_iba(index);
    case Profile::kRoce:
      return make_roce(index);
    case Profile::kMrc:
      break;
  }
  return make_mrc(index);
}

namespace {

// Fills Ethernet + IP + UDP source port for `p`, and the EV expectations (M1, M2).
template <class Bits>
void place(FrameSpec& s, Placement p, std::uint8_t dscp, Scratch& scratch, json& e, Bits&& bits) {
  for (auto& b : s.eth.dst) b = static_cast<std::uint8_t>(bits(8));
  for (auto& b : s.eth.src) b = static_cast<std::uint8_t>(bits(8));
  s.eth.dst[0] &= 0xFE;  // unicast
  s.eth.src[0] &= 0xFE;
  const std::uint8_t ecn = static_cast<std::uint8_t>(bits(1) ? kEcnEct0 : (bits(1) ? kEcnCe : 0));
  auto random_gid = [&](Ipv6Addr& a) {
    a[0] = 0xfd;
    for (std::size_t i = 1; i < 16; ++i) a[i] = static_cast<std::uint8_t>(bits(8));
  };
  e["dscp"] = dscp;
  e["_placement"] = placement_name(p);
  if (p == Placement::kUdp4) {
    s.eth.ethertype = kEthTypeIpv4;
    s.l3 = L3Kind::kIpv4;
    s.ip4.dscp = dscp;
    s.ip4.ecn = ecn;
    s.ip4.id = static_cast<std::uint16_t>(bits(16));
    s.ip4.ttl = static_cast<std::uint8_t>(1 + bits(7));
    s.ip4.src = 0x0A000000u | static_cast<std::uint32_t>(bits(24));
    s.ip4.dst = 0x0A000000u | static_cast<std::uint32_t>(bits(24));
    s.udp.sport = static_cast<std::uint16_t>(bits(16));
    e["_l3"] = "ipv4";
    e["ev.mode"] = "UDP";
    e["ev.value"] = s.udp.sport;  // MODEL: M2 (UDP mode: the EV is the source port)
    e["ev.sport"] = s.udp.sport;
    return;
  }
  s.eth.ethertype = kEthTypeIpv6;
  s.l3 = L3Kind::kIpv6;
  e["_l3"] = "ipv6";
  s.ip6.dscp = dscp;
  s.ip6.ecn = ecn;
  s.ip6.hop_limit = static_cast<std::uint8_t>(1 + bits(7));
  random_gid(s.ip6.src);
  if (p == Placement::kUdp6 || p == Placement::kStev) {
    random_gid(s.ip6.dst);
    s.ip6.next_header = kIpProtoUdp;
    if (p == Placement::kStev) {
      // MODEL: M2 — V's top half in the flow label; keep it non-zero so the mode is visible.
      const std::uint32_t v =
          (static_cast<std::uint32_t>(1 + bits(15)) << 16) | static_cast<std::uint32_t>(bits(16));
      s.ip6.flow_label = v >> 16;
      s.udp.sport = static_cast<std::uint16_t>(v & 0xFFFF);
      e["ev.mode"] = "STEV";
      e["ev.value"] = v;
      e["ev.flow_label"] = v >> 16;
    } else {
      s.ip6.flow_label = 0;
      s.udp.sport = static_cast<std::uint16_t>(bits(16));
      e["ev.value"] = s.udp.sport;  // flow label 0: V = sport in either mode (M2)
      e["ev.flow_label"] = 0;
    }
    e["ev.sport"] = s.udp.sport;
    return;
  }
  // SRv6 (MODEL: M1): outer DA = uSID container, optional single-segment SRH, inner IPv6.
  s.srv6_encap = true;
  s.ip6.flow_label = 0;
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
  e["ev.usid_block"] = block;
  e["ev.usid_count"] = usids;
  s.has_srh = (p == Placement::kSrv6Srh);
  if (s.has_srh) {
    s.ip6.next_header = kIpProtoRouting;
    auto& seg = scratch.srh_segment;
    seg = {};
    seg[0] = 0xFC;
    for (std::size_t i = 1; i < 4 + 2 * (1 + bits(8) % 6); ++i)
      seg[i] = static_cast<std::uint8_t>(bits(8));
    s.srh = Srh{};
    s.srh.next_header = kIpProtoIpv6;
    s.srh.hdr_ext_len = 2;
    s.srh.segments_left = 1;
    s.srh.last_entry = 0;
    s.srh.tag = 0;
    s.srh.segments = Bytes(seg.data(), seg.size());
    e["ev.srh_segment"] = hex(seg.data(), 16);
  } else {
    s.ip6.next_header = kIpProtoIpv6;
  }
  s.inner_ip6 = Ipv6{};
  s.inner_ip6.dscp = dscp;
  s.inner_ip6.ecn = ecn;
  s.inner_ip6.flow_label = 0;
  s.inner_ip6.hop_limit = 64;
  s.inner_ip6.next_header = kIpProtoUdp;
  s.inner_ip6.src = s.ip6.src;
  random_gid(s.inner_ip6.dst);
  const std::uint8_t ev_index = static_cast<std::uint8_t>(bits(8));
  s.udp.sport = static_cast<std::uint16_t>(kSrv6SportBase | ev_index);  // MODEL: M1
  e["ev.index"] = ev_index;
  e["ev.value"] = ev_index;  // MODEL: M5 (SRv6 echo is the EV index)
  e["ev.sport"] = s.udp.sport;
}

template <class Bits>
Bth random_bth(std::uint8_t opcode, Bits&& bits) {
  Bth b;
  b.opcode = opcode;
  b.se = bits(1);
  b.mig_req = bits(1);
  b.tver = 0;
  b.pkey = bits(1) ? 0xFFFF : static_cast<std::uint16_t>(0x8000 | bits(15));
  b.fecn = bits(1);
  b.becn = bits(1);
  b.dest_qp = static_cast<std::uint32_t>(bits(24));
  b.ack_req = bits(1);
  b.psn = static_cast<std::uint32_t>(bits(24));
  return b;
}

}  // namespace

GeneratedFrame FrameFactory::make_iba(std::uint32_t index) {
  auto rnd = [this](unsigned n) { return bits(n); };
  static constexpr std::uint8_t kOps[] = {
      opcode::kRcWriteFirst, opcode::kRcWriteMiddle,  opcode::kRcWriteLast, opcode::kRcWriteLastImm,
      opcode::kRcWriteOnly,  opcode::kRcWriteOnlyImm, opcode::kRcAck};
  const std::uint8_t op = kOps[index % kinds()];
  static constexpr Placement kPlaces[] = {Placement::kUdp4, Placement::kStev, Placement::kUdp6,
                                          Placement::kSrv6Srh, Placement::kSrv6NoSrh};
  // Half the frames are IPv4 (scapy computes the ICRC for IPv4 only).
  const Placement p = bits(1) ? Placement::kUdp4 : kPlaces[bits(8) % 5];
  FrameSpec s;
  Scratch scratch;
  json e;
  e["_index"] = index;
  e["_framing"] = "iba";
  place(s, p, op == opcode::kRcAck ? kDscpControl : kDscpTrimmable, scratch, e, rnd);
  s.udp.dport = kRoceV2Port;
  s.bth = random_bth(op, rnd);
  expect_bth(s.bth, e);
  const wire::ExtLayout lay = ext_layout(op, /*mrc_framing=*/false);
  if (op != opcode::kRcAck) {
    scratch.payload.resize(bits(10) + 1);
    for (auto& b : scratch.payload) b = static_cast<std::uint8_t>(bits(8));
    s.payload = Bytes(scratch.payload.data(), scratch.payload.size());
  }
  if (lay.reth) {
    s.has_reth = true;
    s.reth.va = bits(64);
    s.reth.rkey = static_cast<std::uint32_t>(bits(32));
    // IBA: DMALength is the whole message, at least this packet's payload.
    s.reth.dma_length = static_cast<std::uint32_t>(scratch.payload.size() + bits(20));
    e["reth.va"] = s.reth.va;
    e["reth.rkey"] = s.reth.rkey;
    e["reth.len"] = s.reth.dma_length;
  }
  if (lay.immdt) {
    s.has_immdt = true;
    s.immdt = static_cast<std::uint32_t>(bits(32));
    e["immdt"] = s.immdt;
  }
  if (lay.aeth) {
    s.has_aeth = true;
    static constexpr std::uint8_t kSyn[] = {syndrome::kAck, syndrome::kNakPsnSeqError,
                                            syndrome::kNakInvalidRequest,
                                            syndrome::kNakRemoteAccess};
    s.aeth.syndrome = kSyn[bits(2)];
    s.aeth.msn = static_cast<std::uint32_t>(bits(24));
    e["aeth.syndrome"] = s.aeth.syndrome;
    e["aeth.msn"] = s.aeth.msn;
  }
  e["_kind"] = std::string("iba_op") + std::to_string(op) + "_" + placement_name(p);
  return finish(s, std::move(e));
}

GeneratedFrame FrameFactory::make_mrc(std::uint32_t index) {
  auto rnd = [this](unsigned n) { return bits(n); };
  // Kinds: 0..5 data opcodes 0x06..0x0B, 6..8 feedback, 9 EP request, 10 EP response,
  // 11 trimmed data stub.
  const unsigned kind = index % kinds();
  static constexpr Placement kPlaces[] = {Placement::kUdp4, Placement::kUdp6, Placement::kStev,
                                          Placement::kSrv6Srh, Placement::kSrv6NoSrh};
  const Placement p = kPlaces[(index / kinds() + bits(3)) % 5];
  FrameSpec s;
  Scratch scratch;
  json e;
  e["_index"] = index;
  e["_framing"] = "mrc";
  std::size_t keep = 0;
  std::uint8_t dscp = kDscpTrimmable;
  if (kind >= 6 && kind <= 10) dscp = kDscpControl;
  if (kind == 11) dscp = kDscpTrimmed;  // MODEL: M11 (the switch rewrote the DSCP)
  place(s, p, dscp, scratch, e, rnd);
  if (kind == 11 && s.srv6_encap) {
    s.inner_ip6.dscp = kDscpTrimmable;  // only the outer header a switch sees is rewritten
  }
  s.udp.dport = kRoceV2Port;

  if (kind <= 5 || kind == 11) {
    const std::uint8_t op = kind == 11
                                ? static_cast<std::uint8_t>(opcode::kRcWriteFirst + bits(8) % 6)
                                : static_cast<std::uint8_t>(opcode::kRcWriteFirst + kind);
    s.bth = random_bth(op, rnd);
    s.bth.ack_req = true;  // MODEL: M3 (A set on every data packet)
    expect_bth(s.bth, e);
    scratch.payload.resize(kind == 11 ? 512 + bits(9) : bits(11));
    for (auto& b : scratch.payload) b = static_cast<std::uint8_t>(bits(8));
    s.payload = Bytes(scratch.payload.data(), scratch.payload.size());
    s.has_reth = true;  // MODEL: M3 per-packet RETH on every WRITE data packet
    s.reth.va = bits(64);
    s.reth.rkey = static_cast<std::uint32_t>(bits(32));
    s.reth.dma_length = static_cast<std::uint32_t>(scratch.payload.size());
    e["reth.va"] = s.reth.va;
    e["reth.rkey"] = s.reth.rkey;
    e["reth.len"] = s.reth.dma_length;
    if (op == opcode::kRcWriteLastImm || op == opcode::kRcWriteOnlyImm) {
      s.has_immdt = true;
      s.immdt = static_cast<std::uint32_t>(bits(32));
      e["immdt"] = s.immdt;
    }
    if (kind == 11) keep = kTrimLength;  // MODEL: M11
    e["_kind"] = std::string(kind == 11 ? "trimmed_op" : "data_op") + std::to_string(op) + "_" +
                 placement_name(p);
  } else if (kind <= 8) {
    // Feedback (M5): cycle the five MFEH types over the three feedback slots and the index.
    const auto type = static_cast<FeedbackType>((index / kinds() * 3 + (kind - 6)) % 5);
    s.bth = random_bth(opcode::kRcAck, rnd);
    expect_bth(s.bth, e);
    s.has_aeth = true;
    static constexpr std::uint8_t kSyn[] = {syndrome::kAck, syndrome::kAck,
                                            syndrome::kNakPsnSeqError, syndrome::kNakTrim,
                                            syndrome::kNakPsnSeqError};
    s.aeth.syndrome = kSyn[static_cast<unsigned>(type)];
    s.aeth.msn = static_cast<std::uint32_t>(bits(24));
    e["aeth.syndrome"] = s.aeth.syndrome;
    e["aeth.msn"] = s.aeth.msn;
    s.has_mfeh = true;  // MODEL: M5
    Mfeh& m = s.mfeh;
    m.type = type;
    m.ce = type == FeedbackType::kTrimNack ? true : bits(1);
    m.svc_valid = bits(1);
    m.ev_valid = bits(1);
    m.mpr_valid = bits(1);
    m.sack_valid = bits(1);
    m.svc_time = static_cast<std::uint16_t>(bits(16));
    m.trig_psn = static_cast<std::uint32_t>(bits(24));
    m.ev_echo = static_cast<std::uint32_t>(bits(32));
    m.ev_port = static_cast<std::uint8_t>(1 + bits(3));
    m.mpr = static_cast<std::uint8_t>(bits(8));
    m.sack_base_off = static_cast<std::uint16_t>(bits(16));
    m.sack_bitmap = bits(64);
    m.rcvd_bytes = static_cast<std::uint32_t>(bits(32));
    e["mfeh.ver"] = m.version;
    e["mfeh.type"] = static_cast<unsigned>(m.type);
    e["mfeh.ce"] = m.ce ? 1 : 0;
    e["mfeh.svc_valid"] = m.svc_valid ? 1 : 0;
    e["mfeh.ev_valid"] = m.ev_valid ? 1 : 0;
    e["mfeh.mpr_valid"] = m.mpr_valid ? 1 : 0;
    e["mfeh.sack_valid"] = m.sack_valid ? 1 : 0;
    e["mfeh.svc_time"] = m.svc_time;
    e["mfeh.trig_psn"] = m.trig_psn;
    e["mfeh.ev_echo"] = m.ev_echo;
    e["mfeh.ev_port"] = m.ev_port;
    e["mfeh.mpr"] = m.mpr;
    e["mfeh.sack_base_off"] = m.sack_base_off;
    e["mfeh.sack_bitmap"] = m.sack_bitmap;
    e["mfeh.rcvd_bytes"] = m.rcvd_bytes;
    e["_kind"] = std::string("feedback_type") + std::to_string(static_cast<unsigned>(type)) + "_" +
                 placement_name(p);
  } else {
    // Endpoint operation (M6).
    const bool req = kind == 9;
    s.bth = random_bth(req ? opcode::kMrcEpReq : opcode::kMrcEpRsp, rnd);
    s.bth.dest_qp = kEpDestQp;  // MODEL: M6
    s.bth.psn = 0;
    s.bth.pkey = 0xFFFF;
    expect_bth(s.bth, e);
    s.has_ep = true;
    EpHdr& ep = s.ep;
    ep.op = bits(1) ? EpOp::kPortStatusUpdate : EpOp::kEvProbe;
    ep.svc_valid = req ? false : bits(1);
    ep.req_id = static_cast<std::uint16_t>(bits(16));
    ep.port_status = static_cast<std::uint32_t>(bits(8));
    ep.tx_timestamp = bits(64);
    ep.svc_time_ns = req ? 0 : static_cast<std::uint32_t>(bits(20));
    static constexpr std::uint8_t kModes[] = {1, 2, 4};
    ep.rsp_fmt_mode = kModes[bits(8) % 3];
    ep.rsp_port = static_cast<std::uint8_t>(1 + bits(3));
    static constexpr std::uint8_t kLens[] = {0, 4, 32};
    ep.rsp_ev_len = kLens[bits(8) % 3];
    ep.rsp_ev = {};
    for (std::size_t i = 0; i < ep.rsp_ev_len; ++i)
      ep.rsp_ev[i] = static_cast<std::uint8_t>(bits(8));
    e["ep.op"] = static_cast<unsigned>(ep.op);
    e["ep.svc_valid"] = ep.svc_valid ? 1 : 0;
    e["ep.req_id"] = ep.req_id;
    e["ep.port_status"] = ep.port_status;
    e["ep.tx_timestamp"] = ep.tx_timestamp;
    e["ep.svc_time_ns"] = ep.svc_time_ns;
    e["ep.rsp_fmt_mode"] = ep.rsp_fmt_mode;
    e["ep.rsp_port"] = ep.rsp_port;
    e["ep.rsp_ev_len"] = ep.rsp_ev_len;
    if (ep.rsp_ev_len != 0) e["ep.rsp_ev"] = hex(ep.rsp_ev.data(), ep.rsp_ev_len);
    e["_kind"] = std::string(req ? "ep_req_op" : "ep_rsp_op") +
                 std::to_string(static_cast<unsigned>(ep.op)) + "_" + placement_name(p);
  }
  return finish(s, std::move(e), keep);
}

}  // namespace mrc::cross
