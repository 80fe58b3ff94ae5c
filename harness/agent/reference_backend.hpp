// The `reference` backend: the project's sans-I/O reference endpoint (reference/endpoint.hpp),
// optionally with named defects, driven on real interfaces. This is the real-wire driver of the
// same code the simulator drives: frames come in from the FrameIo (libpcap in the agent), time
// comes from the agent's CLOCK_MONOTONIC, and whatever the endpoint emits goes out of the port its
// EV names.
//
// APPLY_CONFIG builds a fresh Endpoint (the previous one, if any, is dropped): EV format profile
// 0, EV profile 0, CC profile 0, `qp.count` QPs taken to INIT and the memory regions; with a peer
// it continues to RTR/RTS (CONNECT does that step on its own). The device limits are the
// endpoint's defaults less what RESTRICT_DEVICE turned off; the physical port mask is the set of
// bound interfaces. Every control request goes through the reference adapter
// (harness/dut/reference_adapter.hpp), the code the in-process reference binding calls.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/agent/backend.hpp"
#include "harness/agent/frame_io.hpp"
#include "harness/dut/dut_binding.hpp"
#include "harness/dut/reference_adapter.hpp"
#include "reference/defects.hpp"
#include "reference/endpoint.hpp"

namespace mrc::agent {

struct ReferenceOptions {
  harness::ReferencePolicy policy;    // named defects and conformant variants
  std::optional<wire::MacAddr> mac;  // default: the MAC of the lowest bound port
  std::optional<wire::Ipv6Addr> gid; // default: fd6d:7263::<mac> (derived from the MAC)
  std::uint32_t ipv4 = 0;            // host order; 0 = no IPv4 (ApplyConfig.ipv4 is refused)
  std::size_t queue_limit = 65536;   // completions / EV events held for POLL before dropping
};

// A binding call's status as the protocol's outcome (kRejected keeps the DUT's errno).
Outcome outcome_of(const harness::DutStatus& st);

class ReferenceBackend final : public Backend {
 public:
  ReferenceBackend(ReferenceOptions opt, std::unique_ptr<FrameIo> io);
  ~ReferenceBackend() override;

  std::string identity() const override;
  std::vector<std::string> capabilities() const override;
  std::vector<ap::PortInfo> ports() const override;

  Outcome apply(const ap::ApplyConfig& cfg, ap::ApplyOk& out) override;
  Outcome connect(const ap::PeerInfo& peer) override;
  Outcome post_write(const ap::PostWrite& w) override;
  Outcome post_recv(const ap::PostRecv& r) override;
  Outcome poll(const ap::Poll& p, ap::Completions& out) override;
  Outcome set_ev_state(const ap::SetEvState& s) override;
  Outcome port_admin(const ap::PortAdmin& p) override;
  Outcome ep_op(const ap::EpOp& op) override;
  Outcome read_memory(const ap::ReadMemory& r, ap::MemoryBytes& out) override;
  Outcome write_memory(const ap::WriteMemory& w) override;
  Outcome query_state(ap::StateReport& out) override;
  Outcome reset() override;
  Outcome ev_profile_op(const ap::EvProfileOp& op) override;
  Outcome cc_profile_op(const ap::CcProfileOp& op) override;
  Outcome replace_ev(const ap::ReplaceEv& op) override;
  Outcome set_profile_online(const ap::SetProfileOnline& s) override;
  Outcome restrict_device(const ap::RestrictDevice& d) override;

  std::vector<int> io_fds() const override;
  void service(std::uint64_t now_ns) override;
  std::uint64_t next_deadline_ns() const override;

  // For tests and diagnostics.
  const ref::Endpoint* endpoint() const { return ep_.get(); }
  std::uint64_t now() const { return now_; }

 private:
  struct Region {
    transport::MemoryRegion mr;
  };
  static void on_rx(void* self, std::uint8_t port, std::span<const std::uint8_t> frame);
  void drop_endpoint();  // what RESET and APPLY_CONFIG discard (the restriction outlives APPLY)
  // The registered region holding [addr, addr + len): its lkey and the range's offset in it.
  Outcome find_range(std::uint64_t addr, std::size_t len, std::uint32_t& lkey, std::uint64_t& offset) const;
  std::uint32_t port_mask() const;
  void drain_outputs();

  ReferenceOptions opt_;
  std::unique_ptr<FrameIo> io_;
  wire::MacAddr mac_{};
  wire::Ipv6Addr gid_{};
  std::unique_ptr<ref::Endpoint> ep_;
  std::optional<ap::ApplyConfig> cfg_;  // the configuration applied (without its peer)
  std::optional<ap::PeerInfo> peer_;
  ap::RestrictDevice restriction_;      // RESTRICT_DEVICE, applied by every APPLY_CONFIG until RESET
  std::vector<std::uint32_t> qpns_;     // index = QP index
  std::vector<Region> regions_;
  std::deque<ap::CompletionInfo> completions_;
  std::deque<ap::EvEventInfo> events_;
  std::uint64_t now_ = 0;
  std::uint64_t epoch_ = 0;  // agent time of the endpoint's creation: its time zero
  transport::TxFrame tx_;  // scratch: poll_frame writes here (no allocation per frame)
  // Agent-side counters (STATE reports them next to the endpoint's).
  std::uint64_t rx_before_apply_ = 0;
  // Frames received per port (index = port, 1-based), whether or not a configuration is applied:
  // `mrc-conform doctor` confirms the port map by which port its probe frame reached.
  std::array<std::uint64_t, ap::limit::kPorts + 1> rx_per_port_{};
  std::uint64_t tx_errors_ = 0;
  std::uint64_t completions_dropped_ = 0;
  std::uint64_t events_dropped_ = 0;
  std::uint64_t ep_responses_ = 0;
  std::uint64_t ep_timeouts_ = 0;
  std::string last_tx_error_;
};

}  // namespace mrc::agent
