// The closed word lists of the case format: areas, behaviour classes, requirement levels, DUT
// roles, capabilities and the enum-valued settings. Each enum has one name table (index = enum
// value) so loaders, reports and the README agree on spelling; parse_enum() turns a spelling back
// into the enum and the tables feed "did you mean" suggestions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "harness/agentproto/capabilities.hpp"

namespace mrc::harness {

// Case areas: the folder under cases/ and the first part of a case id.
enum class Area : std::uint8_t { kSpray, kReorder, kFailover, kSrcroute, kEvctl, kReliab, kInvalid };
inline constexpr std::array<std::string_view, 7> kAreaNames{
    "spray", "reorder", "failover", "srcroute", "evctl", "reliab", "invalid"};

// Clause areas: the case areas plus the wire format and congestion control, which have
// requirements but are exercised from cases in the other areas.
enum class ClauseArea : std::uint8_t {
  kSpray, kReorder, kFailover, kSrcroute, kEvctl, kReliab, kInvalid, kWire, kCc, kEndpoint
};
inline constexpr std::array<std::string_view, 10> kClauseAreaNames{
    "spray", "reorder", "failover", "srcroute", "evctl", "reliab", "invalid", "wire", "cc", "endpoint"};

// ETSI-style behaviour class; its first letter is the middle part of a case id.
enum class Behaviour : std::uint8_t { kValid, kInvalid, kInopportune };
inline constexpr std::array<std::string_view, 3> kBehaviourNames{"valid", "invalid", "inopportune"};
constexpr char behaviour_letter(Behaviour b) { return "vio"[static_cast<int>(b)]; }

// Requirement level; ordered strongest first so `a < b` means "a is stronger than b".
enum class Level : std::uint8_t { kMust, kShould, kMay };
inline constexpr std::array<std::string_view, 3> kLevelNames{"MUST", "SHOULD", "MAY"};

// What a requirement rests on (cases/clauses.yaml `basis`), from the provenance tags of
// mrc-wire-model.md section 5; ordered strongest first so `a < b` means "a rests on firmer ground":
//   published    the host API, a standard, the MRC paper ([A], [B], [P]) and nothing else
//   spec         also MRC 1.0 facts two independent spec-derived sources agree on ([S2])
//   spec-single  also facts only one spec-derived source gives ([S1])
//   model        any part is still the project's own choice ([M])
// A case's basis is the weakest among its clauses (case_basis).
enum class Basis : std::uint8_t { kPublished, kSpec, kSpecSingle, kModel };
inline constexpr std::array<std::string_view, 4> kBasisNames{"published", "spec", "spec-single", "model"};

// The DUT's role in a case.
enum class Role : std::uint8_t { kRequester, kResponder, kBoth };
inline constexpr std::array<std::string_view, 3> kRoleNames{"requester", "responder", "both"};
// `timing`: whether the runner may raise the case's ACK timeout (Case::timing_scales).
inline constexpr std::array<std::string_view, 2> kTimingNames{"fixed", "scales"};
// config.qp.timeout: T = 1.024 us x 2^timeout (W15) up to 2^24 (17.2 s).
inline constexpr std::uint8_t kMaxQpTimeout = 24;

// DUT capabilities a case may require; a DUT that does not declare one makes the case
// UNSUPPORTED instead of FAIL. Named after the host API's device and control-plane caps.
enum class Capability : std::uint8_t {
  kTrimNack,          // MRC_DEVICE_CAP_TRIM_NACK: generates TRIM NACKs
  kDynamicMpr,        // MRC_DEVICE_CAP_DYNAMIC_MPR
  kSvcTime,           // MRC_DEVICE_CAP_SVC_TIME: reports responder service time
  kEvProbe,           // MRC_CTL_OPT_CAP_EP_OP_EV_PROBE: endpoint EV probes
  kPortStatus,        // endpoint PORT_STATUS_UPDATE op
  kSrv6,              // EV format mode SRV6
  kStev,              // EV format mode STEV
  kUdpMode,           // EV format mode UDP
  kModifyOnline,      // MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE
  kCcModifyOnline,    // MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE
  kExplicitRange,     // MRC_CTL_OPT_CAP_EV_EXPLICIT_RANGE
  kPreciseDropCount,  // MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT
  kEvGenerated,       // EV mode GEN (the NIC draws EVs)
  kEvAuto,            // EV mode AUTO (vendor-managed paths)
  kIpv4,              // RoCEv2 over IPv4 (UDP mode only)
};
// The words themselves are the DUT-agent protocol's (one list for cases and agents); the enum
// above indexes into it, in the same order.
inline constexpr const auto& kCapabilityNames = agentproto::kCapabilityNames;
static_assert(kCapabilityNames.size() == static_cast<std::size_t>(Capability::kIpv4) + 1,
              "Capability and agentproto::kCapabilityNames must list the same capabilities");

enum class EvFormatMode : std::uint8_t { kStev, kSrv6, kUdp };
inline constexpr std::array<std::string_view, 3> kEvFormatModeNames{"stev", "srv6", "udp"};

enum class EvMode : std::uint8_t { kAuto, kExplicit, kGenerated };
inline constexpr std::array<std::string_view, 3> kEvModeNames{"auto", "explicit", "generated"};

// Per-QP capability bits (mrc_qp_attr.cap).
enum class QpCap : std::uint8_t { kDynamicMpr, kTrimNackDestUnsupported, kSvcTimeDestUnsupported };
inline constexpr std::array<std::string_view, 3> kQpCapNames{
    "dynamic_mpr", "trim_nack_dest_unsupported", "svc_time_dest_unsupported"};

enum class PayloadPattern : std::uint8_t { kZero, kIncrement, kPrbs };
inline constexpr std::array<std::string_view, 3> kPayloadPatternNames{"zero", "inc", "prbs"};

enum class IcrcMode : std::uint8_t { kGood, kBad };
inline constexpr std::array<std::string_view, 2> kIcrcModeNames{"good", "bad"};

// BTH flag bits an injected frame may set.
// BTH bits: byte 8's A (ack_req), R and RTX (W3; TS follows a `tseth` key), and byte 1 / 4's.
enum class FrameFlag : std::uint8_t { kAckReq, kSolicited, kMigReq, kFecn, kBecn, kR, kRtx };
inline constexpr std::array<std::string_view, 7> kFrameFlagNames{"ack_req", "se", "migreq", "fecn", "becn", "r", "rtx"};

enum class ImpairKind : std::uint8_t {
  kDrop, kTrim, kReorder, kDuplicate, kCorrupt, kDelay,
  kLinkDown, kLinkUp, kSwitchDown, kPortDown, kBlackhole, kMarkCe,
};
inline constexpr std::array<std::string_view, 12> kImpairKindNames{
    "drop", "trim", "reorder", "duplicate", "corrupt", "delay",
    "link_down", "link_up", "switch_down", "port_down", "blackhole", "mark_ce"};

// Control-plane operations a case may schedule on the DUT (the libmrc-ctl side).
enum class ControlOp : std::uint8_t {
  kDenyEv, kAllowEv, kPortAdminDown, kPortAdminUp, kProbeEv, kPortStatusUpdate,
  kProfileOffline, kProfileOnline,
  kEvProfileSet, kCcProfileSet, kReplaceEv,  // on the operation slot (profile 1), cases/README.md
};
inline constexpr std::array<std::string_view, 11> kControlOpNames{
    "deny_ev", "allow_ev", "port_admin_down", "port_admin_up", "probe_ev", "port_status_update",
    "profile_offline", "profile_online", "ev_profile_set", "cc_profile_set", "replace_ev"};

// Profile states of the controller API (EV format, EV and CC profiles).
enum class ProfileStateName : std::uint8_t { kInit, kOffline, kOnline };
inline constexpr std::array<std::string_view, 3> kProfileStateNames{"init", "offline", "online"};

// EV states as ev_event_mask and EV events name them (host-API bit i = index i, UNKNOWN = bit 31).
enum class EvStateName : std::uint8_t { kGood, kAssumedBad, kDenied, kUnknown };
inline constexpr std::array<std::string_view, 4> kEvStateNames{"good", "assumed_bad", "denied", "unknown"};
constexpr std::uint32_t ev_state_bit(EvStateName s) {
  return s == EvStateName::kUnknown ? (1u << 31) : (1u << static_cast<unsigned>(s));
}

// The result a control operation must return ("ok" = success).
enum class ControlResult : std::uint8_t { kOk, kEinval, kEbusy, kEperm, kEnoent, kEopnotsupp, kEtimedout, kEnospc, kE2big };
inline constexpr std::array<std::string_view, 9> kControlResultNames{
    "ok", "EINVAL", "EBUSY", "EPERM", "ENOENT", "EOPNOTSUPP", "ETIMEDOUT", "ENOSPC", "E2BIG"};

enum class DistributionOver : std::uint8_t { kEv, kPlane, kPort };
inline constexpr std::array<std::string_view, 3> kDistributionOverNames{"ev", "plane", "port"};

enum class GofTest : std::uint8_t { kChi2, kG };
inline constexpr std::array<std::string_view, 2> kGofTestNames{"chi2", "g"};

// What a timing check measures; each is a span between two capture events (README, "timing").
enum class TimingMetric : std::uint8_t {
  kStopUsingFailed,      // failure -> last data packet on the failed EV/plane
  kFirstRetxOtherPath,   // failure -> first retransmission on a different EV
  kThroughputRecovered,  // failure -> goodput back to the pre-failure level
  kAckTimeout,           // data send -> first retransmission of it, no feedback in between
  kRetryInterval,        // retransmission -> next retransmission of the same PSN
  kTrimNackLatency,      // trimmed stub arrives -> TRIM NACK leaves
  kFeedbackLatency,      // data arrives -> feedback naming it leaves
  kProbeInterval,        // EV probe -> next probe of the same EV
  kEvReuseDelay,         // EV marked bad -> first data on it again
};
inline constexpr std::array<std::string_view, 9> kTimingMetricNames{
    "stop_using_failed", "first_retx_other_path", "throughput_recovered", "ack_timeout",
    "retry_interval", "trim_nack_latency", "feedback_latency", "probe_interval", "ev_reuse_delay"};

// Looks `name` up in a name table; the enum value is the index.
template <typename E, std::size_t N>
constexpr std::optional<E> parse_enum(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<E>(i);
  }
  return std::nullopt;
}

template <typename E, std::size_t N>
constexpr std::string_view enum_name(const std::array<std::string_view, N>& names, E value) {
  const auto i = static_cast<std::size_t>(value);
  return i < N ? names[i] : std::string_view{"?"};
}

std::string_view to_string(Area v);
std::string_view to_string(ClauseArea v);
std::string_view to_string(Behaviour v);
std::string_view to_string(Level v);
std::string_view to_string(Basis v);
// One phrase on what a basis rests on, for reports: "published sources only", ...
std::string_view basis_meaning(Basis v);
std::string_view to_string(Role v);
std::string_view to_string(Capability v);
std::string_view to_string(EvFormatMode v);
std::string_view to_string(EvMode v);
std::string_view to_string(ImpairKind v);
std::string_view to_string(ControlOp v);
std::string_view to_string(TimingMetric v);

// The EV format mode's capability: a case in that mode must list it in `requires`.
Capability capability_for(EvFormatMode mode);

}  // namespace mrc::harness
