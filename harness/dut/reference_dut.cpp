#include "harness/dut/reference_dut.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "harness/dut/reference_adapter.hpp"
#include "harness/testbed/endpoint_port.hpp"
#include "reference/endpoint.hpp"
#include "reference/endpoint_counters.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::harness {

ReferenceDut::ReferenceDut(ReferencePolicy policy) : policy_(std::move(policy)) {}

ReferenceDut::~ReferenceDut() = default;

DutIdentity ReferenceDut::identity() const {
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

std::vector<std::string> ReferenceDut::capabilities() {
  // Everything the reference endpoint implements (reference/endpoint.hpp DeviceAttr and
  // ev::DeviceLimits defaults). EXPLICIT_RANGE is not among its default caps.
  return {"trim_nack",     "dynamic_mpr",      "svc_time",           "ev_probe",     "port_status",
          "srv6",          "stev",             "udp_mode",           "modify_online", "cc_modify_online",
          "precise_drop_count", "ev_generated", "ev_auto",           "ipv4"};
}

DutStatus ReferenceDut::apply(const ReferenceHost& host, const DutSetup& s, DutLocal& local) {
  setup_ = s;
  port_.reset();
  if (ep_) read_before_.add_all(ep_->defects_read());
  ep_ = std::make_unique<ref::Endpoint>(reference_endpoint_config(host, policy_, s, restrict_));
  port_ = std::make_unique<EndpointPort>(*ep_);
  local = DutLocal{};
  if (DutStatus st = configure_reference(*ep_, s, local.qpns); !st.ok()) return st;
  ever_denied_.insert(s.denied.begin(), s.denied.end());
  transport::MemoryRegion mr;
  if (DutStatus st = register_reference_buffer(*ep_, s.buffer_va, s.buffer_bytes, mr); !st.ok()) return st;
  lkey_ = mr.lkey;
  local.gid = host.gid;
  local.mac = host.mac;
  local.ipv4 = s.ipv4 ? host.ipv4_addr : 0;
  local.buffer_va = mr.addr;
  local.rkey = mr.rkey;
  local.mpr_dest = s.qp.mpr_dest;
  local.max_wimm_dest = s.qp.max_wimm_dest;
  local.qp_caps = s.qp.caps;
  local.first_psn = s.qp.first_psn;
  local_ = local;
  return DutStatus::success();
}

DutStatus ReferenceDut::connect(const DutLocal& remote) {
  if (!ep_) return DutStatus::failed("connect() before apply()");
  remote_ = remote;
  return connect_reference(*ep_, local_.qpns, setup_.qp, remote);
}

DutStatus ReferenceDut::fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  if (!ep_) return DutStatus::failed("fill_local() before apply()");
  const std::span<std::uint8_t> mem = overwrite_local(offset, bytes.size());
  if (mem.size() != bytes.size()) return DutStatus::failed("fill_local past the buffer");
  std::memcpy(mem.data(), bytes.data(), bytes.size());
  return DutStatus::success();
}

DutStatus ReferenceDut::read_local(std::uint64_t offset, std::span<std::uint8_t> out) const {
  if (!ep_) return DutStatus::failed("read_local() before apply()");
  const std::span<const std::uint8_t> mem = view_local(offset, out.size());
  if (mem.size() != out.size()) return DutStatus::failed("read_local past the buffer");
  std::memcpy(out.data(), mem.data(), out.size());
  return DutStatus::success();
}

std::span<std::uint8_t> ReferenceDut::overwrite_local(std::uint64_t offset, std::size_t len) {
  return ep_ ? ep_->mr_overwrite(lkey_, offset, len) : std::span<std::uint8_t>{};
}

std::span<const std::uint8_t> ReferenceDut::view_local(std::uint64_t offset, std::size_t len) const {
  return ep_ ? ep_->mr_view(lkey_, offset, len) : std::span<const std::uint8_t>{};
}

DutStatus ReferenceDut::post_write(const WriteRequest& w) {
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
  return DutStatus::success();
}

DutStatus ReferenceDut::post_recv(std::uint32_t qp, std::uint64_t wr_id) {
  if (!ep_ || qp >= local_.qpns.size()) return DutStatus::failed("post_recv on an unknown QP");
  if (int rc = ep_->post_recv(local_.qpns[qp], wr_id)) return api_error("post_recv", rc);
  return DutStatus::success();
}

std::size_t ReferenceDut::poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) {
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

std::size_t ReferenceDut::poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) {
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

DutStatus ReferenceDut::set_ev_denied(std::uint32_t ev_index, bool denied) {
  if (!ep_) return DutStatus::failed("set_ev_denied() before apply()");
  if (DutStatus st = set_reference_ev_denied(*ep_, ev_index, denied); !st.ok()) return st;
  if (denied) ever_denied_.insert(ev_index);
  return DutStatus::success();
}

DutStatus ReferenceDut::port_admin(std::uint8_t port, bool up) {
  if (!ep_) return DutStatus::failed("port_admin() before apply()");
  if (int rc = ep_->modify_port(port, up)) return api_error(up ? "port_admin_up" : "port_admin_down", rc);
  return DutStatus::success();
}

DutStatus ReferenceDut::probe_ev(std::uint32_t ev_index, std::uint8_t tc) {
  if (!ep_) return DutStatus::failed("probe_ev() before apply()");
  return send_reference_ep_request(*ep_, {wire::EpOp::kEvProbe, ev_index, tc, wire_mode(setup_.format_mode)}, remote_);
}

DutStatus ReferenceDut::port_status_update() {
  if (!ep_) return DutStatus::failed("port_status_update() before apply()");
  return send_reference_ep_request(
      *ep_, {wire::EpOp::kPortStatusUpdate, 0, setup_.dscp.control, wire_mode(setup_.format_mode)}, remote_);
}

DutStatus ReferenceDut::set_profile_online(bool online) {
  if (!ep_) return DutStatus::failed("set_profile_online() before apply()");
  return set_reference_profile_online(*ep_, online);
}

DutStatus ReferenceDut::ev_profile_op(const EvProfileChange& op) {
  if (!ep_) return DutStatus::failed("ev_profile_op() before apply()");
  return reference_ev_profile_change(*ep_, op);
}

DutStatus ReferenceDut::cc_profile_op(const CcProfileChange& op) {
  if (!ep_) return DutStatus::failed("cc_profile_op() before apply()");
  return reference_cc_profile_change(*ep_, op);
}

DutStatus ReferenceDut::replace_ev(const EvReplacement& op) {
  if (!ep_) return DutStatus::failed("replace_ev() before apply()");
  return reference_replace_ev(*ep_, op);
}

DutStatus ReferenceDut::restrict_device(const DeviceRestriction& d) {
  if (std::string why = restriction_refused(d); !why.empty()) return DutStatus::failed(why);
  restrict_ = d;
  return DutStatus::success();
}

std::vector<EvRecord> ReferenceDut::ev_table() const {
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

std::vector<std::pair<std::string, double>> ReferenceDut::counters() const {
  std::vector<std::pair<std::string, double>> out;
  if (!ep_) return out;
  for (const auto& [name, v] : ref::endpoint_counters(*ep_, local_.qpns)) {
    out.emplace_back(std::string(name), static_cast<double>(v));
  }
  return out;
}

ref::DefectSet ReferenceDut::defects_read() const {
  ref::DefectSet read = read_before_;
  if (ep_) read.add_all(ep_->defects_read());
  return read;
}

void ReferenceDut::reset() {
  port_.reset();
  if (ep_) read_before_.add_all(ep_->defects_read());
  ep_.reset();
  lkey_ = 0;
  ever_denied_.clear();
  restrict_ = DeviceRestriction{};
}

}  // namespace mrc::harness
