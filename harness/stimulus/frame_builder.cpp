#include "harness/stimulus/frame_builder.hpp"

#include <algorithm>
#include <array>

#include "harness/case/limits.hpp"
#include "harness/stimulus/payload.hpp"
#include "reference/wire/codec.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::harness::stim {
namespace {

constexpr std::uint32_t kPsnMask = 0xFFFFFF;

// W5: cack_psn is the frame's BTH.PSN; ack_psn_offset names the PSN answered, or with pr the
// probe_id.
void to_wire(const SackSpec& h, std::uint32_t psn, wire::Seth& seth, wire::CcState& cc) {
  seth = wire::Seth{};
  seth.m = static_cast<wire::MpVerdict>(h.m & 3);
  seth.pr = h.pr;
  seth.cack_psn = psn & kPsnMask;
  // The 24-bit distance ack_psn - psn as a signed number (a case may name a PSN below cack_psn).
  const auto dist = static_cast<std::int32_t>(((h.ack_psn.value_or(psn) - psn) & kPsnMask) << 8) >> 8;
  seth.ack_psn_offset = h.pr ? static_cast<std::int16_t>(h.probe_id) : static_cast<std::int16_t>(dist);
  seth.entropy = h.entropy;
  seth.mpr = h.mpr;
  seth.sack_offset = h.sack_offset;
  seth.sack_bitmap = h.bitmap;
  cc = wire::CcState{};
  cc.tx_timestamp = h.ts;
  cc.ooo_count = h.ooo_count;
  cc.rcvd_bytes = h.rcvd_bytes & kPsnMask;
}

void set_flags(wire::Bth& bth, const std::vector<FrameFlag>& flags) {
  for (FrameFlag f : flags) {
    switch (f) {
      case FrameFlag::kAckReq: bth.ack_req = true; break;
      case FrameFlag::kSolicited: bth.se = true; break;
      case FrameFlag::kMigReq: bth.mig_req = true; break;
      case FrameFlag::kFecn: bth.fecn = true; break;
      case FrameFlag::kBecn: bth.becn = true; break;
      case FrameFlag::kR: bth.r = true; break;
      case FrameFlag::kRtx: bth.rtx = true; break;
    }
  }
}

// A data packet cut with a trimmed DSCP is what a trimming switch forwards (MODEL: W13): its IP and
// UDP lengths fixed to the bytes kept (every IP header's), the ICRC cut away.
void fix_trimmed_lengths(std::vector<std::uint8_t>& frame, std::size_t keep) {
  wire::DecodedFrame d;
  if (!wire::decode_frame(frame, d).ok()) return;
  const std::size_t udp = d.bth_offset - wire::kUdpLen;
  const std::size_t ip = wire::eth_length(d.eth);
  if (keep < d.bth_offset) return;
  if (d.l3 == wire::L3Kind::kIpv4) {
    wire::store_be16(frame.data() + ip + 2, static_cast<std::uint16_t>(keep - ip));
    frame[ip + 10] = frame[ip + 11] = 0;
    wire::store_be16(frame.data() + ip + 10, wire::ipv4_checksum(wire::Bytes(frame.data() + ip, wire::ipv4_length(d.ip4))));
  } else {
    wire::store_be16(frame.data() + ip + 4, static_cast<std::uint16_t>(keep - ip - wire::kIpv6Len));
    if (d.encapsulated) {
      const std::size_t in = d.roce_ip_offset;
      wire::store_be16(frame.data() + in + 4, static_cast<std::uint16_t>(keep - in - wire::kIpv6Len));
    }
  }
  wire::store_be16(frame.data() + udp + 4, static_cast<std::uint16_t>(keep - udp));
}

}  // namespace

bool is_write_opcode(std::uint8_t op) { return wire::is_mrc_data(op); }

BuiltFrame build_frame(const FrameSpec& spec, const FrameContext& ctx) {
  BuiltFrame out;
  const wire::ExtLayout layout = wire::ext_layout(spec.opcode);
  const bool data = is_write_opcode(spec.opcode);
  // W13: feedback and endpoint packets travel in the Control class; data and probes in the Data class.
  const bool control = layout.aeth || layout.sack || layout.neth || layout.erth || layout.eeth;

  // Payload: explicit, else a write carries reth.len (or 64) incrementing bytes.
  std::uint32_t payload_len = 0;
  PayloadPattern pattern = PayloadPattern::kIncrement;
  if (spec.payload) {
    payload_len = spec.payload->len;
    pattern = spec.payload->pattern;
  } else if (data) {
    payload_len = spec.reth ? spec.reth->len : 64;
  }
  if (payload_len > limits::kMaxFramePayloadBytes) {  // the case schema refuses it first
    out.error = "payload of " + std::to_string(payload_len) + " bytes is larger than 4096";
    return out;
  }
  std::vector<std::uint8_t> payload(payload_len);
  fill_pattern(pattern, ctx.seed ^ spec.psn, payload);

  wire::FrameSpec f;
  f.eth.src = ctx.src_mac;
  f.eth.dst = ctx.dst_mac;
  if (ctx.ipv4) {
    f.l3 = wire::L3Kind::kIpv4;
    f.ip4.src = ctx.src_ipv4;
    f.ip4.dst = ctx.dst_ipv4;
  }
  f.ip6.src = ctx.src_gid;
  f.ip6.dst = ctx.dst_gid;
  const wire::DscpConfig& classes = ctx.dscp;  // the injected frame's class, at the run's DSCP values (W13)
  const std::uint8_t dscp = spec.dscp.value_or(control ? classes.control : classes.trimmable);
  const std::uint8_t ecn = spec.ecn.value_or(wire::kEcnEct0);
  f.ip6.dscp = f.ip4.dscp = dscp;
  f.ip6.ecn = f.ip4.ecn = ecn;

  // EV placement (W1/W2): the named EV, else the sender's first one.
  std::array<std::uint8_t, 16> srh_segment{};
  if (spec.ev && *spec.ev >= ctx.evs.size()) {
    out.error = "ev " + std::to_string(*spec.ev) + " is not in the EV array (" + std::to_string(ctx.evs.size()) + " EVs)";
    return out;
  }
  if (!ctx.evs.empty()) {
    const WireEv& ev = ctx.evs[spec.ev.value_or(0)];
    if (ctx.mode == wire::EvFmtMode::kSrv6) {
      if (ctx.srv6_encapsulated) {
        wire::place_ev(f, ctx.mode, ev.wire, ev.index, srh_segment);
        f.inner_ip6.dscp = dscp;
        f.inner_ip6.ecn = ecn;
      }
      f.udp.sport = static_cast<std::uint16_t>(wire::kSrv6SportBase | ev.index);  // W2 SRv6 tag
    } else if (!ctx.ipv4 || ctx.mode == wire::EvFmtMode::kUdp) {
      wire::place_ev(f, ctx.mode, ev.wire, ev.index, srh_segment);
    }
  }

  f.bth.opcode = spec.opcode;
  f.bth.psn = spec.psn & kPsnMask;
  if (spec.ep && spec.ep->id) f.bth.psn = (f.bth.psn & 0xFF0000u) | *spec.ep->id;  // W10 the id
  f.bth.pkey = spec.pkey.value_or(0xFFFF);
  const bool endpoint = layout.erth || layout.eeth;
  f.bth.dest_qp = (spec.dqpn_xor ? ctx.dqpn ^ *spec.dqpn_xor : spec.dqpn.value_or(endpoint ? wire::kEndpointQpn : ctx.dqpn)) &
                  kPsnMask;
  set_flags(f.bth, spec.flags);
  if (layout.meth) {  // W4: every MRC data packet has a METH, and a TSETH when the case gives one
    f.has_meth = true;
    const MethSpec m = spec.meth.value_or(MethSpec{});
    f.meth = wire::Meth{m.rqmsn, m.msn};
    if (spec.tseth) {
      f.has_tseth = true;
      f.tseth = wire::Tseth{spec.tseth->ts, spec.tseth->tsr, static_cast<std::uint8_t>(spec.tseth->ftype & 0x0F)};
    }
  }

  if (layout.reth || spec.reth) {
    f.has_reth = true;
    if (spec.reth && spec.reth->past_end) {  // a region edge: the write ends past_end bytes past the buffer
      const std::uint64_t end = ctx.buffer_va + ctx.buffer_bytes + *spec.reth->past_end;
      if (ctx.buffer_bytes == 0 || spec.reth->len > end - ctx.buffer_va) {
        out.error = "reth past_end: a write of " + std::to_string(spec.reth->len) + " bytes does not fit the receiver's " +
                    std::to_string(ctx.buffer_bytes) + "-byte buffer";
        return out;
      }
      f.reth = wire::Reth{end - spec.reth->len, ctx.rkey, spec.reth->len};
    } else if (spec.reth && !spec.reth->rkey_xor) {
      f.reth = wire::Reth{spec.reth->va, spec.reth->rkey, spec.reth->len};
    } else {  // W4: the packet's own address in the receiver's buffer; DMALength = its message,
              // which for an injected packet is the packet alone unless the case says otherwise
      const std::uint64_t index = (spec.psn - ctx.first_psn) & kPsnMask;
      const std::uint32_t rkey = spec.reth ? ctx.rkey ^ *spec.reth->rkey_xor : ctx.rkey;  // rkey_xor: a near miss
      f.reth = wire::Reth{ctx.buffer_va + index * ctx.mtu, rkey, spec.reth ? spec.reth->len : payload_len};
    }
  }
  if (layout.immdt || spec.imm) {
    f.has_immdt = true;
    f.immdt = spec.imm.value_or(0);
  }
  if (layout.aeth || spec.aeth) {
    f.has_aeth = true;
    const AethSpec a = spec.aeth.value_or(AethSpec{});
    f.aeth = wire::Aeth{a.syndrome, a.msn & kPsnMask};
  }
  if (layout.sack) {  // W5
    f.has_sack = true;
    to_wire(spec.sack.value_or(SackSpec{}), spec.psn, f.seth, f.cc);
  }
  if (layout.neth) {  // W7
    f.has_neth = true;
    const NackSpec n = spec.nack.value_or(NackSpec{});
    f.neth.nack_reason = n.reason;
    f.neth.entropy = n.entropy;
    f.neth.nack_psn = spec.psn & kPsnMask;
    f.neth.tx_timestamp = n.ts;
  }
  if (layout.peth) {  // W9
    f.has_peth = true;
    const ProbeSpec p = spec.probe.value_or(ProbeSpec{});
    f.peth.probe_id = p.probe_id;
    f.peth.ts = p.ts ? wire::Timestamp{*p.ts, false, wire::kFtypeTimestamp} : wire::Timestamp{0, false, 0};
  }
  const EpSpec ep = spec.ep.value_or(EpSpec{});  // W10: default an EV probe, timestamp 0
  if (layout.erth) {
    f.has_erth = true;
    f.erth.op = ep.op & 3;
    f.erth.port_status_mask = ep.port_status_mask;
    f.erth.ts = wire::Timestamp{ep.tx_timestamp, false, wire::kFtypeTimestamp};
  }
  if (layout.eeth) {
    f.has_eeth = true;
    f.eeth.op = ep.op & 3;
    f.eeth.tx_timestamp = ep.tx_timestamp;
  }
  f.payload = wire::Bytes(payload.data(), payload.size());
  f.corrupt_icrc = spec.icrc == IcrcMode::kBad;

  out.bytes.resize(wire::kMaxFrameLen);
  const wire::EncodeResult r = wire::encode_frame(f, wire::MutBytes(out.bytes.data(), out.bytes.size()));
  if (!r.ok()) {
    out.bytes.clear();
    out.error = "cannot encode the frame: " + std::string(wire::to_string(r.error));
    return out;
  }
  out.bytes.resize(r.length);
  if (spec.truncate && *spec.truncate < out.bytes.size()) {
    const bool trimmed = data && ((ctx.dscp.trimmed_mask() >> (dscp & 63)) & 1u) != 0;
    if (trimmed) fix_trimmed_lengths(out.bytes, *spec.truncate);
    out.bytes.resize(*spec.truncate);
  }
  return out;
}

}  // namespace mrc::harness::stim
