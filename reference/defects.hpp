// The reference endpoint's catalog of named defects: ways a real NIC could get MRC wrong.
//
// The suite proves every check bites by running against `reference:<defect>` and requiring a case
// that covers one of the defect's violated requirements to FAIL (design.md §4). Defects are chosen
// by name when an Endpoint is created; with none chosen every `has()` is one bit test on a zero
// word, so the catalog costs nothing when off.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mrc::ref {

enum class Defect : std::uint8_t {
  kSpraySingleEv,      // requester sends every packet on its first eligible EV
  kUseDeniedEv,        // selector does not skip DENIED EVs
  kKeepFailedEv,       // loss never moves an EV to ASSUMED_BAD
  kRetransmitSameEv,   // a retransmission goes out on the EV that timed out
  kSackOffByOne,       // responder's SACK bitmap is shifted by one PSN
  kWrongEvEcho,        // responder echoes the EV of the previous packet, not the trigger's
  kNoTrimNack,         // responder drops trimmed stubs silently
  kPlaceTrimmedStub,   // responder places the payload bytes of a trimmed stub
  kExceedMprWindow,    // requester sends past min(mpr, peer mpr_dest) x 128 un-ACKed PSNs
  kIgnoreWimm,         // requester ignores the WRITE-with-IMM outstanding limit
  kWrongIcrc,          // requester writes a wrong ICRC on data packets
  kUsidReverse,        // SRv6: uSIDs of the outer DA in reverse order
  kSrhWrongSegmentsLeft,  // SRv6: single-segment SRH sent with Segments Left = 0
  kNoFlowLabelEv,      // STEV: flow label left 0 (EV only in the UDP source port)
  kEarlyCompletion,    // WRITE-with-IMM completes when LAST lands, before all PSNs are placed
  kDoubleCompletion,   // a duplicate LAST-with-IMM completes the message a second time
  kEarlyProbeReuse,    // an ASSUMED_BAD EV is reused after one probe, without the hold-down
  kIgnoreMinActive,    // marks EVs ASSUMED_BAD below the ev_min_active floor
  kSlowTimeout,        // ACK timeout twice as long as 1.024 us x 2^timeout
  kNsccNoDecrease,     // NSCC never shrinks the window
  kNoRethOnMiddle,     // MIDDLE/LAST packets carry no RETH (classic RC framing)
  kGoBackN,            // ignores SACK: retransmits everything from the first hole
  kNoNackLoss,         // responder never sends a loss NACK
  kAcceptOutOfWindow,  // responder places PSNs beyond its mpr_dest window
  kProbeWrongEv,       // EV probes leave on a different EV than the one they test
  kNoServiceTime,      // responder never reports service time
  kAnswerRead,         // responder acknowledges a READ request as executed, no invalid-request NAK
  kAcceptBadRkey,      // responder ACKs a WRITE with a bad R_Key (not placed), no remote-access NAK
  kAcceptWrongPkey,    // responder places and ACKs frames whose P_Key is not the QP's
  kAcceptBadIcrc,      // responder places and ACKs full-length frames whose ICRC is wrong
  kNoEvEvents,         // never raises EV events
  kEventsIgnoreMask,   // raises EV events for states masked out of ev_event_mask
  kImpreciseDropCount, // EV event drop_count is a 0/1 flag despite PRECISE_DROP_CNT
  kBadProfileTransition,  // accepts every profile state transition (e.g. ONLINE -> INIT)
  kAcceptInvalidProfile,  // accepts EV profile fields that break the validity rules
  kIgnoreCountLimits,  // accepts ev_count over the per-profile maximum, ev_min_active > ev_count
  kOnlineUnpopulated,  // an explicit EV profile goes ONLINE with UNPOPULATED EVs
  kModifyOnlineWithoutCap,  // changes ONLINE EV/CC profiles without the MODIFY_ONLINE capability
  kProbeReqidMangled,  // EP responder answers a probe with req_id + 1
  kProbeNeedsQp,       // EP responder ignores probes from a peer it has no QP with
  kProbeIgnoresTc,     // EV probes leave with DSCP 46 whatever req_tc the caller gave
  kReqidReuse,         // EP requester hands out the previous req_id while its request is outstanding
  kPortStatusOffByOne, // port-status masks use 0-based bits (bit N = port N)
  kNsccMdBelowTarget,  // NSCC cuts the window on ECN marks even while the delay is below target
  kNsccNoQuickAdapt,   // NSCC QuickAdapt never fires
  kNsccExceedMaxCwnd,  // NSCC window runs up to 4 x max_cwnd
  kNeverGiveUp,        // requester retries forever, whatever retry.exp_cnt says
  kHonourGhostAck,     // requester takes an ACK for PSNs never sent as acknowledging all it has out
  kMprAlwaysDynamic,   // requester follows MPR advertisements without dynamic MPR on both QPs
  kCount,
};

struct DefectInfo {
  Defect id;
  std::string_view name;         // the name used on the command line: reference:<name>
  std::string_view symptom;      // what a capture shows
  std::span<const std::string_view> violates;  // requirement ids in cases/clauses.yaml
};

// The whole catalog, in enum order.
std::span<const DefectInfo> defect_catalog();
const DefectInfo& defect_info(Defect d);
std::optional<Defect> defect_by_name(std::string_view name);

// A set of active defects.
class DefectSet {
 public:
  DefectSet() = default;
  void add(Defect d) { bits_ |= bit(d); }
  bool has(Defect d) const { return (bits_ & bit(d)) != 0; }
  bool empty() const { return bits_ == 0; }
  std::vector<Defect> list() const;
  std::string to_string() const;  // "a,b,c" in catalog order; "" when empty

  // Parses "name,name,...". On an unknown name returns nullopt and puts the name in *bad.
  static std::optional<DefectSet> parse(std::string_view csv, std::string* bad = nullptr);

 private:
  static std::uint64_t bit(Defect d) { return std::uint64_t{1} << static_cast<unsigned>(d); }
  std::uint64_t bits_ = 0;
};

}  // namespace mrc::ref
