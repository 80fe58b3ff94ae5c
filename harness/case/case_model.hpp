// The case model: one spec case as typed data (design.md §2). A Case names the requirements it
// proves (clause ids from cases/clauses.yaml), its level and behaviour class, what the DUT must
// support, the testbed, the configuration applied to both endpoints, a timeline of stimulus steps
// and the checks that judge the capture. Loaded and validated by case_loader.hpp; documented with
// examples in cases/README.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "harness/case/diagnostics.hpp"
#include "harness/case/vocabulary.hpp"

namespace mrc::harness {

// ---------------------------------------------------------------- testbed

struct TestbedSpec {
  std::string preset;               // "mini" | "rack" | "pod"; empty when `file` is set
  std::filesystem::path file;       // a testbed YAML, resolved against the case file's folder
  std::optional<std::uint32_t> planes;      // overrides of the preset
  std::optional<std::uint32_t> hosts;
  std::optional<std::uint32_t> link_gbps;
  std::optional<std::uint32_t> mtu;         // link MTU, bytes
  std::optional<std::uint32_t> trim_bytes;  // switch trim size (W13, default 256)
  // Testbed-layer knobs the case layer does not interpret (validated by the testbed loader).
  std::vector<std::pair<std::string, std::string>> overrides;
  SourceLoc loc;  // where the case names its testbed (the `testbed` value); 0:0 when it names none
  bool operator==(const TestbedSpec&) const = default;
};

// ---------------------------------------------------------------- config

struct EvFormatConfig {
  EvFormatMode mode = EvFormatMode::kStev;
  std::vector<std::uint32_t> widths;  // format-field widths F[0..m-1], bits
};

struct EvFieldConfig {  // one EV-profile field E[i] (mrc-wire-model.md §1.5)
  std::uint32_t width = 0;
  std::uint32_t init = 0;
  std::uint32_t min = 0;
  std::uint32_t max = 0;
  std::uint32_t mask = 0;
};

struct EvEntryConfig {
  std::vector<std::uint8_t> value;  // the EV bit string, MSB first (W2), <= 32 bytes
  std::uint8_t port = 1;            // 1-based egress port = plane
};

struct EvGenerateConfig {  // explicit EVs drawn by the harness from the field ranges
  std::uint64_t seed = 1;
  std::uint32_t count = 0;
};

struct EvProfileConfig {
  EvMode mode = EvMode::kExplicit;
  std::vector<EvFieldConfig> fields;
  std::vector<EvEntryConfig> evs;
  std::optional<EvGenerateConfig> generate;
  std::uint32_t ev_min_active = 0;
  std::vector<std::uint32_t> denied;  // indices into the EV array set DENIED before traffic
  std::uint32_t event_mask = 0x3;     // ev_event_mask, host-API state bits (GOOD | ASSUMED_BAD)

  // EVs in the array: evs.size(), or generate->count; 0 when the DUT owns them (auto / generated
  // mode without a count).
  std::size_t ev_count() const;
};

// mrc_ctl_cc_nscc_cfg; 0 (or absent) means the UEC Table 3-82 default (W14).
struct NsccConfig {
  std::string algorithm = "uet-1.0-nscc";
  bool disable_qa = false;
  std::uint32_t adjust_bytes_threshold = 0;   // bytes
  std::uint32_t adjust_period_threshold = 0;  // ns
  std::uint32_t base_rtt = 0;                 // ns
  double eta = 0;
  double fi = 0;
  double fi_scale = 0;
  double gamma = 0;
  double max_md_jump = 0;
  std::uint32_t max_cwnd = 0;      // bytes
  std::uint8_t qa_gate = 0;
  std::uint32_t qa_threshold = 0;  // ns
  std::uint32_t target_delay = 0;  // ns
};

struct RetryConfig {
  std::uint8_t linear = 7;  // <= 7
  std::uint8_t exp = 25;    // <= 25; 25 = never give up
};

// Per-QP attributes (mrc_qp_attr). Defaults are the host API example's values.
struct QpConfig {
  std::uint32_t count = 1;  // QPs opened with these attributes; traffic steps index them
  std::uint32_t mtu = 4096;  // path MTU: 256, 512, 1024, 2048, 4096
  std::uint8_t mpr = 8;      // requester window, units of 128 PSNs
  std::uint8_t mpr_dest = 8; // responder window, units of 128 PSNs
  std::uint16_t max_wimm = 128;
  std::uint16_t max_wimm_dest = 128;
  std::uint8_t timeout = 8;  // ACK timeout = 1.024 us x 2^timeout, <= 24
  std::uint32_t first_psn = 0;  // starting PSN of every QP in both directions (PSN-wrap cases)
  RetryConfig retry;
  std::vector<QpCap> caps;
};

// What the harness changes about the DUT for one case (`config.device`): capabilities turned
// off, the EV event queue depth, and how often the harness reads EV events. A binding that
// cannot do it makes the case ERROR.
struct DeviceConfig {
  std::vector<Capability> caps_off;
  std::uint32_t event_queue_depth = 0;  // EV events held before the device drops; 0 = its own
  std::uint64_t event_poll_ns = 0;      // read EV events every this many ns; 0 = continuously
};

// config.dscp: the traffic classes' DSCP values the DUT, the harness's peer and the simulated
// fabric are configured with (W13: configuration, not fixed). Unset = the reference's default
// (wire::DscpConfig), filled in where the config is resolved.
struct DscpCaseConfig {
  std::optional<std::uint8_t> trimmable, trimmable_retx, no_trim, trimmed, trimmed_lasthop, control;
  bool any() const { return trimmable || trimmable_retx || no_trim || trimmed || trimmed_lasthop || control; }
};

struct CaseConfig {
  DeviceConfig device;
  DscpCaseConfig dscp;
  std::optional<EvFormatConfig> ev_format;    // absent: the testbed's default
  std::optional<EvProfileConfig> ev_profile;  // absent: the testbed's default
  std::optional<NsccConfig> cc_profile;       // absent: NSCC with defaults
  QpConfig qp;
};

// ---------------------------------------------------------------- stimulus

struct TrafficStep {  // a traffic program: `writes` RDMA WRITEs on one QP
  std::uint32_t qp = 0;
  std::uint32_t writes = 1;
  std::uint64_t size = 0;  // bytes per write
  bool with_imm = false;
  std::optional<std::uint32_t> window;  // writes in flight (closed loop) ...
  std::optional<double> rate_gbps;      // ... or an open-loop offered rate
  std::uint64_t start_ns = 0;
};

struct MethSpec {  // W4
  std::uint16_t msn = 0;
  std::uint16_t rqmsn = 0;
};

struct TsethSpec {  // W4
  std::uint16_t ts = 0;
  bool tsr = false;
  std::uint8_t ftype = 1;
};

struct RethSpec {
  std::uint64_t va = 0;
  std::uint32_t rkey = 0;
  std::uint32_t len = 0;
  // Instead of `va` and `rkey`: the receiver's buffer and R_Key, with the write placed so that it
  // ends this many bytes past the buffer's last byte (0: its last byte is the buffer's last byte).
  std::optional<std::uint32_t> past_end;
  // Instead of `va` and `rkey`: the packet's own address in the receiver's buffer, with the
  // receiver's R_Key XOR this (a near miss of the key the DUT issued).
  std::optional<std::uint32_t> rkey_xor;
};

struct AethSpec {
  std::uint8_t syndrome = 0x1F;
  std::uint32_t msn = 0;
};

// W5: the SETH + CC_STATE of an injected SACK (0xDC); its cack_psn is the frame's `psn`.
struct SackSpec {
  std::uint8_t m = 0;                      // MpVerdict
  bool pr = false;
  std::optional<std::uint32_t> ack_psn;    // default: the frame's psn (offset 0)
  std::uint16_t probe_id = 0;              // with pr
  std::uint32_t entropy = 0;
  std::uint8_t mpr = 0;
  std::int16_t sack_offset = 1;
  std::uint64_t bitmap = 0;                // bit k = PSN cack_psn + sack_offset + k
  std::uint16_t ts = 0;                    // CC_STATE tx_timestamp
  std::uint16_t ooo_count = 0;
  std::uint32_t rcvd_bytes = 0;            // 256-byte units
};

// W7: the NETH of an injected NACK (0xDD); its nack_psn is the frame's `psn`.
struct NackSpec {
  std::uint8_t reason = 0x01;              // TRIMMED
  std::uint32_t entropy = 0;
  std::uint16_t ts = 0;
};

// W9: the PETH of an injected reliability probe (0xDE).
struct ProbeSpec {
  std::uint16_t probe_id = 0;
  std::optional<std::uint16_t> ts;         // none: ftype 0, no timestamp
};

struct PayloadSpec {
  PayloadPattern pattern = PayloadPattern::kIncrement;
  std::uint32_t len = 0;
};

// The ERTH of an injected endpoint request (ep_req, 0xD8) or the EETH of a response (ep_rsp,
// 0xD9) (W10). `id` is the request id, BTH.PSN[15:0]: given, it replaces the low 16 bits of the
// frame's psn (whose bits 23..16 stay, for cases about them).
struct EpSpec {
  std::uint8_t op = 1;  // the 2-bit wire value: 1 EV_PROBE, 0 PORT_STATUS_UPDATE (S1: W10)
  std::optional<std::uint16_t> id;
  std::uint32_t port_status_mask = 0;  // ERTH only
  std::uint16_t tx_timestamp = 0;      // ERTH timestamp / EETH reflection, 128 ns units
};

// A frame the generator injects. Unset optionals take the value the reference endpoint would
// use for this QP (its DestQP, P_Key 0xFFFF, DSCP 10 and ECT(0) for data, ...).
struct FrameSpec {
  std::uint8_t opcode = 0;
  std::uint32_t psn = 0;
  std::optional<std::uint32_t> ev;    // index into the case's EV array
  std::optional<std::uint32_t> dqpn;
  std::optional<std::uint32_t> dqpn_xor;  // instead of dqpn: the QP's own DestQP XOR this
  std::optional<std::uint16_t> pkey;
  std::optional<MethSpec> meth;       // W4: data opcodes (default msn 0, rqmsn 0)
  std::optional<TsethSpec> tseth;     // W4: data opcodes; its presence sets BTH.TS
  std::optional<RethSpec> reth;
  std::optional<std::uint32_t> imm;
  std::optional<AethSpec> aeth;
  std::optional<SackSpec> sack;        // only with opcode sack (0xDC)
  std::optional<NackSpec> nack;        // only with opcode nack (0xDD)
  std::optional<ProbeSpec> probe;      // only with opcode probe (0xDE)
  std::optional<EpSpec> ep;           // only with opcodes ep_req / ep_rsp (0xD8 / 0xD9)
  std::vector<FrameFlag> flags;
  std::optional<PayloadSpec> payload;
  std::optional<std::uint8_t> dscp;
  std::optional<std::uint8_t> ecn;
  IcrcMode icrc = IcrcMode::kGood;
  std::optional<std::uint32_t> truncate;  // keep only the first N bytes of the frame
};

struct ImpairSelect {
  std::vector<std::uint32_t> evs;  // EV indices; empty = any
  std::optional<std::uint32_t> plane;
  std::optional<std::pair<std::uint32_t, std::uint32_t>> psn_range;  // inclusive
  std::optional<std::uint8_t> opcode;  // BTH opcode; empty = any
  std::optional<bool> rtx;             // data packets whose BTH.RTX is this; empty = any packet
  std::optional<std::pair<std::uint64_t, std::uint64_t>> time_window;  // [start, end) ns
  double probability = 1.0;
  std::string link;  // testbed link name; empty = any
};

struct InjectStep {
  std::uint64_t at_ns = 0;
  std::uint32_t port = 1;  // 1-based DUT port it arrives on
  FrameSpec frame;
  // Instead of at at_ns: `delay_ns` after the first packet the DUT sends that this selects (at
  // its first hop; `link` and `probability` are refused). A frame timed by what the DUT did, not
  // by the clock: an ACK while a lost PSN is outstanding comes at that moment whatever the DUT's
  // pace (its congestion window at the testbed's rate, an agent's real-time post).
  std::optional<ImpairSelect> after_packet;
  std::uint64_t delay_ns = 0;
};

struct Wildcard {
  bool operator==(const Wildcard&) const = default;
};
using MatchValue = std::variant<Wildcard, std::uint64_t, bool, std::string>;

struct FieldMatch {
  std::string field;  // canonical name from frame_fields.hpp (aliases resolved)
  MatchValue value;   // opcode names are resolved to numbers
  SourceLoc loc;
};

struct ExpectStep {  // the DUT must send (or, with `absent`, must not send) a matching frame
  std::uint64_t within_ns = 0;  // window length, from the previous step's time
  std::uint64_t tolerance_ns = 0;
  double tolerance_pct = 0;
  std::optional<std::uint32_t> port;
  std::vector<FieldMatch> match;
  bool absent = false;
  // With `absent`: the window opens this long after the previous step, for frames the DUT had
  // already queued on the wire when the step took effect (a port going down cannot recall them).
  std::uint64_t grace_ns = 0;
  std::uint32_t count = 1;  // matching frames required
};

struct ImpairParams {  // which keys a kind allows: impairment_kinds() in stimulus_kinds.hpp
  std::optional<std::uint32_t> bytes;      // trim: keep this many bytes
  std::optional<std::uint32_t> depth;      // reorder: packets to hold back
  std::optional<std::uint64_t> delay_ns;   // reorder / delay
  std::optional<std::uint64_t> jitter_ns;  // delay
  std::optional<std::uint32_t> copies;     // duplicate
  std::optional<std::uint32_t> offset;     // corrupt: byte offset
  std::optional<std::uint8_t> xor_mask;    // corrupt: bits to flip
  std::string target;                      // switch_down: switch name
  std::optional<std::uint32_t> port;       // port_down: 1-based DUT port
};

struct ImpairStep {
  ImpairKind kind = ImpairKind::kDrop;
  ImpairSelect select;
  std::uint64_t at_ns = 0;
  ImpairParams params;
};

// Payloads of the profile operations on the operation slot (EV profile 1 on the case's EV format
// profile, CC profile 1; never the profiles traffic uses). Each attribute written is sent with
// its attribute-mask bit, exactly as written: the loader type-checks them but applies no profile
// rule, since sending invalid profiles is the point.
struct EvProfileOp {
  std::optional<ProfileStateName> state;
  std::optional<EvMode> mode;
  std::optional<std::vector<EvFieldConfig>> fields;
  std::optional<std::uint32_t> count;
  std::optional<std::uint32_t> min_active;
  std::optional<std::uint32_t> event_mask;  // host-API state bits
  std::optional<std::uint64_t> seed;        // generated EVs
};

struct CcProfileOp {
  std::optional<ProfileStateName> state;
  std::optional<std::string> algorithm;
  std::vector<std::pair<std::string, std::string>> config;  // algorithm config, name = value
};

struct ReplaceEvOp {  // REPLACE_EV: each of `evs` replaces one copy (or all) of `from`
  std::optional<EvEntryConfig> from;  // absent: UNPOPULATED (an empty slot)
  std::vector<EvEntryConfig> evs;
  bool all_copies = false;
};

struct ControlStep {  // a control-plane call on the DUT (libmrc-ctl side)
  std::uint64_t at_ns = 0;
  ControlOp op = ControlOp::kDenyEv;
  std::optional<std::uint32_t> ev;    // EV index
  std::optional<std::uint32_t> port;  // 1-based port
  std::optional<std::uint8_t> tc;     // probe_ev: the request's DSCP (req_tc); default 46 (W13)
  ControlResult expect = ControlResult::kOk;
  std::optional<EvProfileOp> ev_profile;  // ev_profile_set
  std::optional<CcProfileOp> cc_profile;  // cc_profile_set
  std::optional<ReplaceEvOp> replace;     // replace_ev
};

using StepBody = std::variant<TrafficStep, InjectStep, ExpectStep, ImpairStep, ControlStep>;

struct StimulusStep {
  SourceLoc loc;
  StepBody body;
  std::string_view kind() const;  // "traffic", "inject", ...
};

// ---------------------------------------------------------------- checks

struct GoldenCheck {
  std::filesystem::path pcap;       // relative to the repository root (pcaps/...)
  std::vector<std::string> masks;   // frame fields ignored in the diff
  std::uint32_t window = 1;         // packets inside which order does not matter (spray window)
  std::uint64_t tolerance_ns = 0;
  double tolerance_pct = 0;
};

struct DistributionCheck {
  DistributionOver over = DistributionOver::kEv;
  GofTest test = GofTest::kChi2;
  double alpha = 0.001;       // false-fail rate
  double effect_size = 0.1;   // Cohen's w the test must detect
  double power = 0.9;         // probability of detecting it; sets the minimum sample size
  std::optional<std::uint32_t> qp;
};

struct TimingCheck {
  TimingMetric metric = TimingMetric::kStopUsingFailed;
  std::uint64_t bound_ns = 0;           // upper bound on the chosen percentile
  std::optional<std::uint64_t> min_ns;  // lower bound (hold-downs, timeouts)
  std::uint32_t trials = 1;
  double percentile = 100;
  // throughput_recovered only: the sliding window the DUT's data rate is measured over, and the
  // share of its pre-fault rate that counts as recovered.
  std::uint64_t window_ns = 20'000;
  double recovered_pct = 90;
};

// A named protocol invariant; parameter keys depend on the name (invariant_names()).
struct InvariantCheck {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;  // validated, as written
};

struct PositiveControlCheck {  // proves the run exercised the DUT at all
  std::uint64_t min_packets = 1;
  std::uint64_t min_bytes = 0;
};

struct FieldCheck {  // every selected frame's `field` must satisfy the predicate
  std::vector<FieldMatch> select;
  std::string field;
  struct Equals { MatchValue value; };
  struct In { std::vector<MatchValue> values; };
  struct Range { std::uint64_t lo = 0; std::uint64_t hi = 0; };
  std::variant<Equals, In, Range> predicate;
  std::uint64_t min_count = 0;  // at least this many frames are selected (0: no floor)
};

using CheckParams = std::variant<GoldenCheck, DistributionCheck, TimingCheck, InvariantCheck,
                                 PositiveControlCheck, FieldCheck>;

struct Check {
  SourceLoc loc;
  std::string name;                  // optional label for reports
  std::vector<std::string> clauses;  // subset of the case's clauses this check proves
  CheckParams params;
  // Not a key: the strongest level among the clauses it proves (clauses.yaml), never stronger than
  // the case's level. Its FAIL counts at that level (CaseResult::fail_level).
  Level level = Level::kMust;
  std::string_view type() const;     // "golden", "distribution", ...
};

// ---------------------------------------------------------------- case

struct Case {
  std::filesystem::path file;
  std::string id;  // <area>-<v|i|o>-<nnn>
  SourceLoc id_loc;  // where the id is written
  Area area = Area::kSpray;
  std::uint32_t number = 0;  // the <nnn> part
  std::string title;
  std::vector<std::string> clauses;
  Level level = Level::kMust;
  // Not a key: model when any of `clauses` rests on the wire model (clauses.yaml `basis`), so
  // reports can tell what a verdict stands on.
  Basis basis = Basis::kPublished;
  Behaviour behaviour = Behaviour::kValid;
  std::string rationale;
  std::vector<std::string> tags;
  std::vector<Capability> requires_caps;  // YAML key `requires`
  TestbedSpec testbed;
  Role role = Role::kBoth;
  CaseConfig config;
  std::vector<StimulusStep> stimulus;
  std::vector<Check> checks;
  std::uint32_t timeout_s = 30;
  std::uint64_t seed = 1;
  // `timing: scales`: every time in the case that follows the ACK timeout is written in T, so a
  // runner may raise config.qp.timeout where the wire's round trip is too long for it
  // (LoadOptions::timeout). Else (`fixed`) the times stand as written. Without the key, a case
  // that writes no time at all scales (nothing in it follows T) and any other is fixed.
  bool timing_scales = false;
  // Some time is written in F (a data frame at the testbed's rate), evaluated at `spray_bps`: the
  // runner loads the case again where its testbed sprays at another rate (LoadOptions::spray_bps).
  bool frame_timed = false;
  // Some time is written in T: a window the case watches for as long as the DUT's timer, which
  // must outlast the testbed's crossings even where no traffic of the DUT's runs on that timer.
  bool t_timed = false;
  std::uint64_t spray_bps = 0;
  std::uint64_t traffic_bps = 0;  // its lowest open-loop traffic rate, which F follows when lower

  bool has_tag(std::string_view tag) const;
  bool requires_cap(Capability c) const;
};

}  // namespace mrc::harness
