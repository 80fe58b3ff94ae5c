#include "harness/agent/lockstep_backend.hpp"

#include <algorithm>

#include "harness/agent/poll_queue.hpp"
#include "harness/agent/reference_backend.hpp"
#include "harness/dut/agent_setup.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/testbed/frame_port.hpp"

namespace mrc::agent {
namespace {

// How many completions or EV events wait for POLL before the oldest are dropped (and counted):
// a harness that never polls cannot make the agent grow without bound.
constexpr std::size_t kQueueLimit = 65536;
constexpr std::uint8_t kListedPorts = 8;  // HELLO_OK's ports before ATTACH says how many planes

std::string step_op(std::size_t i) { return "Step.ops[" + std::to_string(i) + "]"; }

}  // namespace

LockstepBackend::LockstepBackend(std::string spec) : spec_(std::move(spec)) {}

LockstepBackend::~LockstepBackend() = default;

std::string LockstepBackend::open() {
  std::string why;
  if (!spec_.starts_with("reference") && !spec_.starts_with("plugin:")) {
    return "--clock virtual serves reference[:names] or plugin:PATH[:ARGS], not '" + spec_ + "'";
  }
  dut_ = harness::make_binding(spec_, &why);
  if (!dut_) return why;
  if (harness::DutStatus st = dut_->status(); !st.ok()) return st.message;
  return {};
}

std::string LockstepBackend::identity() const { return "lockstep " + spec_; }

std::vector<std::string> LockstepBackend::capabilities() const { return dut_ ? dut_->capabilities() : std::vector<std::string>{}; }

std::vector<ap::PortInfo> LockstepBackend::ports() const {
  std::vector<ap::PortInfo> out;
  const std::uint8_t n = attach_ ? attach_->planes : kListedPorts;
  for (std::uint8_t p = 1; p <= n; ++p) {
    ap::PortInfo info;
    info.port = p;
    info.name = "virtual-p" + std::to_string(p);
    if (attach_) info.mac = attach_->mac;
    out.push_back(std::move(info));
  }
  return out;
}

Outcome LockstepBackend::needs_attach(const char* request) const {
  return Outcome::fail(ap::ErrorCode::kNotApplied,
                       std::string(request) + " before ATTACH: a lockstep DUT learns its addresses and planes first");
}

Outcome LockstepBackend::needs_apply(const char* request) const {
  return Outcome::fail(ap::ErrorCode::kNotApplied, std::string(request) + " before APPLY_CONFIG");
}

Outcome LockstepBackend::attach(const ap::Attach& a) {
  dut_->reset();
  local_.reset();
  completions_.clear();
  events_.clear();
  now_ = 0;
  harness::HostAddress addr;
  addr.mac = a.mac;
  addr.gid = a.gid;
  addr.ipv4 = a.ipv4;
  if (Outcome o = outcome_of(dut_->seat(addr, a.planes)); !o.ok()) return o;
  attach_ = a;
  return Outcome::success();
}

Outcome LockstepBackend::step(const ap::Step& s, ap::Frames& out) {
  if (!attach_) return needs_attach("STEP");
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const ap::StepOp& op = s.ops[i];
    if (op.at_ns < now_) {
      return Outcome::fail(ap::ErrorCode::kBadValue, step_op(i) + ".at_ns " + std::to_string(op.at_ns) +
                                                         " is before the DUT's virtual time " + std::to_string(now_) +
                                                         ": virtual time never goes back");
    }
    if (op.kind == ap::StepOpKind::kFrame && op.port > attach_->planes) {
      return Outcome::fail(ap::ErrorCode::kBadValue, step_op(i) + ".port " + std::to_string(op.port) +
                                                         " is not one of ports 1.." + std::to_string(attach_->planes));
    }
    now_ = op.at_ns;
    if (op.kind == ap::StepOpKind::kFrame) ++rx_per_port_[op.port];
    harness::FramePort* port = dut_->seated_port();
    if (op.kind == ap::StepOpKind::kAdvance) {
      if (port != nullptr) port->advance(op.at_ns);
    } else if (port == nullptr) {
      ++frames_unseated_;
    } else {
      ++frames_in_;
      port->on_frame(op.port, op.frame, op.at_ns);
    }
  }
  harness::FramePort* port = dut_->seated_port();
  out.drained = false;
  while (port != nullptr && out.frames.size() < s.max_frames) {
    if (!port->poll_frame(tx_)) {
      out.drained = true;
      break;
    }
    ++frames_out_;
    out.frames.push_back({tx_.port, std::vector<std::uint8_t>(tx_.bytes.begin(), tx_.bytes.begin() + tx_.len)});
  }
  if (port == nullptr && s.max_frames > 0) out.drained = true;  // no endpoint: nothing to send
  out.next_deadline_ns = port != nullptr ? port->next_deadline() : UINT64_MAX;
  return Outcome::success();
}

Outcome LockstepBackend::apply(const ap::ApplyConfig& cfg, ap::ApplyOk& out) {
  if (!attach_) return needs_attach("APPLY_CONFIG");
  local_.reset();
  harness::DutLocal local;
  if (Outcome o = outcome_of(dut_->apply(harness::to_dut_setup(cfg), local)); !o.ok()) return o;
  local_ = local;
  out.gid = local.gid;
  out.mac = local.mac;
  out.ipv4 = local.ipv4;
  out.qpns = local.qpns;
  const std::uint64_t length = cfg.regions.empty() ? 0 : cfg.regions.front().length;
  // The binding's one buffer is region 0; its lkey is the binding's own business.
  out.regions.push_back(ap::RegionInfo{local.buffer_va, length, 0, local.rkey});
  out.mpr_dest = local.mpr_dest;
  out.max_wimm_dest = local.max_wimm_dest;
  out.qp_caps = local.qp_caps;
  out.first_psn = local.first_psn;
  if (cfg.peer) return connect(*cfg.peer);
  return Outcome::success();
}

Outcome LockstepBackend::connect(const ap::PeerInfo& peer) {
  if (!local_) return needs_apply("CONNECT");
  return outcome_of(dut_->connect(harness::to_dut_local(peer)));
}

Outcome LockstepBackend::post_write(const ap::PostWrite& w) {
  if (!local_) return needs_apply("POST_WRITE");
  if (w.region != 0) return Outcome::fail(ap::ErrorCode::kBadValue, "POST_WRITE region " + std::to_string(w.region) + ": the DUT has region 0 only");
  const harness::WriteRequest req{w.qp, w.wr_id, w.local_offset, w.length, w.remote_addr, w.rkey, w.with_imm, w.imm};
  return outcome_of(dut_->post_write(req, now_));
}

Outcome LockstepBackend::post_recv(const ap::PostRecv& r) {
  if (!local_) return needs_apply("POST_RECV");
  return outcome_of(dut_->post_recv(r.qp, r.wr_id));
}

void LockstepBackend::collect() {
  std::vector<harness::CompletionRecord> cs;
  dut_->poll_completions(cs, now_);
  for (const auto& c : cs) {
    if (completions_.size() == kQueueLimit) completions_.pop_front();
    completions_.push_back(ap::CompletionInfo{c.at_ns, c.wr_id, 0, static_cast<std::uint16_t>(c.status), c.is_send,
                                              c.has_imm, c.imm, c.byte_len});
  }
  std::vector<harness::EvEventRecord> es;
  dut_->poll_ev_events(es, now_);
  for (const auto& e : es) {
    if (events_.size() == kQueueLimit) events_.pop_front();
    events_.push_back(ap::EvEventInfo{e.at_ns, e.ev_index, e.port, e.state, e.drop_count});
  }
}

Outcome LockstepBackend::poll(const ap::Poll& p, ap::Completions& out) {
  if (local_) collect();
  out.now_ns = now_;
  take_polled(completions_, events_, p, out);
  return Outcome::success();
}

Outcome LockstepBackend::set_ev_state(const ap::SetEvState& s) {
  if (!local_) return needs_apply("SET_EV_STATE");
  return outcome_of(dut_->set_ev_denied(s.index, s.denied));
}

Outcome LockstepBackend::port_admin(const ap::PortAdmin& p) {
  if (!attach_) return needs_attach("PORT_ADMIN");
  // The fabric's port faults come here too, so a port goes down in the DUT at the moment of the
  // fault, between the STEPs around it, as it does in-process.
  return outcome_of(dut_->port_admin(p.port, p.up));
}

Outcome LockstepBackend::ep_op(const ap::EpOp& op) {
  if (!local_) return needs_apply("EP_OP");
  if (op.op == ap::EpOpKind::kProbeEv) return outcome_of(dut_->probe_ev(op.ev_index, op.tc, now_));
  return outcome_of(dut_->port_status_update(now_));
}

Outcome LockstepBackend::offset_of(std::uint64_t addr, std::size_t len, std::uint64_t& offset) const {
  if (!local_ || addr < local_->buffer_va) return Outcome::fail(ap::ErrorCode::kLimit, "range is not inside the registered region");
  offset = addr - local_->buffer_va;
  (void)len;  // the binding judges the end of the range against its buffer
  return Outcome::success();
}

Outcome LockstepBackend::read_memory(const ap::ReadMemory& r, ap::MemoryBytes& out) {
  if (!local_) return needs_apply("READ_MEMORY");
  std::uint64_t offset = 0;
  if (Outcome o = offset_of(r.addr, r.length, offset); !o.ok()) return o;
  out.addr = r.addr;
  out.bytes.assign(r.length, 0);
  return outcome_of(dut_->read_local(offset, out.bytes));
}

Outcome LockstepBackend::write_memory(const ap::WriteMemory& w) {
  if (!local_) return needs_apply("WRITE_MEMORY");
  std::uint64_t offset = 0;
  if (Outcome o = offset_of(w.addr, w.bytes.size(), offset); !o.ok()) return o;
  return outcome_of(dut_->fill_local(offset, w.bytes));
}

Outcome LockstepBackend::query_state(ap::StateReport& out) {
  out.now_ns = now_;
  if (local_) {
    for (const harness::EvRecord& e : dut_->ev_table()) {
      ap::EvStateInfo info;
      info.index = e.index;
      info.port = e.port;
      info.echo = e.echo;
      info.state = e.state;
      info.denied = e.denied;
      out.evs.push_back(std::move(info));
      if (out.evs.size() == ap::limit::kEvs) break;
    }
    for (auto& [name, value] : dut_->counters()) {
      if (out.counters.size() + 4 + ap::limit::kMaxPlanes == ap::limit::kCounters) break;
      out.counters.push_back(ap::Counter{name.substr(0, ap::limit::kName), value});
    }
  }
  // The names every agent reports (agent-protocol.md §4): frames per port since the agent started.
  for (const ap::PortInfo& p : ports()) {
    out.counters.push_back({"agent.rx.p" + std::to_string(p.port), static_cast<double>(rx_per_port_[p.port])});
  }
  out.counters.push_back({"agent.lockstep.frames_in", static_cast<double>(frames_in_)});
  out.counters.push_back({"agent.lockstep.frames_out", static_cast<double>(frames_out_)});
  out.counters.push_back({"agent.lockstep.frames_unseated", static_cast<double>(frames_unseated_)});
  out.counters.push_back({"agent.lockstep.now_ns", static_cast<double>(now_)});
  return Outcome::success();
}

Outcome LockstepBackend::reset() {
  const Outcome o = outcome_of(dut_->reset());
  attach_.reset();
  local_.reset();
  completions_.clear();
  events_.clear();
  now_ = 0;
  return o;
}

Outcome LockstepBackend::ev_profile_op(const ap::EvProfileOp& op) {
  if (!local_) return needs_apply("EV_PROFILE_OP");
  return outcome_of(dut_->ev_profile_op(op));
}
Outcome LockstepBackend::cc_profile_op(const ap::CcProfileOp& op) {
  if (!local_) return needs_apply("CC_PROFILE_OP");
  return outcome_of(dut_->cc_profile_op(op));
}
Outcome LockstepBackend::replace_ev(const ap::ReplaceEv& op) {
  if (!local_) return needs_apply("REPLACE_EV");
  return outcome_of(dut_->replace_ev(op));
}
Outcome LockstepBackend::set_profile_online(const ap::SetProfileOnline& s) {
  if (!local_) return needs_apply("SET_PROFILE_ONLINE");
  return outcome_of(dut_->set_profile_online(s.online));
}
Outcome LockstepBackend::restrict_device(const ap::RestrictDevice& d) {
  if (local_) {
    return Outcome::fail(ap::ErrorCode::kNotApplied,
                         "RESTRICT_DEVICE after APPLY_CONFIG: a restriction shapes the next configuration; send RESET first");
  }
  return outcome_of(dut_->restrict_device(d));
}

}  // namespace mrc::agent
