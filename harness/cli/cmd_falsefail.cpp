// `mrc-conform falsefail`: every selected case with a distribution check, once per seed, on the
// chosen binding (harness/studies/falsefail_engine.hpp); prints the table and writes falsefail.json.
#include <ostream>

#include "harness/cli/commands.hpp"
#include "harness/cli/staged_out.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/lab/spelling_hints.hpp"
#include "harness/report/falsefail_report.hpp"
#include "harness/report/report.hpp"
#include "harness/run/case_select.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/shard_plan.hpp"
#include "harness/studies/falsefail.hpp"
#include "harness/studies/falsefail_engine.hpp"

namespace mrc::cli {

using run::kExitBadInput;
using run::kExitHarness;

int run_falsefail(const FalsefailOptions& o, std::ostream& out, std::ostream& err) {
  if (o.seeds == 0) {
    err << "error: --seeds must be at least 1\n";
    return kExitBadInput;
  }
  // The seeds run first-seed, first-seed+1, ...: past 2^64-1 they would wrap to 0 and repeat.
  if (o.first_seed > UINT64_MAX - (o.seeds - 1)) {
    err << "error: --first-seed " << o.first_seed << " with --seeds " << o.seeds
        << " runs past 2^64-1 (the seeds would wrap to 0); the largest first seed for " << o.seeds << " seeds is "
        << UINT64_MAX - (o.seeds - 1) << '\n';
    return kExitBadInput;
  }
  {
    std::string why;
    if (!harness::valid_binding_spec(o.dut, &why)) {
      err << "error: " << run::with_binding_hint(why) << '\n';
      return kExitBadInput;
    }
  }
  const run::CaseSelection sel = run::select_cases(o.cases, o.tags, o.exclude_tags, o.testbed, err);
  if (!sel.ok) return kExitBadInput;
  std::vector<const harness::Case*> stat;
  for (const harness::Case* c : sel.cases) {
    if (run::is_statistical(*c)) stat.push_back(c);
  }
  if (stat.empty()) {
    err << "error: none of the " << sel.cases.size() << " selected case(s) has a distribution check\n";
    return kExitBadInput;
  }
  // The shard unit of `falsefail` is a case with all its seeds: its counts and p-values are its own.
  std::optional<run::ShardPick> shard;
  if (o.shard.active) {
    std::vector<run::ShardUnit> units;
    for (const harness::Case* c : stat) units.push_back(run::ShardUnit{c->id, run::case_cost(*c, o.shard_costs) * o.seeds});
    const std::string text = "suite " + o.build + "\ndut " + o.dut + "\ntestbed " + o.testbed + "\nfirst_seed " +
                             std::to_string(o.first_seed) + "\nseeds " + std::to_string(o.seeds) + '\n' +
                             run::cases_fingerprint_text(stat);
    shard = run::pick_shard("falsefail", o.shard, units, o.shard_costs, text, o.command_line, o.progress ? &err : nullptr);
    std::vector<const harness::Case*> mine;
    for (std::size_t i = 0; i < stat.size(); ++i) {
      if (shard->mine[i]) mine.push_back(stat[i]);
    }
    stat = std::move(mine);
  }
  auto folder = open_out(o.out, err);
  if (!folder) return kExitBadInput;
  if (shard) {
    if (std::string e = run::write_shard_record(shard->record, folder->staging); !e.empty()) {
      err << "error: " << e << '\n';
      harness::discard_staged(*folder);
      return kExitHarness;
    }
  }

  run::FalsefailPlan plan;
  plan.dut = o.dut;
  plan.first_seed = o.first_seed;
  plan.seeds = o.seeds;
  plan.pool.testbed = o.testbed;
  plan.pool.write_evidence = false;
  plan.pool.jobs = o.jobs;
  plan.pool.watchdog_grace_s = o.watchdog_grace_s;
  plan.progress = o.progress ? &err : nullptr;
  const harness::FalsefailResult result = run::measure_falsefail(stat, sel.suite.root, plan);

  out << harness::render_falsefail_text(result);
  try {
    harness::write_file_atomically(folder->staging / "falsefail.json", harness::render_falsefail_json(result));
  } catch (const std::exception& e) {
    err << "error: writing falsefail.json: " << e.what() << '\n';
    place_out(*folder, false, err);
    return kExitHarness;
  }
  const std::filesystem::path dir = place_out(*folder, !result.interrupted, err);
  out << "report: " << (dir / "falsefail.json").string() << '\n';
  return result.exit_code();
}

}  // namespace mrc::cli
