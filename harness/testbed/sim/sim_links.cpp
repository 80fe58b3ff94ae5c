// Links and queues: enqueue (MTU, admission, ECN, trimming), serialization, the wire's faults and
// the impairment hook, arrival and the switch hop.
#include <algorithm>
#include <cstring>

#include "harness/testbed/sim/address_plan.hpp"
#include "harness/testbed/sim/frame_edit.hpp"
#include "harness/testbed/sim/simulator.hpp"
#include "reference/wire/codec.hpp"
#include "reference/wire/mrc_headers.hpp"

namespace mrc::sim {

std::uint64_t Simulator::ser_ps(const DirState& s, std::uint32_t frame_len) const {
  const std::uint64_t bytes = std::uint64_t{frame_len} + topo_.config().wire_overhead_bytes;
  return bytes * 8'000'000ull / s.rate_mbps;  // bits / (Mb/s) = us; x 1e6 = ps
}

void Simulator::enqueue(DirId d, PacketId p) {
  DirState& s = dirs_[d];
  PacketMeta& m = pool_.meta(p);
  ++s.c.enqueued;
  const std::uint16_t l2 = l2_length(pool_.data(p), m.len);
  if (m.len > l2 && static_cast<std::uint32_t>(m.len - l2) > s.mtu) {
    ++s.c.dropped_queue;  // larger than the link MTU: never fits on the wire
    pool_.free(p);
    return;
  }
  bool priority = false;
  if (!admit(d, p, priority)) return;
  if (s.prio.empty() && s.data.empty() && s.busy_until_ps <= now_ * 1000) {
    transmit(d, p);
    return;
  }
  (priority ? s.prio : s.data).push(pool_, p);
  s.c.max_queue_bytes = std::max(s.c.max_queue_bytes, s.prio.bytes + s.data.bytes);
  if (!s.from_switch) hosts_[Topology::link_of(d) % topo_.hosts()].backlog_bytes += m.len;
  schedule_txdone(d);
}

// Queue admission for a switch egress port (a host NIC queue admits everything): strict priority
// for control and trimmed frames, ECN marking above the threshold, and on overflow trimming of
// trimmable data (or a drop). False = dropped (and freed).
bool Simulator::admit(DirId d, PacketId p, bool& priority) {
  DirState& s = dirs_[d];
  PacketMeta& m = pool_.meta(p);
  std::uint8_t* f = pool_.data(p);
  FrameLayout l;
  const bool ip = parse_layout(f, m.len, l);
  const std::uint8_t dscp = ip ? outer_dscp(f, l) : 0;
  const SwitchParams& sw = topo_.config().sw;
  // W13: the Control class (control packets and trimmed packets) is strict priority.
  priority = ip && (dscp == sw.dscp.control || dscp == sw.dscp.trimmed || dscp == sw.dscp.trimmed_lasthop);
  if (!s.from_switch) return true;
  if (priority) {
    if (s.prio.bytes + m.len <= sw.priority_queue_bytes) return true;
    ++s.c.dropped_queue;
    pool_.free(p);
    return false;
  }
  if (s.data.bytes + m.len > sw.queue_bytes) {
    // W13 overflow: trimmable data (first transmissions and retransmissions) is cut to
    // trim_bytes, re-marked TRIMMED (TRIMMED_LASTHOP on the last hop) and sent in the priority
    // queue; anything else (NO_TRIM data, or with trimming off) is dropped.
    const bool trimmable = dscp == sw.dscp.trimmable || dscp == sw.dscp.trimmable_retx;
    if (sw.trim && ip && trimmable && m.len > sw.trim_bytes && s.prio.bytes + sw.trim_bytes <= sw.priority_queue_bytes) {
      trim_packet(p, sw.trim_bytes, s.to_host);
      ++s.c.trimmed;
      priority = true;
      return true;
    }
    ++s.c.dropped_queue;
    pool_.free(p);
    return false;
  }
  if (sw.ecn && ip && s.data.bytes > sw.ecn_threshold_bytes && mark_ce_all(f, m.len, l)) ++s.c.ecn_marked;
  return true;
}

void Simulator::trim_packet(PacketId p, std::uint32_t bytes, bool last_hop) {
  PacketMeta& m = pool_.meta(p);
  std::uint8_t* f = pool_.data(p);
  const wire::DscpConfig& dscp = topo_.config().sw.dscp;
  FrameLayout l;
  if (!parse_layout(f, m.len, l)) {
    if (m.len > bytes) m.len = static_cast<std::uint16_t>(bytes);
    return;
  }
  // MODEL: W13 the frame keeps `bytes`, and at least its headers through the RETH and ImmDt (the
  // MRC data layout of W3/W4); the IP and UDP lengths are fixed to what is left, the ICRC is cut
  // away, and every IP header carries TRIMMED, or TRIMMED_LASTHOP on the last hop. (W13 leaves
  // the UDP length stale; fixing it too keeps the frame well-formed for every decoder, and a
  // receiver recognises the trim by its DSCP alone either way.)
  std::size_t keep = std::min<std::size_t>(bytes, m.len);
  if (l.l4 != 0 && l.l4 + wire::kUdpLen + wire::kBthLen <= m.len) {
    const std::uint8_t* bth = f + l.l4 + wire::kUdpLen;
    if (wire::is_mrc_data(bth[0])) {
      const bool ts = (bth[8] & 0x10) != 0;
      const bool imm = bth[0] == wire::opcode::kMrcWriteLastImm || bth[0] == wire::opcode::kMrcWriteOnlyImm;
      const std::size_t hdrs = l.l4 + wire::kUdpLen + wire::kBthLen + wire::kMethLen + (ts ? wire::kTsethLen : 0) +
                               wire::kRethLen + (imm ? wire::kImmDtLen : 0);
      keep = std::min<std::size_t>(std::max(keep, hdrs), m.len);
    }
  }
  m.len = static_cast<std::uint16_t>(keep);
  set_dscp_all(f, m.len, l, last_hop ? dscp.trimmed_lasthop : dscp.trimmed);
  const auto put16 = [&](std::size_t at, std::size_t v) {
    if (at + 2 <= keep) wire::store_be16(f + at, static_cast<std::uint16_t>(v));
  };
  if (l.v6) {
    put16(l.l3 + 4, keep - l.l3 - wire::kIpv6Len);
    if (l.inner != 0) put16(l.inner + 4, keep - l.inner - wire::kIpv6Len);
  } else {
    put16(l.l3 + 2, keep - l.l3);
    ipv4_fix_checksum(f + l.l3);
  }
  if (l.l4 != 0) put16(l.l4 + 4, keep - l.l4);
}

void Simulator::corrupt_packet(PacketId p) {
  // One byte among the last 32 of the frame (payload, ICRC-covered headers or the ICRC itself:
  // never a field the ICRC masks) is inverted, so the receiver's ICRC check fails.
  PacketMeta& m = pool_.meta(p);
  if (m.len == 0) return;
  const std::uint32_t span = std::min<std::uint32_t>(m.len, 32);
  const auto back = static_cast<std::uint32_t>(rng_.next() % span);
  pool_.data(p)[m.len - 1 - back] ^= 0xFF;
}

void Simulator::schedule_txdone(DirId d) {
  DirState& s = dirs_[d];
  if (s.txdone_pending) return;
  std::uint64_t t = (s.busy_until_ps + 999) / 1000;
  if (t < now_) t = now_;
  events_.push(t, EventKind::kTxDone, d);
  s.txdone_pending = true;
}

void Simulator::on_txdone(DirId d) {
  DirState& s = dirs_[d];
  s.txdone_pending = false;
  const PacketId p = !s.prio.empty() ? s.prio.pop(pool_) : s.data.pop(pool_);
  if (p == kNone) return;
  std::uint32_t host = kNone;
  if (!s.from_switch) {
    host = Topology::link_of(d) % topo_.hosts();
    hosts_[host].backlog_bytes -= pool_.meta(p).len;
  }
  transmit(d, p, /*back_to_back=*/true);
  if (!s.prio.empty() || !s.data.empty()) schedule_txdone(d);
  if (host != kNone && hosts_[host].kind == HostKind::kEndpoint) service(host, false);  // NIC room
}

void Simulator::transmit(DirId d, PacketId p, bool back_to_back) {
  DirState& s = dirs_[d];
  PacketMeta& m = pool_.meta(p);
  // A frame waiting in the queue starts the picosecond the previous one ends (its TxDone event
  // fired at the next whole ns); an idle link starts now.
  const std::uint64_t now_ps = now_ * 1000;
  const std::uint64_t start_ps =
      back_to_back ? std::max(s.busy_until_ps, now_ps - std::min<std::uint64_t>(now_ps, 999)) : std::max(now_ps, s.busy_until_ps);
  const std::uint64_t start_ns = start_ps / 1000;
  if (s.taps != kNone) tap(d, TapPoint::kWire, p, start_ns);
  ++s.c.tx_frames;
  s.c.tx_bytes += m.len;
  const std::uint64_t ser = ser_ps(s, m.len);
  s.busy_until_ps = start_ps + ser;
  std::uint64_t extra = 0;
  std::uint32_t copies = 0;
  if (!wire_faults(d, p, start_ns, extra, copies)) {
    ++s.c.dropped_fault;
    pool_.free(p);
    return;
  }
  m.epoch = s.epoch;
  const std::uint64_t arrive = (s.busy_until_ps + 999) / 1000 + s.prop_ns + s.extra_delay_ns + extra;
  events_.push(arrive, EventKind::kArrive, d, p);
  // Copies follow back to back, as if the link had carried them right after the original.
  for (std::uint32_t k = 1; k <= copies; ++k) {
    const PacketId q = pool_.alloc();
    if (q == kNone) {
      ++stats_.pool_exhausted;
      break;
    }
    PacketMeta& mq = pool_.meta(q);
    const PacketMeta& mp = pool_.meta(p);
    mq.off = 0;
    mq.len = mp.len;
    mq.epoch = mp.epoch;
    std::memcpy(pool_.buffer(q), pool_.data(p), mp.len);
    ++s.c.duplicated;
    events_.push(arrive + k * ((ser + 999) / 1000), EventKind::kArrive, d, q);
  }
}

// The wire's effect on a packet that just went onto direction d: false = lost on the wire.
bool Simulator::wire_faults(DirId d, PacketId p, std::uint64_t start_ns, std::uint64_t& extra_ns,
                            std::uint32_t& copies) {
  DirState& s = dirs_[d];
  if (s.down || s.blackhole) return false;
  const LinkId link = Topology::link_of(d);
  const std::uint32_t plane = topo_.link(link).plane;
  if (s.hooked && hook_) {
    PacketMeta& m = pool_.meta(p);
    std::uint16_t len = m.len;
    const Impairment imp = hook_(start_ns, d, wire::MutBytes(pool_.data(p), m.len), len);
    if (len < m.len) m.len = len;  // the hook may shorten the frame, never lengthen it
    switch (imp.action) {
      case Impairment::Action::kPass: break;
      case Impairment::Action::kDrop:
        record(FaultKind::kDrop, plane, link, d, kNone, true);
        return false;
      case Impairment::Action::kTrim:
        trim_packet(p, imp.trim_bytes != 0 ? imp.trim_bytes : topo_.config().sw.trim_bytes, s.to_host);
        ++s.c.trimmed;
        record(FaultKind::kTrim, plane, link, d, kNone, true);
        break;
      case Impairment::Action::kDuplicate:
        copies = std::clamp<std::uint32_t>(imp.copies, 1, 16);
        record(FaultKind::kDuplicate, plane, link, d, kNone, true);
        break;
      case Impairment::Action::kDelay:
        extra_ns += imp.delay_ns;
        record(FaultKind::kDelay, plane, link, d, kNone, true);
        break;
      case Impairment::Action::kCorrupt:
        corrupt_packet(p);
        ++s.c.corrupted;
        record(FaultKind::kCorrupt, plane, link, d, kNone, true);
        break;
    }
  }
  if (s.loss > 0 && draw() < s.loss) {
    record(FaultKind::kDrop, plane, link, d, kNone, true);
    return false;
  }
  if (s.corrupt > 0 && draw() < s.corrupt) {
    corrupt_packet(p);
    ++s.c.corrupted;
    record(FaultKind::kCorrupt, plane, link, d, kNone, true);
  }
  return true;
}

void Simulator::flush(DirId d) {
  DirState& s = dirs_[d];
  for (PacketFifo* q : {&s.prio, &s.data}) {
    while (!q->empty()) {
      const PacketId p = q->pop(pool_);
      if (!s.from_switch) hosts_[Topology::link_of(d) % topo_.hosts()].backlog_bytes -= pool_.meta(p).len;
      ++s.c.dropped_fault;
      pool_.free(p);
    }
  }
}

void Simulator::on_arrive(DirId d, PacketId p) {
  DirState& s = dirs_[d];
  ++stats_.hops;
  const bool lost_in_flight = s.down || pool_.meta(p).epoch != s.epoch;
  const bool to_dead_switch = s.to >= topo_.hosts() && switch_down_[s.to - topo_.hosts()] != 0;
  if (lost_in_flight || to_dead_switch) {
    ++s.c.dropped_fault;
    pool_.free(p);
    return;
  }
  ++s.c.delivered;
  if (s.to < topo_.hosts()) {
    deliver_to_host(d, p, /*any_point=*/false);  // taps there, once the host took it
    return;
  }
  if (s.taps != kNone) tap(d, TapPoint::kArrival, p, now_);
  switch_arrival(d, p);
}

void Simulator::switch_arrival(DirId d, PacketId p) {
  const NodeId n = dirs_[d].to;
  const std::uint32_t k = n - topo_.hosts();
  PacketMeta& m = pool_.meta(p);
  std::uint16_t off = m.off;
  std::uint16_t len = m.len;
  const ForwardResult r = forward(switch_ctx_[k], pool_.buffer(p), off, len);
  m.off = off;
  m.len = len;
  DirId out = kNone;
  if (r.drop == DropReason::kNone && egress_base_[k] + r.port < egress_base_[k + 1]) {
    out = egress_[egress_base_[k] + r.port];
  }
  if (out == kNone) {
    ++stats_.forward_drops[static_cast<std::size_t>(r.drop == DropReason::kNone ? DropReason::kNoRoute : r.drop)];
    pool_.free(p);
    return;
  }
  const NodeId next = dirs_[out].to;
  const wire::MacAddr& dst = next < topo_.hosts() ? addr::host_mac(next) : switch_macs_[next - topo_.hosts()];
  set_macs(pool_.data(p), switch_macs_[k], dst);
  enqueue(out, p);
}

}  // namespace mrc::sim
