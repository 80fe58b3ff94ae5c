// What a run's verdicts mean for conformance: the one place that decides whether a FAIL is a
// non-conformance or an advisory, whether the run is conformant, and the exit status. The
// headline of `run`, results.json, junit.xml and index.html all call this file and derive
// nothing of it themselves (issue 13: a SHOULD FAIL is advice, not non-conformance; the model's
// verdicts are reported apart from the published ones).
//
// A case counts toward conformance when it is a MUST case and the profile judges it: every MUST
// case under `full`, those of published or spec basis under `spec`, the published-basis ones
// under `published` (RunResult::profile, profile_counts). Then:
//   non-conformance  a FAIL of a counted case, not an accepted expectation
//   advisory         a FAIL of a case that does not count: SHOULD and MAY cases, and MUST cases
//                    of a basis outside the profile; it stays an advisory when an expectation file
//                    accepted it (only SHOULD/MAY cases can have entries: the loader refuses MUST)
//   not judged       INCONCLUSIVE or ERROR of a counted case, not an accepted expectation: no
//                    evidence either way, so the run cannot be called conformant
// An accepted expectation counts as not failing, as it always has: a counted case it accepts is
// neither a non-conformance nor not judged.
// conformant = no non-conformance, no counted case not judged, and the run was not interrupted.
// UNSUPPORTED never counts: the DUT does not declare the capability the case needs.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "harness/report/run_summary.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// What one case means under the run's profile.
struct CaseConformance {
  bool counted = false;          // a MUST case the profile judges conformance on
  bool non_conformance = false;  // a counted FAIL (not an accepted expectation)
  bool advisory = false;         // a FAIL of a case that does not count
  bool not_judged = false;       // a counted INCONCLUSIVE or ERROR (not an accepted expectation)
};
CaseConformance case_conformance(const CaseResult& c, ConformanceProfile profile);

// Cases split by basis (published, spec, spec-single, model).
struct BasisCounts {
  std::array<std::size_t, kBasisNames.size()> by{};
  std::size_t of(Basis b) const { return by[static_cast<std::size_t>(b)]; }
  std::size_t total() const {
    std::size_t t = 0;
    for (std::size_t n : by) t += n;
    return t;
  }
  void add(Basis b) { ++by[static_cast<std::size_t>(b)]; }
};

// The verdicts of one level and basis, with what they count as.
struct OutcomeCell {
  VerdictCounts verdicts;
  std::size_t non_conformance = 0;
  std::size_t advisory = 0;
};

struct RunOutcome {
  ConformanceProfile profile = ConformanceProfile::kFull;
  bool strict = false;
  bool interrupted = false;
  bool conformant = true;
  BasisCounts must_failures;        // non-conformances (all MUST, by definition)
  BasisCounts must_not_judged;      // counted cases INCONCLUSIVE or ERROR
  std::size_t advisories = 0;
  std::size_t advisories_should_may = 0;           // of them, SHOULD and MAY cases
  std::size_t advisories_must_outside_profile = 0;  // and MUST cases of a basis the profile does not count
  // [level][basis], indexed by Level (MUST, SHOULD, MAY) and Basis (published, spec, spec-single, model).
  std::array<std::array<OutcomeCell, kBasisNames.size()>, kLevelNames.size()> cells{};
  const OutcomeCell& cell(Level l, Basis b) const {
    return cells[static_cast<std::size_t>(l)][static_cast<std::size_t>(b)];
  }
};

RunOutcome run_outcome(const RunResult& run);

// The headline's second line (the first is the verdict count line), e.g.
// "conformant: yes (profile full): MUST failures 0 (published 0, spec 0, spec-single 0, model 0),
//  MUST not judged 0, advisories 1 (SHOULD/MAY 1, MUST outside the profile 0)" on one line; "--strict" and "interrupted"
// join the profile in the parentheses when they apply.
std::string conformance_line(const RunOutcome& o);
// "published 1, spec 0, spec-single 2, model 0": counts by basis, every basis named.
std::string basis_split(const BasisCounts& b);

// Exit status of `mrc-conform run`: 3 when any case ERRORed, an expectation entry expired or the
// run was interrupted (none of them excused by an accepted expectation); else 1 when the run is
// not conformant, a case was INCONCLUSIVE or an expectation entry is stale (unexpected pass), or
// under --strict any FAIL; else 0. Advisories alone exit 0: that is what --strict turns off.
int exit_code(const RunResult& run);

// exit_code() and why, in one line a person acts on: "exit 3: 2 case(s) ERROR (failover-v-016,
// spray-v-012)", "exit 1: not conformant (17 MUST failures), 15 case(s) INCONCLUSIVE (...)",
// "exit 0: conformant". Every cause that applies is named, those of exit 3 first; a list of case
// ids names the first five and counts the rest.
std::string exit_reason(const RunResult& run);
// The causes alone (exit_reason without its "exit N: "), for a page that shows the status apart.
std::string exit_causes(const RunResult& run);

}  // namespace mrc::harness
