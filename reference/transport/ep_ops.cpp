#include "reference/transport/ep_ops.hpp"

#include <algorithm>

namespace mrc::transport {
namespace {

std::uint16_t timestamp_of(std::uint64_t ns) {  // W4: the low 16 bits, 128 ns units (tsr = 0)
  return static_cast<std::uint16_t>(ns / wire::kTimestampUnitNs);
}

// The BTH of both endpoint opcodes (W10): DestQP 0x2, the id in PSN[15:0], PSN[23:16] = 0.
void ep_bth(wire::Bth& bth, std::uint8_t opcode, std::uint16_t id) {
  bth = wire::Bth{};
  bth.opcode = opcode;
  bth.dest_qp = wire::kEndpointQpn;
  bth.psn = id;
  bth.pkey = 0xFFFF;  // the default partition, as the reference's QPs use
}

}  // namespace

// ---- request building -------------------------------------------------------------------------

void build_ep_request(const EpRequestSpec& spec, TxPacket& out) {
  out = TxPacket{};
  out.qpn = 0;
  out.path = spec.path;
  out.dgid = spec.dgid;
  out.dmac = spec.dmac;
  out.dscp = spec.req_tc;
  out.ecn = wire::kEcnNotEct;
  ep_bth(out.bth, wire::opcode::kMrcEndpointReq, spec.req_id);
  out.has_erth = true;
  wire::Erth& e = out.erth;
  e.op = wire::ep_op_to_wire(spec.op);
  e.port_status_mask = spec.op == wire::EpOp::kPortStatusUpdate ? wire::port_status_mask_of(spec.port_status, spec.mask_from_bit0) : 0;
  e.ts = wire::Timestamp{timestamp_of(spec.tx_timestamp_ns), false, wire::kFtypeTimestamp};
}

wire::Ipv6Addr source_gid(const wire::DecodedFrame& f) {
  if (f.l3 == wire::L3Kind::kIpv4) {
    wire::Ipv6Addr gid{};
    gid[10] = 0xFF;
    gid[11] = 0xFF;
    gid[12] = static_cast<std::uint8_t>(f.ip4.src >> 24);
    gid[13] = static_cast<std::uint8_t>(f.ip4.src >> 16);
    gid[14] = static_cast<std::uint8_t>(f.ip4.src >> 8);
    gid[15] = static_cast<std::uint8_t>(f.ip4.src);
    return gid;
  }
  return f.encapsulated ? f.inner_ip6.src : f.ip6.src;
}

// ---- port status ----------------------------------------------------------------------------------

PortStatusTable::PortStatusTable(std::size_t max_peers) : max_peers_(max_peers) {
  peers_.reserve(max_peers_);
}

bool PortStatusTable::update(const wire::Ipv6Addr& gid, std::uint32_t ports, std::uint64_t now) {
  for (Peer& p : peers_) {
    if (p.gid == gid) {
      p.ports = ports;
      p.updated_ns = now;
      return true;
    }
  }
  if (peers_.size() >= max_peers_) return false;
  peers_.push_back(Peer{gid, ports, now});
  return true;
}

std::optional<std::uint32_t> PortStatusTable::ports(const wire::Ipv6Addr& gid) const {
  for (const Peer& p : peers_) {
    if (p.gid == gid) return p.ports;
  }
  return std::nullopt;
}

bool PortStatusTable::port_up(const wire::Ipv6Addr& gid, std::uint8_t port) const {
  const auto m = ports(gid);
  return m && port >= 1 && port <= 32 && ((*m >> (port - 1)) & 1u) != 0;
}

// ---- responder side --------------------------------------------------------------------------------

EpResponder::EpResponder(const EpResponderConfig& cfg) : cfg_(cfg), peers_(cfg.max_peers) {}

EpRxOutcome EpResponder::on_request(const wire::DecodedFrame& f, std::uint8_t rx_port,
                                    std::uint64_t arrival_ns, TxPacket& out) {
  if (!f.icrc_ok) {
    ++stats_.dropped;
    return EpRxOutcome::kDroppedBadIcrc;
  }
  if (f.bth.opcode != wire::opcode::kMrcEndpointReq || !f.has_erth) {
    ++stats_.dropped;
    return EpRxOutcome::kDroppedNotRequest;
  }
  wire::EpOp op{};
  if (f.bth.dest_qp != wire::kEndpointQpn || !wire::ep_op_from_wire(f.erth.op, op)) {
    ++stats_.dropped;
    return EpRxOutcome::kDroppedBadHeader;
  }

  EpRxOutcome outcome = EpRxOutcome::kResponded;
  if (op == wire::EpOp::kPortStatusUpdate) {
    ++stats_.port_updates;
    if (!peers_.update(source_gid(f), wire::up_ports_of_mask(f.erth.port_status_mask, cfg_.mask_from_bit0), arrival_ns)) {
      ++stats_.table_full;
      outcome = EpRxOutcome::kPeerTableFull;
    }
  } else {
    ++stats_.probes;
  }

  out = TxPacket{};
  out.qpn = 0;
  out.dgid = source_gid(f);
  out.dmac = f.eth.src;
  out.dscp = cfg_.control_dscp;  // S1: W10 a response always travels in the Control class
  out.ecn = wire::kEcnNotEct;
  out.path = cfg_.default_path;
  if (out.path.port == 0) out.path.port = rx_port;
  ep_bth(out.bth, wire::opcode::kMrcEndpointRsp, ep_request_id(f.bth));
  out.has_eeth = true;
  out.eeth.op = f.erth.op;  // MODEL: W10 the echo (its position, bits 3..2 of byte 1, is F2's)
  out.eeth.tx_timestamp = f.erth.ts.tx_timestamp;  // MODEL: W10 a reflection
  ++stats_.responses;
  return outcome;
}

// ---- requester side: request ids and RTT -------------------------------------------------------------

EpRequestTracker::EpRequestTracker(const Config& cfg) : cfg_(cfg) {
  cfg_.capacity = std::max<std::size_t>(cfg_.capacity, 1);
  entries_.reserve(cfg_.capacity);
}

EpRequestTracker::Entry* EpRequestTracker::find(std::uint16_t req_id) {
  for (Entry& e : entries_) {
    if (e.req_id == req_id) return &e;
  }
  return nullptr;
}

const EpRequestTracker::Entry* EpRequestTracker::find(std::uint16_t req_id) const {
  return const_cast<EpRequestTracker*>(this)->find(req_id);
}

void EpRequestTracker::erase(Entry* e) {
  *e = entries_.back();
  entries_.pop_back();
}

bool EpRequestTracker::busy(std::uint16_t req_id) const { return find(req_id) != nullptr; }

EpRequestTracker::Status EpRequestTracker::begin(std::uint16_t req_id, wire::EpOp op,
                                                 std::uint64_t now, std::uint64_t timeout_ns) {
  if (busy(req_id)) return Status::kIdBusy;
  if (entries_.size() >= cfg_.capacity) return Status::kFull;
  Entry e;
  e.req_id = req_id;
  e.op = op;
  e.state = State::kOutstanding;
  e.sent_ns = now;
  e.deadline_ns = now + timeout_ns;
  e.linger_ns = cfg_.linger_ns != 0 ? cfg_.linger_ns : timeout_ns;
  entries_.push_back(e);
  ++stats_.started;
  return Status::kOk;
}

std::optional<std::uint16_t> EpRequestTracker::next_free_id() {
  if (entries_.size() >= cfg_.capacity) return std::nullopt;
  // At most capacity ids are busy, so at most capacity + 1 candidates are tried.
  for (std::size_t i = 0; i <= cfg_.capacity; ++i) {
    const std::uint16_t id = next_id_++;
    if (!busy(id)) return id;
  }
  return std::nullopt;
}

std::optional<EpResult> EpRequestTracker::on_response(std::uint16_t req_id, const wire::Eeth& rsp,
                                                      std::uint8_t rx_port, std::uint64_t now) {
  Entry* e = find(req_id);
  if (e == nullptr) {
    ++stats_.unknown;
    return std::nullopt;
  }
  if (e->state == State::kLingering) {
    ++stats_.late;
    return std::nullopt;
  }
  EpResult r;
  r.req_id = e->req_id;
  r.op = e->op;
  r.port = rx_port;
  r.timestamp_echoed = rsp.tx_timestamp == timestamp_of(e->sent_ns);
  r.rtt_ns = now >= e->sent_ns ? now - e->sent_ns : 0;
  erase(e);
  ++stats_.answered;
  return r;
}

std::size_t EpRequestTracker::advance(std::uint64_t now) {
  std::size_t timed_out = 0;
  for (std::size_t i = 0; i < entries_.size();) {
    Entry& e = entries_[i];
    if (now < e.deadline_ns) {
      ++i;
      continue;
    }
    if (e.state == State::kOutstanding) {
      e.state = State::kLingering;  // a response may still be in flight: keep the id busy
      e.deadline_ns += e.linger_ns;
      ++timed_out;
      ++stats_.timed_out;
      continue;  // re-check: a zero linger frees it in this same pass
    }
    erase(&e);
  }
  return timed_out;
}

std::uint64_t EpRequestTracker::next_deadline() const {
  std::uint64_t d = kNever;
  for (const Entry& e : entries_) d = std::min(d, e.deadline_ns);
  return d;
}

std::size_t EpRequestTracker::outstanding() const {
  return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) {
    return e.state == State::kOutstanding;
  }));
}

}  // namespace mrc::transport
