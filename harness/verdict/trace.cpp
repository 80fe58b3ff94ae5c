#include "harness/verdict/trace.hpp"

#include <algorithm>

#include "harness/verdict/field_access.hpp"
#include "harness/verdict/flat_index.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::harness {
namespace {

// W1: an SRv6 frame's path, the outer DA container and the SRH segment, as one 64-bit FNV-1a key
// (srv6_layout compares paths with the tags that name them; 0 when not encapsulated).
std::uint64_t srv6_path_key(const wire::DecodedFrame& f) {
  if (!f.encapsulated) return 0;
  std::uint64_t h = 0xCBF29CE484222325ull;
  auto mix = [&h](const std::uint8_t* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  };
  mix(f.ip6.dst.data(), f.ip6.dst.size());
  if (f.has_srh) mix(f.srh.segments.data(), f.srh.segments.size());
  return h | 1u;  // never 0
}

void fill(PacketRec& r, const wire::DecodedFrame& f, wire::EvFmtMode mode) {
  const bool v4 = f.l3 == wire::L3Kind::kIpv4;
  r.ip_version = v4 ? 4 : 6;
  r.dscp = v4 ? f.ip4.dscp : f.ip6.dscp;
  r.ecn = v4 ? f.ip4.ecn : f.ip6.ecn;
  r.flow_label = v4 ? 0 : f.ip6.flow_label;
  r.encapsulated = f.encapsulated;
  r.srv6_path = srv6_path_key(f);
  r.has_srh = f.has_srh;
  if (f.has_srh) {
    r.srh_sl = f.srh.segments_left;
    r.srh_le = f.srh.last_entry;
    r.srh_segments = static_cast<std::uint8_t>(f.srh.segment_count());
  }
  r.sport = f.udp.sport;
  r.opcode = f.bth.opcode;
  r.cls = classify(f.bth.opcode);
  r.psn = f.bth.psn;
  r.dqpn = f.bth.dest_qp;
  r.pkey = f.bth.pkey;
  r.ack_req = f.bth.ack_req;
  r.rtx = f.bth.rtx;
  r.has_meth = f.has_meth;
  if (f.has_meth) {
    r.meth_msn = f.meth.msn;
    r.meth_rqmsn = f.meth.rqmsn;
  }
  r.has_tseth = f.has_tseth;
  if (f.has_tseth) r.tx_ts = f.tseth.tx_timestamp;
  r.ev = wire::ev_echo_value(f, mode);
  r.payload_len = static_cast<std::uint32_t>(f.payload.size());
  r.icrc_ok = f.icrc_ok;
  r.trimmed = f.trimmed;
  r.has_reth = f.has_reth;
  if (f.has_reth) {
    r.va = f.reth.va;
    r.rkey = f.reth.rkey;
    r.dma_len = f.reth.dma_length;
  }
  r.has_immdt = f.has_immdt;
  r.immdt = f.immdt;
  r.has_aeth = f.has_aeth;
  if (f.has_aeth) {
    r.syndrome = f.aeth.syndrome;
    r.msn = f.aeth.msn;
  }
  r.has_sack = f.has_sack;
  if (f.has_sack) {  // W5
    r.seth_m = static_cast<std::uint8_t>(f.seth.m);
    r.seth_pr = f.seth.pr;
    r.trig_psn = f.seth.pr ? 0 : f.seth.ack_psn();
    r.probe_id = f.seth.pr ? f.seth.probe_id() : 0;
    r.ev_echo = f.seth.entropy;
    r.spdcid = f.seth.spdcid;
    r.dpdcid = f.seth.dpdcid;
    r.mpr = f.seth.mpr;
    r.sack_base = f.seth.sack_base();
    r.sack_bitmap = f.seth.sack_bitmap;
    r.reflected_ts = f.cc.tx_timestamp;
    r.ooo_count = f.cc.ooo_count;
    r.rcvd_units = f.cc.rcvd_bytes;
  }
  r.has_neth = f.has_neth;
  if (f.has_neth) {  // W7
    r.nack_reason = f.neth.nack_reason;
    r.trig_psn = f.neth.nack_psn;
    r.ev_echo = f.neth.entropy;
    r.spdcid = f.neth.spdcid;
    r.dpdcid = f.neth.dpdcid;
    r.reflected_ts = f.neth.tx_timestamp;
  }
  r.has_peth = f.has_peth;
  if (f.has_peth) {  // W9
    r.probe_id = f.peth.probe_id;
    r.spdcid = f.peth.spdcid;
    r.dpdcid = f.peth.dpdcid;
    r.tx_ts = f.peth.ts.tx_timestamp;
    r.peth_ts = f.peth.ts.ftype == wire::kFtypeTimestamp;
  }
  r.has_ep = f.has_erth || f.has_eeth;
  if (r.has_ep) {  // W10
    r.ep_op = f.has_erth ? f.erth.op : f.eeth.op;
    r.req_id = static_cast<std::uint16_t>(f.bth.psn & 0xFFFFu);
    if (f.has_erth) r.port_status_mask = f.erth.port_status_mask;
  }
}

}  // namespace

std::vector<std::size_t> select_taps(const CheckContext& ctx, TapSide side) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < ctx.taps.size(); ++i) {
    const bool from = ctx.taps[i].from_dut;
    if (side == TapSide::kAll || (side == TapSide::kFromDut) == from) out.push_back(i);
  }
  return out;
}

Trace build_trace(const CheckContext& ctx, const std::vector<std::size_t>& taps) {
  Trace t;
  std::size_t total = 0;
  for (auto i : taps) total += ctx.taps[i].capture.size();
  t.packets.reserve(total);
  const wire::EvFmtMode mode = ev_mode(ctx.dut);
  for (auto i : taps) {
    const TapCapture& tap = ctx.taps[i];
    FrameCursor cur(tap, true, ctx.dut_dscp);  // W13 trims are recognised by the configured DSCPs
    while (cur.next()) {
      PacketRec& r = t.packets.emplace_back();
      r.ts_ns = cur.ts_ns();
      r.index = static_cast<std::uint32_t>(cur.index());
      r.wire_len = cur.packet().origlen;
      r.tap = static_cast<std::uint16_t>(i);
      r.port = static_cast<std::uint8_t>(tap.port);
      r.from_dut = tap.from_dut;
      fill(r, cur.frame(), mode);
    }
    t.malformed += cur.malformed();
    for (std::size_t e = 0; e < t.malformed_by_error.size(); ++e) {
      t.malformed_by_error[e] += cur.malformed(static_cast<wire::WireError>(e));
    }
    t.foreign += cur.foreign();
    for (const auto& is : cur.issues()) t.issues.push_back(TraceIssue{static_cast<std::uint16_t>(i), is});
  }
  // Taps were appended in tap order and each capture is in time order, so a stable sort keeps
  // ties deterministic. At the same nanosecond a frame reaching the DUT comes first: it can be the
  // cause of what the DUT sends then (a SACK, a TRIM NACK), never the other way round.
  std::stable_sort(t.packets.begin(), t.packets.end(), [](const PacketRec& a, const PacketRec& b) {
    return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : (!a.from_dut && b.from_dut);
  });
  return t;
}

namespace {
thread_local SharedTraces* t_shared = nullptr;
}  // namespace

SharedTraces::SharedTraces(const CheckContext& ctx) : ctx_(ctx), outer_(t_shared) { t_shared = this; }

SharedTraces::~SharedTraces() { t_shared = outer_; }

std::shared_ptr<const Trace> trace_of(const CheckContext& ctx, const std::vector<std::size_t>& taps) {
  SharedTraces* s = t_shared;
  if (!s || &s->ctx_ != &ctx) return std::make_shared<const Trace>(build_trace(ctx, taps));
  for (const auto& [key, trace] : s->traces_) {
    if (key == taps) return trace;
  }
  auto t = std::make_shared<const Trace>(build_trace(ctx, taps));
  s->traces_.emplace_back(taps, t);
  return t;
}

std::vector<std::uint32_t> previous_transmissions(const Trace& t) {
  std::vector<std::uint32_t> prev(t.packets.size(), kNoPacket);
  FlatIndex last(t.packets.size());
  for (std::size_t i = 0; i < t.packets.size(); ++i) {
    const PacketRec& p = t.packets[i];
    if (!p.from_dut || !p.is_write_data()) continue;
    std::uint32_t* slot = last.find_or_insert(psn_key(p.dqpn, p.psn));
    if (!slot) continue;  // cannot happen: sized for every packet
    prev[i] = *slot;      // kNone == kNoPacket for a first transmission
    *slot = static_cast<std::uint32_t>(i);
  }
  return prev;
}

}  // namespace mrc::harness
