// The command line of `mrc-conform` as CLI11 declares it: every subcommand, its options and the
// structs they fill. main.cpp makes one CommandLine, parses, and dispatches on which subcommand
// was given. The declarations are grouped as the rooms that do the work (harness/README.md):
// the runner's commands (run_commands.cpp), the studies (study_commands.cpp), and the tools
// around them (tool_commands.cpp: list, golden, diff, ev-expand, and the certify commands).
// Values are checked here with CLI11's validators (option_checks.hpp), so --help shows each
// option's type and range and every refusal names the option.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/cli/cmd_replay.hpp"
#include "harness/cli/commands.hpp"

namespace mrc::cli {

// --shard, --shard-count and --shard-costs as typed, for run, campaign, variants and falsefail:
// resolved (with the schedulers' variables) by resolve_shard_options once a command is chosen.
struct ShardText {
  std::string shard;
  std::string count;
  std::string costs;
};

// What the suite was built as, stamped into reports and bundles.
struct BuildInfo {
  std::string version;
  std::string git_hash;
  std::string command_line;  // argv joined by spaces
};

struct CommandLine {
  explicit CommandLine(BuildInfo b);

  CLI::App app;
  BuildInfo build;
  std::string clauses_file;  // --clauses, on every command that loads cases

  run::RunOptions run;
  RunTextOptions run_text;
  ShardText run_shard;
  bool isolate = false;
  bool no_isolate = false;
  CaseChildOptions child;
  InteropOptions interop;
  DoctorCliOptions doctor;

  CampaignOptions campaign;
  ShardText campaign_shard;
  VariantsOptions variants;
  ShardText variants_shard;
  FalsefailOptions falsefail;
  ShardText falsefail_shard;
  MergeOptions merge;

  ListOptions list;
  GoldenOptions golden;
  DiffCliOptions diff;
  std::string ev_file;
  KeygenOptions keygen;
  BundleCliOptions bundle;
  VerifyCliOptions verify;
  ReplayCliOptions replay;

  CLI::App* run_cmd = nullptr;
  CLI::App* child_cmd = nullptr;
  CLI::App* interop_cmd = nullptr;
  CLI::App* doctor_cmd = nullptr;
  CLI::App* campaign_cmd = nullptr;
  CLI::App* variants_cmd = nullptr;
  CLI::App* falsefail_cmd = nullptr;
  CLI::App* merge_cmd = nullptr;
  CLI::App* list_cmd = nullptr;
  CLI::App* golden_cmd = nullptr;
  CLI::App* diff_cmd = nullptr;
  CLI::App* ev_cmd = nullptr;
  CLI::App* keygen_cmd = nullptr;
  CLI::App* bundle_cmd = nullptr;
  CLI::App* verify_cmd = nullptr;
  CLI::App* replay_cmd = nullptr;
};

// run, the hidden case-child, interop, doctor.
void declare_run_commands(CommandLine& cl);
// campaign, variants, falsefail, merge.
void declare_study_commands(CommandLine& cl);
// list, golden, diff, ev-expand.
void declare_tool_commands(CommandLine& cl);
// keygen, bundle, verify, replay (tool_commands.cpp).
void declare_certify_commands(CommandLine& cl);

// --cases, --clauses, --tags and --exclude-tags as every case-loading command spells them.
struct CaseSelectionText {
  std::vector<std::string>* cases = nullptr;
  std::string* clauses = nullptr;
  std::vector<std::string>* tags = nullptr;
  std::vector<std::string>* exclude_tags = nullptr;  // null: the command has no --exclude-tags
};
void add_case_selection(CLI::App* cmd, const CaseSelectionText& t);
void add_shard_options(CLI::App* cmd, ShardText& t);

}  // namespace mrc::cli
