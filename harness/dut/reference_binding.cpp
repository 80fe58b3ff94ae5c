#include "harness/dut/reference_binding.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "harness/dut/reference_adapter.hpp"
#include "harness/testbed/endpoint_port.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/endpoint.hpp"
#include "reference/endpoint_counters.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::harness {

ReferenceBinding::ReferenceBinding(ReferencePolicy policy) : policy_(std::move(policy)) {}

ReferenceBinding::~ReferenceBinding() = default;

DutIdentity ReferenceBinding::identity() const {
  DutIdentity id;
  id.binding = "reference";
  const ref::DefectSet& defects = policy_.defects;
  // With random-ev as its only variant it keeps the older name `reference-random[:defects]`, so
  // reports and expectation files written with it still match.
  if (policy_.variants.to_string() == "random-ev") {
    id.name = defects.empty() ? "reference-random" : "reference-random:" + defects.to_string();
  } else {
    id.name = policy_.empty() ? "reference" : "reference:" + policy_.to_string();
  }
  id.version = "reference endpoint (sans-I/O), MRC 1.0 wire (spec-derived, mrc-wire-model.md W1-W19)";
  id.details = defects.empty() ? "no defects" : "defects: " + defects.to_string();
  if (!policy_.variants.empty()) id.details += "; conformant variants: " + policy_.variants.to_string();
  return id;
}

std::vector<std::string> ReferenceBinding::capabilities() const {
  // Everything the reference endpoint implements (reference/endpoint.hpp DeviceAttr and
  // ev::DeviceLimits defaults). EXPLICIT_RANGE is not among its default caps.
  return {"trim_nack",     "dynamic_mpr",      "svc_time",           "ev_probe",     "port_status",
          "srv6",          "stev",             "udp_mode",           "modify_online", "cc_modify_online",
          "precise_drop_count", "ev_generated", "ev_auto",           "ipv4"};
}

DutStatus ReferenceBinding::attach(Testbed& testbed, int host) {
  if (host < 0 || static_cast<std::uint32_t>(host) >= testbed.hosts()) {
    return DutStatus::failed("host " + std::to_string(host) + " is not in testbed " + testbed.name());
  }
  testbed_ = &testbed;
  host_ = host;
  planes_ = testbed.planes();
  return DutStatus::success();
}

std::vector<PortRef> ReferenceBinding::data_ports() const {
  std::vector<PortRef> out;
  for (std::uint32_t p = 1; p <= planes_; ++p) out.push_back(PortRef{host_, static_cast<int>(p)});
  return out;
}

DutStatus ReferenceBinding::apply(const DutSetup& s, DutLocal& local) {
  if (testbed_ == nullptr) return DutStatus::failed("apply() before attach()");
  setup_ = s;
  const HostAddress addr = testbed_->host_address(host_);
  const ReferenceHost host{addr.mac, addr.gid, addr.ipv4, static_cast<std::uint8_t>(planes_), port_mask_of(planes_)};
  if (ep_) read_before_.add_all(ep_->defects_read());
  ep_ = std::make_unique<ref::Endpoint>(reference_endpoint_config(host, policy_, s, restrict_));
  port_ = std::make_unique<EndpointPort>(*ep_);
  if (std::string why = testbed_->attach_port(host_, *port_); !why.empty()) {
    return DutStatus::failed("testbed refused the endpoint: " + why);
  }
  local = DutLocal{};
  if (DutStatus st = configure_reference(*ep_, s, local.qpns); !st.ok()) return st;
  ever_denied_.insert(s.denied.begin(), s.denied.end());
  transport::MemoryRegion mr;
  if (DutStatus st = register_reference_buffer(*ep_, s.buffer_va, s.buffer_bytes, mr); !st.ok()) return st;
  lkey_ = mr.lkey;
  local.gid = addr.gid;
  local.mac = addr.mac;
  local.ipv4 = s.ipv4 ? addr.ipv4 : 0;
  local.buffer_va = mr.addr;
  local.rkey = mr.rkey;
  local.mpr_dest = s.qp.mpr_dest;
  local.max_wimm_dest = s.qp.max_wimm_dest;
  local.qp_caps = s.qp.caps;
  local.first_psn = s.qp.first_psn;
  local_ = local;
  return DutStatus::success();
}

DutStatus ReferenceBinding::connect(const DutLocal& remote) {
  if (!ep_) return DutStatus::failed("connect() before apply()");
  remote_ = remote;
  return connect_reference(*ep_, local_.qpns, setup_.qp, remote);
}

DutStatus ReferenceBinding::fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  if (!ep_) return DutStatus::failed("fill_local() before apply()");
  const std::span<std::uint8_t> mem = overwrite_local(offset, bytes.size());
  if (mem.size() != bytes.size()) return DutStatus::failed("fill_local past the buffer");
  std::memcpy(mem.data(), bytes.data(), bytes.size());
  return DutStatus::success();
}

DutStatus ReferenceBinding::read_local(std::uint64_t offset, std::span<std::uint8_t> out) const {
  if (!ep_) return DutStatus::failed("read_local() before apply()");
  const std::span<const std::uint8_t> mem = view_local(offset, out.size());
  if (mem.size() != out.size()) return DutStatus::failed("read_local past the buffer");
  std::memcpy(out.data(), mem.data(), out.size());
  return DutStatus::success();
}

std::span<std::uint8_t> ReferenceBinding::overwrite_local(std::uint64_t offset, std::size_t len) {
  return ep_ ? ep_->mr_overwrite(lkey_, offset, len) : std::span<std::uint8_t>{};
}

std::span<const std::uint8_t> ReferenceBinding::view_local(std::uint64_t offset, std::size_t len) const {
  return ep_ ? ep_->mr_view(lkey_, offset, len) : std::span<const std::uint8_t>{};
}

DutStatus ReferenceBinding::post_write(const WriteRequest& w, std::uint64_t) {
  if (!ep_ || w.qp >= local_.qpns.size()) return DutStatus::failed("post_write on an unknown QP");
  transport::SendWr wr;
  wr.wr_id = w.wr_id;
  wr.opcode = w.with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
  wr.local_addr = local_.buffer_va + w.local_offset;
  wr.length = w.length;
  wr.lkey = lkey_;
  wr.remote_addr = w.remote_addr;
  wr.rkey = w.rkey;
  wr.imm_data = w.imm;
  if (int rc = ep_->post_send(local_.qpns[w.qp], wr)) return api_error("post_send", rc);
  testbed_->wake(host_);
  return DutStatus::success();
}

DutStatus ReferenceBinding::post_recv(std::uint32_t qp, std::uint64_t wr_id) {
  if (!ep_ || qp >= local_.qpns.size()) return DutStatus::failed("post_recv on an unknown QP");
  if (int rc = ep_->post_recv(local_.qpns[qp], wr_id)) return api_error("post_recv", rc);
  return DutStatus::success();
}

std::size_t ReferenceBinding::poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) {
  if (!ep_) return 0;
  std::size_t n = 0;
  transport::Completion c;
  while (ep_->poll_completion(c)) {
    CompletionRecord r;
    r.at_ns = now_ns;
    r.wr_id = c.wr_id;
    r.status = static_cast<int>(c.status);
    r.is_send = c.is_send;
    r.has_imm = c.opcode == IBV_WC_RECV_RDMA_WITH_IMM;
    r.imm = c.imm_data;
    r.byte_len = c.byte_len;
    out.push_back(r);
    ++n;
  }
  return n;
}

std::size_t ReferenceBinding::poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) {
  if (!ep_) return 0;
  std::size_t n = 0;
  ev::EvEvent e;
  const auto arr = ep_->controller().ev_array(0);
  while (ep_->poll_ev_event(e)) {
    EvEventRecord r;
    r.at_ns = now_ns;
    r.port = e.ev.port;
    r.state = ev::bits(e.state);
    r.drop_count = e.drop_count;
    r.ev_index = UINT32_MAX;
    for (std::size_t i = 0; i < arr.size(); ++i) {
      if (arr[i].ref() == e.ev) {
        r.ev_index = static_cast<std::uint32_t>(i);
        break;
      }
    }
    out.push_back(r);
    ++n;
  }
  return n;
}

DutStatus ReferenceBinding::set_ev_denied(std::uint32_t ev_index, bool denied) {
  if (!ep_) return DutStatus::failed("set_ev_denied() before apply()");
  if (DutStatus st = set_reference_ev_denied(*ep_, ev_index, denied); !st.ok()) return st;
  if (denied) ever_denied_.insert(ev_index);
  return DutStatus::success();
}

DutStatus ReferenceBinding::port_admin(std::uint8_t port, bool up) {
  if (!ep_) return DutStatus::failed("port_admin() before apply()");
  if (int rc = ep_->modify_port(port, up)) return api_error(up ? "port_admin_up" : "port_admin_down", rc);
  testbed_->wake(host_);
  return DutStatus::success();
}

DutStatus ReferenceBinding::probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t) {
  if (!ep_) return DutStatus::failed("probe_ev() before apply()");
  return wake_after(send_reference_ep_request(*ep_, {wire::EpOp::kEvProbe, ev_index, tc, wire_mode(setup_.format_mode)}, remote_));
}

DutStatus ReferenceBinding::port_status_update(std::uint64_t) {
  if (!ep_) return DutStatus::failed("port_status_update() before apply()");
  return wake_after(send_reference_ep_request(
      *ep_, {wire::EpOp::kPortStatusUpdate, 0, setup_.dscp.control, wire_mode(setup_.format_mode)}, remote_));
}

DutStatus ReferenceBinding::set_profile_online(bool online) {
  if (!ep_) return DutStatus::failed("set_profile_online() before apply()");
  return set_reference_profile_online(*ep_, online);
}

DutStatus ReferenceBinding::ev_profile_op(const EvProfileChange& op) {
  if (!ep_) return DutStatus::failed("ev_profile_op() before apply()");
  return reference_ev_profile_change(*ep_, op);
}

DutStatus ReferenceBinding::cc_profile_op(const CcProfileChange& op) {
  if (!ep_) return DutStatus::failed("cc_profile_op() before apply()");
  return reference_cc_profile_change(*ep_, op);
}

DutStatus ReferenceBinding::replace_ev(const EvReplacement& op) {
  if (!ep_) return DutStatus::failed("replace_ev() before apply()");
  return reference_replace_ev(*ep_, op);
}

DutStatus ReferenceBinding::restrict_device(const DeviceRestriction& d) {
  if (std::string why = restriction_refused(d); !why.empty()) return DutStatus::failed(why);
  restrict_ = d;
  return DutStatus::success();
}

DutStatus ReferenceBinding::wake_after(DutStatus st) {
  if (st.ok()) testbed_->wake(host_);
  return st;
}

std::vector<EvRecord> ReferenceBinding::ev_table() const {
  std::vector<EvRecord> out;
  if (!ep_) return out;
  const auto arr = ep_->controller().ev_array(0);
  const ev::FormatProfile* fmt = ep_->controller().format_of(0);
  const wire::EvFmtMode mode = fmt != nullptr ? fmt->mode : wire::EvFmtMode::kUdp;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    EvRecord r;
    r.index = static_cast<std::uint32_t>(i);
    r.port = arr[i].port;
    r.echo = wire::ev_echo_identity(mode, arr[i].wire, arr[i].index);
    r.state = ev::bits(arr[i].state);
    r.denied = arr[i].denied || ever_denied_.count(r.index) != 0;
    out.push_back(r);
  }
  return out;
}

std::vector<std::pair<std::string, double>> ReferenceBinding::counters() const {
  std::vector<std::pair<std::string, double>> out;
  if (!ep_) return out;
  for (const auto& [name, v] : ref::endpoint_counters(*ep_, local_.qpns)) {
    out.emplace_back(std::string(name), static_cast<double>(v));
  }
  return out;
}

std::optional<ref::DefectSet> ReferenceBinding::defects_read() const {
  ref::DefectSet read = read_before_;
  if (ep_) read.add_all(ep_->defects_read());
  return read;
}

DutStatus ReferenceBinding::reset() {
  port_.reset();
  if (ep_) read_before_.add_all(ep_->defects_read());
  ep_.reset();
  testbed_ = nullptr;
  host_ = -1;
  lkey_ = 0;
  ever_denied_.clear();
  restrict_ = DeviceRestriction{};
  return DutStatus::success();
}

}  // namespace mrc::harness
