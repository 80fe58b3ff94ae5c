#include "harness/verdict/frame_cursor.hpp"

namespace mrc::harness {

FrameClass classify(std::uint8_t op) {
  namespace oc = wire::opcode;
  if (op == oc::kMrcSack || op == oc::kMrcNack || op == oc::kMrcAck) return FrameClass::kFeedback;  // W5-W8
  if (op == oc::kMrcProbe) return FrameClass::kProbe;                                                // W9
  if (op == oc::kRcAck || op == oc::kRcAtomicAck) return FrameClass::kFeedback;
  if (op == oc::kMrcEndpointReq || op == oc::kMrcEndpointRsp) return FrameClass::kEndpoint;  // W10
  if (wire::is_mrc_data(op)) return FrameClass::kData;  // W3
  // RC requests MRC does not carry: still requests addressed to a responder.
  if (op <= oc::kRcReadRequest || op == oc::kRcCompareSwap || op == oc::kRcFetchAdd) return FrameClass::kData;
  return FrameClass::kOther;
}

bool is_write(std::uint8_t op) { return wire::is_mrc_data(op); }

bool is_write_first(std::uint8_t op) {
  namespace oc = wire::opcode;
  return op == oc::kMrcWriteFirst || op == oc::kMrcWriteOnly || op == oc::kMrcWriteOnlyImm;
}

bool is_write_last(std::uint8_t op) {
  namespace oc = wire::opcode;
  return op == oc::kMrcWriteLast || op == oc::kMrcWriteLastImm || op == oc::kMrcWriteOnly ||
         op == oc::kMrcWriteOnlyImm;
}

bool carries_imm(std::uint8_t op) {
  return op == wire::opcode::kMrcWriteLastImm || op == wire::opcode::kMrcWriteOnlyImm;
}

bool is_foreign(wire::WireError e) {
  return e == wire::WireError::kBadEthertype || e == wire::WireError::kNotUdp || e == wire::WireError::kNotRoce;
}

FrameCursor::FrameCursor(const TapCapture& tap, bool verify_icrc, const wire::DscpConfig& dscp) : tap_(tap) {
  opt_.verify_icrc = verify_icrc;
  opt_.trimmed_dscps = dscp.trimmed_mask();
  opt_.trimmed_lasthop_dscp = dscp.trimmed_lasthop;
}

bool FrameCursor::next() {
  const Capture& cap = tap_.capture;
  while (pos_ < cap.size()) {
    const std::size_t i = pos_++;
    const wire::DecodeResult r = wire::decode_frame(cap.bytes(i), frame_, opt_);
    if (r.ok()) {
      index_ = i;
      return true;
    }
    if (is_foreign(r.error)) {
      ++foreign_;
      continue;
    }
    ++malformed_;
    ++by_error_[static_cast<std::size_t>(r.error) % by_error_.size()];
    if (kept_ < issues_.size()) issues_[kept_++] = DecodeIssue{i, cap.packet(i).ts_ns, r.error, r.offset};
  }
  return false;
}

}  // namespace mrc::harness
