#include "reference/transport/feedback.hpp"

namespace mrc::transport {

std::uint8_t syndrome_of(FeedbackKind k) {
  switch (k) {
    case FeedbackKind::kAck:
    case FeedbackKind::kSack:
    case FeedbackKind::kPsnOutOfRange: return wire::syndrome::kAck;
    case FeedbackKind::kNackLoss: return wire::syndrome::kNakPsnSeqError;
    case FeedbackKind::kTrimNack: return wire::syndrome::kNakTrim;  // MODEL: M5
    case FeedbackKind::kNakInvalidRequest: return wire::syndrome::kNakInvalidRequest;
    case FeedbackKind::kNakRemoteAccess: return wire::syndrome::kNakRemoteAccess;
    case FeedbackKind::kNakRemoteOpError: return wire::syndrome::kNakRemoteOpError;
  }
  return wire::syndrome::kAck;
}

wire::FeedbackType mfeh_type_of(FeedbackKind k) {  // MODEL: M5
  switch (k) {
    case FeedbackKind::kSack: return wire::FeedbackType::kSack;
    case FeedbackKind::kNackLoss: return wire::FeedbackType::kNackLoss;
    case FeedbackKind::kTrimNack: return wire::FeedbackType::kTrimNack;
    case FeedbackKind::kPsnOutOfRange: return wire::FeedbackType::kPsnOutOfRange;
    case FeedbackKind::kAck:
    case FeedbackKind::kNakInvalidRequest:
    case FeedbackKind::kNakRemoteAccess:
    case FeedbackKind::kNakRemoteOpError: return wire::FeedbackType::kAck;
  }
  return wire::FeedbackType::kAck;
}

std::uint16_t svc_time_units(std::uint64_t ns) {  // MODEL: M5 (8 ns units)
  const std::uint64_t units = ns / 8;
  return units > 0xFFFF ? std::uint16_t{0xFFFF} : static_cast<std::uint16_t>(units);
}

SackBlock sack_block(const SackTracker& t, std::uint32_t trig_psn, bool no_wrap) {  // MODEL: M5
  SackBlock b;
  if (!t.has_holes()) return b;
  b.valid = true;
  const std::uint32_t d = (trig_psn - t.epsn()) & 0xFFFFFFu;
  if (d < t.capacity()) b.base_off = static_cast<std::uint16_t>((d / 64u) * 64u);
  const std::uint32_t base = (t.epsn() + b.base_off) & 0xFFFFFFu;
  b.bitmap = t.bitmap64(base);
  if (no_wrap) {
    // Defect sack-no-wrap: a PSN numerically below ePSN (one past the 2^24 wrap) counts as not
    // received, as if PSNs were compared without the 24-bit wrap.
    for (unsigned i = 0; i < 64; ++i) {
      if (((base + i) & 0xFFFFFFu) < t.epsn()) b.bitmap &= ~(std::uint64_t{1} << (63 - i));
    }
  }
  return b;
}

void build_feedback(const FeedbackFields& f, std::uint32_t local_qpn, std::uint32_t remote_qpn,
                    std::uint16_t pkey, TxPacket& out) {
  out = TxPacket{};
  out.qpn = local_qpn;
  out.path.kind = TxPath::Kind::kAnyQpEv;
  out.dscp = wire::kDscpControl;  // MODEL: M11 feedback DSCP 46
  out.ecn = wire::kEcnNotEct;

  out.bth.opcode = wire::opcode::kRcAck;
  out.bth.pkey = pkey;
  out.bth.dest_qp = remote_qpn & 0xFFFFFFu;
  out.bth.psn = f.cum_psn & 0xFFFFFFu;  // MODEL: M5 cumulative ACK PSN for every kind
  out.bth.ack_req = false;

  out.has_aeth = true;
  out.aeth.syndrome = syndrome_of(f.kind);
  out.aeth.msn = f.msn & 0xFFFFFFu;

  out.has_mfeh = true;  // MODEL: M5
  wire::Mfeh& m = out.mfeh;
  m.version = wire::kMfehVersion;
  m.type = mfeh_type_of(f.kind);
  m.ce = f.ce;
  m.svc_valid = f.svc_valid;
  m.svc_time = f.svc_valid ? f.svc_time : 0;
  m.trig_psn = f.trig_psn & 0xFFFFFFu;
  m.ev_valid = f.ev_valid;
  m.ev_echo = f.ev_valid ? f.ev_echo : 0;
  m.ev_port = f.ev_port;
  m.mpr_valid = f.mpr_valid;
  m.mpr = f.mpr_valid ? f.mpr : 0;
  m.sack_valid = f.sack_valid;
  m.sack_base_off = f.sack_valid ? f.sack_base_off : 0;
  m.sack_bitmap = f.sack_valid ? f.sack_bitmap : 0;
  m.rcvd_bytes = f.rcvd_bytes;
}

}  // namespace mrc::transport
