// Views of a RunResult that every report shows the same way: verdict counts per area and the
// requirement coverage matrix (requirement -> covering cases -> their verdicts). Computed in one
// place so results.json, junit.xml and index.html can never disagree.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// Verdicts in report order (best first, as the summary badges show them).
inline constexpr std::array<Verdict, 5> kReportVerdicts{Verdict::kPass, Verdict::kFail, Verdict::kUnsupported,
                                                        Verdict::kInconclusive, Verdict::kError};

struct VerdictCounts {
  std::array<std::size_t, 5> by_verdict{};  // indexed like kReportVerdicts
  std::size_t total = 0;
  std::size_t expected = 0;  // cases whose result an expectation entry expected

  void add(const CaseResult& c);
  std::size_t of(Verdict v) const;
  // "2 PASS, 1 FAIL, 0 UNSUPPORTED, 0 INCONCLUSIVE, 0 ERROR" (kReportVerdicts order).
  std::string text() const;
};

struct AreaCounts {
  std::string area;
  VerdictCounts counts;
};

// Per-area counts, areas sorted by name (a case with an empty area counts under "none").
std::vector<AreaCounts> count_by_area(const RunResult& run);
VerdictCounts count_all(const RunResult& run);

// One covering case of a requirement: its verdict in this run, or none when the case did not run
// (a filtered run, or an interrupted one).
struct CoveringCase {
  std::string id;
  std::optional<Verdict> verdict;
};

struct CoverageRow {
  const RequirementRef* requirement = nullptr;
  std::vector<CoveringCase> cases;  // in RequirementRef::cases order
  // The worst verdict among the covering cases that ran (combine()); none when none ran.
  std::optional<Verdict> verdict;
  bool covered() const { return !cases.empty(); }
  bool is_must() const;
};

struct CoverageSummary {
  std::size_t requirements = 0;
  std::size_t covered = 0;        // with at least one case in the suite
  std::size_t must = 0;
  std::size_t must_covered = 0;
  std::size_t must_passed = 0;    // covered MUSTs whose covering cases that ran all passed
  std::vector<std::string> uncovered_must;  // ids, in requirement order
  // Percentages with one decimal, as text ("87.5"); "n/a" when there is nothing to count.
  std::string covered_percent() const;
  std::string must_covered_percent() const;
};

struct CoverageMatrix {
  std::vector<CoverageRow> rows;  // in RunResult::requirements order
  CoverageSummary summary;
};

// Rows point into `run.requirements`: keep `run` alive while the matrix is used.
CoverageMatrix build_coverage(const RunResult& run);

// Spellings of ExpectationOutcome used by every report: "none", "expected", "unexpected-pass",
// "unexpected-other", "expired".
std::string_view expectation_outcome_name(ExpectationOutcome o);
std::optional<ExpectationOutcome> expectation_outcome_from_string(std::string_view s);

// "bars" / "timeline".
std::string_view chart_kind_name(Chart::Kind k);
std::optional<Chart::Kind> chart_kind_from_string(std::string_view s);

}  // namespace mrc::harness
