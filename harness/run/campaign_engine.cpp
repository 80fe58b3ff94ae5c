#include "harness/run/campaign_engine.hpp"

#include <ostream>

#include "harness/dut/binding_factory.hpp"
#include "harness/run/campaign.hpp"
#include "harness/run/suite_runner.hpp"

namespace mrc::run {
namespace {

using harness::CaseOutcome;
using harness::CaseResult;
using harness::Verdict;

BindingFactory factory_for(const std::string& spec) {
  return [spec] { return harness::make_binding(spec, nullptr); };
}

}  // namespace

harness::CampaignResult run_defect_campaign(std::span<const harness::Case* const> cases,
                                            const std::filesystem::path& suite_root, const CampaignPlan& plan) {
  harness::CampaignResult result;
  result.testbed = plan.pool.testbed;
  result.relevant_only = plan.relevant_only;
  for (const harness::Case* c : cases) result.cases.push_back(c->id);
  const auto& defects = plan.defects;

  std::size_t finished = 0;
  auto progress = [&](std::size_t total, const std::string& label, const CaseResult& r, double wall_s) {
    if (!plan.progress) return;
    ++finished;
    *plan.progress << '[' << finished << '/' << total << "] " << label << ' ' << r.id << ' '
                   << harness::to_string(r.verdict) << ' ' << format_seconds(wall_s) << '\n'
                   << std::flush;
  };

  // ---- baseline: the reference endpoint without defects ----
  const BindingFactory clean = factory_for("reference");
  std::vector<CaseTask> tasks;
  for (const harness::Case* c : cases) tasks.push_back(CaseTask{c, c->seed, nullptr});
  const auto baseline = run_case_tasks(tasks, suite_root, plan.pool, clean, [&](std::size_t, const CaseResult& r, double w) {
    progress(tasks.size(), "baseline", r, w);
  });
  std::vector<const harness::Case*> usable;
  std::vector<const harness::Case*> unusable;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    if (!baseline[i]) {
      result.interrupted = true;
      continue;
    }
    if (baseline[i]->verdict == Verdict::kPass) {
      usable.push_back(cases[i]);
    } else {
      unusable.push_back(cases[i]);
      result.baseline_problems.push_back(CaseOutcome{baseline[i]->id, baseline[i]->verdict, baseline[i]->message, {}});
    }
  }

  // ---- every defect against the clean cases, one pool for all ----
  std::vector<BindingFactory> factories;
  factories.reserve(defects.size());
  for (const auto& d : defects) factories.push_back(factory_for("reference:" + d.name));
  std::vector<std::vector<const harness::Case*>> per_defect(defects.size());
  std::vector<std::size_t> first_task(defects.size());
  tasks.clear();
  for (std::size_t k = 0; k < defects.size(); ++k) {
    first_task[k] = tasks.size();
    for (const harness::Case* c : usable) {
      if (plan.relevant_only && !case_is_relevant(*c, defects[k])) continue;
      per_defect[k].push_back(c);
      tasks.push_back(CaseTask{c, c->seed, &factories[k]});
    }
  }
  std::vector<std::string> labels(tasks.size());
  for (std::size_t k = 0; k < defects.size(); ++k) {
    for (std::size_t i = 0; i < per_defect[k].size(); ++i) labels[first_task[k] + i] = defects[k].name;
  }
  finished = 0;
  const auto runs = result.interrupted ? std::vector<std::optional<CaseResult>>(tasks.size())
                                       : run_case_tasks(tasks, suite_root, plan.pool, clean,
                                                        [&](std::size_t i, const CaseResult& r, double w) {
                                                          progress(tasks.size(), labels[i], r, w);
                                                        });
  for (std::size_t k = 0; k < defects.size(); ++k) {
    std::vector<CaseResult> results;
    for (std::size_t i = 0; i < per_defect[k].size(); ++i) {
      const auto& r = runs[first_task[k] + i];
      if (!r) {
        result.interrupted = true;
        break;
      }
      results.push_back(*r);
    }
    if (results.size() < per_defect[k].size()) break;  // an interrupted defect is not reported
    harness::DefectOutcome d = attribute(defects[k], per_defect[k], results);
    for (const harness::Case* c : unusable) {
      if (case_is_relevant(*c, d.defect)) d.baseline_excluded.push_back(c->id);
    }
    result.defects.push_back(std::move(d));
  }
  if (interrupt_flag().load()) result.interrupted = true;
  return result;
}

}  // namespace mrc::run
