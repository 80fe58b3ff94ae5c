// The studies (harness/studies/): campaign, variants, falsefail; and merge, which puts the shards
// of any of them (or of a run) back together.
#include <filesystem>
#include <string>

#include "harness/cli/app/command_line.hpp"
#include "harness/cli/app/option_checks.hpp"

namespace mrc::cli {

namespace {

// Where a study writes, how wide and on what it runs, and how it reports progress: the same
// options for every study. `wall_clock` null: the study has no --wall-clock.
struct StudyRunText {
  std::filesystem::path* out;
  const char* out_help;
  unsigned* jobs;
  std::string* testbed;
  bool* wall_clock;
  bool* progress;
  ShardText* shard;
};

void add_study_run_options(CLI::App* cmd, const StudyRunText& t) {
  cmd->add_option("--out", *t.out, t.out_help)->capture_default_str();
  cmd->add_option("--jobs,-j", *t.jobs, "case runs in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_option("--testbed", *t.testbed, "testbed preset or YAML for cases that name none")->capture_default_str();
  if (t.wall_clock != nullptr) {
    cmd->add_flag("--wall-clock", *t.wall_clock, "put the wall time into the reports (not byte-reproducible)");
  }
  cmd->add_flag_callback("--no-progress", [p = t.progress] { *p = false; }, "no per-run progress line on stderr");
  add_shard_options(cmd, *t.shard);
}

// Which entries of one of the reference's catalogs a study runs (--defects, --variants), and the
// binding that serves them by name.
void add_catalog_options(CLI::App* cmd, const std::string& option, std::string& names, const std::string& entry,
                         std::string& dut, const std::string& catalog) {
  cmd->add_option(option, names, "all, or a comma list of " + entry + " names")->capture_default_str();
  cmd->add_option("--dut", dut,
                  "reference, or plugin:PATH serving the reference's " + catalog +
                      " by name in its arguments (the reference plugin); runs in this process")
      ->capture_default_str();
}

void declare_campaign(CommandLine& cl) {
  CampaignOptions& o = cl.campaign;
  auto* cmd = cl.campaign_cmd =
      cl.app.add_subcommand("campaign", "run the cases against every catalog defect of the reference; report the kill rate");
  add_case_selection(cmd, {&o.cases, &cl.clauses_file, &o.tags, &o.exclude_tags});
  add_catalog_options(cmd, "--defects", o.defects, "defect", o.dut, "defect catalog");
  add_study_run_options(cmd, {&o.out, "report folder (campaign.json, campaign.html)", &o.jobs, &o.testbed, &o.wall_clock,
                              &o.progress, &cl.campaign_shard});
  cmd->add_option("--min-kill-rate", o.min_kill_rate, "exit 1 below this share of defects caught")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--relevant-only", o.relevant_only, "per defect, only the cases whose clauses it violates");
  cmd->add_flag("--run-all", o.run_all,
                "also run each case with the defects its clean run never reached (their result is the clean run's by "
                "construction; this checks it: a difference is a reach error, exit 1)");
  cmd->add_option("--kill-runs", o.kill_runs,
                  "killing runs kept with report and evidence in <out>/kills/<defect>/: first (per defect), all or none")
      ->check(CLI::IsMember({"first", "all", "none"}))
      ->capture_default_str();
}

void declare_variants(CommandLine& cl) {
  VariantsOptions& o = cl.variants;
  auto* cmd = cl.variants_cmd =
      cl.app.add_subcommand("variants", "run the cases against every conformant variant of the reference; count false fails");
  add_case_selection(cmd, {&o.cases, &cl.clauses_file, &o.tags, &o.exclude_tags});
  add_catalog_options(cmd, "--variants", o.variants, "variant", o.dut, "variants");
  cmd->add_option("--seeds", o.seeds, "runs per case and variant (its seed, seed+1, ...)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 10000u));
  add_study_run_options(cmd, {&o.out, "report folder (variants.json, variants.html)", &o.jobs, &o.testbed, &o.wall_clock,
                              &o.progress, &cl.variants_shard});
}

void declare_falsefail(CommandLine& cl) {
  FalsefailOptions& o = cl.falsefail;
  auto* cmd = cl.falsefail_cmd =
      cl.app.add_subcommand("falsefail", "false-fail rate of the statistical cases over many seeds on the reference");
  add_case_selection(cmd, {&o.cases, &cl.clauses_file, &o.tags, &o.exclude_tags});
  cmd->add_option("--seeds", o.seeds, "runs per case (seeds first-seed, first-seed+1, ...)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  // Checked as text first: CLI11 alone would wrap -1 to 2^64-1.
  cmd->add_option("--first-seed", o.first_seed, "first seed")->capture_default_str()->check(seed_check());
  cmd->add_option("--dut", o.dut, "binding measured (a defective reference shows the rate exceeding alpha)")
      ->capture_default_str();
  add_study_run_options(cmd, {&o.out, "report folder (falsefail.json)", &o.jobs, &o.testbed, nullptr, &o.progress,
                              &cl.falsefail_shard});
}

}  // namespace

void declare_study_commands(CommandLine& cl) {
  declare_campaign(cl);
  declare_variants(cl);
  declare_falsefail(cl);
  cl.merge.command_line = cl.build.command_line;
  cl.merge_cmd = cl.app.add_subcommand(
      "merge", "merge the report folders of a sharded run, campaign, variants or falsefail (--shard K/N) into one "
               "report; exit code: the single run's");
  cl.merge_cmd->add_option("DIR", cl.merge.dirs, "the shards' --out folders, one per shard")->required();
  cl.merge_cmd->add_option("-o,--out", cl.merge.out, "the merged report folder")->required();
}

}  // namespace mrc::cli
