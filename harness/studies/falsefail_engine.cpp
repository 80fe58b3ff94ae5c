#include "harness/studies/falsefail_engine.hpp"

#include <ostream>

#include "harness/dut/binding_factory.hpp"
#include "harness/run/suite_runner.hpp"
#include "harness/studies/falsefail.hpp"
#include "harness/studies/progress_count.hpp"

namespace mrc::run {

harness::FalsefailResult measure_falsefail(std::span<const harness::Case* const> cases,
                                           const std::filesystem::path& suite_root, const FalsefailPlan& plan) {
  std::vector<CaseTask> tasks;
  for (const harness::Case* c : cases) {
    for (std::uint32_t s = 0; s < plan.seeds; ++s) tasks.push_back(CaseTask{c, plan.first_seed + s, nullptr});
  }
  ProgressCount count(tasks.size(), plan.pool.jobs);
  const BindingFactory factory = [spec = plan.dut] { return harness::make_binding(spec, nullptr); };
  const auto runs = run_case_tasks(tasks, suite_root, plan.pool, factory,
                                   [&](std::size_t, const harness::CaseResult& r, double wall_s) {
                                     const std::string at = count.next(wall_s);
                                     if (!plan.progress || (r.verdict == harness::Verdict::kPass &&
                                                            count.done() % 50 != 0 && count.done() != tasks.size())) {
                                       return;
                                     }
                                     *plan.progress << at << r.id << " seed " << r.seed << ' '
                                                    << harness::to_string(r.verdict) << ' ' << format_seconds(wall_s)
                                                    << count.eta() << '\n'
                                                    << std::flush;
                                   });

  harness::FalsefailResult result;
  result.dut = plan.dut;
  result.testbed = plan.pool.testbed;
  result.first_seed = plan.first_seed;
  result.seeds = plan.seeds;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    std::vector<harness::CaseResult> per_seed;
    for (std::uint32_t s = 0; s < plan.seeds; ++s) {
      const auto& r = runs[k * plan.seeds + s];
      if (r) {
        per_seed.push_back(*r);
      } else {
        result.interrupted = true;
      }
    }
    result.cases.push_back(tally_falsefail(*cases[k], per_seed));
  }
  if (interrupt_flag().load()) result.interrupted = true;
  return result;
}

}  // namespace mrc::run
