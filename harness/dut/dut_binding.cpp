#include "harness/dut/dut_binding.hpp"

namespace mrc::harness {

DutStatus DutStatus::rejected(int err, std::string message) {
  return DutStatus{Code::kRejected, err, std::move(message)};
}

DutStatus DutStatus::failed(std::string message) { return DutStatus{Code::kFailed, 0, std::move(message)}; }

DutStatus DutStatus::unimplemented(std::string_view binding, std::string_view method) {
  std::string m = "ERROR: DUT binding '";
  m += binding;
  m += "' does not implement ";
  m += method;
  m += "()";
  return DutStatus{Code::kUnimplemented, 0, std::move(m)};
}

DutStatus DutBinding::unimplemented(std::string_view method) const {
  return DutStatus::unimplemented(identity().binding, method);
}

DutStatus DutBinding::attach(Testbed&, int) { return unimplemented("attach"); }
DutStatus DutBinding::seat(const HostAddress&, std::uint32_t) { return unimplemented("seat"); }
DutStatus DutBinding::apply(const DutSetup&, DutLocal&) { return unimplemented("apply"); }
DutStatus DutBinding::connect(const DutLocal&) { return unimplemented("connect"); }
DutStatus DutBinding::fill_local(std::uint64_t, std::span<const std::uint8_t>) { return unimplemented("fill_local"); }
DutStatus DutBinding::read_local(std::uint64_t, std::span<std::uint8_t>) const { return unimplemented("read_local"); }
std::span<std::uint8_t> DutBinding::overwrite_local(std::uint64_t, std::size_t) { return {}; }
std::span<const std::uint8_t> DutBinding::view_local(std::uint64_t, std::size_t) const { return {}; }
DutStatus DutBinding::post_write(const WriteRequest&, std::uint64_t) { return unimplemented("post_write"); }
DutStatus DutBinding::post_recv(std::uint32_t, std::uint64_t) { return unimplemented("post_recv"); }
std::size_t DutBinding::poll_completions(std::vector<CompletionRecord>&, std::uint64_t) { return 0; }
std::size_t DutBinding::poll_ev_events(std::vector<EvEventRecord>&, std::uint64_t) { return 0; }
DutStatus DutBinding::set_ev_denied(std::uint32_t, bool) { return unimplemented("set_ev_denied"); }
DutStatus DutBinding::port_admin(std::uint8_t, bool) { return unimplemented("port_admin"); }
DutStatus DutBinding::probe_ev(std::uint32_t, std::uint8_t, std::uint64_t) { return unimplemented("probe_ev"); }
DutStatus DutBinding::port_status_update(std::uint64_t) { return unimplemented("port_status_update"); }
DutStatus DutBinding::set_profile_online(bool) { return unimplemented("set_profile_online"); }
DutStatus DutBinding::ev_profile_op(const EvProfileChange&) { return unimplemented("ev_profile_op"); }
DutStatus DutBinding::cc_profile_op(const CcProfileChange&) { return unimplemented("cc_profile_op"); }
DutStatus DutBinding::replace_ev(const EvReplacement&) { return unimplemented("replace_ev"); }
DutStatus DutBinding::restrict_device(const DeviceRestriction&) { return unimplemented("restrict_device"); }
DutStatus DutBinding::reset() { return unimplemented("reset"); }
}  // namespace mrc::harness
