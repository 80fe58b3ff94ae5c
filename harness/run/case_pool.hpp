// Runs a list of (case, seed) tasks on a pool of threads, each case with its watchdog: the engine
// under `mrc-conform run` (suite_runner.hpp), `campaign` and `falsefail` (campaign_engine.hpp,
// falsefail_engine.hpp).
//
// Bounds per task: the session's virtual-time limit, its wall-clock check between simulation
// slices (the case's timeout_s), and a watchdog: each task runs on its own thread and one whose
// binding call never returns is given up after timeout_s + watchdog_grace_s (ERROR, the thread
// is abandoned with everything it uses, and the pool goes on). The pool stops taking tasks once
// interrupt_flag() is set (interrupt.hpp) and gives the tasks in progress kInterruptGrace to end:
// then the session loop ends its case as an ERROR "interrupted", an isolated child is stopped
// (also an ERROR "interrupted"), and a thread stuck in a binding call is abandoned 1 s
// (kInterruptAbandon) later with that ERROR.
//
// With `isolation.enabled` each task runs in a child process instead (case_child.hpp): a binding
// or DUT that crashes, aborts or hangs the process costs that case an ERROR, never the run.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/dut/dut_binding.hpp"
#include "harness/run/case_evidence.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

using BindingFactory = std::function<std::unique_ptr<harness::DutBinding>()>;

struct CaseTask {
  const harness::Case* c = nullptr;
  std::uint64_t seed = 1;  // the effective seed of this run
  // Makes this task's DUT binding instead of the pool's factory (a campaign mixes defects).
  const BindingFactory* factory = nullptr;
  // When set, receives the DUT binding's defects_read() after a session that ran to its end in
  // this process (the campaign's baseline); left nullopt otherwise.
  std::optional<ref::DefectSet>* defects_read = nullptr;
  // When set, this task's evidence goes under this folder (<evidence_out>/evidence/<case id>.*)
  // with the pool's EvidenceOptions, even in a pool that writes none: the campaign keeps the runs
  // that killed a defect.
  const std::filesystem::path* evidence_out = nullptr;
};

// How a case runs in a child process (`mrc-conform run --isolate`, case_child.hpp). The child is
// `executable case-child <the case's arguments> <child_args>`: the pool adds what it knows per
// case (suite root, case file, seed, testbed, output folder, evidence, bounds), the CLI layer the
// rest, since only it knows the spellings of the bindings (--dut SPEC, and any binding option a
// child must see). Tasks with their own factory (CaseTask::factory) run in-process.
struct Isolation {
  bool enabled = false;
  std::string executable = "/proc/self/exe";  // a program that has the case-child subcommand
  std::vector<std::string> child_args;        // e.g. {"--dut", "agent:10.0.0.2:7411"}
  std::string agent_token;                    // reaches the child through a pipe, never argv/environ
  // After the child's own watchdog (timeout_s + watchdog_grace_s, which names the binding call
  // that hung) the child is given this long to report before the parent kills it.
  double report_allowance_s = 1.0;
  double term_wait_s = 1.0;                   // SIGTERM to SIGKILL
};

struct PoolOptions {
  std::string testbed = "mini";             // preset or testbed YAML for cases that name none
  std::filesystem::path out;                // evidence goes to <out>/evidence/<case id>.pcapng
  bool write_evidence = true;               // false: no pcaps written, <out> untouched
  EvidenceOptions evidence;                 // which cases keep their file, at what snap length
  unsigned jobs = 1;
  double watchdog_grace_s = 2.0;
  std::uint64_t virtual_limit_ns = 100'000'000;
  // Makes the harness's side of each case (the peer, testbed host 1); empty = the in-process
  // reference without defects. Any binding will do: two external implementations can meet.
  BindingFactory peer_factory;
  Isolation isolation;
  // Called as a task starts (running = true) and once its result is in (false), from the thread
  // that runs it, without the pool's lock: the runner's interrupt message names the cases in
  // progress.
  std::function<void(std::size_t task_index, bool running)> on_running;
};

// After kInterruptGrace, how long a case thread stuck in a binding call is waited for before it is
// abandoned (the session loop, which would end the case itself, is not running).
inline constexpr std::chrono::seconds kInterruptAbandon{1};

// Called once per finished task, under the pool's lock (so calls never overlap), in completion
// order. `wall_s` is the task's wall time.
using TaskDone = std::function<void(std::size_t task_index, const harness::CaseResult& r, double wall_s)>;

// Runs every task; returns the results in task order (nullopt: not run because of an interrupt).
// Never throws for a case's failure: a throwing or hung binding is that task's ERROR.
std::vector<std::optional<harness::CaseResult>> run_case_tasks(std::span<const CaseTask> tasks,
                                                               const std::filesystem::path& suite_root,
                                                               const PoolOptions& o, const BindingFactory& factory,
                                                               const TaskDone& on_done = {});

// One task on the calling thread's watchdog (the case itself runs on a thread of its own).
harness::CaseResult run_case_task(const CaseTask& t, const std::filesystem::path& suite_root, const PoolOptions& o,
                                  const BindingFactory& factory, double& wall_s);

// "0.4s", "12s", "3m": a short human duration for progress lines and messages.
std::string format_seconds(double s);

}  // namespace mrc::run
