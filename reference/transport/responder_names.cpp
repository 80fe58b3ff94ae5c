// Names of the responder's receive outcomes and fatal reasons, for counters, logs and reports.
#include "reference/transport/responder.hpp"

namespace mrc::transport {

std::string_view to_string(RxOutcome o) {
  switch (o) {
    case RxOutcome::kPlaced: return "placed";
    case RxOutcome::kDuplicate: return "duplicate";
    case RxOutcome::kOutOfWindow: return "out of window";
    case RxOutcome::kPlacedOutOfWindow: return "placed out of window";
    case RxOutcome::kTrimNacked: return "trimmed, NACK TRIMMED";
    case RxOutcome::kTrimDropped: return "trimmed, dropped";
    case RxOutcome::kProbeAnswered: return "reliability probe answered";
    case RxOutcome::kNakInvalidRequest: return "NAK invalid request";
    case RxOutcome::kNakRemoteAccess: return "NAK remote access error";
    case RxOutcome::kNakRemoteOpError: return "NAK remote operational error";
    case RxOutcome::kDroppedBadIcrc: return "dropped: bad ICRC";
    case RxOutcome::kDroppedQpError: return "dropped: QP in error";
    case RxOutcome::kDroppedNotRequest: return "dropped: not a request";
    case RxOutcome::kDroppedWrongQp: return "dropped: wrong destination QP";
    case RxOutcome::kDroppedBadPkey: return "dropped: P_Key mismatch";
  }
  return "unknown";
}

std::string_view to_string(FatalReason r) {
  switch (r) {
    case FatalReason::kNone: return "none";
    case FatalReason::kInvalidRequest: return "invalid request";
    case FatalReason::kRemoteAccess: return "remote access error";
    case FatalReason::kNoReceive: return "WRITE with immediate without a posted receive";
    case FatalReason::kWimmOverflow: return "more WRITE with immediate pending than max_wimm_dest";
    case FatalReason::kLocal: return "moved to error locally";
  }
  return "unknown";
}

}  // namespace mrc::transport
