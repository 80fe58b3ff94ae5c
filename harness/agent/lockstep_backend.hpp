// The lockstep backend (`mrc-dut-agent --clock virtual`, agent-protocol.md §9): a DUT with no
// interfaces and no clock of its own, served to a harness that makes it one host of its simulated
// fabric across the control connection. The DUT is any binding that can be seated
// (DutBinding::seat): the reference endpoint (`--backend reference[:names]`) or a NIC model built
// against the C plugin ABI (`--backend plugin:PATH[:ARGS]`), made by the harness's own binding
// factory, so the DUT behind a lockstep agent is exactly the DUT `--dut` names in-process.
//
// Time is the harness's: ATTACH seats the DUT, STEP hands it frames and advances in the order
// the fabric made them and takes the frames it transmits, one STEP's worth at a time. Control
// requests take effect at the latest virtual time a STEP carried. service() (the agent's wall
// clock) does nothing. Each control connection gets its own LockstepBackend (ServerConfig::
// session_backend), so parallel cases never share a DUT.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/agent/backend.hpp"
#include "harness/dut/dut_binding.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/transport/qp_types.hpp"

namespace mrc::agent {

class LockstepBackend final : public Backend {
 public:
  // `spec` is a --dut spelling that can be seated: reference[:names] or plugin:PATH[:ARGS].
  explicit LockstepBackend(std::string spec);
  ~LockstepBackend() override;

  // Makes the binding and checks it (a plugin is loaded here): "" or why it cannot serve.
  std::string open();

  std::string identity() const override;
  std::vector<std::string> capabilities() const override;
  std::vector<ap::PortInfo> ports() const override;
  ap::Clock clock() const override { return ap::Clock::kVirtual; }

  Outcome attach(const ap::Attach& a) override;
  Outcome step(const ap::Step& s, ap::Frames& out) override;

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

  void service(std::uint64_t) override {}  // the wall clock is never the DUT's

  std::uint64_t now() const { return now_; }  // the latest virtual time a STEP carried

 private:
  Outcome needs_attach(const char* request) const;
  Outcome needs_apply(const char* request) const;
  // [addr, addr + len) inside the applied buffer, as an offset into it.
  Outcome offset_of(std::uint64_t addr, std::size_t len, std::uint64_t& offset) const;
  void collect();  // the binding's completions and events into the POLL queues

  std::string spec_;
  std::unique_ptr<harness::DutBinding> dut_;
  std::optional<ap::Attach> attach_;
  std::optional<harness::DutLocal> local_;  // what APPLY_CONFIG gave
  std::uint64_t now_ = 0;
  std::deque<ap::CompletionInfo> completions_;
  std::deque<ap::EvEventInfo> events_;
  transport::TxFrame tx_;  // scratch for the frames a STEP takes
  std::array<std::uint64_t, ap::limit::kMaxPlanes + 1> rx_per_port_{};  // index = port: agent.rx.p<N>
  std::uint64_t frames_in_ = 0;
  std::uint64_t frames_out_ = 0;
  std::uint64_t frames_unseated_ = 0;  // arrived before APPLY_CONFIG gave the DUT an endpoint
};

}  // namespace mrc::agent
