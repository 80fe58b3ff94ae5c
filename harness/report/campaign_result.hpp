// What a defect campaign (`mrc-conform campaign`, design.md §4 "every check is proven to bite")
// produced: filled by the campaign engine (harness/run/campaign*), read by the renderers
// (campaign_report.hpp).
//
// A defect is CAUGHT when at least one case FAILs with a FAILing check whose clauses (the check's
// own, defaulting to the case's) intersect the defect's `violates`. Every other FAIL or ERROR
// case of that defect run is collateral. An ERROR is never a kill: it says the harness or binding
// broke, not that a check recognised the defect.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

struct CampaignDefect {
  std::string name;
  std::string symptom;
  std::vector<std::string> violates;  // requirement ids of cases/clauses.yaml (cases/defects.yaml)
};

struct FailingCheck {
  std::string name;
  std::vector<std::string> clauses;
  std::string message;
};

// One case of a defect run (a killer, or collateral), or a baseline problem.
struct CaseOutcome {
  std::string id;
  Verdict verdict = Verdict::kError;
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
  // Cases of cases_run whose clean (baseline) run never read this defect's switch: with the
  // defect on they run the same to the byte (reference/quirk/quirk_flag.hpp), so their result is
  // the clean run's; only `--run-all` runs them again.
  std::vector<std::string> unreached;
  // With --run-all: the unreached cases whose defect run differed from their clean run, one line
  // each. Each is a switch the endpoint acted on without its read being logged: the default
  // campaign, which takes the clean result for them, would be wrong there.
  std::vector<std::string> reach_errors;
  // The killing case runs kept under kills/<defect>/ (a run report and their evidence), in suite
  // order; empty when none was kept (campaign --kill-runs none, or not caught).
  std::vector<std::string> kept_runs;
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
  // Case runs not made because the defect was unreached (DefectOutcome::unreached); printed, not
  // in the reports, which are the same with --run-all.
  std::size_t runs_skipped = 0;

  std::size_t caught() const;
  double kill_rate() const;  // caught / defects; 0 when there are none
  std::vector<std::string> survivors() const;
  std::size_t reach_errors() const;  // over every defect
  int exit_code() const;     // 0 kill rate >= min, baseline clean, no reach error; 1 otherwise; 3 interrupted
};

}  // namespace mrc::harness
