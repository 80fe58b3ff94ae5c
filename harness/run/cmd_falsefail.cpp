// `mrc-conform falsefail`: every selected case with a distribution check, once per seed
// (first_seed .. first_seed + seeds - 1, replacing the case's own), on the reference endpoint;
// all runs through one pool. Writes falsefail.json and prints the table (falsefail.hpp).
#include <ostream>

#include "harness/dut/reference_binding.hpp"
#include "harness/report/report.hpp"
#include "harness/run/case_pool.hpp"
#include "harness/run/case_select.hpp"
#include "harness/run/commands.hpp"
#include "harness/run/falsefail.hpp"
#include "harness/run/suite_runner.hpp"

namespace mrc::run {

int run_falsefail(const FalsefailOptions& o, std::ostream& out, std::ostream& err) {
  if (o.seeds == 0) {
    err << "error: --seeds must be at least 1\n";
    return kExitBadInput;
  }
  {
    std::string why;
    if (!harness::valid_binding_spec(o.dut, &why)) {
      err << "error: " << why << '\n';
      return kExitBadInput;
    }
  }
  const CaseSelection sel = select_cases(o.cases, o.tags, o.exclude_tags, o.testbed, err);
  if (!sel.ok) return kExitBadInput;
  std::vector<const harness::Case*> stat;
  for (const harness::Case* c : sel.cases) {
    if (is_statistical(*c)) stat.push_back(c);
  }
  if (stat.empty()) {
    err << "error: none of the " << sel.cases.size() << " selected case(s) has a distribution check\n";
    return kExitBadInput;
  }

  std::vector<CaseTask> tasks;
  for (const harness::Case* c : stat) {
    for (std::uint32_t s = 0; s < o.seeds; ++s) tasks.push_back(CaseTask{c, o.first_seed + s, nullptr});
  }
  PoolOptions po;
  po.testbed = o.testbed;
  po.write_evidence = false;
  po.jobs = o.jobs;
  po.watchdog_grace_s = o.watchdog_grace_s;
  std::size_t finished = 0;
  const BindingFactory factory = [spec = o.dut] { return harness::make_binding(spec, nullptr); };
  const auto runs = run_case_tasks(tasks, sel.suite.root, po, factory,
                                   [&](std::size_t, const harness::CaseResult& r, double wall_s) {
                                     ++finished;
                                     if (!o.progress || (r.verdict == harness::Verdict::kPass && finished % 50 != 0 &&
                                                         finished != tasks.size())) {
                                       return;
                                     }
                                     err << '[' << finished << '/' << tasks.size() << "] " << r.id << " seed "
                                         << r.seed << ' ' << harness::to_string(r.verdict) << ' '
                                         << format_seconds(wall_s) << '\n'
                                         << std::flush;
                                   });

  FalsefailResult result;
  result.dut = o.dut;
  result.testbed = o.testbed;
  result.first_seed = o.first_seed;
  result.seeds = o.seeds;
  for (std::size_t k = 0; k < stat.size(); ++k) {
    std::vector<harness::CaseResult> per_seed;
    for (std::uint32_t s = 0; s < o.seeds; ++s) {
      const auto& r = runs[k * o.seeds + s];
      if (r) {
        per_seed.push_back(*r);
      } else {
        result.interrupted = true;
      }
    }
    result.cases.push_back(tally_falsefail(*stat[k], per_seed));
  }
  if (interrupt_flag().load()) result.interrupted = true;

  out << render_falsefail_text(result);
  try {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw harness::ReportError(o.out.string() + ": " + ec.message());
    harness::write_file_atomically(o.out / "falsefail.json", render_falsefail_json(result));
  } catch (const std::exception& e) {
    err << "error: writing falsefail.json: " << e.what() << '\n';
    return kExitHarness;
  }
  out << "report: " << (o.out / "falsefail.json").string() << '\n';
  return result.exit_code();
}

}  // namespace mrc::run
