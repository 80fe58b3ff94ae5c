#include "harness/report/run_summary.hpp"

#include <array>

#include <map>
#include <unordered_map>

namespace mrc::harness {
namespace {

std::size_t verdict_slot(Verdict v) {
  for (std::size_t i = 0; i < kReportVerdicts.size(); ++i) {
    if (kReportVerdicts[i] == v) return i;
  }
  return kReportVerdicts.size() - 1;  // unreachable for a valid enum; counted as ERROR
}

// part/total as a percentage with one decimal, rounded half up, in integer arithmetic so every
// platform prints the same text.
std::string percent_text(std::size_t part, std::size_t total) {
  if (total == 0) return "n/a";
  const std::size_t tenths = (part * 1000 + total / 2) / total;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

}  // namespace

void VerdictCounts::add(const CaseResult& c) {
  ++by_verdict[verdict_slot(c.verdict)];
  ++total;
  if (c.expectation == ExpectationOutcome::kExpected) ++expected;
}

std::size_t VerdictCounts::of(Verdict v) const { return by_verdict[verdict_slot(v)]; }

std::string VerdictCounts::text() const {
  std::string out;
  for (const Verdict v : kReportVerdicts) {
    out += (out.empty() ? "" : ", ") + std::to_string(of(v)) + " " + std::string(to_string(v));
  }
  return out;
}

std::vector<AreaCounts> count_by_area(const RunResult& run) {
  std::map<std::string, VerdictCounts> areas;
  for (const auto& c : run.cases) areas[c.area.empty() ? "none" : c.area].add(c);
  std::vector<AreaCounts> out;
  out.reserve(areas.size());
  for (auto& [name, counts] : areas) out.push_back({name, counts});
  return out;
}

VerdictCounts count_all(const RunResult& run) {
  VerdictCounts all;
  for (const auto& c : run.cases) all.add(c);
  return all;
}

bool CoverageRow::is_must() const { return requirement != nullptr && requirement->level == "MUST"; }

std::string CoverageSummary::covered_percent() const { return percent_text(covered, requirements); }
std::string CoverageSummary::must_covered_percent() const { return percent_text(must_covered, must); }

CoverageMatrix build_coverage(const RunResult& run) {
  // First occurrence wins when a run holds the same case id twice (it should not).
  std::unordered_map<std::string_view, Verdict> verdict_of;
  for (const auto& c : run.cases) verdict_of.emplace(c.id, c.verdict);

  CoverageMatrix m;
  m.rows.reserve(run.requirements.size());
  for (const auto& req : run.requirements) {
    CoverageRow row;
    row.requirement = &req;
    for (const auto& id : req.cases) {
      CoveringCase cc{id, std::nullopt};
      if (auto it = verdict_of.find(id); it != verdict_of.end()) {
        cc.verdict = it->second;
        row.verdict = row.verdict ? combine(*row.verdict, it->second) : it->second;
      }
      row.cases.push_back(std::move(cc));
    }
    auto& s = m.summary;
    ++s.requirements;
    if (row.covered()) ++s.covered;
    if (row.is_must()) {
      ++s.must;
      if (row.covered()) {
        ++s.must_covered;
        if (row.verdict == Verdict::kPass) ++s.must_passed;
      } else {
        s.uncovered_must.push_back(req.id);
      }
    }
    m.rows.push_back(std::move(row));
  }
  return m;
}

std::string_view expectation_outcome_name(ExpectationOutcome o) {
  switch (o) {
    case ExpectationOutcome::kNone: return "none";
    case ExpectationOutcome::kExpected: return "expected";
    case ExpectationOutcome::kUnexpectedPass: return "unexpected-pass";
    case ExpectationOutcome::kUnexpectedOther: return "unexpected-other";
    case ExpectationOutcome::kExpired: return "expired";
  }
  return "none";
}

std::optional<ExpectationOutcome> expectation_outcome_from_string(std::string_view s) {
  for (auto o : {ExpectationOutcome::kNone, ExpectationOutcome::kExpected, ExpectationOutcome::kUnexpectedPass,
                 ExpectationOutcome::kUnexpectedOther, ExpectationOutcome::kExpired}) {
    if (expectation_outcome_name(o) == s) return o;
  }
  return std::nullopt;
}

namespace {
constexpr std::array<std::string_view, 5> kChartKindNames{"bars", "timeline", "latency", "events", "raster"};
}  // namespace

std::string_view chart_kind_name(Chart::Kind k) { return kChartKindNames[static_cast<std::size_t>(k)]; }

std::optional<Chart::Kind> chart_kind_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kChartKindNames.size(); ++i) {
    if (kChartKindNames[i] == s) return static_cast<Chart::Kind>(i);
  }
  return std::nullopt;
}

}  // namespace mrc::harness
