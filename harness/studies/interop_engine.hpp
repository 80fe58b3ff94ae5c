// Runs an interop matrix (`mrc-conform interop`): the selected cases for every ordered pair of
// implementations, row = the DUT (testbed host 0, judged), column = the peer (host 1), diagonal
// included. Each pair is one ordinary suite run (run_suite) with its full report folder under
// <out>/pairs/<pair folder>/; the matrix itself is returned for the caller to render
// (harness/report/interop_report.hpp).
//
// Ctrl-C / SIGTERM (interrupt_flag()): the pair in progress stops after its running case and
// writes its partial report; no further pair starts, and the result is marked interrupted.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/report/interop_result.hpp"
#include "harness/run/suite_runner.hpp"

namespace mrc::run {

struct InteropPlan {
  std::vector<std::string> impls;  // binding specs (make_binding), checked, distinct, non-empty
  // Everything a pair's run shares: selection, testbed, seed, jobs, agent token, wall clock,
  // versions, command line; `out` is the interop folder. dut, peer and out are set per pair, and
  // no per-case progress line is printed.
  RunOptions base;
  std::ostream* progress = nullptr;  // a line per finished pair when set
  // Tests: called after each pair, before the next one starts.
  std::function<void(const harness::InteropCell&)> on_pair_done;
};

// The folder of pair (row, col) under <out>/pairs/: "<row>_<dut>--<col>_<peer>" with every
// character outside [A-Za-z0-9._-] of a spec replaced by '-' and each spec cut to 40 characters.
// Unique per (row, col) through the indices, and the same for the same --impls.
std::string pair_folder(std::size_t row, const std::string& dut, std::size_t col, const std::string& peer);

// Runs the pairs row by row. Every pair's report is written by run_suite; the returned matrix
// carries the selection (`case_ids`), the plan's metadata and one cell per pair that ran (the
// caller sets wall_seconds).
// A pair whose run_suite reports bad input (exit 2: inputs a pair cannot use, e.g. a missing
// golden) stops the matrix before any other pair: `bad_input` is then set.
struct InteropRun {
  harness::InteropResult result;
  bool bad_input = false;
};
InteropRun run_interop_matrix(const InteropPlan& plan, const std::vector<std::string>& case_ids, std::ostream& err);

}  // namespace mrc::run
