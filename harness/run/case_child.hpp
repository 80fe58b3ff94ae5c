// One case task in a child process (`mrc-conform run --isolate`): `<executable> case-child ...`
// (harness/cli/cmd_case_child.cpp) loads the case file and runs it exactly as the in-process pool
// would (run_case_task: the same session, watchdog and evidence folder), then writes its
// CaseResult (case_result_codec.hpp) on kChildResultFd and exits 0. Every other ending (a signal,
// an exit without a result, a result that does not decode, the bound passed) is an ERROR of that
// case naming what happened, with the last lines the child printed; the run goes on.
//
// The bound is the in-process watchdog's (timeout_s + watchdog_grace_s) plus
// Isolation::report_allowance_s: the child's own watchdog fires first and names the binding call
// that hung; the parent's kill is for a child that cannot even do that.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/run/case_pool.hpp"

namespace mrc::run {

inline constexpr const char* kCaseChildCommand = "case-child";  // hidden: not in --help

// The case's half of the child's arguments, after `case-child` and before Isolation::child_args:
//   --suite-root DIR --case FILE --case-id ID --seed N --testbed T --out DIR --evidence all|failures|none --snaplen auto|full|N
//   --virtual-limit-ns N --watchdog-grace-s S --result-fd 3 --token-fd 4
// (numbers in decimal; S in the shortest form that reads back to the same double).
std::vector<std::string> case_child_args(const CaseTask& t, const std::filesystem::path& suite_root,
                                         const PoolOptions& o);

// Never throws; always a result (optional for the pool's sake). A stopped run (interrupt.hpp)
// lets the child go on for kInterruptGrace; then the child is stopped and the case is an ERROR
// "interrupted: ...". wall_s: the child's.
std::optional<harness::CaseResult> run_case_in_child(const CaseTask& t, const std::filesystem::path& suite_root,
                                                     const PoolOptions& o, double& wall_s);

}  // namespace mrc::run
