#include "reference/transport/ep_ops.hpp"

#include <algorithm>
#include <cstring>

namespace mrc::transport {
namespace {

bool rsp_ev_len_ok(std::uint8_t len) { return len == 0 || len == 4 || len == 32; }

bool fmt_mode_ok(std::uint8_t m) {
  return m == static_cast<std::uint8_t>(wire::EvFmtMode::kStev) ||
         m == static_cast<std::uint8_t>(wire::EvFmtMode::kSrv6) ||
         m == static_cast<std::uint8_t>(wire::EvFmtMode::kUdp);
}

std::uint8_t frame_dscp(const wire::DecodedFrame& f) {
  return f.l3 == wire::L3Kind::kIpv4 ? f.ip4.dscp : f.ip6.dscp;
}

// Shared BTH of both EP opcodes.                                                      MODEL: M6
void ep_bth(wire::Bth& bth, std::uint8_t opcode) {
  bth = wire::Bth{};
  bth.opcode = opcode;
  bth.dest_qp = wire::kEpDestQp;
  bth.psn = 0;
  bth.pkey = 0xFFFF;
}

}  // namespace

// ---- request building -------------------------------------------------------------------------

bool build_ep_request(const EpRequestSpec& spec, TxPacket& out) {  // MODEL: M6
  if (!rsp_ev_len_ok(spec.rsp_ev_len)) return false;
  out = TxPacket{};
  out.qpn = 0;
  out.path = spec.path;
  out.dgid = spec.dgid;
  out.dmac = spec.dmac;
  out.dscp = spec.req_tc;
  out.ecn = wire::kEcnNotEct;
  ep_bth(out.bth, wire::opcode::kMrcEpReq);
  out.has_ep = true;
  wire::EpHdr& ep = out.ep;
  ep.op = spec.op;
  ep.svc_valid = false;
  ep.req_id = spec.req_id;
  ep.port_status = spec.port_status;
  ep.tx_timestamp = spec.tx_timestamp_ns;
  ep.svc_time_ns = 0;
  ep.rsp_fmt_mode = static_cast<std::uint8_t>(spec.rsp_fmt_mode);
  ep.rsp_port = spec.rsp_port;
  ep.rsp_ev_len = spec.rsp_ev_len;
  ep.rsp_ev.fill(0);
  std::memcpy(ep.rsp_ev.data(), spec.rsp_ev.data(), spec.rsp_ev_len);
  return true;
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
                                    std::uint64_t arrival_ns, std::uint64_t emit_ns,
                                    TxPacket& out) {  // MODEL: M6
  if (!f.icrc_ok) {
    ++stats_.dropped;
    return EpRxOutcome::kDroppedBadIcrc;
  }
  if (f.bth.opcode != wire::opcode::kMrcEpReq || !f.has_ep) {
    ++stats_.dropped;
    return EpRxOutcome::kDroppedNotRequest;
  }
  const wire::EpHdr& req = f.ep;
  if ((f.bth.dest_qp & 0xFFFFFFu) != wire::kEpDestQp || f.bth.pkey != 0xFFFF ||
      !rsp_ev_len_ok(req.rsp_ev_len) || (req.rsp_ev_len != 0 && !fmt_mode_ok(req.rsp_fmt_mode))) {
    ++stats_.dropped;
    return EpRxOutcome::kDroppedBadHeader;
  }

  EpRxOutcome outcome = EpRxOutcome::kResponded;
  if (req.op == wire::EpOp::kPortStatusUpdate) {
    ++stats_.port_updates;
    if (!peers_.update(source_gid(f), req.port_status, arrival_ns)) {
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
  out.dscp = frame_dscp(f);  // answer in the class the prober chose (req_tc)
  out.ecn = wire::kEcnNotEct;
  if (req.rsp_ev_len == 0) {
    out.path = cfg_.default_path;
    if (out.path.port == 0) out.path.port = rx_port;
  } else {
    out.path = TxPath{};
    out.path.kind = TxPath::Kind::kExplicitEv;
    out.path.fmt = static_cast<wire::EvFmtMode>(req.rsp_fmt_mode);
    out.path.port = req.rsp_port != 0 ? req.rsp_port : rx_port;
    out.path.ev.fill(0);
    std::memcpy(out.path.ev.data(), req.rsp_ev.data(), req.rsp_ev_len);
  }
  ep_bth(out.bth, wire::opcode::kMrcEpRsp);
  out.has_ep = true;
  wire::EpHdr& rsp = out.ep;
  rsp.op = req.op;
  rsp.req_id = req.req_id;
  rsp.tx_timestamp = req.tx_timestamp;
  rsp.port_status = cfg_.local_ports_up;
  if (cfg_.report_svc_time) {
    const std::uint64_t svc = emit_ns >= arrival_ns ? emit_ns - arrival_ns : 0;
    rsp.svc_valid = true;
    rsp.svc_time_ns = static_cast<std::uint32_t>(std::min<std::uint64_t>(svc, 0xFFFFFFFFu));
  }
  rsp.rsp_fmt_mode = 0;
  rsp.rsp_port = 0;
  rsp.rsp_ev_len = 0;
  rsp.rsp_ev.fill(0);
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

std::optional<EpResult> EpRequestTracker::on_response(const wire::EpHdr& rsp, std::uint8_t rx_port,
                                                      std::uint64_t now) {
  Entry* e = find(rsp.req_id);
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
  r.port_status = rsp.port_status;
  r.timestamp_echoed = rsp.tx_timestamp == e->sent_ns;
  const std::uint64_t raw = now >= e->sent_ns ? now - e->sent_ns : 0;
  r.rtt_ns = raw;
  if (rsp.svc_valid && rsp.svc_time_ns != 0 && rsp.svc_time_ns <= raw) {
    r.rtt_ns = raw - rsp.svc_time_ns;
    r.adj_svc_time = rsp.svc_time_ns;
  }
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
