// ReferenceBackend: identity, the I/O loop (receive / advance / transmit), the data path and
// the control-plane requests that are not part of APPLY (reference_setup.cpp).
#include "harness/agent/reference_backend.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "harness/agent/poll_queue.hpp"
#include "harness/dut/agent_setup.hpp"
#include "harness/dut/reference_adapter.hpp"

namespace mrc::agent {
namespace {

constexpr int kRxBatchPerPort = 256;       // frames taken from one port per service() turn

Outcome not_applied(const char* what) {
  return Outcome::fail(ap::ErrorCode::kNotApplied, std::string(what) + " before APPLY_CONFIG");
}

}  // namespace

ReferenceBackend::ReferenceBackend(ReferenceOptions opt, std::unique_ptr<FrameIo> io)
    : opt_(std::move(opt)), io_(std::move(io)) {
  const auto ports = io_->ports();
  if (opt_.mac) {
    mac_ = *opt_.mac;
  } else if (!ports.empty()) {
    mac_ = std::min_element(ports.begin(), ports.end(), [](const auto& a, const auto& b) {
             return a.port < b.port;
           })->mac;
  }
  if (opt_.gid) {
    gid_ = *opt_.gid;
  } else {
    gid_ = {0xfd, 0x6d, 0x72, 0x63, 0, 0, 0, 0, 0, 0, mac_[0], mac_[1], mac_[2], mac_[3], mac_[4], mac_[5]};
  }
}

ReferenceBackend::~ReferenceBackend() = default;

std::string ReferenceBackend::identity() const {
  std::string s = "reference";
  if (!opt_.policy.empty()) s += ":" + opt_.policy.to_string();
  std::string ports;
  for (const auto& p : io_->ports()) {
    ports += (ports.empty() ? " on p" : ",p") + std::to_string(p.port) + "=" + p.name;
  }
  return s + ports;
}

std::vector<std::string> ReferenceBackend::capabilities() const {
  // What the reference endpoint's default device declares, in the case vocabulary's spelling.
  const ref::EndpointConfig d;
  std::vector<std::string> caps;
  auto add = [&caps](bool on, const char* name) {
    if (on) caps.emplace_back(name);
  };
  add(d.device.caps & ref::dev_cap::kTrimNack, "trim_nack");
  add(d.device.caps & ref::dev_cap::kDynamicMpr, "dynamic_mpr");
  add(d.device.caps & ref::dev_cap::kSvcTime, "svc_time");
  add(d.limits.caps & ev::cap::kEpOpEvProbe, "ev_probe");
  add(true, "port_status");
  auto fmt = [&d](wire::EvFmtMode m) { return (d.limits.ev_fmt_mode_mask & static_cast<std::uint32_t>(m)) != 0; };
  add(fmt(wire::EvFmtMode::kSrv6), "srv6");
  add(fmt(wire::EvFmtMode::kStev), "stev");
  add(fmt(wire::EvFmtMode::kUdp), "udp_mode");
  add(d.limits.caps & ev::cap::kEvProfileModifyOnline, "modify_online");
  add(d.limits.caps & ev::cap::kCcProfileModifyOnline, "cc_modify_online");
  add(d.limits.caps & ev::cap::kExplicitRange, "explicit_range");
  add(d.limits.caps & ev::cap::kPreciseDropCnt, "precise_drop_count");
  add(d.limits.ev_mode_mask & static_cast<std::uint32_t>(ev::EvMode::kGen), "ev_generated");
  add(d.limits.ev_mode_mask & static_cast<std::uint32_t>(ev::EvMode::kAuto), "ev_auto");
  add(opt_.ipv4 != 0, "ipv4");
  return caps;
}

std::vector<ap::PortInfo> ReferenceBackend::ports() const {
  std::vector<ap::PortInfo> out = io_->ports();
  for (auto& p : out) p.up = !ep_ || ep_->port_up(p.port);
  return out;
}

std::uint32_t ReferenceBackend::port_mask() const {
  std::uint32_t m = 0;
  for (const auto& p : io_->ports()) m |= 1u << (p.port - 1);
  return m;
}

// ---- I/O ------------------------------------------------------------------------------------------

void ReferenceBackend::on_rx(void* self, std::uint8_t port, std::span<const std::uint8_t> frame) {
  auto* b = static_cast<ReferenceBackend*>(self);
  if (port < b->rx_per_port_.size()) ++b->rx_per_port_[port];
  if (!b->ep_) {
    ++b->rx_before_apply_;
    return;
  }
  b->ep_->on_frame(port, wire::Bytes(frame.data(), frame.size()), b->now_ - b->epoch_);
}

std::vector<int> ReferenceBackend::io_fds() const { return io_->fds(); }

std::uint64_t ReferenceBackend::next_deadline_ns() const {
  if (!ep_) return UINT64_MAX;
  const std::uint64_t d = ep_->next_deadline();
  return d == UINT64_MAX ? d : d + epoch_;
}

void ReferenceBackend::service(std::uint64_t now_ns) {
  now_ = std::max(now_, now_ns);
  io_->receive(&ReferenceBackend::on_rx, this, kRxBatchPerPort);
  if (!ep_) return;
  ep_->advance(now_ - epoch_);
  while (ep_->poll_frame(tx_)) {
    if (std::string e = io_->send(tx_.port, tx_.view()); !e.empty()) {
      ++tx_errors_;
      last_tx_error_ = std::move(e);
    }
  }
  drain_outputs();
}

void ReferenceBackend::drain_outputs() {
  transport::Completion c;
  while (ep_->poll_completion(c)) {
    if (completions_.size() >= opt_.queue_limit) {
      ++completions_dropped_;
      continue;
    }
    ap::CompletionInfo ci;
    ci.at_ns = now_;
    ci.wr_id = c.wr_id;
    const auto it = std::find(qpns_.begin(), qpns_.end(), c.qp_num);
    ci.qp = it == qpns_.end() ? UINT32_MAX : static_cast<std::uint32_t>(it - qpns_.begin());
    ci.status = static_cast<std::uint16_t>(c.status);
    ci.is_send = c.is_send;
    ci.has_imm = c.opcode == IBV_WC_RECV_RDMA_WITH_IMM;
    ci.imm = c.imm_data;
    ci.byte_len = c.byte_len;
    completions_.push_back(ci);
  }
  ev::EvEvent evs[32];
  const auto array = ep_->controller().ev_array(0);
  for (std::size_t n; (n = ep_->controller().poll_events(evs)) != 0;) {
    for (std::size_t i = 0; i < n; ++i) {
      if (events_.size() >= opt_.queue_limit) {
        ++events_dropped_;
        continue;
      }
      ap::EvEventInfo e;
      e.at_ns = now_;
      e.port = evs[i].ev.port;
      e.state = ev::bits(evs[i].state);
      e.drop_count = evs[i].drop_count;
      // The event names the EV by value and port; the harness speaks indices (lowest copy).
      const auto it = std::find_if(array.begin(), array.end(), [&](const ev::EvEntry& x) { return x.ref() == evs[i].ev; });
      e.ev_index = it == array.end() ? UINT32_MAX : static_cast<std::uint32_t>(it - array.begin());
      events_.push_back(e);
    }
  }
  ref::EpResponse r;
  while (ep_->poll_ep_response(r)) {
    if (r.status == 0) ++ep_responses_;
    else ++ep_timeouts_;
  }
}

// ---- data path --------------------------------------------------------------------------------------

Outcome ReferenceBackend::post_write(const ap::PostWrite& w) {
  if (!ep_) return not_applied("POST_WRITE");
  if (w.qp >= qpns_.size()) return Outcome::fail(ap::ErrorCode::kBadValue, "no QP index " + std::to_string(w.qp));
  if (w.region >= regions_.size()) {
    return Outcome::fail(ap::ErrorCode::kBadValue, "no region index " + std::to_string(w.region));
  }
  const transport::MemoryRegion& mr = regions_[w.region].mr;
  if (w.local_offset > mr.length || w.length > mr.length - w.local_offset) {
    return Outcome::fail(ap::ErrorCode::kLimit, "local range runs past region " + std::to_string(w.region));
  }
  transport::SendWr wr;
  wr.wr_id = w.wr_id;
  wr.opcode = w.with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
  wr.local_addr = mr.addr + w.local_offset;
  wr.length = w.length;
  wr.lkey = mr.lkey;
  wr.remote_addr = w.remote_addr;
  wr.rkey = w.rkey;
  wr.imm_data = w.imm;
  if (int rc = ep_->post_send(qpns_[w.qp], wr)) return Outcome::rejected(rc, std::string("post_send: ") + std::strerror(rc));
  service(now_);  // the first packets leave now, not on the next loop turn
  return Outcome::success();
}

Outcome ReferenceBackend::post_recv(const ap::PostRecv& r) {
  if (!ep_) return not_applied("POST_RECV");
  if (r.qp >= qpns_.size()) return Outcome::fail(ap::ErrorCode::kBadValue, "no QP index " + std::to_string(r.qp));
  if (int rc = ep_->post_recv(qpns_[r.qp], r.wr_id)) return Outcome::rejected(rc, std::string("post_recv: ") + std::strerror(rc));
  return Outcome::success();
}

Outcome ReferenceBackend::poll(const ap::Poll& p, ap::Completions& out) {
  out.now_ns = now_;
  take_polled(completions_, events_, p, out);
  return Outcome::success();
}

// Only the bytes asked for are touched: the endpoint's memory zero-fills a region's bytes on their
// first access, and asking for a whole registered region (megabytes) on the first read of a case
// kept the agent from its ports for most of a millisecond, while frames waited (a responder's
// SACKs for two packets that asked for one came 1 ms late across the bridge).
Outcome ReferenceBackend::find_range(std::uint64_t addr, std::size_t len, std::uint32_t& lkey, std::uint64_t& offset) const {
  for (const Region& r : regions_) {
    if (addr >= r.mr.addr && addr - r.mr.addr <= r.mr.length && len <= r.mr.length - (addr - r.mr.addr)) {
      lkey = r.mr.lkey;
      offset = addr - r.mr.addr;
      return Outcome::success();
    }
  }
  return Outcome::fail(ap::ErrorCode::kLimit, "range is not inside one registered region");
}

Outcome ReferenceBackend::read_memory(const ap::ReadMemory& r, ap::MemoryBytes& out) {
  if (!ep_) return not_applied("READ_MEMORY");
  std::uint32_t lkey = 0;
  std::uint64_t offset = 0;
  if (Outcome o = find_range(r.addr, r.length, lkey, offset); !o.ok()) return o;
  const std::span<const std::uint8_t> bytes = ep_->mr_view(lkey, offset, r.length);
  if (bytes.size() != r.length) return Outcome::fail(ap::ErrorCode::kLimit, "range is not inside one registered region");
  out.addr = r.addr;
  out.bytes.assign(bytes.begin(), bytes.end());
  return Outcome::success();
}

Outcome ReferenceBackend::write_memory(const ap::WriteMemory& w) {
  if (!ep_) return not_applied("WRITE_MEMORY");
  std::uint32_t lkey = 0;
  std::uint64_t offset = 0;
  if (Outcome o = find_range(w.addr, w.bytes.size(), lkey, offset); !o.ok()) return o;
  const std::span<std::uint8_t> bytes = ep_->mr_overwrite(lkey, offset, w.bytes.size());
  if (bytes.size() != w.bytes.size()) return Outcome::fail(ap::ErrorCode::kLimit, "range is not inside one registered region");
  std::copy(w.bytes.begin(), w.bytes.end(), bytes.begin());
  return Outcome::success();
}

// ---- control plane ----------------------------------------------------------------------------------

Outcome ReferenceBackend::set_ev_state(const ap::SetEvState& s) {
  if (!ep_) return not_applied("SET_EV_STATE");
  const auto array = ep_->controller().ev_array(0);
  if (s.index >= array.size()) {
    return Outcome::fail(ap::ErrorCode::kBadValue, "EV index " + std::to_string(s.index) + " not in the array of " +
                                                       std::to_string(array.size()));
  }
  return outcome_of(harness::set_reference_ev_denied(*ep_, s.index, s.denied));
}

Outcome ReferenceBackend::port_admin(const ap::PortAdmin& p) {
  if (!ep_) return not_applied("PORT_ADMIN");
  if (int rc = ep_->modify_port(p.port, p.up)) return Outcome::rejected(rc, std::string("modify_port: ") + std::strerror(rc));
  return Outcome::success();
}

Outcome ReferenceBackend::ep_op(const ap::EpOp& op) {
  if (!ep_ || !peer_) return Outcome::fail(ap::ErrorCode::kNotApplied, "EP_OP needs APPLY_CONFIG and a peer");
  if (op.ev_index >= ep_->controller().ev_array(0).size()) {
    return Outcome::fail(ap::ErrorCode::kBadValue, "EV index " + std::to_string(op.ev_index) + " not in the array");
  }
  harness::ReferenceEpRequest req;
  req.op = op.op == ap::EpOpKind::kProbeEv ? wire::EpOp::kEvProbe : wire::EpOp::kPortStatusUpdate;
  req.ev_index = op.ev_index;
  req.tc = op.tc;
  req.mode = harness::wire_mode(cfg_->format_mode);
  if (Outcome o = outcome_of(harness::send_reference_ep_request(*ep_, req, harness::to_dut_local(*peer_))); !o.ok()) {
    return o;
  }
  service(now_);
  return Outcome::success();
}

Outcome ReferenceBackend::ev_profile_op(const ap::EvProfileOp& op) {
  if (!ep_) return not_applied("EV_PROFILE_OP");
  return outcome_of(harness::reference_ev_profile_change(*ep_, op));
}

Outcome ReferenceBackend::cc_profile_op(const ap::CcProfileOp& op) {
  if (!ep_) return not_applied("CC_PROFILE_OP");
  return outcome_of(harness::reference_cc_profile_change(*ep_, op));
}

Outcome ReferenceBackend::replace_ev(const ap::ReplaceEv& op) {
  if (!ep_) return not_applied("REPLACE_EV");
  return outcome_of(harness::reference_replace_ev(*ep_, op));
}

Outcome ReferenceBackend::set_profile_online(const ap::SetProfileOnline& s) {
  if (!ep_) return not_applied("SET_PROFILE_ONLINE");
  return outcome_of(harness::set_reference_profile_online(*ep_, s.online));
}

Outcome ReferenceBackend::reset() {
  drop_endpoint();
  restriction_ = {};
  return Outcome::success();
}

void ReferenceBackend::drop_endpoint() {
  ep_.reset();
  cfg_.reset();
  peer_.reset();
  qpns_.clear();
  regions_.clear();
  completions_.clear();
  events_.clear();
}

}  // namespace mrc::agent
