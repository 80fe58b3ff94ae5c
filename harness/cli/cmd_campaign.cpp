// `mrc-conform campaign`: proves the selected cases bite (design.md §4). Chooses the defects of
// the reference's catalog, gives each its requirement ids from the suite's cases/defects.yaml,
// runs the campaign (harness/studies/campaign_engine.hpp) and writes campaign.json / campaign.html.
// No evidence pcaps and no run reports are written per defect run.
#include <algorithm>
#include <chrono>
#include <ostream>

#include "harness/case/catalog_map.hpp"
#include "harness/case/diagnostics.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/staged_out.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/report/campaign_report.hpp"
#include "harness/report/report.hpp"
#include "harness/run/case_select.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/run_reports.hpp"
#include "harness/run/shard_plan.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/studies/campaign.hpp"
#include "harness/studies/campaign_engine.hpp"
#include "reference/defects.hpp"
#include "reference/wire/wire_revision.hpp"

namespace mrc::cli {
namespace {

using harness::CampaignDefect;
using run::kExitBadInput;
using run::kExitHarness;

// The chosen catalog names in catalog order, or nullopt (message on `err`) on an unknown name.
std::optional<std::vector<std::string_view>> choose_defects(const std::string& spec, std::ostream& err) {
  const auto catalog = ref::defect_catalog();
  std::vector<std::string> names = run::split_list(spec);
  const bool all = names.size() == 1 && names.front() == "all";
  for (const auto& n : names) {
    if (!all && !ref::defect_by_name(n)) {
      std::vector<std::string> known;
      for (const auto& item : catalog) known.emplace_back(item.name);
      err << "error: --defects: unknown defect '" << n << "'" << harness::did_you_mean(harness::closest_match(n, known))
          << "; known defects:";
      for (const auto& d : catalog) err << ' ' << d.name;
      err << '\n';
      return std::nullopt;
    }
  }
  if (names.empty()) {
    err << "error: --defects is empty: give 'all' or a comma list of defect names\n";
    return std::nullopt;
  }
  std::vector<std::string_view> out;
  for (const auto& d : catalog) {
    if (all || std::find(names.begin(), names.end(), d.name) != names.end()) out.push_back(d.name);
  }
  return out;
}

// The chosen defects with their symptoms and the requirement ids the suite's defect map gives
// them, or nullopt (every loader error on `err`).
std::optional<std::vector<CampaignDefect>> campaign_defects(std::span<const std::string_view> chosen,
                                                            const run::LoadedSuite& suite, std::ostream& err) {
  if (suite.root.empty()) {
    err << "error: no suite root (cases/clauses.yaml) found: the campaign needs cases/" << harness::kDefectMapName
        << '\n';
    return std::nullopt;
  }
  std::vector<std::string_view> catalog;
  for (const auto& d : ref::defect_catalog()) catalog.push_back(d.name);
  const auto map = harness::load_catalog_map(suite.root / "cases" / harness::kDefectMapName, suite.clauses, catalog, "defect");
  if (!map.ok()) {
    err << map.diagnostics.to_string();
    return std::nullopt;
  }
  std::vector<CampaignDefect> out;
  for (const std::string_view name : chosen) {
    const ref::DefectInfo& info = ref::defect_info(*ref::defect_by_name(name));
    out.push_back(CampaignDefect{std::string(name), std::string(info.symptom), map.find(name)->requirements});
  }
  return out;
}

// The campaign's shard unit is a defect: a defect's verdict (caught or not, its killers and
// collateral) needs all its case runs together, while defects are independent of each other. Each
// shard runs the baseline (one clean run per case, cheap beside the defects) and its own defects;
// `merge` checks the shards' baselines agree. A defect costs the runs it makes: every case, or
// with --relevant-only the cases relevant to it.
run::ShardPick shard_defects(const CampaignOptions& o, const std::vector<const harness::Case*>& cases,
                             const std::vector<CampaignDefect>& defects, std::ostream& err) {
  std::vector<run::ShardUnit> units;
  std::string text = "suite " + o.build + "\ndut " + o.dut + "\ntestbed " + o.testbed + "\nrelevant_only " +
                     (o.relevant_only ? "1" : "0") + "\nmin_kill_rate " + std::to_string(o.min_kill_rate) +
                     "\nwall_clock " + (o.wall_clock ? "1" : "0") + '\n' + run::cases_fingerprint_text(cases);
  for (const CampaignDefect& d : defects) {
    std::vector<const harness::Case*> runs;
    for (const harness::Case* c : cases) {
      if (!o.relevant_only || run::case_is_relevant(*c, d)) runs.push_back(c);
    }
    units.push_back(run::ShardUnit{d.name, run::cases_cost(runs, o.shard_costs)});
    text += "defect " + d.name + '\n';
  }
  return run::pick_shard("campaign", o.shard, units, o.shard_costs, text, o.command_line, o.progress ? &err : nullptr);
}

}  // namespace

int run_campaign(const CampaignOptions& o, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  if (!(o.min_kill_rate >= 0.0 && o.min_kill_rate <= 1.0)) {
    err << "error: --min-kill-rate must lie in [0, 1]\n";
    return kExitBadInput;
  }
  const std::optional<run::KeptKills> keep_kills = run::kept_kills_from(o.kill_runs);
  if (!keep_kills) {
    err << "error: --kill-runs takes first, all or none, not '" << o.kill_runs << "'\n";
    return kExitBadInput;
  }
  const auto chosen = choose_defects(o.defects, err);
  if (!chosen) return kExitBadInput;
  for (const auto name : *chosen) {
    std::string why;
    if (!harness::valid_binding_spec(harness::spec_with_names(o.dut, name), &why)) {
      err << "error: " << why << '\n';
      return kExitBadInput;
    }
  }
  const run::CaseSelection sel = run::select_cases(o.cases, o.tags, o.exclude_tags, o.testbed, err);
  if (!sel.ok) return kExitBadInput;
  auto defects = campaign_defects(*chosen, sel.suite, err);
  if (!defects) return kExitBadInput;
  std::optional<run::ShardPick> shard;
  if (o.shard.active) {
    shard = shard_defects(o, sel.cases, *defects, err);
    std::vector<CampaignDefect> mine;
    for (std::size_t k = 0; k < defects->size(); ++k) {
      if (shard->mine[k]) mine.push_back(std::move((*defects)[k]));
    }
    *defects = std::move(mine);
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

  run::CampaignPlan plan;
  plan.defects = std::move(*defects);
  plan.relevant_only = o.relevant_only;
  plan.run_all = o.run_all;
  plan.dut = o.dut;
  plan.pool.testbed = o.testbed;
  plan.pool.write_evidence = false;
  // The runs that killed a defect keep their report and evidence under <out>/kills/<defect>/: the
  // evidence of a FAIL, headers only unless a check reads payload (as `run --evidence failures`).
  plan.pool.evidence.keep = run::EvidenceKeep::kFailures;
  plan.kill_runs = folder->staging / "kills";
  plan.keep_kills = *keep_kills;
  plan.err = &err;
  {
    harness::RunResult& k = plan.kill_report;
    const auto space = o.build.find(' ');
    k.meta.suite_version = o.build.substr(0, space);
    k.meta.git_hash = space == std::string::npos ? "" : o.build.substr(space + 1);
    k.meta.wire = std::string(wire::kWireRevision);
    k.meta.testbed = o.testbed;
    k.requirements = run::suite_coverage(sel.suite);
    k.evidence.keep = std::string(run::to_string(plan.pool.evidence.keep));
    k.evidence.snaplen = run::snaplen_spelling(plan.pool.evidence);
  }
  plan.pool.jobs = o.jobs;
  plan.pool.watchdog_grace_s = o.watchdog_grace_s;
  plan.progress = o.progress ? &err : nullptr;
  harness::CampaignResult result = run::run_defect_campaign(sel.cases, sel.suite.root, plan);
  result.min_kill_rate = o.min_kill_rate;
  if (o.wall_clock) result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  try {
    harness::write_file_atomically(folder->staging / "campaign.json", harness::render_campaign_json(result));
    harness::write_file_atomically(folder->staging / "campaign.html", harness::render_campaign_html(result));
  } catch (const std::exception& e) {
    err << "error: writing the campaign report: " << e.what() << '\n';
    place_out(*folder, false, err);
    out << harness::render_campaign_text(result);
    return kExitHarness;
  }
  const std::filesystem::path dir = place_out(*folder, !result.interrupted, err);
  out << harness::render_campaign_text(result);
  if (result.runs_skipped > 0) {
    out << "case runs: " << result.runs_skipped
        << " not made: the case's clean run never read the defect's switch, so it is the defect's run (--run-all "
           "makes them and checks)\n";
  }
  out << "reports: " << (dir / "campaign.json").string() << ", " << (dir / "campaign.html").string() << '\n';
  return result.exit_code();
}

}  // namespace mrc::cli
