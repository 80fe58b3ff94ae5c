// The `reference` DUT binding: a reference::Endpoint (optionally with named defects from
// reference/defects.hpp; reference_dut.hpp holds it) driven as one host of the testbed through its
// FramePort adapter. The
// harness's default peer is the same binding without defects, so both ends of a case are
// configured by one code path (reference_adapter.hpp, shared with the DUT agent).
//
// Command-line spelling: `reference` or `reference:<defect>[,<defect>...]` (binding_factory.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "harness/dut/reference_adapter.hpp"
#include "harness/dut/reference_dut.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/defects.hpp"

namespace mrc::harness {

class ReferenceBinding : public DutBinding {
 public:
  // `policy`: named defects and conformant variants; `reference-random` is the random-ev variant.
  explicit ReferenceBinding(ReferencePolicy policy = {});
  explicit ReferenceBinding(ref::DefectSet defects) : ReferenceBinding(ReferencePolicy{defects, {}}) {}
  ~ReferenceBinding() override;

  DutIdentity identity() const override;
  std::vector<std::string> capabilities() const override;

  DutStatus attach(Testbed& testbed, int host) override;
  DutStatus seat(const HostAddress& addr, std::uint32_t planes) override;
  FramePort* seated_port() override { return seat_ ? dut_.port() : nullptr; }
  std::vector<PortRef> data_ports() const override;
  DutStatus apply(const DutSetup& setup, DutLocal& local) override;
  DutStatus connect(const DutLocal& remote) override;

  DutStatus fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;
  DutStatus read_local(std::uint64_t offset, std::span<std::uint8_t> out) const override;
  std::span<std::uint8_t> overwrite_local(std::uint64_t offset, std::size_t len) override;
  std::span<const std::uint8_t> view_local(std::uint64_t offset, std::size_t len) const override;
  DutStatus post_write(const WriteRequest& w, std::uint64_t now_ns) override;
  DutStatus post_recv(std::uint32_t qp, std::uint64_t wr_id) override;
  std::size_t poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns) override;
  std::size_t poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns) override;

  DutStatus set_ev_denied(std::uint32_t ev_index, bool denied) override;
  DutStatus port_admin(std::uint8_t port, bool up) override;
  DutStatus probe_ev(std::uint32_t ev_index, std::uint8_t tc, std::uint64_t now_ns) override;
  DutStatus port_status_update(std::uint64_t now_ns) override;
  DutStatus set_profile_online(bool online) override;
  DutStatus ev_profile_op(const EvProfileChange& op) override;
  DutStatus cc_profile_op(const CcProfileChange& op) override;
  DutStatus replace_ev(const EvReplacement& op) override;
  DutStatus restrict_device(const DeviceRestriction& d) override;

  std::vector<EvRecord> ev_table() const override;
  std::vector<std::pair<std::string, double>> counters() const override;
  std::optional<ref::DefectSet> defects_read() const override;
  DutStatus reset() override;

  // The endpoint (null before apply()); for tests and the golden generator.
  ref::Endpoint* endpoint() { return dut_.endpoint(); }

 private:
  DutStatus wake_after(DutStatus st);  // the endpoint has frames to send: let the testbed pull them

  ReferenceDut dut_;
  Testbed* testbed_ = nullptr;
  int host_ = -1;
  std::uint32_t planes_ = 0;
  std::optional<HostAddress> seat_;  // seat(): the addresses of a fabric elsewhere
};

}  // namespace mrc::harness
