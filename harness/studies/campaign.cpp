// The campaign's attribution rule (campaign.hpp).
#include "harness/studies/campaign.hpp"

#include <algorithm>

namespace mrc::run {

using harness::CampaignDefect;
using harness::CaseOutcome;
using harness::DefectOutcome;
using harness::FailingCheck;
using harness::Verdict;

bool clauses_intersect(std::span<const std::string> a, std::span<const std::string> b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

std::vector<std::string> check_clauses(const harness::Case& c, std::size_t index) {
  if (index < c.checks.size() && !c.checks[index].clauses.empty()) return c.checks[index].clauses;
  return c.clauses;
}

bool case_is_relevant(const harness::Case& c, const CampaignDefect& d) {
  if (clauses_intersect(c.clauses, d.violates)) return true;
  // Check clauses are a subset of the case's (the loader enforces it); looked at anyway so the
  // rule never depends on that.
  return std::any_of(c.checks.begin(), c.checks.end(),
                     [&](const harness::Check& chk) { return clauses_intersect(chk.clauses, d.violates); });
}

DefectOutcome attribute(const CampaignDefect& d, std::span<const harness::Case* const> cases,
                        std::span<const harness::CaseResult> results) {
  DefectOutcome out;
  out.defect = d;
  const std::size_t n = std::min(cases.size(), results.size());
  for (std::size_t i = 0; i < n; ++i) {
    const harness::Case& c = *cases[i];
    const harness::CaseResult& r = results[i];
    out.cases_run.push_back(r.id);
    if (r.verdict != Verdict::kFail && r.verdict != Verdict::kError) continue;
    CaseOutcome o{r.id, r.verdict, r.message, {}};
    if (r.verdict == Verdict::kFail) {
      for (std::size_t k = 0; k < r.checks.size(); ++k) {
        const harness::CheckResult& chk = r.checks[k];
        if (chk.verdict != Verdict::kFail) continue;
        std::vector<std::string> cl = check_clauses(c, k);
        if (clauses_intersect(cl, d.violates)) o.checks.push_back(FailingCheck{chk.name, std::move(cl), chk.message});
      }
    }
    if (o.checks.empty()) {
      out.collateral.push_back(std::move(o));
    } else {
      out.killers.push_back(std::move(o));
    }
  }
  out.caught = !out.killers.empty();
  return out;
}

}  // namespace mrc::run
