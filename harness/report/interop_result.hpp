// What an interop matrix (`mrc-conform interop`) produced: filled by the interop engine
// (harness/studies/interop_engine.hpp), read by the renderers (interop_report.hpp).
//
// Every ordered pair of implementations is one cell: the row's implementation is the DUT (testbed
// host 0), the one judged; the column's is the peer it meets through the fabric (host 1). The
// diagonal is each implementation against itself. A cell's counts are the DUT's case verdicts in
// that pair's own run report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/report/run_summary.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// The schema id written as "schema" in interop.json; a change that removes or re-types a field is
// a new number.
inline constexpr std::string_view kInteropSchemaId = "mrc-conform/interop/1";
inline constexpr std::string_view kInteropJsonName = "interop.json";
inline constexpr std::string_view kInteropHtmlName = "index.html";

struct InteropCell {
  std::size_t row = 0;     // index of the DUT in InteropResult::impls
  std::size_t col = 0;     // index of the peer
  std::string dut;         // binding specs as given
  std::string peer;
  std::string report_dir;  // the pair's report folder, relative to the interop folder, '/'-separated
  VerdictCounts counts;
  int exit_code = 0;       // the pair's `run` exit code
  bool interrupted = false;  // the pair's run stopped before every case ran
  std::optional<double> wall_seconds;  // only with --wall-clock

  // The worst verdict among the cases that ran (ERROR > FAIL > INCONCLUSIVE > UNSUPPORTED > PASS);
  // none when no case ran.
  std::optional<Verdict> worst() const;
};

struct InteropResult {
  std::vector<std::string> impls;        // binding specs, in --impls order
  std::vector<std::string> case_inputs;  // --cases as given (empty: the suite's cases/)
  std::vector<std::string> tags;
  std::vector<std::string> exclude_tags;
  std::vector<std::string> cases;        // the selected case ids, in run order
  std::string testbed;
  std::optional<std::uint64_t> seed;     // --seed; none: each case's own
  std::string suite_version;
  std::string git_hash;
  std::string command_line;
  // Row-major (DUT, then peer), the pairs that ran; fewer than impls² only when interrupted.
  std::vector<InteropCell> cells;
  bool interrupted = false;
  std::optional<double> wall_seconds;    // only with --wall-clock

  // The cell of (row, col), or null when that pair did not run.
  const InteropCell* cell(std::size_t row, std::size_t col) const;
  // 0 every pair's run exits 0 (conformant; UNSUPPORTED and advisories allowed as in `run`), 1 a
  // pair not conformant or with a case INCONCLUSIVE, 3 any ERROR, a pair's harness error, or an
  // interrupted matrix.
  int exit_code() const;
};

}  // namespace mrc::harness
