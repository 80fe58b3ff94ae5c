#include "harness/studies/variants_engine.hpp"

#include <ostream>

#include "harness/dut/binding_factory.hpp"
#include "harness/run/suite_runner.hpp"
#include "harness/studies/campaign.hpp"
#include "harness/studies/progress_count.hpp"

namespace mrc::run {

using harness::CaseOutcome;
using harness::CaseResult;
using harness::Verdict;

void record_variant_case(harness::VariantRun& run, const harness::Case& c, const CaseResult& r) {
  ++run.case_runs;
  if (r.verdict == Verdict::kPass) {
    ++run.passed;
    return;
  }
  CaseOutcome o{r.id, r.verdict, r.message, {}};
  if (r.verdict == Verdict::kError) {
    run.errors.push_back(std::move(o));
    return;
  }
  if (r.verdict != Verdict::kFail) {
    run.other.push_back(std::move(o));
    return;
  }
  harness::FalseFail f;
  f.level = r.fail_level.empty() ? r.level : r.fail_level;  // the level its failing checks prove
  f.seed = r.seed;
  for (std::size_t k = 0; k < r.checks.size(); ++k) {
    const harness::CheckResult& chk = r.checks[k];
    if (chk.verdict != Verdict::kFail) continue;
    std::vector<std::string> cl = check_clauses(c, k);
    for (const std::string& id : cl) {
      if (clauses_intersect(std::span(&id, 1), run.leaves_open) &&
          !clauses_intersect(std::span(&id, 1), f.pinned_choice)) {
        f.pinned_choice.push_back(id);
      }
    }
    o.checks.push_back(harness::FailingCheck{chk.name, std::move(cl), chk.message});
  }
  f.outcome = std::move(o);
  run.false_fails.push_back(std::move(f));
}

harness::VariantsResult run_variants(std::span<const harness::Case* const> cases,
                                     const std::filesystem::path& suite_root, const VariantsPlan& plan) {
  harness::VariantsResult result;
  result.testbed = plan.pool.testbed;
  result.seeds = plan.seeds;
  for (const harness::Case* c : cases) result.cases.push_back(c->id);

  // Run 0 is the default reference: it is conformant too, and a case that FAILs it is a false
  // fail like any other (the baseline a variant's false fails are read against).
  std::vector<BindingFactory> factories;
  if (plan.include_default) {
    result.runs.push_back(harness::VariantRun{"reference", "the default reference (round robin, SACK on the W6 triggers)",
                                              {}, 0, 0, {}, {}, {}, false});
    factories.push_back([spec = plan.dut] { return harness::make_binding(spec, nullptr); });
  }
  for (const VariantSpec& v : plan.variants) {
    result.runs.push_back(harness::VariantRun{v.name, v.choice, v.leaves_open, 0, 0, {}, {}, {}, false});
    factories.push_back([spec = harness::spec_with_names(plan.dut, v.name)] { return harness::make_binding(spec, nullptr); });
  }

  std::vector<CaseTask> tasks;
  std::vector<std::size_t> run_of;  // task -> index into result.runs
  std::vector<std::size_t> case_of;  // task -> index into cases
  for (std::size_t k = 0; k < factories.size(); ++k) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      for (std::uint32_t s = 0; s < plan.seeds; ++s) {
        tasks.push_back(CaseTask{cases[i], cases[i]->seed + s, &factories[k]});
        run_of.push_back(k);
        case_of.push_back(i);
      }
    }
  }
  ProgressCount count(tasks.size(), plan.pool.jobs);
  const BindingFactory clean = [] { return harness::make_binding("reference", nullptr); };
  const auto runs = run_case_tasks(tasks, suite_root, plan.pool, clean,
                                   [&](std::size_t i, const CaseResult& r, double wall_s) {
                                     const std::string at = count.next(wall_s);
                                     if (!plan.progress) return;
                                     *plan.progress << at << result.runs[run_of[i]].name << ' ' << r.id << ' '
                                                    << harness::to_string(r.verdict) << ' ' << format_seconds(wall_s)
                                                    << count.eta() << '\n'
                                                    << std::flush;
                                   });
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    harness::VariantRun& run = result.runs[run_of[i]];
    if (!runs[i]) {
      run.interrupted = true;
      result.interrupted = true;
      continue;
    }
    record_variant_case(run, *cases[case_of[i]], *runs[i]);
  }
  if (interrupt_flag().load()) result.interrupted = true;
  return result;
}

}  // namespace mrc::run
