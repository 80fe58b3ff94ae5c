#include "harness/dut/lockstep_port.hpp"

#include <algorithm>
#include <cstring>

namespace mrc::harness {

namespace ap = mrc::agentproto;

void LockstepPort::push(ap::StepOpKind kind, std::uint64_t at_ns, std::uint8_t port, std::span<const std::uint8_t> frame) {
  if (!failure_.empty()) return;
  if (pending_.ops.size() == ap::limit::kStepOps && !flush()) return;
  ap::StepOp& op = pending_.ops.emplace_back();
  op.kind = kind;
  op.at_ns = at_ns;
  op.port = port;
  op.frame.assign(frame.begin(), frame.end());
  drained_ = false;
  deadline_known_ = false;
}

void LockstepPort::on_frame(std::uint8_t port, std::span<const std::uint8_t> frame, std::uint64_t now_ns) {
  if (frame.size() > ap::limit::kFrameBytes) {
    failure_ = "a frame of " + std::to_string(frame.size()) + " bytes for the DUT is over the lockstep limit of " +
               std::to_string(ap::limit::kFrameBytes);
    return;
  }
  push(ap::StepOpKind::kFrame, now_ns, port, frame);
}

void LockstepPort::advance(std::uint64_t now_ns) { push(ap::StepOpKind::kAdvance, now_ns, 0, {}); }

bool LockstepPort::step(std::uint32_t max_frames) {
  if (!failure_.empty()) return false;
  pending_.max_frames = max_frames;
  ap::Body reply;
  ++steps_;
  std::string why = call_(std::move(pending_), reply);
  pending_ = ap::Step{};
  if (why.empty() && !std::holds_alternative<ap::Frames>(reply)) why = "STEP was not answered with FRAMES";
  if (!why.empty()) {
    failure_ = "lockstep: " + why;
    return false;
  }
  ap::Frames& f = std::get<ap::Frames>(reply);
  if (f.frames.size() > max_frames) {
    failure_ = "lockstep: STEP asked for " + std::to_string(max_frames) + " frames and the agent sent " +
               std::to_string(f.frames.size());
    return false;
  }
  for (auto& fr : f.frames) frames_.push_back(std::move(fr));
  drained_ = max_frames > 0 && f.drained;
  deadline_ = f.next_deadline_ns;
  deadline_known_ = true;
  return true;
}

bool LockstepPort::flush() {
  if (pending_.ops.empty()) return failure_.empty();
  return step(0);
}

bool LockstepPort::poll_frame(transport::TxFrame& out) {
  if (frames_.empty()) {
    if (drained_ && pending_.ops.empty()) return false;
    if (!step(1) || frames_.empty()) return false;
  }
  ap::StepFrame& f = frames_.front();
  if (f.frame.size() > out.bytes.size()) {
    failure_ = "lockstep: the DUT sent a frame of " + std::to_string(f.frame.size()) + " bytes on port " +
               std::to_string(f.port) + ", more than the largest MRC frame (" + std::to_string(out.bytes.size()) + ")";
    frames_.clear();
    return false;
  }
  std::memcpy(out.bytes.data(), f.frame.data(), f.frame.size());
  out.len = static_cast<std::uint16_t>(f.frame.size());
  out.port = f.port;
  frames_.pop_front();
  return true;
}

std::uint64_t LockstepPort::next_deadline() const {
  if (!failure_.empty()) return UINT64_MAX;
  if (!deadline_known_ || !pending_.ops.empty()) {
    // The fabric asks between its own operations; the answer needs the ops before it applied.
    auto* self = const_cast<LockstepPort*>(this);
    if (!self->step(0)) return UINT64_MAX;
  }
  return deadline_;
}

int LockstepPort::set_port_up(std::uint8_t port, bool up) {
  if (!flush()) return EIO;
  const int rc = port_admin_(port, up);
  touch();
  return rc;
}

}  // namespace mrc::harness
