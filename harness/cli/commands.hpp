// The `mrc-conform` subcommands (one file each, cmd_<name>.cpp) as functions from options to an
// exit code (harness/run/exit_codes.hpp), so tests can call them without a process. main.cpp
// fills the options from the command line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/report/interop_result.hpp"
#include "harness/run/shard.hpp"
#include "harness/run/suite_runner.hpp"

namespace mrc::cli {

// `run`'s options that are checked here, as typed, so that a mistake is exit 2 with a message
// naming the option (an empty string: not given).
struct RunTextOptions {
  std::string seed = {};         // --seed: replaces every case's seed; not a number is exit 2
  std::string agent_token_file = {};  // --agent-token-file: for `--dut agent:...` the token is its first
                                 // line, else $MRC_AGENT_TOKEN; an unreadable file is exit 2
  // --agent-connect-timeout-ms / --agent-call-timeout-ms: the agent binding's connect_timeout and
  // call_timeout (default 5000 each), whole milliseconds in 1 .. kMaxAgentTimeoutMs.
  std::string agent_connect_timeout_ms = {};
  std::string agent_call_timeout_ms = {};
  // --profile: full (every MUST case counts toward conformance), spec (the MUST cases of published
  // or spec basis) or published (those of published basis only); a failed MUST case the profile
  // does not count is an advisory. Empty: full; anything else is exit 2.
  std::string profile = {};
  // --evidence all|failures|none and --snaplen auto|full|N (run/case_evidence.hpp); anything else
  // is exit 2.
  std::string evidence = "all";
  std::string snaplen = "auto";
};
// One hour: no wait of a case can usefully be longer than the longest case (timeout_s <= 3600).
inline constexpr std::uint64_t kMaxAgentTimeoutMs = 3'600'000;

// `run`: every selected case against the DUT, reports into o.out (harness/run/suite_runner.hpp).
// With o.isolation.enabled (--isolate) the suite runner gives each case child the resolved binding
// specs, their wires and timeouts, and the token on a pipe.
int run_cases(run::RunOptions o, const RunTextOptions& text, std::ostream& out, std::ostream& err);

struct InteropOptions {
  InteropOptions() { run.out = "reports/interop"; }
  // Shared with every pair's run: cases, tags, exclude_tags, testbed, out (the interop folder,
  // default reports/interop), jobs, wall_clock, progress (here: a line per pair), versions and
  // command line. dut, peer, seed and agent_token are set from the fields below.
  run::RunOptions run;
  std::vector<std::string> impls;  // --impls as typed: comma lists of binding specs (--dut spellings)
  std::string seed_text;           // --seed as typed, as for `run`
  std::string agent_token_file;    // --agent-token-file, as for `run`
  // Tests: called after each pair (harness/studies/interop_engine.hpp).
  std::function<void(const harness::InteropCell&)> on_pair_done;
};
// `interop`: the selected cases for every ordered pair of `impls` (row = the DUT, judged; column =
// the peer), each pair's full report under <out>/pairs/<row>_<dut>--<col>_<peer>/, then
// <out>/interop.json and <out>/index.html, and a line per pair on `out`. Exit 0 every pair's run
// exits 0, 1 a pair not conformant or INCONCLUSIVE (its run's exit 1), 2 bad input (unknown or repeated spec, empty list, bad
// selection; before anything runs), 3 any ERROR, harness error or interrupt (the matrix is still
// written, marked interrupted).
int run_interop(const InteropOptions& o, std::ostream& out, std::ostream& err);
// `case-child` (hidden, cmd_case_child.cpp): one case of an isolated run, in the child process
// `run --isolate` starts (harness/run/case_child.hpp lists the arguments). Writes the encoded
// CaseResult on `result_fd` and returns 0; bad arguments or a case that does not load are exit 2
// with the reason on `err`, a result that cannot be written exit 3.
struct CaseChildOptions {
  std::filesystem::path suite_root;  // may be empty (a case folder outside any suite)
  std::filesystem::path case_file;
  std::string case_id;               // checked against what the file holds
  std::uint64_t seed = 1;
  std::string testbed = "mini";
  std::filesystem::path out;
  std::string evidence = "all";      // all | failures | none (run::EvidenceKeep)
  std::string snaplen = "auto";      // auto | full | N (run::parse_snaplen)
  std::uint64_t virtual_limit_ns = 100'000'000;
  double watchdog_grace_s = 2.0;
  int result_fd = -1;
  int token_fd = -1;                 // the agent token, read to end-of-file (empty: none)
  std::string dut = "reference";
  std::string peer;                  // the peer's binding spec; empty: the in-process reference
  std::string dut_wire;              // agent_wire_text.hpp: the DUT agent's ports on the bridge
  std::string peer_wire;             //   and the peer's (empty: not on a wire)
  std::uint64_t agent_connect_timeout_ms = 5000;
  std::uint64_t agent_call_timeout_ms = 5000;
  std::string clock = "auto";  // --clock auto|real|virtual
};
int run_case_child(const CaseChildOptions& o, std::ostream& err);

struct DoctorCliOptions {
  std::string testbed = "netns";   // netns or a lab testbed file
  std::string dut;                 // empty: agent:reference (netns); a lab file needs agent:HOST:PORT
  std::string agent_token_file;    // --agent-token-file, as for `run`
  std::filesystem::path agent_binary;  // tests: the agent --testbed netns starts (default: beside us)
};
// `doctor` (cmd_doctor.cpp, harness/lab/doctor.hpp): checks a real-wire set-up and prints one line
// per finding on `out` as it is made (`ok   ...`, `WARN ...: ...`, `FAIL ...: what to do`), then a
// summary. Exit 0 healthy (warnings allowed), 1 any FAIL, 2 bad input (options, an unreadable
// lab file or token file: the reason on `err`, nothing checked).
int run_doctor_cli(const DoctorCliOptions& o, std::ostream& out, std::ostream& err);

struct ListOptions {
  std::vector<std::string> cases;  // files or folders; empty = <suite>/cases
  std::vector<std::string> tags;   // any-of
  std::vector<std::string> exclude_tags;
  bool defects = false;   // the reference's defect catalog instead of cases
  bool variants = false;  // the reference's conformant variants instead of cases
  bool json = false;      // a JSON array instead of lines
};
// One line per case: id, level, behaviour, title, tags, clauses (or the defect / variant catalog,
// or JSON). Loader errors go to `err` (exit 2).
int run_list(const ListOptions& o, std::ostream& out, std::ostream& err);

struct DiffCliOptions {
  std::string a;
  std::string b;
  std::vector<std::string> masks;
  std::uint32_t window = 1;
  std::uint64_t tolerance_ns = 0;
  double tolerance_pct = 0;
  std::size_t max_lines = 20;
  // The interface compared in files of several (evidence/<case>.pcapng: one per tap); a file of one
  // interface is compared whole. Empty: files of several interfaces must have the same names,
  // and each pair is compared and reported.
  std::string iface;
  // W13: the DSCPs that mark a trimmed data packet in these captures (a run's config.dscp, when its
  // case set them; the W13 defaults otherwise). A trimmed packet is decoded as a stub.
  unsigned trimmed_dscp = 11;  // 0..63
  unsigned trimmed_lasthop_dscp = 13;
};
// The golden differ on any two captures: exit 0 same, 1 different, 2 bad input.
int run_diff(const DiffCliOptions& o, std::ostream& out, std::ostream& err);

struct GoldenOptions {
  std::vector<std::string> cases;  // default <suite>/cases
  std::vector<std::string> tags;
  std::vector<std::string> exclude_tags;
  std::string testbed = "mini";
  bool check_only = false;         // compare with the files on disk instead of writing
  std::string generator = "mrc-conform/0.0.0";  // the manifest's generator-version column
};
// Regenerates the golden pcaps of every case with a golden check from the reference endpoint
// (no defects) and rewrites their pcaps/MANIFEST lines (`sha256  path  seed  generator-version`).
int run_golden(const GoldenOptions& o, std::ostream& out, std::ostream& err);

struct CampaignOptions {
  std::vector<std::string> cases;  // default <suite>/cases
  std::vector<std::string> tags;
  std::vector<std::string> exclude_tags;
  std::string defects = "all";     // "all" or a comma list of catalog names
  std::string dut = "reference";   // or plugin:PATH serving the reference's catalog (CampaignPlan::dut)
  std::filesystem::path out = "reports/campaign";
  unsigned jobs = 1;
  double min_kill_rate = 0.9;
  bool relevant_only = false;      // per defect, only the cases whose clauses it violates
  bool run_all = false;            // also the runs a defect leaves unreached (CampaignPlan::run_all)
  std::string kill_runs = "first";  // which killing runs <out>/kills/ keeps: first, all, none (run::KeptKills)
  std::string testbed = "mini";
  bool wall_clock = false;         // put the wall time into campaign.json/html
  bool progress = true;            // a line per finished case run on `err`
  double watchdog_grace_s = 2.0;
  // --shard K/N (or a scheduler's variables, resolved by the CLI: harness/run/shard.hpp) and
  // --shard-costs: only this shard's units run, and `out` gets a shard record for `merge`.
  run::ShardSpec shard;
  run::CaseCosts shard_costs;
  std::string build = "0.0.0 unknown";  // suite version and git hash (the shard fingerprint)
  std::string command_line;             // of this process (the shard record)
};
// The defect campaign (harness/studies/campaign_engine.hpp): a baseline run on `reference`, then the
// selected cases against `reference:<defect>` for each chosen defect of the catalog, attributed
// through the suite's cases/defects.yaml; writes campaign.json and campaign.html into `out` and a
// line per defect to `out` stream. Exit 0 kill rate >= minimum and baseline clean, 1 otherwise,
// 2 bad input (unknown defect, bad cases, bad cases/defects.yaml), 3 harness error.
int run_campaign(const CampaignOptions& o, std::ostream& out, std::ostream& err);

struct FalsefailOptions {
  std::vector<std::string> cases;  // default <suite>/cases
  std::vector<std::string> tags;
  std::vector<std::string> exclude_tags;
  std::uint32_t seeds = 200;
  std::uint64_t first_seed = 1;
  std::filesystem::path out = "reports/falsefail";
  unsigned jobs = 1;
  std::string testbed = "mini";
  // The binding the statistics are measured on. `reference` in use; a defective reference
  // (e.g. reference:spray-single-ev) proves the command reports a rate above alpha.
  std::string dut = "reference";
  bool progress = true;
  double watchdog_grace_s = 2.0;
  // --shard K/N (or a scheduler's variables, resolved by the CLI: harness/run/shard.hpp) and
  // --shard-costs: only this shard's units run, and `out` gets a shard record for `merge`.
  run::ShardSpec shard;
  run::CaseCosts shard_costs;
  std::string build = "0.0.0 unknown";  // suite version and git hash (the shard fingerprint)
  std::string command_line;             // of this process (the shard record)
};
// False-fail rate of the statistical cases (harness/studies/falsefail.hpp): every case with a
// distribution check, once per seed; falsefail.json into `out` and a table on `out` stream. Exit 0
// every case and check consistent with its declared alpha, 1 otherwise (or any run ERROR), 2 bad
// input, 3 harness error.
int run_falsefail(const FalsefailOptions& o, std::ostream& out, std::ostream& err);

struct VariantsOptions {
  std::vector<std::string> cases;  // default <suite>/cases
  std::vector<std::string> tags;
  std::vector<std::string> exclude_tags;
  std::string variants = "all";    // "all" or a comma list of catalog names
  std::string dut = "reference";   // or plugin:PATH serving the reference's catalog (VariantsPlan::dut)
  std::uint32_t seeds = 1;         // runs per case and variant: its seed, seed+1, ...
  std::filesystem::path out = "reports/variants";
  unsigned jobs = 1;
  std::string testbed = "mini";
  bool wall_clock = false;         // put the wall time into variants.json/html
  bool progress = true;            // a line per finished case run on `err`
  double watchdog_grace_s = 2.0;
  // --shard K/N (or a scheduler's variables, resolved by the CLI: harness/run/shard.hpp) and
  // --shard-costs: only this shard's units run, and `out` gets a shard record for `merge`.
  run::ShardSpec shard;
  run::CaseCosts shard_costs;
  std::string build = "0.0.0 unknown";  // suite version and git hash (the shard fingerprint)
  std::string command_line;             // of this process (the shard record)
};
// The conformant-variant family (harness/studies/variants_engine.hpp): the selected cases against the
// default reference and `reference:<variant>` for each chosen catalog variant, each variant cited
// with the requirements of the suite's cases/variants.yaml; writes variants.json and variants.html
// into `out` and a summary whose last line is `N variants, M false fails`. Exit 0 no MUST case
// FAILed on any, 1 otherwise, 2 bad input, 3 harness error, an ERROR or an interrupt.
int run_variants(const VariantsOptions& o, std::ostream& out, std::ostream& err);

struct MergeOptions {
  std::vector<std::filesystem::path> dirs;  // the shards' --out folders
  std::filesystem::path out;                // -o OUT: staged in OUT.partial like run's --out
  std::string command_line;                 // of the merge (the merged results.json's command line)
};
// `merge` (cmd_merge.cpp, harness/report/merge_reports.hpp): the report folders of one sharded
// command (--shard K/N; each holds a shard.json) into one report, the same bytes as the
// single-process command would have written except for the command line. Exit: 2 bad input (a
// folder without a shard record, a shard missing or given twice, shards of different runs or
// kinds, a bad OUT), 3 the merged report cannot be written, else the exit code the single
// process would have returned (run: 0 conformant, 1 not, 3 an ERROR or an interrupted shard;
// campaign, variants, falsefail: theirs), so a CI can gate on it.
int run_merge(const MergeOptions& o, std::ostream& out, std::ostream& err);

// The certification bundle (harness/certify/bundle.hpp; README.md, "Certify").
struct KeygenOptions {
  std::filesystem::path out;       // -o KEY: the private key; KEY.pub beside it
  bool force = false;              // overwrite an existing KEY / KEY.pub
};
// `keygen`: an Ed25519 key pair (KEY: PKCS#8 PEM, mode 0600; KEY.pub: PEM) and the public key's
// fingerprint on `out`. Exit 0, 2 when a file exists (without --force) or cannot be written.
int run_keygen(const KeygenOptions& o, std::ostream& out, std::ostream& err);

struct BundleCliOptions {
  std::filesystem::path report_dir;
  std::filesystem::path out;       // -o FILE
  std::filesystem::path key;       // --key: PEM private key (keygen)
  std::string cases;               // --cases DIR: the suite's cases/ (default: found from the working directory)
  std::string expectations;        // --expectations FILE: the run's expectation file (empty: none)
  bool allow_partial = false;      // bundle an interrupted report
  bool force = false;              // --force: overwrite an existing bundle file
  std::string suite_version;       // of this binary (main.cpp)
  std::string git_hash;
};
// `bundle`: packs and signs a report folder (make_bundle), writes FILE atomically and prints one
// line: `bundle FILE: N files, M cases, B bytes, signed by <fingerprint>`. Exit 0, 2 bad input
// (no results.json, an interrupted report without --allow-partial, a key, case file or golden not
// found), 3 the bundle cannot be written.
int run_bundle(const BundleCliOptions& o, std::ostream& out, std::ostream& err);

// The suite's cases/ folder for bundle and verify: `given` (--cases), else the one `run` finds from
// the working directory (run/suite_loader.hpp); empty when there is none.
std::filesystem::path bundle_cases_dir(const std::string& given);

struct VerifyCliOptions {
  std::filesystem::path bundle;
  std::string pubkey;              // --pubkey K: the signer's PEM public key (empty: not checked)
  std::string cases;               // --cases DIR, as for `bundle`
};
// `verify`: one line per problem on `out`, then `bundle OK: N files, M cases, signed by <fp>` or
// `bundle NOT OK: K problems`. Exit 0 OK, 1 not OK (tampered, wrong signer, another suite's
// cases), 2 unreadable input (not a bundle, truncated, a --pubkey that does not load).
int run_verify(const VerifyCliOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mrc::cli
