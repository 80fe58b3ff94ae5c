// `mrc-conform run`: every selected case through the session (case_session.hpp) and the checks
// (case_result.hpp), in parallel when asked, with a progress line per case, expectation-file
// triage, the requirement coverage matrix, and the reports written at the end (also after a
// Ctrl-C, marked interrupted, with the reason and the cases not run) plus a snapshot at most every
// report_interval_s, so a crash loses at most that much of what was judged.
//
// Bounds per case: the session's virtual-time limit, its wall-clock check between simulation
// slices (timeout_s), and a watchdog: each case runs on its own thread and a case whose binding
// call never returns is given up after timeout_s + watchdog_grace_s (ERROR, the thread is
// abandoned with everything it uses, and the run goes on). With `isolation` each case runs in a
// child process instead (case_child.hpp), so a crash of the binding or DUT is one ERROR.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/dut/agent_client.hpp"
#include "harness/dut/dut_binding.hpp"
#include "harness/verdict/verdict.hpp"
#include "harness/run/case_pool.hpp"
#include "harness/run/interrupt.hpp"
#include "harness/run/shard.hpp"

namespace mrc::run {

inline constexpr std::string_view kDefaultPeer = "reference";

struct RunOptions {
  std::vector<std::string> cases;         // files or folders; empty = <suite>/cases
  std::vector<std::string> tags;          // comma lists, any-of
  std::vector<std::string> exclude_tags;
  std::string testbed = "mini";           // preset or testbed YAML for cases that name none
  std::string dut = "reference";          // reference[:defect,...] or agent:HOST:PORT
  // The harness's own side (testbed host 1), any spelling --dut takes. The default is the
  // in-process reference, and a run against it reports no peer, so its reports stay as before.
  std::string peer = std::string(kDefaultPeer);
  std::string agent_token;                // the agent binding's token (cli: file or environment)
  harness::AgentTimeouts agent_timeouts;  // the agent binding's connect_timeout and call_timeout
  harness::AgentClock agent_clock = harness::AgentClock::kAuto;  // --clock (agent-protocol.md §9)
  std::optional<std::uint64_t> seed;      // replaces every case's seed when given
  std::filesystem::path out = "reports/latest";
  unsigned jobs = 1;
  std::string expectations;               // expectation file (empty: none)
  std::string today;                      // YYYY-MM-DD for expiry (empty: the system date)
  bool wall_clock = false;                // put wall times into the reports
  EvidenceOptions evidence;               // --evidence, --snaplen (case_evidence.hpp)
  // How the verdicts are judged (harness/report/run_outcome.hpp): which MUST cases count toward
  // conformance (--profile), and whether any FAIL exits 1, advisories included (--strict).
  harness::ConformanceProfile profile = harness::ConformanceProfile::kFull;
  bool strict = false;
  bool progress = true;                   // the per-case line on `err`
  std::string command_line;
  std::string suite_version = "0.0.0";
  std::string git_hash = "unknown";
  double watchdog_grace_s = 2.0;
  std::uint64_t virtual_limit_ns = 100'000'000;
  double report_interval_s = 2.0;         // reports snapshotted at most this often during the run
  // Tests: makes the DUT binding instead of parsing `dut` (called once per case; cannot be
  // combined with isolation, whose child makes its binding from the spec).
  std::function<std::unique_ptr<harness::DutBinding>()> binding_factory;
  // Each case in a child process (--isolate; the CLI fills it, see case_pool.hpp).
  Isolation isolation;
  // --shard K/N or a scheduler's variables (shard.hpp): only this shard's cases run, and the
  // report folder gets a shard record for `mrc-conform merge`. Inactive: every selected case.
  ShardSpec shard;
  CaseCosts shard_costs;  // --shard-costs: the cost of each case (default: an estimate)
};

// Returns the exit code (harness/report/run_outcome.hpp, exit_code): 0 conformant, advisories
// allowed; 1 not conformant, a case INCONCLUSIVE, a stale expectation, or with `strict` any FAIL;
// 2 bad input; 3 harness error or a run that ended early. Prints the verdict count line, the
// conformance line, the report files that exist, every case that needs a look and, last, why the
// run ended early (run_reports.hpp). The reports and evidence are written into `<out>.partial`
// and swapped into `<out>` when the run completes, or when it ended early over an empty `<out>`
// (harness/report/report_folder.hpp); a first signal, a failed report or evidence write (disk
// full, with a kReportReserveBytes reserve kept for the final reports) or a harness error stops
// the run with a reason (interrupt.hpp) its reports carry. When `final_run` is given and the run
// started, it receives what the reports were written from (the interop matrix counts from it).
int run_suite(const RunOptions& o, std::ostream& out, std::ostream& err, harness::RunResult* final_run = nullptr);

// A check run_suite makes before any case runs, shared with `interop`, which makes it once for
// all its pairs (run_preflight.cpp): files the selected cases name that are not there (golden
// pcaps), and each testbed a case names built once as its run would build it (a testbed file that
// is a folder, not YAML, not a testbed; overrides the fabric refuses), one `file:line:col: key:
// message` line each ("" when none). A bad testbed is bad input before the run, never a case
// ERROR that replaces the previous report. (Whether --out can take the reports
// is harness/report/report_folder.hpp's stage_report_folder.)
std::string missing_inputs(const std::vector<const harness::Case*>& cases, const std::filesystem::path& root);

}  // namespace mrc::run
