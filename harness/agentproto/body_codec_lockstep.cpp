// Body layouts of the lockstep messages (version 5): ATTACH, STEP and FRAMES. Field order here IS
// the wire layout (harness/dut/agent-protocol.md §9). What the codec can judge alone it judges
// here (an ADVANCE that carries a frame, a FRAME on port 0, planes outside 1..32), so an agent or
// a harness never acts on half of a malformed STEP; the port against the attached planes and the
// time against the DUT's clock are the agent's to check.
#include <string>

#include "harness/agentproto/body_codec.hpp"

namespace mrc::agentproto::detail {
namespace {

constexpr std::uint8_t kMaxStepOpKind = 1;  // StepOpKind::kAdvance
constexpr std::size_t kMinStepOpBytes = 14;  // kind + at_ns + port + empty bytes32
constexpr std::size_t kMinStepFrameBytes = 5;  // port + empty bytes32

std::string op_field(std::size_t i, const char* what) { return "Step.ops[" + std::to_string(i) + "]." + what; }

}  // namespace

void put(Writer& w, const Attach& m) {
  w.fixed(m.mac);
  w.fixed(m.gid);
  w.u32(m.ipv4);
  w.u8(m.planes);
}
void get(Reader& r, Attach& m) {
  r.fixed(m.mac, "Attach.mac");
  r.fixed(m.gid, "Attach.gid");
  m.ipv4 = r.u32("Attach.ipv4");
  m.planes = r.u8("Attach.planes");
  if (m.planes < 1 || m.planes > limit::kMaxPlanes) {
    r.fail(ErrorCode::kBadValue, "Attach.planes",
           std::to_string(m.planes) + " is outside 1.." + std::to_string(limit::kMaxPlanes));
  }
}

void put(Writer& w, const Step& m) {
  if (w.count(m.ops.size(), limit::kStepOps, "Step.ops")) {
    for (const auto& op : m.ops) {
      w.u8(static_cast<std::uint8_t>(op.kind));
      w.u64(op.at_ns);
      w.u8(op.port);
      w.blob32(op.frame, limit::kFrameBytes, "Step.ops[].frame");
    }
  }
  w.u32(m.max_frames);
}
void get(Reader& r, Step& m) {
  m.ops.resize(r.count(limit::kStepOps, kMinStepOpBytes, "Step.ops"));
  for (std::size_t i = 0; i < m.ops.size() && r.ok(); ++i) {
    StepOp& op = m.ops[i];
    op.kind = get_enum<StepOpKind>(r, kMaxStepOpKind, "Step.ops[].kind");
    op.at_ns = r.u64("Step.ops[].at_ns");
    op.port = r.u8("Step.ops[].port");
    r.blob32(op.frame, limit::kFrameBytes, "Step.ops[].frame");
    if (!r.ok()) break;
    if (op.kind == StepOpKind::kAdvance && (op.port != 0 || !op.frame.empty())) {
      r.fail(ErrorCode::kBadValue, op_field(i, "kind"), "an ADVANCE carries port 0 and no frame");
    } else if (op.kind == StepOpKind::kFrame && op.port == 0) {
      r.fail(ErrorCode::kBadValue, op_field(i, "port"), "a FRAME arrives on a port 1..planes, not 0");
    }
  }
  m.max_frames = r.u32("Step.max_frames");
  if (m.max_frames > limit::kStepFrames) {
    r.fail(ErrorCode::kFieldTooLong, "Step.max_frames",
           std::to_string(m.max_frames) + " exceeds the limit of " + std::to_string(limit::kStepFrames));
  }
}

void put(Writer& w, const Frames& m) {
  if (w.count(m.frames.size(), limit::kStepFrames, "Frames.frames")) {
    for (const auto& f : m.frames) {
      w.u8(f.port);
      w.blob32(f.frame, limit::kFrameBytes, "Frames.frames[].frame");
    }
  }
  w.boolean(m.drained);
  w.u64(m.next_deadline_ns);
}
void get(Reader& r, Frames& m) {
  m.frames.resize(r.count(limit::kStepFrames, kMinStepFrameBytes, "Frames.frames"));
  for (auto& f : m.frames) {
    f.port = r.u8("Frames.frames[].port");
    r.blob32(f.frame, limit::kFrameBytes, "Frames.frames[].frame");
  }
  m.drained = r.boolean("Frames.drained");
  m.next_deadline_ns = r.u64("Frames.next_deadline_ns");
}

}  // namespace mrc::agentproto::detail
