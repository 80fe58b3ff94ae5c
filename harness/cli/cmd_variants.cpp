// `mrc-conform variants`: proves a conformant DUT that chooses differently is never failed
// (design.md §4). Chooses variants of the reference's catalog, gives each the requirement ids that
// leave its choice open from the suite's cases/variants.yaml, runs the family
// (harness/studies/variants_engine.hpp) and writes variants.json / variants.html. No evidence pcaps.
#include <algorithm>
#include <chrono>
#include <ostream>

#include "harness/case/catalog_map.hpp"
#include "harness/case/diagnostics.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/staged_out.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/report/report.hpp"
#include "harness/report/variants_report.hpp"
#include "harness/run/case_select.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/shard_plan.hpp"
#include "harness/studies/variants_engine.hpp"
#include "reference/variants.hpp"

namespace mrc::cli {
namespace {

using run::kExitBadInput;
using run::kExitHarness;

// The chosen variants with their choices and requirement ids, in catalog order, or nullopt
// (message on `err`) on an unknown name or a bad cases/variants.yaml.
std::optional<std::vector<run::VariantSpec>> choose_variants(const std::string& spec, const run::LoadedSuite& suite,
                                                              std::ostream& err) {
  const auto catalog = ref::variant_catalog();
  const std::vector<std::string> names = run::split_list(spec);
  const bool all = names.size() == 1 && names.front() == "all";
  if (names.empty()) {
    err << "error: --variants is empty: give 'all' or a comma list of variant names\n";
    return std::nullopt;
  }
  for (const auto& n : names) {
    if (!all && !ref::variant_by_name(n)) {
      std::vector<std::string> known;
      for (const auto& item : catalog) known.emplace_back(item.name);
      err << "error: --variants: unknown variant '" << n << "'" << harness::did_you_mean(harness::closest_match(n, known))
          << "; known variants:";
      for (const auto& v : catalog) err << ' ' << v.name;
      err << '\n';
      return std::nullopt;
    }
  }
  if (suite.root.empty()) {
    err << "error: no suite root (cases/clauses.yaml) found: variants needs cases/" << harness::kVariantMapName << '\n';
    return std::nullopt;
  }
  std::vector<std::string_view> catalog_names;
  for (const auto& v : catalog) catalog_names.push_back(v.name);
  const auto map =
      harness::load_catalog_map(suite.root / "cases" / harness::kVariantMapName, suite.clauses, catalog_names, "variant");
  if (!map.ok()) {
    err << map.diagnostics.to_string();
    return std::nullopt;
  }
  std::vector<run::VariantSpec> out;
  for (const auto& v : catalog) {
    if (!all && std::find(names.begin(), names.end(), v.name) == names.end()) continue;
    out.push_back(run::VariantSpec{std::string(v.name), std::string(v.choice), map.find(v.name)->requirements});
  }
  return out;
}

// The shard unit of `variants` is one run of the family (the default reference or a variant): its
// counts and false fails are its own. A unit costs every selected case times the seeds.
run::ShardPick shard_variants(const VariantsOptions& o, const std::vector<const harness::Case*>& cases,
                              const std::vector<run::VariantSpec>& variants, std::ostream& err) {
  const double cost = run::cases_cost(cases, o.shard_costs) * o.seeds;
  std::vector<run::ShardUnit> units{run::ShardUnit{"reference", cost}};
  std::string text = "suite " + o.build + "\ndut " + o.dut + "\ntestbed " + o.testbed + "\nseeds " + std::to_string(o.seeds) +
                     "\nwall_clock " + (o.wall_clock ? "1" : "0") + '\n' + run::cases_fingerprint_text(cases);
  for (const run::VariantSpec& v : variants) {
    units.push_back(run::ShardUnit{v.name, cost});
    text += "variant " + v.name + '\n';
  }
  return run::pick_shard("variants", o.shard, units, o.shard_costs, text, o.command_line, o.progress ? &err : nullptr);
}

}  // namespace

int run_variants(const VariantsOptions& o, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  const run::CaseSelection sel = run::select_cases(o.cases, o.tags, o.exclude_tags, o.testbed, err);
  if (!sel.ok) return kExitBadInput;
  auto chosen = choose_variants(o.variants, sel.suite, err);
  if (!chosen) return kExitBadInput;
  for (const run::VariantSpec& v : *chosen) {
    std::string why;
    if (!harness::valid_binding_spec(harness::spec_with_names(o.dut, v.name), &why)) {
      err << "error: --dut: " << why << '\n';
      return kExitBadInput;
    }
  }
  std::optional<run::ShardPick> shard;
  bool include_default = true;
  if (o.shard.active) {
    shard = shard_variants(o, sel.cases, *chosen, err);
    include_default = shard->mine.front();
    std::vector<run::VariantSpec> mine;
    for (std::size_t k = 0; k < chosen->size(); ++k) {
      if (shard->mine[k + 1]) mine.push_back(std::move((*chosen)[k]));
    }
    *chosen = std::move(mine);
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

  run::VariantsPlan plan;
  plan.variants = std::move(*chosen);
  plan.seeds = o.seeds;
  plan.dut = o.dut;
  plan.include_default = include_default;
  plan.pool.testbed = o.testbed;
  plan.pool.write_evidence = false;
  plan.pool.jobs = o.jobs;
  plan.pool.watchdog_grace_s = o.watchdog_grace_s;
  plan.progress = o.progress ? &err : nullptr;
  harness::VariantsResult result = run::run_variants(sel.cases, sel.suite.root, plan);
  if (o.wall_clock) result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  try {
    harness::write_file_atomically(folder->staging / "variants.json", harness::render_variants_json(result));
    harness::write_file_atomically(folder->staging / "variants.html", harness::render_variants_html(result));
  } catch (const std::exception& e) {
    err << "error: writing the variants report: " << e.what() << '\n';
    place_out(*folder, false, err);
    out << harness::render_variants_text(result);
    return kExitHarness;
  }
  const std::filesystem::path dir = place_out(*folder, !result.interrupted, err);
  out << "reports: " << (dir / "variants.json").string() << ", " << (dir / "variants.html").string() << '\n';
  out << harness::render_variants_text(result);
  return result.exit_code();
}

}  // namespace mrc::cli
