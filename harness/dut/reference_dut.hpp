// The reference endpoint as a DUT, with no testbed: a ref::Endpoint configured from a DutSetup
// (reference_adapter.hpp), its FramePort, and the binding's data-path, control and after-run
// operations. Two hosts drive it: the in-process `reference` binding, which attaches the port to
// the simulated testbed, and the reference plugin (plugin/reference_plugin.cpp), which serves it
// through the C plugin ABI. Nothing here wakes a testbed: a caller whose call may have queued
// frames lets its fabric pull them.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/dut/dut_binding.hpp"
#include "harness/dut/reference_adapter.hpp"
#include "harness/testbed/frame_port.hpp"
#include "reference/defects.hpp"

namespace mrc::ref {
class Endpoint;
}

namespace mrc::harness {

class ReferenceDut {
 public:
  explicit ReferenceDut(ReferencePolicy policy = {});
  ~ReferenceDut();
  ReferenceDut(const ReferenceDut&) = delete;
  ReferenceDut& operator=(const ReferenceDut&) = delete;

  const ReferencePolicy& policy() const { return policy_; }
  DutIdentity identity() const;
  static std::vector<std::string> capabilities();

  // A fresh endpoint at `host`, configured by `s`; fills `local`. Its FramePort is port().
  DutStatus apply(const ReferenceHost& host, const DutSetup& s, DutLocal& local);
  DutStatus connect(const DutLocal& remote);
  // Null before apply().
  FramePort* port() { return port_.get(); }
  ref::Endpoint* endpoint() { return ep_.get(); }

  DutStatus fill_local(std::uint64_t offset, std::span<const std::uint8_t> bytes);
  DutStatus read_local(std::uint64_t offset, std::span<std::uint8_t> out) const;
  std::span<std::uint8_t> overwrite_local(std::uint64_t offset, std::size_t len);
  std::span<const std::uint8_t> view_local(std::uint64_t offset, std::size_t len) const;
  DutStatus post_write(const WriteRequest& w);
  DutStatus post_recv(std::uint32_t qp, std::uint64_t wr_id);
  std::size_t poll_completions(std::vector<CompletionRecord>& out, std::uint64_t now_ns);
  std::size_t poll_ev_events(std::vector<EvEventRecord>& out, std::uint64_t now_ns);

  DutStatus set_ev_denied(std::uint32_t ev_index, bool denied);
  DutStatus port_admin(std::uint8_t port, bool up);
  DutStatus probe_ev(std::uint32_t ev_index, std::uint8_t tc);
  DutStatus port_status_update();
  DutStatus set_profile_online(bool online);
  DutStatus ev_profile_op(const EvProfileChange& op);
  DutStatus cc_profile_op(const CcProfileChange& op);
  DutStatus replace_ev(const EvReplacement& op);
  DutStatus restrict_device(const DeviceRestriction& d);

  std::vector<EvRecord> ev_table() const;
  std::vector<std::pair<std::string, double>> counters() const;
  ref::DefectSet defects_read() const;
  void reset();

 private:
  ReferencePolicy policy_;
  std::unique_ptr<ref::Endpoint> ep_;
  ref::DefectSet read_before_;  // defects_read() of the endpoints apply() or reset() let go
  std::unique_ptr<FramePort> port_;
  DutSetup setup_;
  DutLocal local_;
  DutLocal remote_;
  std::uint32_t lkey_ = 0;
  std::set<std::uint32_t> ever_denied_;
  DeviceRestriction restrict_;  // config.device, applied by apply()
};

}  // namespace mrc::harness
