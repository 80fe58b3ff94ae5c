// `mrc-conform run`: every selected case through the session (case_session.hpp) and the checks
// (case_result.hpp), in parallel when asked, with a progress line per case, expectation-file
// triage, the requirement coverage matrix, and the reports written at the end (also after a
// Ctrl-C, marked interrupted) plus a snapshot at most every report_interval_s, so a crash loses at
// most that much of what was judged.
//
// Bounds per case: the session's virtual-time limit, its wall-clock check between simulation
// slices (timeout_s), and a watchdog: each case runs on its own thread and a case whose binding
// call never returns is given up after timeout_s + watchdog_grace_s (ERROR, the thread is
// abandoned with everything it uses, and the run goes on).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/dut/agent_client.hpp"
#include "harness/dut/dut_binding.hpp"

namespace mrc::run {

struct RunOptions {
  std::vector<std::string> cases;         // files or folders; empty = <suite>/cases
  std::vector<std::string> tags;          // comma lists, any-of
  std::vector<std::string> exclude_tags;
  std::string testbed = "mini";           // preset or testbed YAML for cases that name none
  std::string dut = "reference";          // reference[:defect,...] or agent:HOST:PORT
  std::string agent_token;                // the agent binding's token (cli: file or environment)
  harness::AgentTimeouts agent_timeouts;  // the agent binding's connect_timeout and call_timeout
  std::optional<std::uint64_t> seed;      // replaces every case's seed when given
  std::filesystem::path out = "reports/latest";
  unsigned jobs = 1;
  std::string expectations;               // expectation file (empty: none)
  std::string today;                      // YYYY-MM-DD for expiry (empty: the system date)
  bool wall_clock = false;                // put wall times into the reports
  bool progress = true;                   // the per-case line on `err`
  std::string command_line;
  std::string suite_version = "0.0.0";
  std::string git_hash = "unknown";
  double watchdog_grace_s = 2.0;
  std::uint64_t virtual_limit_ns = 100'000'000;
  double report_interval_s = 2.0;         // reports snapshotted at most this often during the run
  // Tests: makes the DUT binding instead of parsing `dut` (called once per case).
  std::function<std::unique_ptr<harness::DutBinding>()> binding_factory;
};

// Returns the exit code: 0 all pass (or only expected results), 1 any FAIL, 2 bad input,
// 3 harness error or interrupted.
int run_suite(const RunOptions& o, std::ostream& out, std::ostream& err);

// Set by the SIGINT handler (main.cpp); the suite stops taking new cases once it is set.
std::atomic<bool>& interrupt_flag();

}  // namespace mrc::run
