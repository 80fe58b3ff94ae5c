#include "harness/case/limits.hpp"
#include "harness/case/check_types.hpp"

#include <array>

#include "harness/case/field_match.hpp"
#include "harness/case/frame_fields.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;

// ------------------------------------------------------------------ keys every check has
constexpr std::array<std::string_view, 6> kCheckTypeNames{
    "golden", "distribution", "timing", "invariant", "positive_control", "field"};
constexpr std::array kCommonKeys{
    KeySpec{.name = "type", .kind = VK::kEnum, .required = true, .names = kCheckTypeNames},
    KeySpec{.name = "name", .kind = VK::kString, .help = "label in reports"},
    KeySpec{.name = "clauses", .kind = VK::kList, .item = VK::kString, .min_items = 1, .scalar_as_list = true,
            .help = "the case clauses this check proves (default: all)"},
};
constexpr Schema kCommonSchema{"check", kCommonKeys};

// ------------------------------------------------------------------ golden
constexpr std::array kToleranceKeys{
    KeySpec{.name = "ns", .kind = VK::kUInt},
    KeySpec{.name = "pct", .kind = VK::kNumber, .dmin = 0, .dmax = limits::kMaxTolerancePct, .limit = "kMaxTolerancePct"},
};
constexpr Schema kToleranceSchema{"tolerances", kToleranceKeys};
constexpr std::array kGoldenKeys{
    KeySpec{.name = "pcap", .kind = VK::kString, .required = true, .help = "pcaps/<area>/<file>.pcapng"},
    KeySpec{.name = "masks", .kind = VK::kList, .item = VK::kString, .scalar_as_list = true,
            .help = "frame fields left out of the diff"},
    KeySpec{.name = "window", .kind = VK::kUInt, .umin = 1, .umax = limits::kMaxDiffWindow,
            .help = "packets inside which order does not matter", .limit = "kMaxDiffWindow"},
    KeySpec{.name = "tolerances", .kind = VK::kMap, .schema = &kToleranceSchema},
};
constexpr Schema kGoldenSchema{"golden check", kGoldenKeys, {}, &kCommonSchema};

CheckParams build_golden(const YAML::Node& b, const std::string& path, Validator& v) {
  GoldenCheck g;
  const std::string pcap = read_string(b, "pcap").value_or("");
  g.pcap = pcap;
  if (!pcap.empty()) {
    const bool ext = g.pcap.extension() == ".pcap" || g.pcap.extension() == ".pcapng";
    if (g.pcap.is_absolute() || pcap.find("..") != std::string::npos || !ext) {
      v.error(loc_of(*find_key(b, "pcap")), join_path(path, "pcap"),
              "must be a relative .pcap/.pcapng path inside the repository (pcaps/<area>/...)");
    }
  }
  if (const auto m = find_key(b, "masks")) {
    const std::string mpath = join_path(path, "masks");
    auto one = [&](const YAML::Node& n, const std::string& p) {
      if (const FrameField* f = check_field_name(n, p, key_loc(b, "masks"), v)) g.masks.emplace_back(f->name);
    };
    if (m->IsSequence()) {
      std::size_t i = 0;
      for (auto it = m->begin(); it != m->end(); ++it, ++i) one(*it, index_path(mpath, i));
    } else if (m->IsScalar()) {
      one(*m, mpath);
    }
  }
  g.window = read_uint_as<std::uint32_t>(b, "window").value_or(1);
  if (const auto t = find_key(b, "tolerances")) {
    g.tolerance_ns = read_uint(*t, "ns").value_or(0);
    g.tolerance_pct = read_number(*t, "pct").value_or(0);
  }
  return g;
}

// ------------------------------------------------------------------ distribution
constexpr std::array kDistributionKeys{
    KeySpec{.name = "over", .kind = VK::kEnum, .required = true, .names = kDistributionOverNames},
    KeySpec{.name = "test", .kind = VK::kEnum, .names = kGofTestNames},
    KeySpec{.name = "alpha", .kind = VK::kNumber, .dmin = 0, .dmax = 0.5, .dmin_open = true,
            .help = "false-fail rate"},
    KeySpec{.name = "effect_size", .kind = VK::kNumber, .dmin = 0, .dmax = 1, .dmin_open = true,
            .help = "Cohen's w to detect"},
    KeySpec{.name = "power", .kind = VK::kNumber, .dmin = 0.5, .dmax = 1, .dmax_open = true},
    KeySpec{.name = "qp", .kind = VK::kUInt, .umax = 1023},
};
constexpr Schema kDistributionSchema{"distribution check", kDistributionKeys, {}, &kCommonSchema};

CheckParams build_distribution(const YAML::Node& b, const std::string&, Validator&) {
  DistributionCheck d;
  d.over = read_enum<DistributionOver>(b, "over", kDistributionOverNames).value_or(DistributionOver::kEv);
  d.test = read_enum<GofTest>(b, "test", kGofTestNames).value_or(GofTest::kChi2);
  d.alpha = read_number(b, "alpha").value_or(0.001);
  d.effect_size = read_number(b, "effect_size").value_or(0.1);
  d.power = read_number(b, "power").value_or(0.9);
  d.qp = read_uint_as<std::uint32_t>(b, "qp");
  return d;
}

// ------------------------------------------------------------------ timing
constexpr std::array kTimingKeys{
    KeySpec{.name = "metric", .kind = VK::kEnum, .required = true, .names = kTimingMetricNames},
    KeySpec{.name = "bound_ns", .kind = VK::kTime, .required = true, .umin = 1},
    KeySpec{.name = "min_ns", .kind = VK::kTime, .help = "lower bound (hold-downs, timeouts)"},
    KeySpec{.name = "trials", .kind = VK::kUInt, .umin = 1, .umax = 10000},
    KeySpec{.name = "percentile", .kind = VK::kNumber, .dmin = 0, .dmax = 100, .dmin_open = true},
    KeySpec{.name = "window_ns", .kind = VK::kTime, .umin = 100, .umax = 1'000'000'000,
            .help = "throughput_recovered: rate window (default 20000)"},
    KeySpec{.name = "recovered_pct", .kind = VK::kNumber, .dmin = 0, .dmax = 100, .dmin_open = true,
            .help = "throughput_recovered: share of the pre-fault rate (default 90)"},
};
constexpr Schema kTimingSchema{"timing check", kTimingKeys, {}, &kCommonSchema};

CheckParams build_timing(const YAML::Node& b, const std::string& path, Validator& v) {
  TimingCheck t;
  t.metric = read_enum<TimingMetric>(b, "metric", kTimingMetricNames).value_or(TimingMetric::kStopUsingFailed);
  t.bound_ns = read_time(b, "bound_ns", v).value_or(0);
  t.min_ns = read_time(b, "min_ns", v);
  t.trials = read_uint_as<std::uint32_t>(b, "trials").value_or(1);
  t.percentile = read_number(b, "percentile").value_or(100);
  if (t.min_ns && t.bound_ns && *t.min_ns > t.bound_ns) {
    v.error(key_loc(b, "min_ns"), join_path(path, "min_ns"), "min_ns is larger than bound_ns");
  }
  t.window_ns = read_time(b, "window_ns", v).value_or(t.window_ns);
  t.recovered_pct = read_number(b, "recovered_pct").value_or(t.recovered_pct);
  if (t.metric != TimingMetric::kThroughputRecovered) {
    for (const char* k : {"window_ns", "recovered_pct"}) {
      if (find_key(b, k)) {
        v.error(key_loc(b, k), join_path(path, k), std::string(k) + " applies only to metric throughput_recovered");
      }
    }
  }
  return t;
}

// ------------------------------------------------------------------ invariant
constexpr std::array<KeySpec, 0> kNone{};
constexpr Schema kNoParams{"this invariant takes no params", kNone};
// The feedback-trigger invariants answer "at once"; a slow DUT or capture point may widen that.
constexpr std::array kDelayParams{KeySpec{.name = "max_delay_ns", .kind = VK::kTime, .umin = 1,
                                          .help = "how soon the answer must come (default 20000)"}};
constexpr Schema kDelaySchema{"feedback trigger params", kDelayParams};
constexpr std::array kTsReflectParams{
    KeySpec{.name = "exact", .kind = VK::kUInt, .umax = 1,
            .help = "1: no service time may be added (a QP without SVC_TIME); default 0: up to the time held"}};
constexpr Schema kTsReflectSchema{"ts_reflected params", kTsReflectParams};
constexpr std::array kGraceParams{KeySpec{.name = "grace_ns", .kind = VK::kTime}};
constexpr Schema kGraceSchema{"no_data_on_failed_ev params", kGraceParams};
// A frame that was already queued in the DUT's port when the state changed is not the "next
// packet": `grace_ns` (default 0) forgives frames leaving that soon after the change.
constexpr Schema kStateGraceSchema{"no_denied_ev / no_assumed_bad_ev params", kGraceParams};
constexpr std::array kSackExactParams{
    KeySpec{.name = "grace_ns", .kind = VK::kTime, .umax = 1'000'000'000,
            .help = "a PSN that arrived this long before a feedback frame must have its bit (default 1000)"}};
constexpr Schema kSackExactSchema{"sack_exact params", kSackExactParams};
constexpr std::array kRetryExceededParams{
    KeySpec{.name = "transmissions", .kind = VK::kUInt, .umin = 1, .umax = 64,
            .help = "with no feedback, the PSN that ran out was sent exactly this often: 1 + retry.linear + retry.exp"}};
constexpr Schema kRetryExceededSchema{"retry_exceeded params", kRetryExceededParams};
constexpr std::array kTrimRetxParams{
    KeySpec{.name = "within_ns", .kind = VK::kTime, .required = true, .umin = 1,
            .help = "how soon after a NACK TRIMMED the trimmed PSN must be resent: well below the ACK timeout"}};
constexpr Schema kTrimRetxSchema{"trim_retx_prompt params", kTrimRetxParams};
constexpr std::array kReactionParams{
    KeySpec{.name = "reaction_ns", .kind = VK::kTime,
            .help = "frames the DUT sends sooner than this after the frame that changes what it may do are not judged"}};
constexpr Schema kSkipSchema{"skip_after_congestion params", kReactionParams};
constexpr Schema kPeerPortSchema{"peer_port_status params", kReactionParams};
constexpr std::array kDscpParams{
    KeySpec{.name = "data", .kind = VK::kUInt, .umax = 63, .help = "data DSCP (default: config.dscp.trimmable)"},
    KeySpec{.name = "retx", .kind = VK::kUInt, .umax = 63,
            .help = "a retransmission's other allowed DSCP (default: config.dscp.trimmable_retx)"},
    KeySpec{.name = "feedback", .kind = VK::kUInt, .umax = 63, .help = "feedback DSCP (default: config.dscp.control)"},
    KeySpec{.name = "probe", .kind = VK::kUInt, .umax = 63, .help = "endpoint requests' DSCP (judged only when given)"},
};
constexpr Schema kDscpSchema{"dscp_marking params", kDscpParams};
constexpr std::array kCwndParams{KeySpec{.name = "within_ns", .kind = VK::kTime, .umin = 1}};
constexpr Schema kCwndSchema{"cwnd_decreases params", kCwndParams};
// requester_window / mpr_window / wimm_limit: an explicit limit instead of the configured one.
constexpr std::array kOutstandingParams{KeySpec{.name = "max_outstanding", .kind = VK::kUInt, .umin = 1,
                                                .help = "limit instead of the one the config implies"}};
constexpr Schema kOutstandingSchema{"window params", kOutstandingParams};
constexpr std::array kVariationParams{
    KeySpec{.name = "min_distinct", .kind = VK::kUInt, .umin = 1, .umax = 1'000'000,
            .help = "distinct EVs required in every window (default 2)"},
    KeySpec{.name = "window", .kind = VK::kUInt, .umin = 1, .umax = 1'000'000,
            .help = "consecutive data packets per window (default 8)"},
};
constexpr Schema kVariationSchema{"per_packet_ev_variation params", kVariationParams};
// The NSCC window checks restate the cc_profile values they judge against (W14).
constexpr std::array kInflightParams{
    KeySpec{.name = "max_bytes", .kind = VK::kUInt, .required = true, .umin = 1, .help = "the configured max_cwnd"},
    KeySpec{.name = "slack_bytes", .kind = VK::kUInt, .help = "allowance over max_bytes (default 0)"},
};
constexpr Schema kInflightSchema{"inflight_bounds params", kInflightParams};
constexpr std::array kNoMdParams{
    KeySpec{.name = "target_ns", .kind = VK::kTime, .required = true, .umin = 1, .help = "the configured target_delay"},
    KeySpec{.name = "window_ns", .kind = VK::kTime, .umin = 1, .help = "judging window (default 20000)"},
    KeySpec{.name = "min_pct", .kind = VK::kUInt, .umin = 1, .umax = 100,
            .help = "bytes in flight kept, % of the pre-mark flight (default 75)"},
    KeySpec{.name = "from_ns", .kind = VK::kTime, .umin = 1,
            .help = "judge from this time, against the most in flight in the window before it"},
};
constexpr Schema kNoMdSchema{"no_md_below_target params", kNoMdParams};
constexpr std::array kMdBoundedParams{
    KeySpec{.name = "base_rtt_ns", .kind = VK::kTime, .required = true, .umin = 1, .help = "the configured base_rtt"},
    KeySpec{.name = "react_ns", .kind = VK::kTime, .umin = 1,
            .help = "how soon the DUT refills its window after feedback (default 5000)"},
    KeySpec{.name = "max_md_pct", .kind = VK::kUInt, .umax = 99,
            .help = "the most one decrease may take, % of the window (default 50: max_md_jump)"},
    KeySpec{.name = "mtu", .kind = VK::kUInt, .umin = 256, .umax = 4096, .help = "default 4096"},
};
constexpr Schema kMdBoundedSchema{"md_bounded params", kMdBoundedParams};
constexpr std::array kQuickAdaptParams{
    KeySpec{.name = "max_cwnd", .kind = VK::kUInt, .required = true, .umin = 1, .help = "MaxWnd, bytes"},
    KeySpec{.name = "epoch_ns", .kind = VK::kTime, .required = true, .umin = 1, .help = "base_rtt + target_delay"},
    KeySpec{.name = "qa_gate", .kind = VK::kUInt, .umax = 31, .help = "default 3"},
    KeySpec{.name = "within_ns", .kind = VK::kTime, .umin = 1, .help = "reaction time (default 100000)"},
    KeySpec{.name = "mtu", .kind = VK::kUInt, .umin = 256, .umax = 4096, .help = "default 4096"},
    KeySpec{.name = "slack_pct", .kind = VK::kUInt, .umax = 1000, .help = "allowance over (and under) the achieved bytes (default 10)"},
    KeySpec{.name = "min_epoch_ns", .kind = VK::kTime, .umin = 1,
            .help = "the shortest epoch the DUT can have; given, the window must not fall below the achieved bytes, nor fall at all after a full epoch"},
    KeySpec{.name = "react_ns", .kind = VK::kTime, .help = "time to refill to the new window (default min_epoch_ns)"},
};
constexpr Schema kQuickAdaptSchema{"quick_adapt params", kQuickAdaptParams};
constexpr std::array kReqIdParams{KeySpec{.name = "in_flight_ns", .kind = VK::kTime, .umin = 1,
                                          .help = "how long an unanswered request may still draw a response (default 100000)"}};
constexpr Schema kReqIdSchema{"req_id_not_reused params", kReqIdParams};

constexpr std::array kInvariants{
    InvariantType{"no_denied_ev", &kStateGraceSchema, "no data frame or reliability probe leaves on an EV the controller DENIED"},
    InvariantType{"every_psn_delivered", &kNoParams, "every PSN sent is placed exactly once at the responder"},
    InvariantType{"completions_exactly_once", &kNoParams, "each WRITE-with-IMM completes once"},
    InvariantType{"completion_after_all_psns", &kNoParams, "a WRITE-with-IMM completes only after all its PSNs are placed"},
    InvariantType{"sack_consistent", &kNoParams, "SACK bitmaps name exactly the PSNs that arrived"},
    InvariantType{"sack_exact", &kSackExactSchema,
                  "a SACK bit is set exactly when its PSN arrived: no bit without the PSN, no arrived PSN in range without its bit"},
    InvariantType{"ev_echo_matches", &kNoParams, "feedback echoes the EV of its triggering packet"},
    InvariantType{"reth_every_packet", &kNoParams, "every data packet carries a RETH: its own address, the message's R_Key and length (W4)", true},
    InvariantType{"meth_every_packet", &kNoParams, "every data packet carries a METH: one msn per message, +1 per message (W4)", true},
    InvariantType{"icrc_valid", &kNoParams, "every frame the DUT sends has a correct ICRC", true},
    InvariantType{"allowed_opcodes", &kNoParams, "only WRITE, WRITE-with-IMM, ACK and endpoint opcodes", true},
    InvariantType{"requester_window", &kOutstandingSchema, "un-ACKed PSNs never exceed min(mpr, mpr_dest) x 128"},
    InvariantType{"responder_window", &kNoParams, "PSNs beyond the mpr_dest window are neither placed nor acknowledged (dropped, or a NACK PSN_OOR_WINDOW; W12)"},
    InvariantType{"wimm_limit", &kOutstandingSchema, "outstanding WRITE-with-IMM never exceed min(max_wimm, max_wimm_dest)"},
    InvariantType{"retx_different_ev", &kNoParams, "a retransmission never reuses the EV that timed out"},
    InvariantType{"selective_retx", &kNoParams, "no PSN reported received by SACK is sent again"},
    InvariantType{"trim_nack_per_stub", &kNoParams, "every trimmed packet of a PSN not yet received draws a NACK TRIMMED (W7, W13)"},
    InvariantType{"stub_not_placed", &kNoParams, "no byte of a trimmed stub is written"},
    InvariantType{"injected_placed", &kNoParams, "every injected WRITE the DUT must take is placed and acknowledged"},
    InvariantType{"sack_triggers", &kDelaySchema,
                  "a data packet with BTH.A or BTH.RTX, ECN-CE marked, or a duplicate draws a SACK naming it (W6)"},
    InvariantType{"ce_skip_once", &kDelaySchema,
                  "an ECN-CE marked packet draws a SACK with m = SKIP_ONCE; SKIP_ONCE names only marked ones (W6, W11)"},
    InvariantType{"transport_ack", &kDelaySchema,
                  "a packet with BTH.A draws a Transport ACK once cumulatively received; none beyond it (W8)"},
    InvariantType{"probe_answered", &kDelaySchema, "every reliability probe draws a SACK with pr = 1 and its probe_id (W9)"},
    InvariantType{"ts_reflected", &kTsReflectSchema, "SACKs and NACKs reflect their trigger's timestamp (W5, W7, W9)"},
    InvariantType{"probe_on_tested_ev", &kNoParams, "an EV probe leaves on the EV it tests"},
    InvariantType{"ev_events", &kNoParams,
                  "EV events name a table EV and a state in ev_event_mask; every monitored entry is reported"},
    InvariantType{"control_results", &kNoParams, "every control step's call returned the result the step expects"},
    InvariantType{"ev_event_drop_count", &kNoParams,
                  "EV event drop counts cover the lost events (exact with precise_drop_count, else a 0/1 flag)"},
    InvariantType{"ev_min_active", &kNoParams, "at least ev_min_active EVs stay in use"},
    InvariantType{"no_data_on_failed_ev", &kGraceSchema, "after a failure, no data on the failed EV past grace_ns"},
    InvariantType{"no_rnr", &kNoParams, "the DUT never sends an RNR NAK", true},
    InvariantType{"dscp_marking", &kDscpSchema, "data, retransmissions, feedback and probes carry their configured DSCP (W13)", true},
    InvariantType{"ecn_capable", &kNoParams, "data frames are sent ECN-capable, ECT(0) or ECT(1)", true},
    InvariantType{"traffic_classes", &kNoParams, "one Data DSCP for first transmissions, at most one more for retransmissions, one Control DSCP of its own for feedback and endpoint responses", true},
    InvariantType{"trim_retx_prompt", &kTrimRetxSchema, "a PSN a NACK TRIMMED names is resent within within_ns, not on the ACK timeout"},
    InvariantType{"congestion_not_bad", &kNoParams, "an EV named by SACK SKIP_ONCE or NACK TRIMMED raises no ASSUMED_BAD event"},
    InvariantType{"skip_after_congestion", &kSkipSchema,
                  "an EV named by SACK SKIP_ONCE or NACK TRIMMED misses its next turn: the DUT's next data packet is on another EV (W11)"},
    InvariantType{"peer_port_status", &kPeerPortSchema,
                  "no data on a plane whose far port the peer's last port-status update reported down (either mask numbering, W10)"},
    InvariantType{"pdc_ids", &kNoParams, "SACKs, NACKs and probes carry the two QPNs' low 16 bits as spdcid/dpdcid, either order (W5)", true},
    InvariantType{"stev_placement", &kNoParams, "STEV: flow label and UDP source port carry the EV (W2)", true},
    InvariantType{"udp_placement", &kNoParams, "UDP mode: the EV only in the source port, flow label 0", true},
    InvariantType{"srv6_layout", &kNoParams, "SRv6: DA is the uSID container, SRH single segment, one EV tag per path (W1, W2)", true},
    InvariantType{"retry_exceeded", &kRetryExceededSchema, "when retries run out the QP errors with a retry-exceeded completion and sends nothing more"},
    InvariantType{"cwnd_decreases", &kCwndSchema, "the sending rate drops under ECN and delay within within_ns"},
    InvariantType{"silently_dropped", &kNoParams, "injected invalid frames draw no feedback and are not placed"},
    InvariantType{"not_placed", &kNoParams, "injected frames write nothing to memory"},
    InvariantType{"no_assumed_bad_ev", &kStateGraceSchema, "no data frame leaves on an EV the DUT reported ASSUMED_BAD"},
    InvariantType{"consecutive_evs_differ", &kNoParams, "the first copies of consecutive PSNs of a QP leave on different EVs"},
    InvariantType{"per_packet_ev_variation", &kVariationSchema,
                  "every window of data packets uses at least min_distinct EVs"},
    InvariantType{"data_verified", &kNoParams, "every posted write's destination bytes equal its source"},
    InvariantType{"mpr_window", &kOutstandingSchema, "alias of requester_window"},
    InvariantType{"trim_nack_for_stub", &kNoParams, "alias of trim_nack_per_stub"},
    InvariantType{"inflight_bounds", &kInflightSchema, "the DUT never has more than max_bytes (max_cwnd) in flight"},
    InvariantType{"no_md_below_target", &kNoMdSchema,
                  "ECN marks with the queueing delay below target leave the bytes in flight where they were"},
    InvariantType{"md_bounded", &kMdBoundedSchema,
                  "ECN marks inside one base RTT take one decrease of at most max_md_pct, not one per mark"},
    InvariantType{"quick_adapt", &kQuickAdaptSchema,
                  "a trim or loss in a starved epoch brings the bytes in flight down to the achieved bytes (with min_epoch_ns: not below them, and not at all in a full epoch)"},
    InvariantType{"req_id_not_reused", &kReqIdSchema,
                  "no endpoint request reuses the id (PSN[15:0], W10) of an unanswered one younger than in_flight_ns"},
};

constexpr auto make_invariant_names() {
  std::array<std::string_view, kInvariants.size()> out{};
  for (std::size_t i = 0; i < kInvariants.size(); ++i) out[i] = kInvariants[i].name;
  return out;
}
constexpr auto kInvariantNames = make_invariant_names();

constexpr std::array kInvariantKeys{
    KeySpec{.name = "name", .kind = VK::kEnum, .required = true, .names = kInvariantNames},
    KeySpec{.name = "params", .kind = VK::kCustom, .help = "keys depend on the invariant"},
};
// An invariant's `name` is its identity, so the check label key is not offered again.
constexpr std::array kInvariantCommonKeys{kCommonKeys[0], kCommonKeys[2]};
constexpr Schema kInvariantCommon{"check", kInvariantCommonKeys};
constexpr Schema kInvariantSchema{"invariant check", kInvariantKeys, {}, &kInvariantCommon};

CheckParams build_invariant(const YAML::Node& b, const std::string& path, Validator& v) {
  InvariantCheck c;
  c.name = read_string(b, "name").value_or("");
  const InvariantType* inv = find_invariant_type(c.name);
  const auto p = find_key(b, "params");
  if (!inv || !p) return c;
  if (v.map(*p, *inv->params, join_path(path, "params"), key_loc(b, "params"))) {
    // A time is kept evaluated, so the checks read nanoseconds whatever the file wrote.
    for (auto it = p->begin(); it != p->end(); ++it) {
      const std::string& key = it->first.Scalar();
      const KeySpec* spec = inv->params->find(key);
      const auto t = spec != nullptr && spec->kind == VK::kTime ? read_time(*p, key, v) : std::nullopt;
      c.params.emplace_back(key, t ? std::to_string(*t) : it->second.Scalar());
    }
  }
  return c;
}

// ------------------------------------------------------------------ positive_control
constexpr std::array kPositiveKeys{
    KeySpec{.name = "min_packets", .kind = VK::kUInt, .umin = 1},
    KeySpec{.name = "min_bytes", .kind = VK::kUInt},
};
constexpr Schema kPositiveSchema{"positive_control check", kPositiveKeys, {}, &kCommonSchema};

CheckParams build_positive(const YAML::Node& b, const std::string&, Validator&) {
  PositiveControlCheck p;
  p.min_packets = read_uint(b, "min_packets").value_or(1);
  p.min_bytes = read_uint(b, "min_bytes").value_or(0);
  return p;
}

// ------------------------------------------------------------------ field
constexpr std::array<std::string_view, 3> kPredicates{"equals", "in", "range"};
constexpr std::array kFieldGroups{KeyGroup{kPredicates, true}};
constexpr std::array kFieldKeys{
    KeySpec{.name = "select", .kind = VK::kFieldMap, .help = "frames to look at (default: all from the DUT)"},
    KeySpec{.name = "field", .kind = VK::kCustom, .required = true},
    KeySpec{.name = "equals", .kind = VK::kCustom},
    KeySpec{.name = "in", .kind = VK::kCustom},
    KeySpec{.name = "range", .kind = VK::kList, .item = VK::kUInt, .min_items = 2, .max_items = 2},
    KeySpec{.name = "min_count", .kind = VK::kUInt, .umin = 1,
            .help = "at least this many frames are selected (else FAIL): the selected behaviour happens at all"},
};
constexpr Schema kFieldSchema{"field check", kFieldKeys, kFieldGroups, &kCommonSchema};

CheckParams build_field(const YAML::Node& b, const std::string& path, Validator& v) {
  FieldCheck c;
  if (const auto s = find_key(b, "select")) c.select = build_matches(*s);
  const FrameField* f = nullptr;
  if (const auto n = find_key(b, "field")) f = check_field_name(*n, join_path(path, "field"), key_loc(b, "field"), v);
  if (f) c.field = std::string(f->name);
  auto value_of = [&](const YAML::Node& n, const std::string& p) -> std::optional<MatchValue> {
    if (!f) return std::nullopt;
    std::string why;
    auto mv = match_value(*f, n, &why);
    if (!mv) v.error(loc_of(n).line ? loc_of(n) : key_loc(b, "field"), p, why);
    return mv;
  };
  if (const auto e = find_key(b, "equals")) {
    if (auto mv = value_of(*e, join_path(path, "equals"))) c.predicate = FieldCheck::Equals{*mv};
  } else if (const auto in = find_key(b, "in")) {
    FieldCheck::In set;
    const std::string ipath = join_path(path, "in");
    if (!in->IsSequence() || in->size() == 0) {
      v.error(loc_of(*in).line ? loc_of(*in) : key_loc(b, "in"), ipath, "expected a non-empty list of values");
    } else {
      std::size_t i = 0;
      for (auto it = in->begin(); it != in->end(); ++it, ++i) {
        if (auto mv = value_of(*it, index_path(ipath, i))) set.values.push_back(*mv);
      }
    }
    c.predicate = set;
  } else if (find_key(b, "range")) {
    const auto r = read_uint_list(b, "range");
    if (r.size() == 2) {
      c.predicate = FieldCheck::Range{r[0], r[1]};
      if (r[0] > r[1]) v.error(key_loc(b, "range"), join_path(path, "range"), "range low end is above its high end");
      if (f && f->kind != FieldValueKind::kUInt && f->kind != FieldValueKind::kOpcode) {
        v.error(key_loc(b, "range"), join_path(path, "range"), "field '" + std::string(f->name) + "' is not numeric");
      }
    }
  }
  c.min_count = read_uint(b, "min_count").value_or(0);
  return c;
}

constexpr std::array kTypes{
    CheckType{"golden", &kGoldenSchema, build_golden, "field-level diff against a golden pcap"},
    CheckType{"distribution", &kDistributionSchema, build_distribution, "goodness-of-fit of spraying"},
    CheckType{"timing", &kTimingSchema, build_timing, "a latency measured from the capture"},
    CheckType{"invariant", &kInvariantSchema, build_invariant, "a named protocol invariant over the run"},
    CheckType{"positive_control", &kPositiveSchema, build_positive, "the run exercised the DUT at all"},
    CheckType{"field", &kFieldSchema, build_field, "a predicate on one field of selected frames"},
};
static_assert(kTypes.size() == std::variant_size_v<CheckParams>);
static_assert(kTypes.size() == kCheckTypeNames.size());

}  // namespace

std::span<const CheckType> check_types() { return kTypes; }

const CheckType* find_check_type(std::string_view name) {
  for (const auto& t : kTypes) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const Schema& common_check_schema() { return kCommonSchema; }

std::span<const InvariantType> invariant_types() { return kInvariants; }

bool judges_own_bytes(const Check& c) {
  if (const auto* f = std::get_if<FieldCheck>(&c.params)) return f->min_count == 0;
  if (const auto* i = std::get_if<InvariantCheck>(&c.params)) {
    const InvariantType* t = find_invariant_type(i->name);
    return t != nullptr && t->own_bytes;
  }
  return false;
}

const InvariantType* find_invariant_type(std::string_view name) {
  for (const auto& i : kInvariants) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

std::string_view Check::type() const { return kTypes[params.index()].name; }

}  // namespace mrc::harness
