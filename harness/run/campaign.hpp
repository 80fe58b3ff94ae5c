// The defect campaign (`mrc-conform campaign`, design.md §4 "every check is proven to bite"):
// the data it produces, the attribution rule that decides whether a defect was caught, and the
// renderers of campaign.json / campaign.html / the stdout summary.
//
// Attribution: a defect is CAUGHT when at least one case FAILs with a FAILing check whose clauses
// (the check's own, defaulting to the case's) intersect the defect's `violates`. Every other
// FAIL or ERROR case of that defect run is collateral. An ERROR is never a kill: it says the
// harness or binding broke, not that a check recognised the defect.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

struct CampaignDefect {
  std::string name;
  std::string symptom;
  std::vector<std::string> violates;  // requirement ids of cases/clauses.yaml
};

struct FailingCheck {
  std::string name;
  std::vector<std::string> clauses;
  std::string message;
};

// One case of a defect run (a killer, or collateral), or a baseline problem.
struct CaseOutcome {
  std::string id;
  harness::Verdict verdict = harness::Verdict::kError;
  std::string message;
  std::vector<FailingCheck> checks;  // killers: the checks that attribute the kill
};

struct DefectOutcome {
  CampaignDefect defect;
  std::vector<std::string> cases_run;  // ids, in suite order
  bool caught = false;
  std::vector<CaseOutcome> killers;
  std::vector<CaseOutcome> collateral;
  // Cases covering a violated clause that were left out because they did not PASS the baseline
  // (the usual reason a defect "survives" while the library has cases for it).
  std::vector<std::string> baseline_excluded;
};

struct CampaignResult {
  std::string testbed;
  bool relevant_only = false;
  double min_kill_rate = 0.9;
  std::vector<std::string> cases;            // selected case ids
  std::vector<CaseOutcome> baseline_problems;  // selected cases that did not PASS on `reference`
  std::vector<DefectOutcome> defects;        // in catalog order
  bool interrupted = false;
  std::optional<double> wall_seconds;        // only with --wall-clock

  std::size_t caught() const;
  double kill_rate() const;  // caught / defects; 0 when there are none
  std::vector<std::string> survivors() const;
  int exit_code() const;     // 0 kill rate >= min and baseline clean, 1 otherwise, 3 interrupted
};

// True when the two id lists share an id.
bool clauses_intersect(std::span<const std::string> a, std::span<const std::string> b);

// The clauses check `index` of `c`'s result proves: the check's own, else the case's. Results
// hold one CheckResult per case check in case order (judge_case()), then extra ones (scripted
// expects) that prove the case's clauses.
std::vector<std::string> check_clauses(const harness::Case& c, std::size_t index);

// Could `c` see the defect at all: does any of its checks prove a violated clause?
bool case_is_relevant(const harness::Case& c, const CampaignDefect& d);

// Applies the attribution rule to one defect run. `cases[i]` produced `results[i]`.
DefectOutcome attribute(const CampaignDefect& d, std::span<const harness::Case* const> cases,
                        std::span<const harness::CaseResult> results);

// campaign.json: 2-space indented, keys in a fixed order, byte-identical for the same result.
std::string render_campaign_json(const CampaignResult& r);
// campaign.html: one self-contained page (inline CSS, no script, no external URL).
std::string render_campaign_html(const CampaignResult& r);
// The stdout summary: one line per defect (CAUGHT/SURVIVED and the killer case ids), totals.
std::string render_campaign_text(const CampaignResult& r);

}  // namespace mrc::run
