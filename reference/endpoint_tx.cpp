// Endpoint frame building: a transport TxPacket (BTH onwards) becomes a whole frame on the EV it
// travels on (W1 stacks, W2 STEV split, W13 DSCP/ECN), with the wire-visible defects of
// the catalog applied here.
#include <algorithm>

#include "reference/endpoint.hpp"
#include "reference/endpoint_internal.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::ref {
namespace {

// defect usid-reverse: the non-zero uSIDs after the 32-bit locator block in reverse order (the
// End-of-Carrier zeros stay at the end).
void reverse_usids(wire::Ipv6Addr& da) {
  constexpr std::size_t kBlock = 4;
  std::size_t n = 0;
  while (n < 6 && (da[kBlock + 2 * n] != 0 || da[kBlock + 2 * n + 1] != 0)) ++n;
  for (std::size_t i = 0; i < n / 2; ++i) {
    std::swap(da[kBlock + 2 * i], da[kBlock + 2 * (n - 1 - i)]);
    std::swap(da[kBlock + 2 * i + 1], da[kBlock + 2 * (n - 1 - i) + 1]);
  }
}

}  // namespace

bool Endpoint::resolve_path(const transport::TxPacket& pkt, Qp* qp, wire::EvFmtMode& mode,
                            wire::EvBytes& ev, std::uint8_t& port, std::uint8_t& index) {
  using Kind = transport::TxPath::Kind;
  if (pkt.path.kind == Kind::kExplicitEv) {
    mode = pkt.path.fmt;
    ev = pkt.path.ev;
    port = pkt.path.port;
    index = pkt.path.srv6_ev_index;
    return port != 0;
  }
  if (qp == nullptr || !qp->ev_attached) return false;
  const std::span<const ev::EvEntry> arr = controller_.ev_array(qp->ev_profile);
  if (arr.empty()) return false;
  std::size_t pick = pkt.path.ev_index;
  if (pkt.path.kind == Kind::kAnyQpEv) {
    // Prefer the requested port's EVs, round-robin; else any non-DENIED EV on an up port.
    Qp& q = *qp;
    pick = arr.size();
    const std::uint8_t want = pkt.path.port;
    if (want != 0 && want < q.evs_by_port.size() && port_up(want) && !q.evs_by_port[want].empty()) {
      const auto& list = q.evs_by_port[want];
      pick = list[q.port_cursor[want]++ % list.size()];
    } else {
      for (std::size_t k = 0; k < arr.size(); ++k) {
        const std::size_t i = (q.any_cursor + k) % arr.size();
        if (!arr[i].denied && port_up(arr[i].port)) {
          pick = i;
          q.any_cursor = static_cast<std::uint32_t>(i + 1);
          break;
        }
      }
    }
  }
  if (pick >= arr.size()) return false;
  const ev::EvEntry& e = arr[pick];
  mode = qp->fmt;
  ev = e.wire;
  port = e.port;
  index = e.index;
  return port != 0;
}

bool Endpoint::emit(const transport::TxPacket& pkt, transport::TxFrame& out) {
  Qp* qp = pkt.qpn != 0 ? find_qp(pkt.qpn) : nullptr;
  wire::EvFmtMode mode = wire::EvFmtMode::kStev;
  wire::EvBytes ev{};
  std::uint8_t port = 0;
  std::uint8_t index = 0;
  if (!resolve_path(pkt, qp, mode, ev, port, index)) {
    ++stats_.tx_no_path;
    return false;
  }
  if (!port_up(port)) {
    ++stats_.tx_port_down;
    return false;
  }
  const wire::Ipv6Addr& dgid = qp ? qp->attr.ah.dgid : pkt.dgid;

  wire::FrameSpec spec;
  spec.eth.src = cfg_.mac;
  spec.eth.dst = qp ? qp->attr.ah.dmac : pkt.dmac;
  const bool v4 = cfg_.ipv4 && mode == wire::EvFmtMode::kUdp;
  if (v4) {
    spec.l3 = wire::L3Kind::kIpv4;
    spec.eth.ethertype = wire::kEthTypeIpv4;
    spec.ip4.src = cfg_.ipv4_addr;
    spec.ip4.dst = (std::uint32_t{dgid[12]} << 24) | (std::uint32_t{dgid[13]} << 16) |
                   (std::uint32_t{dgid[14]} << 8) | dgid[15];  // IPv4-mapped GID
    spec.ip4.dscp = pkt.dscp;
    spec.ip4.ecn = pkt.ecn;
  } else {
    spec.l3 = wire::L3Kind::kIpv6;
    spec.eth.ethertype = wire::kEthTypeIpv6;
    spec.ip6.src = cfg_.gid;
    spec.ip6.dst = dgid;
    spec.ip6.dscp = pkt.dscp;
    spec.ip6.ecn = pkt.ecn;
  }
  std::array<std::uint8_t, 16> srh_segment{};
  wire::place_ev(spec, mode, ev, index, srh_segment);  // W1, W2
  if (spec.srv6_encap) {
    spec.inner_ip6.dscp = pkt.dscp;
    spec.inner_ip6.ecn = pkt.ecn;
  }
  // Each switch is read where it would act, never skipped as a set: its read is what tells the
  // campaign a case reaches the defect (reference/quirk/quirk_flag.hpp).
  const DefectReads& d = defects_;
  if (mode == wire::EvFmtMode::kStev && d.has(Defect::kNoFlowLabelEv)) spec.ip6.flow_label = 0;
  if (mode == wire::EvFmtMode::kSrv6 && d.has(Defect::kUsidReverse)) reverse_usids(spec.ip6.dst);
  if (mode == wire::EvFmtMode::kSrv6 && spec.srv6_encap && d.has(Defect::kUsidShortContainer)) {
    spec.ip6.dst[14] = spec.ip6.dst[15] = 0;  // the last uSID slot: End-of-Carrier
  }
  if (spec.has_srh && d.has(Defect::kSrhWrongSegmentsLeft)) spec.srh.segments_left = 0;
  if (mode == wire::EvFmtMode::kSrv6 && spec.srv6_encap && d.has(Defect::kSrv6TagConstant)) {
    spec.udp.sport = wire::kSrv6SportBase;
  }
  spec.bth = pkt.bth;
  spec.has_meth = pkt.has_meth;
  spec.meth = pkt.meth;
  spec.has_tseth = pkt.has_tseth;
  spec.tseth = pkt.tseth;
  spec.has_reth = pkt.has_reth;
  spec.reth = pkt.reth;
  spec.has_immdt = pkt.has_immdt;
  spec.immdt = pkt.immdt;
  spec.has_aeth = pkt.has_aeth;
  spec.aeth = pkt.aeth;
  spec.has_sack = pkt.has_sack;
  spec.seth = pkt.seth;
  spec.cc = pkt.cc;
  spec.has_neth = pkt.has_neth;
  spec.neth = pkt.neth;
  spec.has_peth = pkt.has_peth;
  spec.peth = pkt.peth;
  spec.has_erth = pkt.has_erth;
  spec.erth = pkt.erth;
  spec.has_eeth = pkt.has_eeth;
  spec.eeth = pkt.eeth;
  spec.payload = pkt.payload;
  spec.corrupt_icrc = pkt.corrupt_icrc;
  const wire::EncodeResult r = wire::encode_frame(spec, out.bytes);  // ICRC computed here
  if (!r.ok()) {
    ++stats_.tx_no_path;
    return false;
  }
  out.len = static_cast<std::uint16_t>(r.length);
  out.port = port;
  ++stats_.frames_tx;
  ++stats_.tx_per_port[port];
  if (pkt.has_aeth || pkt.has_sack || pkt.has_neth) ++stats_.feedback_tx;
  if (pkt.has_erth || pkt.has_eeth) ++stats_.ep_tx;
  return true;
}

}  // namespace mrc::ref
