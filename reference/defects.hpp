// The reference endpoint's catalog of named defects: ways a real NIC could get MRC wrong.
//
// The suite proves every check bites by running against `reference:<defect>` and requiring a case
// that covers one of the defect's violated requirements to FAIL (design.md §4). Defects are chosen
// by name when an Endpoint is created; with none chosen every `has()` is one bit test on a zero
// bitset, so the catalog costs nothing when off.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/quirk/quirk_flag.hpp"

namespace mrc::ref {

// The catalog, one line per defect: enum id, the name used on the command line
// (reference:<name>), what a capture shows, and (comment) what the endpoint does wrong. Adding a
// defect: one line here, its behaviour, its symptom test (tests/reference/endpoint/defects_*), and
// its requirement ids in cases/defects.yaml (the harness's map; the reference knows no requirement).
#define MRC_REFERENCE_DEFECTS(X) \
  X(kSpraySingleEv, "spray-single-ev", "every data packet carries the same EV") /* requester sends every packet on its first eligible EV */ \
  X(kUseDeniedEv, "use-denied-ev", "data packets on an EV the controller set DENIED") /* selector does not skip DENIED EVs */ \
  X(kKeepFailedEv, "keep-failed-ev", "data keeps flowing on an EV after it lost packets") /* loss never moves an EV to ASSUMED_BAD */ \
  X(kRetransmitSameEv, "retransmit-same-ev", "a retransmitted PSN reuses the EV that timed out") /* a retransmission goes out on the EV that timed out */ \
  X(kSackOffByOne, "sack-off-by-one", "SACK bitmap bits name PSN+1 of what arrived") /* responder's SACK bitmap is shifted by one PSN */ \
  X(kWrongEvEcho, "wrong-ev-echo", "SACK / NACK entropy names the previous packet's EV") /* responder echoes the EV of the previous packet, not the trigger's */ \
  X(kNoTrimNack, "no-trim-nack", "no TRIM NACK after a trimmed stub arrives") /* responder drops trimmed stubs silently */ \
  X(kPlaceTrimmedStub, "place-trimmed-stub", "bytes of a trimmed stub are written to memory") /* responder places the payload bytes of a trimmed stub */ \
  X(kExceedMprWindow, "exceed-mpr-window", "more un-ACKed PSNs in flight than the MPR window") /* requester sends past min(mpr, peer mpr_dest) x 128 un-ACKed PSNs */ \
  X(kIgnoreWimm, "ignore-wimm", "more WRITE-with-IMM messages outstanding than max_wimm") /* requester ignores the WRITE-with-IMM outstanding limit */ \
  X(kWrongIcrc, "wrong-icrc", "data packets fail the ICRC check") /* requester writes a wrong ICRC on data packets */ \
  X(kUsidReverse, "usid-reverse", "outer DA uSIDs are in reverse order") /* SRv6: uSIDs of the outer DA in reverse order */ \
  X(kSrhWrongSegmentsLeft, "srh-wrong-sl", "single-segment SRH carries Segments Left 0") /* SRv6: single-segment SRH sent with Segments Left = 0 */ \
  X(kNoFlowLabelEv, "no-flow-label-ev", "STEV frames carry flow label 0") /* STEV: flow label left 0 (EV only in the UDP source port) */ \
  X(kEarlyCompletion, "early-completion", "WRITE-with-IMM completes before every PSN is placed") /* WRITE-with-IMM completes when LAST lands, before all PSNs are placed */ \
  X(kDoubleCompletion, "double-completion", "a duplicate LAST-with-IMM completes twice") /* a duplicate LAST-with-IMM completes the message a second time */ \
  X(kEarlyProbeReuse, "early-probe-reuse", "a failed EV carries data again before hold-down and two probes") /* an ASSUMED_BAD EV is reused after one probe, without the hold-down */ \
  X(kIgnoreMinActive, "ignore-min-active", "fewer than ev_min_active EVs stay in use") /* marks EVs ASSUMED_BAD below the ev_min_active floor */ \
  X(kSlowTimeout, "slow-timeout", "the first retransmission comes 2T after the send, not T") /* ACK timeout twice as long as 1.024 us x 2^timeout */ \
  X(kNsccNoDecrease, "nscc-no-decrease", "the window never shrinks under ECN and delay") /* NSCC never shrinks the window */ \
  X(kNoRethOnMiddle, "no-reth-middle", "MIDDLE/LAST data packets lack the per-packet RETH") /* MIDDLE/LAST packets carry no RETH (classic RC framing) */ \
  X(kGoBackN, "go-back-n", "PSNs the SACK reported received are sent again") /* ignores SACK: retransmits everything from the first hole */ \
  X(kNoCeSack, "no-ce-sack", "an ECN-CE marked packet draws no SACK of its own, m stays NONE") /* responder treats a CE mark as any other packet */ \
  X(kAcceptOutOfWindow, "accept-out-of-window", "PSNs beyond mpr_dest x 128 are placed, no type-4 feedback") /* responder places PSNs beyond its mpr_dest window */ \
  X(kProbeWrongEv, "probe-wrong-ev", "an EV probe leaves on a different EV than the one it tests") /* EV probes leave on a different EV than the one they test */ \
  X(kNoTsReflect, "no-ts-reflect", "SACKs reflect 0, not the trigger's TSETH timestamp") /* responder leaves CC_STATE.tx_timestamp 0 */ \
  X(kAnswerRead, "answer-read", "a READ request draws an ACK instead of an invalid-request NAK (0x61)") /* responder acknowledges a READ request as executed, no invalid-request NAK */ \
  X(kAcceptBadRkey, "accept-bad-rkey", "a WRITE with an invalid R_Key draws an ACK, no remote-access NAK (0x62)") /* responder ACKs a WRITE with a bad R_Key (not placed), no remote-access NAK */ \
  X(kAcceptWrongPkey, "accept-wrong-pkey", "a frame with a foreign P_Key is placed and acknowledged") /* responder places and ACKs frames whose P_Key is not the QP's */ \
  X(kAcceptBadIcrc, "accept-bad-icrc", "a full-length frame with a wrong ICRC is placed and acknowledged") /* responder places and ACKs full-length frames whose ICRC is wrong */ \
  X(kNoEvEvents, "no-ev-events", "an EV turns ASSUMED_BAD and no EV event reports it") /* never raises EV events */ \
  X(kEventsIgnoreMask, "events-ignore-mask", "EV events arrive for states masked out of ev_event_mask") /* raises EV events for states masked out of ev_event_mask */ \
  X(kImpreciseDropCount, "imprecise-drop-count", "drop_count is 1 after several lost EV events despite PRECISE_DROP_CNT") /* EV event drop_count is a 0/1 flag despite PRECISE_DROP_CNT */ \
  X(kBadProfileTransition, "bad-profile-transition", "an ONLINE profile goes straight to INIT") /* accepts every profile state transition (e.g. ONLINE -> INIT) */ \
  X(kAcceptInvalidProfile, "accept-invalid-profile", "an EV profile breaking the field validity rules is accepted") /* accepts EV profile fields that break the validity rules */ \
  X(kIgnoreCountLimits, "ignore-count-limits", "ev_count over the maximum or ev_min_active > ev_count is accepted") /* accepts ev_count over the per-profile maximum, ev_min_active > ev_count */ \
  X(kOnlineUnpopulated, "online-unpopulated", "an explicit profile with UNPOPULATED EVs goes ONLINE") /* an explicit EV profile goes ONLINE with UNPOPULATED EVs */ \
  X(kModifyOnlineWithoutCap, "modify-online-without-cap", "an ONLINE profile changes without the MODIFY_ONLINE capability") /* changes ONLINE EV/CC profiles without the MODIFY_ONLINE capability */ \
  X(kProbeReqidMangled, "probe-reqid-mangled", "an endpoint response carries id + 1, not its request's id") /* endpoint responder answers with the request id + 1 in PSN[15:0] */ \
  X(kProbeNeedsQp, "probe-needs-qp", "an EV probe from a peer without a QP draws no reply") /* EP responder ignores probes from a peer it has no QP with */ \
  X(kProbeIgnoresTc, "probe-ignores-tc", "EV probe requests carry DSCP 46 whatever req_tc was") /* EV probes leave with DSCP 46 whatever req_tc the caller gave */ \
  X(kReqidReuse, "reqid-reuse", "a new EP request reuses the req_id of one still outstanding") /* EP requester hands out the previous req_id while its request is outstanding */ \
  X(kPortStatusDownPortUp, "port-status-down-port-up", "a port-status update marks an administratively down port usable") /* port-status updates report every configured port, down ones too */ \
  X(kNsccMdBelowTarget, "nscc-md-below-target", "bytes in flight collapse under ECN marks while the queueing delay stays below target") /* NSCC cuts the window on ECN marks even while the delay is below target */ \
  X(kNsccNoQuickAdapt, "nscc-no-quick-adapt", "after a trim in a starved epoch the bytes in flight stay near the old window") /* NSCC QuickAdapt never fires */ \
  X(kNsccExceedMaxCwnd, "nscc-exceed-max-cwnd", "more bytes in flight than the configured max_cwnd") /* NSCC window runs up to 4 x max_cwnd */ \
  X(kNeverGiveUp, "never-give-up", "retries never run out: no retry-exceeded completion, the QP never errors") /* requester retries forever, whatever retry.exp_cnt says */ \
  X(kHonourGhostAck, "honour-ghost-ack", "after an ACK for never-sent PSNs, lost PSNs are never retransmitted") /* requester takes an ACK for PSNs never sent as acknowledging all it has out */ \
  X(kMprAlwaysDynamic, "mpr-always-dynamic", "the requester window follows the peer's MPR advertisement without dynamic MPR on both QPs") /* requester follows MPR advertisements without dynamic MPR on both QPs */ \
  X(kAcceptWrongQpn, "accept-wrong-qpn", "a WRITE for a destination QP that does not exist is placed and acknowledged") /* responder hands frames for an unknown QPN to its first QP */ \
  X(kAcceptTruncated, "accept-truncated", "a frame cut inside its headers draws an ACK") /* responder answers a frame too short for its BTH and RETH */ \
  X(kAckBeforeCack, "ack-before-cack", "a Transport ACK names a packet that asked (A) while a hole is before it") /* responder ACKs the A packet's PSN at once */ \
  X(kLastRethLenMtu, "last-reth-len-mtu", "the LAST packet's RETH names the message rounded up to whole MTUs") /* requester writes packets x path MTU, not the message length, as the last packet's RETH length */ \
  X(kMethMsnPerPacket, "meth-msn-per-packet", "METH msn counts packets, not messages") /* requester numbers every packet's METH msn by its PSN */ \
  X(kTailBytesUnplaced, "tail-bytes-unplaced", "the last bytes of a packet whose payload is not a multiple of 64 never land") /* responder writes whole 64-byte blocks of each payload only */ \
  X(kRegionEndOffByOne, "region-end-off-by-one", "a WRITE ending one byte past its region draws an ACK, no NAK 0x62") /* responder's bounds check lets a write run one byte past the region */ \
  X(kRegionEndExclusive, "region-end-exclusive", "a WRITE ending at its region's last byte draws NAK 0x62") /* responder's bounds check refuses a write that ends exactly at the region end */ \
  X(kSackNoWrap, "sack-no-wrap", "SACK bitmaps omit PSNs past 0xFFFFFF while the cumulative ACK is below the wrap") /* responder compares SACK PSNs with ePSN without the 24-bit wrap */ \
  X(kSackNoLastBit, "sack-no-last-bit", "the last SACK bit (PSN base + 63) is never set") /* responder's SACK bitmap covers 63 PSNs */ \
  X(kUsidShortContainer, "usid-short-container", "the last 16-bit uSID slot of the outer DA is always zero") /* SRv6: the DA container holds 14 EV bytes, the last uSID slot is End-of-Carrier */ \
  X(kEvScatter16, "ev-scatter-16", "EV bits a field's mask places above bit 15 are 0 on the wire") /* EV expansion scatters into a 16-bit register */ \
  X(kBackoffAddsT, "backoff-adds-t", "exponential retries wait 2T, 3T, 4T, ... instead of 2T, 4T, 8T") /* retry linear + j waits T x (j + 1) */ \
  X(kNoBackoffCap, "no-backoff-cap", "a retry waits longer than 2^24 x 1.024 us") /* the exponential backoff is not capped */ \
  X(kTimeoutCap20, "timeout-cap-20", "with timeout > 20 the first retransmission comes 1.07 s after the send") /* ACK timeout exponent cut to 20 */ \
  X(kRetryOneExtra, "retry-one-extra", "a PSN is sent once more than 1 + linear + exp times before the QP errors") /* one retry more than retry.linear + retry.exp */ \
  X(kExp25Finite, "exp25-finite", "with exp_cnt 25 the QP errors after 25 exponential retries") /* exp_cnt 25 counted as 25 retries, not infinite */ \
  X(kDropEncapsulated, "drop-encapsulated", "a WRITE that arrives still SRv6-encapsulated is dropped: no ACK, nothing placed") /* responder takes only the decapsulated form of W1's two */ \
  X(kTrimNackIgnored, "trim-nack-ignored", "a PSN named by a NACK TRIMMED is resent only after its ACK timeout") /* requester ignores NACK TRIMMED */ \
  X(kTrimMarksBad, "trim-marks-bad", "an EV named by a NACK TRIMMED turns ASSUMED_BAD (an EV event) instead of SKIP") /* trim NACK treated as a path failure */ \
  X(kFeedbackInDataClass, "feedback-data-class", "SACKs, NACKs and Transport ACKs carry the configured data DSCP, not the Control class's") /* responder sends feedback in the Data class */ \
  X(kTrimByLength, "trim-by-length", "a trimmed packet that kept more than 512 payload bytes draws no NACK and is dropped") /* trims recognised by a short length, not by DSCP */ \
  X(kDataNotEct, "data-not-ect", "data packets are sent Not-ECT (ECN field 0)") /* no switch can mark the data, so congestion shows as loss */ \
  X(kSrv6TagConstant, "srv6-tag-constant", "every SRv6 data packet carries the same EV tag (inner sport 0xC000, flow label 0)") /* SRv6: the EV tag ignores the EV, so feedback cannot name a path */ \
  X(kSkipIgnored, "skip-ignored", "the EV a SKIP_ONCE SACK or NACK TRIMMED named carries the very next data packet") /* SKIP_ONCE and NACK TRIMMED leave the named EV GOOD */ \
  X(kPeerPortStatusIgnored, "peer-port-status-ignored", "data keeps leaving on a plane after the peer's port-status update reported its port down") /* received port-status updates change nothing */ \
  X(kPdcidZero, "pdcid-zero", "SACKs and NACKs carry spdcid = dpdcid = 0") /* PDC ids left 0 instead of the QPNs' low 16 bits */ \
  X(kNsccZeroLiteral, "nscc-zero-literal", "with max_md_jump, gamma and qa_gate configured 0 the window never shrinks under ECN and delay") /* NSCC takes fields left 0 literally instead of the UEC defaults */ \
  X(kRttAnySack, "rtt-any-sack", "after a late first copy of a retransmitted packet is answered, the window collapses under ECN marks with no queue") /* every SACK's reflected timestamp is an RTT sample, retransmitted or not */ \
  X(kRkeyIndexOnly, "rkey-index-only", "a WRITE with the region's R_Key index but a wrong key byte is placed and acknowledged") /* the R_Key check matches the region index and ignores the key byte */ \
  X(kQpnLow16, "qpn-low-16", "a WRITE for the QPN XOR 0x10000 is placed and acknowledged") /* QPs are found by the low 16 bits of BTH.DestQP (as wide as a PDC id) */ \
  X(kDscpHardcoded, "dscp-hardcoded", "data and control frames carry the W13 default DSCPs (10, 46), not the configured ones") /* the endpoint ignores its configured DSCP values and uses the W13 defaults */ \
  X(kGhostAckBoundary, "ghost-ack-boundary", "after an ACK one PSN past the last PSN sent, lost PSNs are never retransmitted") /* the ghost-ACK test is off by one: an ACK of next_psn is believed */ \
  X(kPkeyFullCompare, "pkey-full-compare", "a WRITE whose P_Key differs from the QP's only in the membership bit is dropped") /* the P_Key match compares all 16 bits, membership bit included */ \
  X(kNackTrimmedOnCe, "nack-trimmed-on-ce", "an ECN-CE marked packet is placed and SACKed, and also draws a NACK TRIMMED naming it") /* the receive path takes the CE codepoint for a trim as well */ \
  X(kNsccMdEveryMark, "nscc-md-every-mark", "a burst of ECN marks inside one base RTT shrinks the window once per mark, to a sixteenth after four") /* NSCC's multiplicative decrease has no once-per-base-RTT hold-off */ \
  X(kNsccQaOneMtu, "nscc-qa-one-mtu", "after a trim in a starved epoch the bytes in flight fall to about one MTU, far below what the epoch achieved") /* QuickAdapt sets the window to one MTU, not to the bytes achieved */ \
  X(kNsccQaUngated, "nscc-qa-ungated", "a trim in an epoch that achieved more than MaxWnd / 2^qa_gate still drops the window to the bytes achieved") /* QuickAdapt fires on every trim or loss, whatever the epoch achieved */ \

enum class Defect : std::uint8_t {
#define MRC_DEFECT_ENUM(id, name, symptom) id,
  MRC_REFERENCE_DEFECTS(MRC_DEFECT_ENUM)
#undef MRC_DEFECT_ENUM
  kCount,
};

// DefectSet's capacity; raise it when the catalog outgrows it (and quirk::kMaxFlags with it).
inline constexpr std::size_t kMaxDefects = 128;
static_assert(kMaxDefects <= quirk::kMaxFlags);
static_assert(static_cast<std::size_t>(Defect::kCount) <= kMaxDefects, "the defect catalog outgrew DefectSet");

struct DefectInfo {
  Defect id;
  std::string_view name;         // the name used on the command line: reference:<name>
  std::string_view symptom;      // what a capture shows
};

// The whole catalog, in enum order.
std::span<const DefectInfo> defect_catalog();
const DefectInfo& defect_info(Defect d);
std::optional<Defect> defect_by_name(std::string_view name);

// A set of active defects.
class DefectSet {
 public:
  DefectSet() = default;
  void add(Defect d) { bits_.set(static_cast<std::size_t>(d)); }
  bool has(Defect d) const { return bits_.test(static_cast<std::size_t>(d)); }
  bool empty() const { return bits_.none(); }
  void add_all(const DefectSet& o) { bits_ |= o.bits_; }
  std::vector<Defect> list() const;
  std::string to_string() const;  // "a,b,c" in catalog order; "" when empty

  // Parses "name,name,...". On an unknown name returns nullopt and puts the name in *bad.
  static std::optional<DefectSet> parse(std::string_view csv, std::string* bad = nullptr);

  // The defects whose switch `log` says was read (reference/quirk/quirk_flag.hpp).
  static DefectSet read_in(const quirk::ReadLog& log);

 private:
  std::bitset<kMaxDefects> bits_;
};

// A defect set as the endpoint consults it: every has() is noted in the read log, and so is every
// later read of a flag() handed to a layer (reference/quirk/quirk_flag.hpp says why). Made from a
// plain DefectSet (tests), it logs nothing.
class DefectReads {
 public:
  DefectReads(const DefectSet& set, quirk::ReadLog* log = nullptr)  // NOLINT(google-explicit-constructor)
      : set_(set), log_(log) {}
  bool has(Defect d) const { return flag(d); }
  quirk::Flag flag(Defect d) const { return quirk::Flag(set_.has(d), static_cast<std::uint8_t>(d), log_); }

 private:
  DefectSet set_;
  quirk::ReadLog* log_;
};

}  // namespace mrc::ref
