// The `reference` DUT binding: a reference::Endpoint (optionally with named defects from
// reference/defects.hpp) driven as one host of the testbed. The harness's own peer is the same
// binding without defects, so both ends of a case are configured by one code path.
//
// Command-line spelling: `reference` or `reference:<defect>[,<defect>...]`.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "reference/defects.hpp"

namespace mrc::ref {
class Endpoint;
struct EndpointConfig;
}

namespace mrc::harness {

class ReferenceBinding : public DutBinding {
 public:
  explicit ReferenceBinding(ref::DefectSet defects = {}, std::string role_name = "dut");
  ~ReferenceBinding() override;
  // The `reference-random` DUT: seeded random EV choice instead of round robin (conformant; used
  // to measure the false-fail rate of statistical checks against a sprayer whose counts vary).
  void use_random_spray() { random_spray_ = true; }

  DutIdentity identity() const override;
  std::vector<std::string> capabilities() const override;

  DutStatus attach(Testbed& testbed, int host) override;
  std::vector<PortRef> data_ports() const override;
  DutStatus apply(const DutSetup& setup, DutLocal& local) override;
  DutStatus connect(const DutLocal& remote) override;

  DutStatus fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;
  DutStatus read_local(std::uint64_t offset, std::span<std::uint8_t> out) const override;
  DutStatus post_write(const WriteRequest& w, std::uint64_t now_ns) override;
  DutStatus post_recv(std::uint32_t qp, std::uint64_t wr_id) override;
  std::size_t poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) override;
  std::size_t poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) override;

  DutStatus set_ev_denied(std::uint32_t ev_index, bool denied) override;
  DutStatus port_admin(std::uint8_t port, bool up) override;
  DutStatus probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t now_ns) override;
  DutStatus port_status_update(std::uint64_t now_ns) override;
  DutStatus set_profile_online(bool online) override;
  // reference_profile_ops.cpp
  DutStatus ev_profile_op(const EvProfileOp& op) override;
  DutStatus cc_profile_op(const CcProfileOp& op) override;
  DutStatus replace_ev(const ReplaceEvOp& op) override;
  DutStatus restrict_device(const DeviceConfig& d) override;

  std::vector<EvRecord> ev_table() const override;
  std::vector<std::pair<std::string, double>> counters() const override;
  DutStatus reset() override;

  // The endpoint (null before apply()); for tests and the golden generator.
  ref::Endpoint* endpoint() { return ep_.get(); }

 private:
  DutStatus setup_profiles(const DutSetup& s);
  DutStatus setup_qps(const DutSetup& s, DutLocal& local);

  ref::DefectSet defects_;
  std::string role_name_;
  bool random_spray_ = false;
  Testbed* testbed_ = nullptr;
  int host_ = -1;
  std::uint32_t planes_ = 0;
  std::unique_ptr<ref::Endpoint> ep_;
  DutSetup setup_;
  DutLocal local_;
  DutLocal remote_;
  std::uint32_t lkey_ = 0;
  std::set<std::uint32_t> ever_denied_;
  DeviceConfig restrict_;  // config.device, applied by apply()
};

// Applies config.device to an endpoint's limits and capabilities (capabilities the reference
// cannot turn off are left to restrict_device(), which refuses them).
void restrict_limits(const DeviceConfig& d, ref::EndpointConfig& cfg);

// Parses `reference[:defect,...]`. On a bad spelling returns null and sets *error to a message
// that lists the valid binding and defect names.
std::unique_ptr<DutBinding> make_binding(const std::string& spec, std::string* error);
// True when `spec` parses (same message as make_binding()).
bool valid_binding_spec(const std::string& spec, std::string* error);

}  // namespace mrc::harness
