#include "harness/dut/reference_binding.hpp"

#include <utility>

#include "harness/dut/profile_setup.hpp"
#include "harness/dut/plane_ports.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::harness {

ReferenceBinding::ReferenceBinding(ReferencePolicy policy) : dut_(std::move(policy)) {}

ReferenceBinding::~ReferenceBinding() = default;

DutIdentity ReferenceBinding::identity() const { return dut_.identity(); }

std::vector<std::string> ReferenceBinding::capabilities() const { return ReferenceDut::capabilities(); }

DutStatus ReferenceBinding::attach(Testbed& testbed, int host) {
  if (DutStatus st = check_testbed_host(testbed, host); !st.ok()) return st;
  testbed_ = &testbed;
  host_ = host;
  planes_ = testbed.planes();
  seat_.reset();
  return DutStatus::success();
}

DutStatus ReferenceBinding::seat(const HostAddress& addr, std::uint32_t planes) {
  testbed_ = nullptr;
  host_ = -1;
  planes_ = planes;
  seat_ = addr;
  return DutStatus::success();
}

std::vector<PortRef> ReferenceBinding::data_ports() const { return plane_ports(host_, planes_); }

DutStatus ReferenceBinding::apply(const DutSetup& s, DutLocal& local) {
  if (testbed_ == nullptr && !seat_) return DutStatus::failed("apply() before attach()");
  const HostAddress addr = testbed_ != nullptr ? testbed_->host_address(host_) : *seat_;
  const ReferenceHost host{addr.mac, addr.gid, addr.ipv4, static_cast<std::uint8_t>(planes_), port_mask_of(planes_)};
  const DutStatus st = dut_.apply(host, s, local);
  // Attached even when the configuration failed: the testbed must not keep driving the port of
  // the endpoint apply() let go of.
  if (dut_.port() != nullptr && testbed_ != nullptr) {
    if (std::string why = testbed_->attach_port(host_, *dut_.port()); !why.empty()) {
      return DutStatus::failed("testbed refused the endpoint: " + why);
    }
  }
  return st;
}

DutStatus ReferenceBinding::connect(const DutLocal& remote) { return dut_.connect(remote); }

DutStatus ReferenceBinding::fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  return dut_.fill_local(offset, bytes);
}
DutStatus ReferenceBinding::read_local(std::uint64_t offset, std::span<std::uint8_t> out) const {
  return dut_.read_local(offset, out);
}
std::span<std::uint8_t> ReferenceBinding::overwrite_local(std::uint64_t offset, std::size_t len) {
  return dut_.overwrite_local(offset, len);
}
std::span<const std::uint8_t> ReferenceBinding::view_local(std::uint64_t offset, std::size_t len) const {
  return dut_.view_local(offset, len);
}
DutStatus ReferenceBinding::post_write(const WriteRequest& w, std::uint64_t) { return wake_after(dut_.post_write(w)); }
DutStatus ReferenceBinding::post_recv(std::uint32_t qp, std::uint64_t wr_id) { return dut_.post_recv(qp, wr_id); }
std::size_t ReferenceBinding::poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) {
  return dut_.poll_completions(out, now_ns);
}
std::size_t ReferenceBinding::poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) {
  return dut_.poll_ev_events(out, now_ns);
}

DutStatus ReferenceBinding::set_ev_denied(std::uint32_t ev_index, bool denied) {
  return dut_.set_ev_denied(ev_index, denied);
}
DutStatus ReferenceBinding::port_admin(std::uint8_t port, bool up) { return wake_after(dut_.port_admin(port, up)); }
DutStatus ReferenceBinding::probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t) {
  return wake_after(dut_.probe_ev(ev_index, tc));
}
DutStatus ReferenceBinding::port_status_update(std::uint64_t) { return wake_after(dut_.port_status_update()); }
DutStatus ReferenceBinding::set_profile_online(bool online) { return dut_.set_profile_online(online); }
DutStatus ReferenceBinding::ev_profile_op(const EvProfileChange& op) { return dut_.ev_profile_op(op); }
DutStatus ReferenceBinding::cc_profile_op(const CcProfileChange& op) { return dut_.cc_profile_op(op); }
DutStatus ReferenceBinding::replace_ev(const EvReplacement& op) { return dut_.replace_ev(op); }
DutStatus ReferenceBinding::restrict_device(const DeviceRestriction& d) { return dut_.restrict_device(d); }

DutStatus ReferenceBinding::wake_after(DutStatus st) {
  if (st.ok() && testbed_ != nullptr) testbed_->wake(host_);
  return st;
}

std::vector<EvRecord> ReferenceBinding::ev_table() const { return dut_.ev_table(); }
std::vector<std::pair<std::string, double>> ReferenceBinding::counters() const { return dut_.counters(); }
std::optional<ref::DefectSet> ReferenceBinding::defects_read() const { return dut_.defects_read(); }

DutStatus ReferenceBinding::reset() {
  dut_.reset();
  testbed_ = nullptr;
  host_ = -1;
  seat_.reset();
  return DutStatus::success();
}

}  // namespace mrc::harness
