#include "reference/defects.hpp"

#include <array>

namespace mrc::ref {
namespace {

using R = std::string_view;
// Requirement ids live in cases/clauses.yaml; a test checks every id named here exists there.
constexpr std::array<R, 2> kSpray{"SPRAY-PER-PACKET-EV", "SPRAY-UNIFORM-PLANES"};
constexpr std::array<R, 1> kDenied{"EV-DENIED-NEVER-USED"};
constexpr std::array<R, 1> kLossRetire{"EV-LOSS-ASSUMED-BAD"};
constexpr std::array<R, 1> kRetxOtherEv{"RETX-DIFFERENT-EV"};
constexpr std::array<R, 1> kSack{"FB-SACK-BITMAP"};
constexpr std::array<R, 1> kEcho{"FB-EV-ECHO"};
constexpr std::array<R, 1> kTrimNack{"TRIM-NACK-SENT"};
constexpr std::array<R, 1> kStubNotPlaced{"TRIM-STUB-NOT-PLACED"};
constexpr std::array<R, 1> kMpr{"MPR-REQUESTER-WINDOW"};
constexpr std::array<R, 1> kWimm{"WIMM-REQUESTER-LIMIT"};
constexpr std::array<R, 1> kIcrc{"WIRE-ICRC"};
constexpr std::array<R, 1> kUsidOrder{"SRV6-USID-CONTAINER"};
constexpr std::array<R, 1> kSrhLayout{"SRV6-SRH-SINGLE-SEGMENT"};
constexpr std::array<R, 1> kStevPlacement{"EV-STEV-PLACEMENT"};
constexpr std::array<R, 1> kImmAfterAll{"WIMM-COMPLETION-AFTER-ALL-PSNS"};
constexpr std::array<R, 1> kImmOnce{"WIMM-COMPLETION-EXACTLY-ONCE"};
constexpr std::array<R, 1> kHoldDown{"EV-PROBE-BEFORE-REUSE"};
constexpr std::array<R, 1> kMinActive{"EV-MIN-ACTIVE-FLOOR"};
constexpr std::array<R, 1> kTimeout{"TIMER-ACK-TIMEOUT"};
constexpr std::array<R, 1> kNscc{"CC-NSCC-MD"};
constexpr std::array<R, 1> kReth{"DATA-RETH-EVERY-PACKET"};
constexpr std::array<R, 1> kSelective{"RETX-SELECTIVE"};
constexpr std::array<R, 1> kNackLoss{"FB-NACK-LOSS"};
constexpr std::array<R, 1> kWindow{"MPR-RESPONDER-WINDOW"};
constexpr std::array<R, 1> kProbePath{"PROBE-SAME-PATH"};
constexpr std::array<R, 1> kSvc{"FB-SERVICE-TIME"};
constexpr std::array<R, 1> kRetryExceeded{"TIMER-RETRY-EXCEEDED"};
constexpr std::array<R, 1> kMprDynamic{"MPR-DYNAMIC-BOTH-SIDES"};

constexpr std::array<R, 1> kForbiddenOpcode{"INVALID-FORBIDDEN-OPCODE"};
constexpr std::array<R, 1> kBadRkey{"INVALID-BAD-RKEY"};
constexpr std::array<R, 1> kWrongPkey{"INVALID-WRONG-PKEY"};
constexpr std::array<R, 1> kBadIcrc{"INVALID-BAD-ICRC"};

constexpr std::array<R, 1> kEvEventOnState{"EV-EVENT-ON-STATE"};
constexpr std::array<R, 1> kEvEventDropCount{"EV-EVENT-DROP-COUNT"};
constexpr std::array<R, 1> kProfileStates{"EVCTL-PROFILE-STATES"};
constexpr std::array<R, 1> kProfileValidity{"EVCTL-PROFILE-VALIDITY"};
constexpr std::array<R, 1> kCountLimits{"EVCTL-COUNT-LIMITS"};
constexpr std::array<R, 1> kExplicitPopulated{"EVCTL-EXPLICIT-POPULATED"};
constexpr std::array<R, 1> kModifyOnlineCap{"EVCTL-MODIFY-ONLINE-CAP"};

constexpr std::array<R, 1> kEpReqidEcho{"EP-PROBE-REQID-ECHO"};
constexpr std::array<R, 1> kEpConnectionless{"EP-PROBE-CONNECTIONLESS"};
constexpr std::array<R, 1> kEpDscp{"EP-PROBE-DSCP"};
constexpr std::array<R, 1> kEpReqidUnique{"EP-REQID-UNIQUE"};
constexpr std::array<R, 1> kEpPortMask{"EP-PORT-STATUS-MASK"};

constexpr std::array<R, 1> kNsccNoMdBelow{"CC-NSCC-NO-MD-BELOW-TARGET"};
constexpr std::array<R, 1> kNsccQuickAdapt{"CC-NSCC-QUICK-ADAPT"};
constexpr std::array<R, 1> kNsccBounds{"CC-NSCC-BOUNDS"};

constexpr std::array<R, 1> kGhostAck{"INVALID-GHOST-ACK"};

constexpr std::array<DefectInfo, static_cast<std::size_t>(Defect::kCount)> kCatalog{{
    {Defect::kSpraySingleEv, "spray-single-ev", "every data packet carries the same EV", kSpray},
    {Defect::kUseDeniedEv, "use-denied-ev", "data packets on an EV the controller set DENIED", kDenied},
    {Defect::kKeepFailedEv, "keep-failed-ev", "data keeps flowing on an EV after it lost packets", kLossRetire},
    {Defect::kRetransmitSameEv, "retransmit-same-ev", "a retransmitted PSN reuses the EV that timed out", kRetxOtherEv},
    {Defect::kSackOffByOne, "sack-off-by-one", "SACK bitmap bits name PSN+1 of what arrived", kSack},
    {Defect::kWrongEvEcho, "wrong-ev-echo", "MFEH ev_echo names the previous packet's EV", kEcho},
    {Defect::kNoTrimNack, "no-trim-nack", "no TRIM NACK after a trimmed stub arrives", kTrimNack},
    {Defect::kPlaceTrimmedStub, "place-trimmed-stub", "bytes of a trimmed stub are written to memory", kStubNotPlaced},
    {Defect::kExceedMprWindow, "exceed-mpr-window", "more un-ACKed PSNs in flight than the MPR window", kMpr},
    {Defect::kIgnoreWimm, "ignore-wimm", "more WRITE-with-IMM messages outstanding than max_wimm", kWimm},
    {Defect::kWrongIcrc, "wrong-icrc", "data packets fail the ICRC check", kIcrc},
    {Defect::kUsidReverse, "usid-reverse", "outer DA uSIDs are in reverse order", kUsidOrder},
    {Defect::kSrhWrongSegmentsLeft, "srh-wrong-sl", "single-segment SRH carries Segments Left 0", kSrhLayout},
    {Defect::kNoFlowLabelEv, "no-flow-label-ev", "STEV frames carry flow label 0", kStevPlacement},
    {Defect::kEarlyCompletion, "early-completion", "WRITE-with-IMM completes before every PSN is placed", kImmAfterAll},
    {Defect::kDoubleCompletion, "double-completion", "a duplicate LAST-with-IMM completes twice", kImmOnce},
    {Defect::kEarlyProbeReuse, "early-probe-reuse", "a failed EV carries data again before hold-down and two probes", kHoldDown},
    {Defect::kIgnoreMinActive, "ignore-min-active", "fewer than ev_min_active EVs stay in use", kMinActive},
    {Defect::kSlowTimeout, "slow-timeout", "the first retransmission comes 2T after the send, not T", kTimeout},
    {Defect::kNsccNoDecrease, "nscc-no-decrease", "the window never shrinks under ECN and delay", kNscc},
    {Defect::kNoRethOnMiddle, "no-reth-middle", "MIDDLE/LAST data packets lack the per-packet RETH", kReth},
    {Defect::kGoBackN, "go-back-n", "PSNs the SACK reported received are sent again", kSelective},
    {Defect::kNoNackLoss, "no-nack-loss", "a PSN hole never draws a loss NACK", kNackLoss},
    {Defect::kAcceptOutOfWindow, "accept-out-of-window", "PSNs beyond mpr_dest x 128 are placed, no type-4 feedback", kWindow},
    {Defect::kProbeWrongEv, "probe-wrong-ev", "an EV probe leaves on a different EV than the one it tests", kProbePath},
    {Defect::kNoServiceTime, "no-service-time", "feedback never carries a service time", kSvc},
    {Defect::kAnswerRead, "answer-read", "a READ request draws an ACK instead of an invalid-request NAK (0x61)", kForbiddenOpcode},
    {Defect::kAcceptBadRkey, "accept-bad-rkey", "a WRITE with an invalid R_Key draws an ACK, no remote-access NAK (0x62)", kBadRkey},
    {Defect::kAcceptWrongPkey, "accept-wrong-pkey", "a frame with a foreign P_Key is placed and acknowledged", kWrongPkey},
    {Defect::kAcceptBadIcrc, "accept-bad-icrc", "a full-length frame with a wrong ICRC is placed and acknowledged", kBadIcrc},
    {Defect::kNoEvEvents, "no-ev-events", "an EV turns ASSUMED_BAD and no EV event reports it", kEvEventOnState},
    {Defect::kEventsIgnoreMask, "events-ignore-mask", "EV events arrive for states masked out of ev_event_mask", kEvEventOnState},
    {Defect::kImpreciseDropCount, "imprecise-drop-count", "drop_count is 1 after several lost EV events despite PRECISE_DROP_CNT", kEvEventDropCount},
    {Defect::kBadProfileTransition, "bad-profile-transition", "an ONLINE profile goes straight to INIT", kProfileStates},
    {Defect::kAcceptInvalidProfile, "accept-invalid-profile", "an EV profile breaking the field validity rules is accepted", kProfileValidity},
    {Defect::kIgnoreCountLimits, "ignore-count-limits", "ev_count over the maximum or ev_min_active > ev_count is accepted", kCountLimits},
    {Defect::kOnlineUnpopulated, "online-unpopulated", "an explicit profile with UNPOPULATED EVs goes ONLINE", kExplicitPopulated},
    {Defect::kModifyOnlineWithoutCap, "modify-online-without-cap", "an ONLINE profile changes without the MODIFY_ONLINE capability", kModifyOnlineCap},
    {Defect::kProbeReqidMangled, "probe-reqid-mangled", "a probe reply carries req_id + 1, not its request's id", kEpReqidEcho},
    {Defect::kProbeNeedsQp, "probe-needs-qp", "an EV probe from a peer without a QP draws no reply", kEpConnectionless},
    {Defect::kProbeIgnoresTc, "probe-ignores-tc", "EV probe requests carry DSCP 46 whatever req_tc was", kEpDscp},
    {Defect::kReqidReuse, "reqid-reuse", "a new EP request reuses the req_id of one still outstanding", kEpReqidUnique},
    {Defect::kPortStatusOffByOne, "port-status-off-by-one", "port_status masks set bit N for port N (0-based bits)", kEpPortMask},
    {Defect::kNsccMdBelowTarget, "nscc-md-below-target", "bytes in flight collapse under ECN marks while the queueing delay stays below target", kNsccNoMdBelow},
    {Defect::kNsccNoQuickAdapt, "nscc-no-quick-adapt", "after a trim in a starved epoch the bytes in flight stay near the old window", kNsccQuickAdapt},
    {Defect::kNsccExceedMaxCwnd, "nscc-exceed-max-cwnd", "more bytes in flight than the configured max_cwnd", kNsccBounds},
    {Defect::kNeverGiveUp, "never-give-up", "retries never run out: no retry-exceeded completion, the QP never errors", kRetryExceeded},
    {Defect::kHonourGhostAck, "honour-ghost-ack", "after an ACK for never-sent PSNs, lost PSNs are never retransmitted", kGhostAck},
    {Defect::kMprAlwaysDynamic, "mpr-always-dynamic", "the requester window follows the peer's MPR advertisement without dynamic MPR on both QPs", kMprDynamic},
}};

}  // namespace

std::span<const DefectInfo> defect_catalog() { return kCatalog; }

const DefectInfo& defect_info(Defect d) { return kCatalog[static_cast<std::size_t>(d)]; }

std::optional<Defect> defect_by_name(std::string_view name) {
  for (const auto& d : kCatalog) {
    if (d.name == name) return d.id;
  }
  return std::nullopt;
}

std::vector<Defect> DefectSet::list() const {
  std::vector<Defect> out;
  for (const auto& d : kCatalog) {
    if (has(d.id)) out.push_back(d.id);
  }
  return out;
}

std::string DefectSet::to_string() const {
  std::string out;
  for (const auto& d : kCatalog) {
    if (!has(d.id)) continue;
    if (!out.empty()) out += ',';
    out += d.name;
  }
  return out;
}

std::optional<DefectSet> DefectSet::parse(std::string_view csv, std::string* bad) {
  DefectSet set;
  while (!csv.empty()) {
    const auto comma = csv.find(',');
    const auto name = csv.substr(0, comma);
    csv = comma == std::string_view::npos ? std::string_view{} : csv.substr(comma + 1);
    if (name.empty()) continue;
    const auto d = defect_by_name(name);
    if (!d) {
      if (bad) *bad = std::string(name);
      return std::nullopt;
    }
    set.add(*d);
  }
  return set;
}

}  // namespace mrc::ref
