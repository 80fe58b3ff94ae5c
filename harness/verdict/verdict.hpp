// The verdict model: what a check, a case and a run conclude, with the evidence behind it.
//
// Only PASS and FAIL judge the DUT. UNSUPPORTED: the DUT does not declare a capability the case
// needs. INCONCLUSIVE: the harness could not observe enough (capture drops, too few samples for
// the declared power). ERROR: the harness or the DUT binding broke (a hung DUT, a crash, bad
// golden). Results hold no wall-clock values unless asked for, so the same seed gives
// byte-identical reports.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/vocabulary.hpp"
#include "harness/observe/timing_budget.hpp"

namespace mrc::harness {

enum class Verdict : std::uint8_t { kPass, kFail, kUnsupported, kInconclusive, kError };

std::string_view to_string(Verdict v);           // "PASS", "FAIL", ...
std::optional<Verdict> verdict_from_string(std::string_view s);

// How verdicts combine: ERROR > FAIL > INCONCLUSIVE > UNSUPPORTED > PASS. A case with no checks
// that ran is not a PASS (see Combine in verdict.cpp).
Verdict combine(Verdict a, Verdict b);

// One piece of evidence: where to look and what differed, at field level.
struct Evidence {
  std::string pcap;            // evidence file, relative to the run's output folder
  std::int64_t packet_index = -1;  // 0-based index in that pcap (-1: not about one packet)
  std::uint64_t ts_ns = 0;
  std::string field;           // e.g. "bth.psn", "seth.sack_bitmap", "udp.sport"
  std::string expected;
  std::string observed;
  std::string display_filter;  // Wireshark filter that finds the packet, e.g. "frame.number == 12"
  std::string note;
  bool operator==(const Evidence&) const = default;
};

// Data for a chart in the HTML report. What the vectors hold depends on the kind:
// - kBars: a distribution. labels = category names, values = observed, expected = expected
//   count per category, groups = the group of each category (its plane; empty: none).
// - kTimeline: numbers over time. labels = series name per point, values = x (ns),
//   expected = y, markers = vertical lines (ns).
// - kLatency: a duration per trial against its bound, one unit on both axes. labels = series
//   per point (trials, censored trials), values = x (trial start, ns), expected = y (the
//   duration, ns), limits = horizontal lines on the value axis (the bound judged, ns).
// - kEvents: a timeline of events per trial, relative to its fault (a failover timeline).
//   labels = event name per point, values = x (ns since the fault), expected = the row (trial,
//   0-based).
// - kRaster: use over time per row (an EV). labels = row names, groups = each row's group (its
//   plane); values = x (ns, the start of a time bin), expected = the row the point is in;
//   markers = vertical lines (fault times, ns).
struct Chart {
  enum class Kind : std::uint8_t { kBars, kTimeline, kLatency, kEvents, kRaster } kind = Kind::kBars;
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> labels;
  std::vector<double> values;
  std::vector<double> expected;
  std::vector<double> markers;
  std::vector<double> limits;
  std::vector<std::string> groups;
  bool operator==(const Chart&) const = default;
};

struct CheckResult {
  std::string type;       // golden, distribution, timing, invariant, positive_control, field
  std::string name;       // a name unique within the case, e.g. "distribution/plane"
  Verdict verdict = Verdict::kError;
  std::string message;    // one line a stranger can act on
  std::vector<Evidence> evidence;           // the first few differences, in order
  std::map<std::string, double> metrics;    // p_value, effect_size, n, p50_ns, p99_ns, ...
  std::vector<Chart> charts;
  bool operator==(const CheckResult&) const = default;
};

// What an expectation file said about a case, and how the verdict compares.
enum class ExpectationOutcome : std::uint8_t {
  kNone,            // no entry for this case
  kExpected,        // the verdict matches the entry: CI stays green, the report still shows it
  kUnexpectedPass,  // entry said FAIL/ERROR/..., the case passed: reported, the entry is stale
  kUnexpectedOther, // entry said one thing, the case gave another non-PASS verdict
  kExpired,         // the entry's expiry date has passed: reported as an error
};

// What a real-time bridge carried for one case (a DUT on real interfaces; absent on the simulated
// fabric): frames between the fabric and the DUT's interfaces each way, those lost (capture rings,
// the bridge's queue, refused sends), and what it added: the lag towards the DUT (p99, max) and
// the entry delay from it (p99). The report sums them into its bridge-health line. Since 1.5.
struct BridgeStats {
  std::uint64_t to_dut = 0;
  std::uint64_t from_dut = 0;
  std::uint64_t lost = 0;
  std::uint64_t lag_p99_ns = 0;
  std::uint64_t lag_max_ns = 0;
  std::uint64_t entry_p99_ns = 0;
  bool operator==(const BridgeStats&) const = default;
};

struct CaseResult {
  std::string id;
  std::string title;
  std::string area;
  std::string file;                  // the case file, relative to the suite root
  std::vector<std::string> clauses;
  std::string level;                 // MUST / SHOULD / MAY
  // A FAIL only, and only when weaker than `level`: the strongest level among the requirements its
  // FAILing checks prove. A MUST case that failed only a check scoped to SHOULD requirements is an
  // advisory (run_outcome.cpp), not a MUST non-conformance.
  std::string fail_level;
  Basis basis = Basis::kPublished;   // the weakest basis among its clauses (clauses.yaml)
  std::string behaviour;             // valid / invalid / inopportune
  std::vector<std::string> tags;
  std::uint64_t seed = 0;
  Verdict verdict = Verdict::kError;
  std::string message;
  std::vector<CheckResult> checks;
  std::vector<std::string> evidence_files;  // relative to the run's output folder
  std::string evidence_error;  // "" or "<file>: <strerror>" when evidence could not be written
  std::uint64_t sim_time_ns = 0;     // virtual time the case ran for
  TimingBudget timing_budget;        // what the case's testbed declared (timing_budget.hpp); 0 on the sim
  std::optional<BridgeStats> bridge;  // what the real-time bridge carried to and from the DUT
  std::optional<double> wall_ms;     // only with --wall-clock (breaks byte-identical reports)
  ExpectationOutcome expectation = ExpectationOutcome::kNone;
  std::string expectation_reason;
  std::string expectation_link;
  // Every field, so a round trip through run/case_result_codec.hpp is checked whole (a field added
  // here is compared without anyone remembering to).
  bool operator==(const CaseResult&) const = default;
};

struct RunMetadata {
  std::string suite_version;
  std::string git_hash;
  // The wire revision the run was judged on (reference/wire/wire_revision.hpp); empty only in a
  // results.json older than schema 1.4, which did not record it.
  std::string wire;
  std::string dut;                  // e.g. "reference" or "reference:spray-single-ev"
  // The DUT's own word on what it is (DutIdentity::version): an agent's HELLO string and protocol
  // version, a plugin's version; what a certifier reads as the device certified. Since 1.5.
  std::string dut_version;
  std::vector<std::string> dut_capabilities;
  // The harness's side (testbed host 1) when it is not the default in-process reference
  // (`run --peer`, an interop pair), e.g. "reference:sack-off-by-one"; absent otherwise.
  std::optional<std::string> peer;
  std::string testbed;
  std::uint64_t seed = 0;
  std::string command_line;
  std::optional<std::string> started_at;   // only with --wall-clock
  std::optional<double> wall_seconds;      // only with --wall-clock
};

struct RequirementRef {  // a row of the coverage matrix
  std::string id;
  std::string text;
  std::string level;
  std::string source;
  std::vector<std::string> cases;  // ids of the cases that cover it
  Basis basis = Basis::kPublished;  // last, so {id, text, level, source, cases} still reads
};

// Which requirements a run certifies against (`run --profile`, harness/report/run_outcome.hpp):
// full = every MUST case; spec = the MUST cases of published or spec basis (what the host API, the
// standards and two independent readings of the MRC 1.0 document fix); published = the MUST cases
// of published basis only. A failed MUST case the profile does not count is an advisory.
enum class ConformanceProfile : std::uint8_t { kFull, kSpec, kPublished };
inline constexpr std::array<std::string_view, 3> kConformanceProfileNames{"full", "spec", "published"};
std::string_view to_string(ConformanceProfile p);
std::optional<ConformanceProfile> conformance_profile_from_string(std::string_view s);
// Whether a MUST case of basis `b` counts toward conformance under `p`.
bool profile_counts(ConformanceProfile p, Basis b);
// One edge of a requirement from the suite's edge audit (cases/edges.yaml): a boundary value
// or corner situation of the requirement and the cases whose stimulus reaches it.
struct EdgeRef {
  std::string requirement;
  std::string edge;
  std::string what;
  std::vector<std::string> cases;
};

// What a run kept on disk as evidence (results.json `evidence`, since 1.3), and under which
// options. `keep` empty: the run says nothing about evidence (reports rebuilt from an older file).
struct EvidenceVolume {
  std::string keep;     // --evidence: all, failures, none
  std::string snaplen;  // --snaplen: auto, full, or bytes
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  bool operator==(const EvidenceVolume&) const = default;
};

struct RunResult {
  RunMetadata meta;
  EvidenceVolume evidence;
  std::vector<CaseResult> cases;
  std::vector<RequirementRef> requirements;
  // The edge audit, in file order (empty when the suite has none). Shown by index.html only:
  // results.json does not carry it, so a report rebuilt from results.json has no edge table.
  std::vector<EdgeRef> edges;
  bool interrupted = false;  // Ctrl-C or a fatal harness error: the report is partial
  // Why it stopped early ("SIGINT", "SIGTERM", "disk full: <path>: <strerror>", "harness error:
  // <what>") and the ids of the selected cases that did not run, in selection order (schema 1.3).
  std::string interrupt_reason;
  std::vector<std::string> not_run;
  // How the run was asked to judge (`run --profile`, `--strict`); what that makes of the verdicts
  // (conformant, advisories, the exit status) is harness/report/run_outcome.hpp's, alone.
  ConformanceProfile profile = ConformanceProfile::kFull;
  bool strict = false;
  std::map<Verdict, std::size_t> counts() const;
};

}  // namespace mrc::harness
