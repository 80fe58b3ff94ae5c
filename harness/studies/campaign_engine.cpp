#include "harness/studies/campaign_engine.hpp"

#include <ostream>

#include "harness/dut/binding_factory.hpp"
#include "harness/run/suite_runner.hpp"
#include "harness/studies/campaign.hpp"
#include "harness/studies/progress_count.hpp"

namespace mrc::run {
namespace {

using harness::CaseOutcome;
using harness::CaseResult;
using harness::Verdict;

BindingFactory factory_for(const std::string& spec) {
  return [spec] { return harness::make_binding(spec, nullptr); };
}

// Two runs of one case that went the same, but for their wall time.
bool same_run(const CaseResult& a, CaseResult b) {
  b.wall_ms = a.wall_ms;
  return a == b;
}

}  // namespace

harness::CampaignResult run_defect_campaign(std::span<const harness::Case* const> cases,
                                            const std::filesystem::path& suite_root, const CampaignPlan& plan) {
  harness::CampaignResult result;
  result.testbed = plan.pool.testbed;
  result.relevant_only = plan.relevant_only;
  for (const harness::Case* c : cases) result.cases.push_back(c->id);
  const auto& defects = plan.defects;

  // One count for both phases: the defect runs join it once the baseline says which are needed.
  ProgressCount count(cases.size(), plan.pool.jobs);
  auto progress = [&](const std::string& label, const CaseResult& r, double wall_s) {
    const std::string at = count.next(wall_s);
    if (!plan.progress) return;
    *plan.progress << at << label << ' ' << r.id << ' ' << harness::to_string(r.verdict) << ' ' << format_seconds(wall_s)
                   << count.eta() << '\n'
                   << std::flush;
  };

  // ---- baseline: the reference endpoint without defects ----
  // Each run also tells which defect switches the endpoint read (reference/quirk/quirk_flag.hpp).
  const BindingFactory clean = plan.clean ? plan.clean : factory_for(plan.dut);
  std::vector<std::optional<ref::DefectSet>> reads(cases.size());
  std::vector<CaseTask> tasks;
  for (std::size_t i = 0; i < cases.size(); ++i) tasks.push_back(CaseTask{cases[i], cases[i]->seed, nullptr, &reads[i]});
  const auto baseline = run_case_tasks(tasks, suite_root, plan.pool, clean, [&](std::size_t, const CaseResult& r, double w) {
    progress("baseline", r, w);
  });
  std::vector<std::size_t> usable;  // indexes into cases
  std::vector<const harness::Case*> unusable;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    if (!baseline[i]) {
      result.interrupted = true;
      continue;
    }
    if (baseline[i]->verdict == Verdict::kPass) {
      usable.push_back(i);
    } else {
      unusable.push_back(cases[i]);
      result.baseline_problems.push_back(CaseOutcome{baseline[i]->id, baseline[i]->verdict, baseline[i]->message, {}});
    }
  }

  // ---- every defect against the clean cases, one pool for all ----
  // A case whose clean run never read a defect's switch runs the same with the defect on: its
  // result is the clean run's, and it is run only with plan.run_all (which checks that).
  std::vector<BindingFactory> factories;
  factories.reserve(defects.size());
  for (const auto& d : defects) factories.push_back(factory_for(harness::spec_with_names(plan.dut, d.name)));
  struct Pair {
    std::size_t c = 0;                          // index into cases
    std::optional<std::size_t> task;            // into tasks, when it runs
    bool unreached = false;
  };
  std::vector<std::vector<Pair>> per_defect(defects.size());
  // A defect run's evidence is written (for a FAIL, by the pool's options) into the defect's
  // folder of kept kills; keep_kill_runs() then keeps the killers' and removes the rest.
  const bool keeping = !plan.kill_runs.empty() && plan.keep_kills != KeptKills::kNone;
  std::vector<std::filesystem::path> kill_dirs;
  for (const auto& d : defects) kill_dirs.push_back(keeping ? plan.kill_runs / d.name : std::filesystem::path());
  tasks.clear();
  for (std::size_t k = 0; k < defects.size(); ++k) {
    const std::optional<ref::Defect> id = ref::defect_by_name(defects[k].name);
    for (const std::size_t i : usable) {
      if (plan.relevant_only && !case_is_relevant(*cases[i], defects[k])) continue;
      Pair p{i, std::nullopt, id && reads[i] && !reads[i]->has(*id)};
      if (!p.unreached || plan.run_all) {
        p.task = tasks.size();
        tasks.push_back(CaseTask{cases[i], cases[i]->seed, &factories[k], nullptr, keeping ? &kill_dirs[k] : nullptr});
      }
      per_defect[k].push_back(p);
    }
  }
  std::vector<std::string> labels(tasks.size());
  for (std::size_t k = 0; k < defects.size(); ++k) {
    for (const Pair& p : per_defect[k]) {
      if (p.task) labels[*p.task] = defects[k].name;
    }
  }
  count.add_total(result.interrupted ? 0 : tasks.size());
  result.runs_skipped = 0;
  const auto runs = result.interrupted ? std::vector<std::optional<CaseResult>>(tasks.size())
                                       : run_case_tasks(tasks, suite_root, plan.pool, clean,
                                                        [&](std::size_t i, const CaseResult& r, double w) {
                                                          progress(labels[i], r, w);
                                                        });
  for (std::size_t k = 0; k < defects.size(); ++k) {
    std::vector<CaseResult> results;
    std::vector<const harness::Case*> run_cases;
    std::vector<std::string> unreached;
    std::vector<std::string> reach_errors;
    for (const Pair& p : per_defect[k]) {
      const CaseResult& clean_run = *baseline[p.c];
      if (p.unreached) unreached.push_back(clean_run.id);
      if (!p.task) {
        ++result.runs_skipped;
        results.push_back(clean_run);
      } else if (!runs[*p.task]) {
        result.interrupted = true;
        break;
      } else {
        results.push_back(*runs[*p.task]);
        if (p.unreached && !same_run(clean_run, results.back())) {
          reach_errors.push_back(clean_run.id + ": the defect's run (" +
                                 std::string(harness::to_string(results.back().verdict)) +
                                 ") differs from the clean run (PASS), which never read the defect's switch");
        }
      }
      run_cases.push_back(cases[p.c]);
    }
    if (results.size() < per_defect[k].size()) break;  // an interrupted defect is not reported
    harness::DefectOutcome d = attribute(defects[k], run_cases, results);
    d.unreached = std::move(unreached);
    d.reach_errors = std::move(reach_errors);
    for (const harness::Case* c : unusable) {
      if (case_is_relevant(*c, d.defect)) d.baseline_excluded.push_back(c->id);
    }
    if (keeping) {
      const std::string e = keep_kill_runs(plan.keep_kills, d, results, plan.kill_report,
                                           harness::spec_with_names(plan.dut, defects[k].name), kill_dirs[k]);
      if (!e.empty() && plan.err) *plan.err << "warning: " << e << '\n';
    }
    result.defects.push_back(std::move(d));
  }
  if (interrupt_flag().load()) result.interrupted = true;
  return result;
}

}  // namespace mrc::run
