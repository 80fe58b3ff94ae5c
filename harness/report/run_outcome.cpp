#include "harness/report/run_outcome.hpp"

#include <optional>

namespace mrc::harness {
namespace {

// Unknown spellings (a hand-made RunResult) count as MUST: nothing is excused on a guess.
Level level_of(const CaseResult& c) {
  return parse_enum<Level>(kLevelNames, c.level).value_or(Level::kMust);
}

// The level a FAIL counts at: a MUST case whose FAILing checks prove only SHOULD requirements
// failed a SHOULD (CaseResult::fail_level).
Level fail_level_of(const CaseResult& c) {
  if (c.verdict != Verdict::kFail || c.fail_level.empty()) return level_of(c);
  return parse_enum<Level>(kLevelNames, c.fail_level).value_or(Level::kMust);
}

}  // namespace

CaseConformance case_conformance(const CaseResult& c, ConformanceProfile profile) {
  CaseConformance o;
  o.counted = fail_level_of(c) == Level::kMust && profile_counts(profile, c.basis);
  const bool accepted = c.expectation == ExpectationOutcome::kExpected;
  switch (c.verdict) {
    case Verdict::kFail:
      o.non_conformance = o.counted && !accepted;
      o.advisory = !o.counted;
      break;
    case Verdict::kInconclusive:
    case Verdict::kError:
      o.not_judged = o.counted && !accepted;
      break;
    case Verdict::kPass:
    case Verdict::kUnsupported:
      break;
  }
  return o;
}

RunOutcome run_outcome(const RunResult& run) {
  RunOutcome r;
  r.profile = run.profile;
  r.strict = run.strict;
  r.interrupted = run.interrupted;
  for (const auto& c : run.cases) {
    const CaseConformance o = case_conformance(c, run.profile);
    const Level level = level_of(c);
    OutcomeCell& cell = r.cells[static_cast<std::size_t>(level)][static_cast<std::size_t>(c.basis)];
    cell.verdicts.add(c);
    if (o.non_conformance) {
      ++cell.non_conformance;
      r.must_failures.add(c.basis);
    }
    if (o.not_judged) r.must_not_judged.add(c.basis);
    if (o.advisory) {
      ++cell.advisory;
      ++r.advisories;
      ++(fail_level_of(c) == Level::kMust ? r.advisories_must_outside_profile : r.advisories_should_may);
    }
  }
  r.conformant = r.must_failures.total() == 0 && r.must_not_judged.total() == 0 && !r.interrupted;
  return r;
}

std::string basis_split(const BasisCounts& b) {
  std::string out;
  for (std::size_t i = 0; i < kBasisNames.size(); ++i) {
    out += (i == 0 ? "" : ", ") + std::string(kBasisNames[i]) + ' ' + std::to_string(b.by[i]);
  }
  return out;
}

std::string conformance_line(const RunOutcome& o) {
  auto n = [](std::size_t v) { return std::to_string(v); };
  std::string how = "profile " + std::string(to_string(o.profile));
  if (o.strict) how += ", --strict";
  if (o.interrupted) how += ", interrupted";
  return "conformant: " + std::string(o.conformant ? "yes" : "no") + " (" + how + "): MUST failures " +
         n(o.must_failures.total()) + " (" + basis_split(o.must_failures) + "), MUST not judged " +
         n(o.must_not_judged.total()) + ", advisories " + n(o.advisories) + " (SHOULD/MAY " +
         n(o.advisories_should_may) + ", MUST outside the profile " + n(o.advisories_must_outside_profile) + ")";
}

int exit_code(const RunResult& run) {
  bool fail = !run_outcome(run).conformant;
  bool error = run.interrupted;
  for (const auto& c : run.cases) {
    if (c.expectation == ExpectationOutcome::kExpected) continue;  // known, reported, not blocking
    if (c.expectation == ExpectationOutcome::kExpired) error = true;
    switch (c.verdict) {
      case Verdict::kPass:
        if (c.expectation == ExpectationOutcome::kUnexpectedPass) fail = true;
        break;
      case Verdict::kUnsupported: break;
      case Verdict::kFail: fail = fail || run.strict; break;  // else: non-conformance made it not conformant
      case Verdict::kInconclusive: fail = true; break;
      case Verdict::kError: error = true; break;
    }
  }
  if (error) return 3;
  return fail ? 1 : 0;
}

namespace {

// "2 case(s) ERROR (a, b)" with at most five ids named.
std::string cases_phrase(const std::vector<std::string>& ids, const std::string& what) {
  std::string s = std::to_string(ids.size()) + " " + what + " (";
  for (std::size_t i = 0; i < ids.size() && i < 5; ++i) s += (i ? ", " : "") + ids[i];
  if (ids.size() > 5) s += ", and " + std::to_string(ids.size() - 5) + " more";
  return s + ")";
}

}  // namespace

std::string exit_causes(const RunResult& run) {
  std::vector<std::string> errors, expired, inconclusive, unexpected, strict_fails;
  for (const auto& c : run.cases) {
    if (c.expectation == ExpectationOutcome::kExpected) continue;
    if (c.expectation == ExpectationOutcome::kExpired) expired.push_back(c.id);
    if (c.expectation == ExpectationOutcome::kUnexpectedPass) unexpected.push_back(c.id);
    if (c.verdict == Verdict::kError) errors.push_back(c.id);
    if (c.verdict == Verdict::kInconclusive) inconclusive.push_back(c.id);
    if (c.verdict == Verdict::kFail && run.strict) strict_fails.push_back(c.id);
  }
  std::vector<std::string> why;
  if (run.interrupted) why.push_back("interrupted" + (run.interrupt_reason.empty() ? "" : " (" + run.interrupt_reason + ")"));
  if (!errors.empty()) why.push_back(cases_phrase(errors, "case(s) ERROR"));
  if (!expired.empty()) why.push_back(cases_phrase(expired, "expectation(s) expired"));
  const RunOutcome o = run_outcome(run);
  if (!o.conformant) {
    std::string parts;
    if (o.must_failures.total() > 0) parts = std::to_string(o.must_failures.total()) + " MUST failure(s)";
    if (o.must_not_judged.total() > 0) {
      parts += (parts.empty() ? "" : ", ") + std::to_string(o.must_not_judged.total()) + " MUST case(s) not judged";
    }
    if (!parts.empty()) why.push_back("not conformant (" + parts + ")");  // else: interrupted, said above
  }
  if (!inconclusive.empty()) why.push_back(cases_phrase(inconclusive, "case(s) INCONCLUSIVE"));
  if (!unexpected.empty()) why.push_back(cases_phrase(unexpected, "unexpected pass(es), stale expectation(s)"));
  if (!strict_fails.empty()) why.push_back(cases_phrase(strict_fails, "FAIL(s) under --strict"));
  if (why.empty()) return "conformant, nothing INCONCLUSIVE or unexpected";
  std::string line;
  for (std::size_t i = 0; i < why.size(); ++i) line += (i ? "; " : "") + why[i];
  return line;
}

std::string exit_reason(const RunResult& run) {
  return "exit " + std::to_string(exit_code(run)) + ": " + exit_causes(run);
}

}  // namespace mrc::harness
