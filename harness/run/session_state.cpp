// SessionState's own questions about the case run it holds: is a real-time bridge in the loop,
// which seed makes the payload, and the frame context the stimulus builds frames with.
#include "harness/run/session_state.hpp"

#include <algorithm>
#include <variant>

#include "harness/dut/profile_setup.hpp"

namespace mrc::run {

namespace stim = harness::stim;

bool SessionState::real_time() const {
  return tb->running_bridge_figures(kDutHost) != nullptr || tb->running_bridge_figures(kPeerHost) != nullptr;
}

ReplyClock SessionState::reply_clock(std::uint64_t loop_now) const {
  const std::uint64_t replied = std::max(loop_now, tb->clock_now());
  return ReplyClock{replied, std::max(replied, tb->wall_now()), real_time()};
}

std::uint64_t date_report(std::uint64_t age_ns, const ReplyClock& c, std::uint64_t floor) {
  const std::uint64_t at = std::min(c.replied, c.wall > age_ns ? c.wall - age_ns : 0);
  return std::max(at, floor);
}

std::uint64_t SessionState::payload_seed() const {
  const bool golden = std::any_of(c.checks.begin(), c.checks.end(), [](const harness::Check& k) {
    return std::holds_alternative<harness::GoldenCheck>(k.params);
  });
  return golden ? c.seed : o.seed;
}

harness::stim::FrameContext SessionState::frame_context(bool from_dut, bool encapsulated) const {
  stim::FrameContext fc;
  const harness::HostAddress src = tb->host_address(from_dut ? kDutHost : kPeerHost);
  const harness::HostAddress dst = tb->host_address(from_dut ? kPeerHost : kDutHost);
  const harness::DutLocal& rx = from_dut ? peer_local : dut_local;
  fc.src_mac = src.mac;
  fc.dst_mac = dst.mac;
  fc.src_gid = src.gid;
  fc.dst_gid = dst.gid;
  fc.ipv4 = setups.dut.ipv4;
  fc.src_ipv4 = src.ipv4;
  fc.dst_ipv4 = dst.ipv4;
  fc.mode = harness::wire_mode(setups.dut.format_mode);
  fc.evs = from_dut ? dut_wire_evs : peer_wire_evs;
  fc.srv6_encapsulated = encapsulated;
  fc.dqpn = rx.qpns.empty() ? 0 : rx.qpns.front();
  fc.buffer_va = rx.buffer_va;
  fc.buffer_bytes = (from_dut ? setups.peer : setups.dut).buffer_bytes;
  fc.rkey = rx.rkey;
  fc.first_psn = rx.first_psn;
  fc.mtu = c.config.qp.mtu;
  fc.seed = payload_seed();
  fc.dscp = harness::wire_dscp(setups.dut.dscp);  // W13 both ends use the case's values
  return fc;
}

bool SessionState::bindings_healthy() {
  for (const auto& [side, binding] : {std::pair<const char*, harness::DutBinding*>{"DUT", &dut}, {"peer", &peer}}) {
    if (const harness::DutStatus st = binding->status(); !st.ok()) {
      return fail(harness::Verdict::kError, std::string(side) + " binding broke during the run: " + st.message);
    }
  }
  return true;
}

}  // namespace mrc::run
