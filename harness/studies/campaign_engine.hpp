// Runs a defect campaign (design.md §4 "every check is proven to bite"). A baseline run on the
// reference endpoint first (a case that does not PASS there cannot prove anything and is left out
// of the attribution), then every given defect against the clean cases as `reference:<defect>`,
// all case runs of all defects through one pool so the jobs stay busy. Nothing is written: the
// caller renders the result (harness/report/campaign_report.hpp).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <span>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/report/campaign_result.hpp"
#include "harness/run/case_pool.hpp"
#include "harness/studies/campaign_kills.hpp"

namespace mrc::run {

struct CampaignPlan {
  std::vector<harness::CampaignDefect> defects;  // in catalog order
  bool relevant_only = false;      // per defect, only the cases whose clauses it violates
  // Also run the cases a defect leaves unreached, and report any that differ from the clean run
  // (CampaignResult::reach_errors); by default their clean result stands for them.
  bool run_all = false;
  // Makes the baseline's DUT; empty: the reference without defects (tests give one that misreports
  // its defects_read(), to show --run-all catches it).
  BindingFactory clean;
  // The DUT the defects are switched on in: `reference`, or a plugin that serves the reference's
  // catalog by name (binding_factory.hpp spec_with_names). Only the in-process reference tells
  // which switches a run read, so through a plugin every pair is run.
  std::string dut = "reference";
  PoolOptions pool;                // testbed, jobs, watchdog, evidence options; the pool writes none
  // Where the runs that killed a defect are kept (campaign_kills.hpp): <kill_runs>/<defect>/.
  // Empty, or keep_kills kNone: nothing is kept and no defect run writes evidence.
  std::filesystem::path kill_runs;
  KeptKills keep_kills = KeptKills::kFirst;
  harness::RunResult kill_report;  // each kept report's meta and requirements (meta.dut set per defect)
  std::ostream* progress = nullptr;  // a line per finished case run when set
  std::ostream* err = nullptr;       // warnings (a kept kill that could not be written) when set
};

// Fills cases, baseline_problems, defects, relevant_only, testbed and interrupted; the caller
// sets min_kill_rate and wall_seconds.
harness::CampaignResult run_defect_campaign(std::span<const harness::Case* const> cases,
                                            const std::filesystem::path& suite_root, const CampaignPlan& plan);

}  // namespace mrc::run
