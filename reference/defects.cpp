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
