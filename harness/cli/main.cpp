// mrc-conform: the suite's command line (design.md §3). Declares the subcommands (app/, one file
// per group), parses, and dispatches to them (commands.hpp, one cmd_<name>.cpp each). Exit codes:
// 0 pass (run: conformant, advisories allowed), 1 FAIL (run: not conformant, or any FAIL with
// --strict; diff: different), 2 bad input, 3 harness error.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <tuple>

#include "harness/cli/app/command_line.hpp"
#include "harness/cli/app/option_checks.hpp"
#include "harness/cli/ev_expand.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/cli/sigint.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"

#ifndef MRC_VERSION
#define MRC_VERSION "0.0.0"
#endif
#ifdef MRC_GIT_HEADER
#include MRC_GIT_HEADER  // MRC_GIT_HASH, stamped at every build
#endif
#ifndef MRC_GIT_HASH
#define MRC_GIT_HASH "unknown"
#endif

namespace {

namespace cli = mrc::cli;
namespace run = mrc::run;

// The variable that hands --clauses to the `run --isolate` children.
constexpr const char* kClausesEnv = "MRC_CONFORM_CLAUSES";

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

// Parses argv into cl; an exit code when the program ends here (help, version, bad input).
std::optional<int> parse(cli::CommandLine& cl, int argc, char** argv) {
  // A first word that is no option and no subcommand is a misspelt subcommand: say so, with the
  // list, instead of CLI11's "A subcommand is required".
  if (const std::string why = cli::unknown_subcommand(cl.app, argc, argv); !why.empty()) {
    std::cerr << "error: " << why << '\n';
    return run::kExitBadInput;
  }
  cli::refuse_negative_unsigned(cl.app);
  try {
    cl.app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    // A misspelt option: name the closest one of the subcommand it was given to.
    if (const std::string hint = cli::option_hint(cl.app, argc, argv); !hint.empty()) {
      std::cerr << "error: " << hint << "\nRun with --help for more information.\n";
      return run::kExitBadInput;
    }
    return cl.app.exit(e) == 0 ? 0 : run::kExitBadInput;
  } catch (const CLI::ParseError& e) {
    return cl.app.exit(e) == 0 ? 0 : run::kExitBadInput;
  }
  return std::nullopt;
}

// --clauses for every command that loads cases, and for the `run --isolate` children.
void apply_clauses(const cli::CommandLine& cl) {
  if (!cl.clauses_file.empty()) {
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(cl.clauses_file, ec);
    run::set_clauses_option(abs);
    ::setenv(kClausesEnv, abs.c_str(), 1);  // inherited by the --isolate children
  } else if (const char* inherited = std::getenv(kClausesEnv); inherited != nullptr && *cl.child_cmd) {
    run::set_clauses_option(inherited);
  }
}

// The shard options and the schedulers' variables: bad values are exit 2 before anything runs.
bool resolve_shards(cli::CommandLine& cl) {
  const auto shard_of = [](const cli::ShardText& t, run::ShardSpec& spec, run::CaseCosts& costs) {
    return cli::resolve_shard_options(t.shard, t.count, t.costs, spec, costs, std::cerr);
  };
  if (*cl.run_cmd && !shard_of(cl.run_shard, cl.run.shard, cl.run.shard_costs)) return false;
  const std::string build = cl.build.version + " " + cl.build.git_hash;
  for (auto [cmd, text, spec, costs, build_of, line_of] :
       {std::tuple{cl.campaign_cmd, &cl.campaign_shard, &cl.campaign.shard, &cl.campaign.shard_costs, &cl.campaign.build,
                   &cl.campaign.command_line},
        std::tuple{cl.variants_cmd, &cl.variants_shard, &cl.variants.shard, &cl.variants.shard_costs, &cl.variants.build,
                   &cl.variants.command_line},
        std::tuple{cl.falsefail_cmd, &cl.falsefail_shard, &cl.falsefail.shard, &cl.falsefail.shard_costs,
                   &cl.falsefail.build, &cl.falsefail.command_line}}) {
    if (!*cmd) continue;
    if (!shard_of(*text, *spec, *costs)) return false;
    *build_of = build;
    *line_of = cl.build.command_line;
  }
  return true;
}

int dispatch(cli::CommandLine& cl) {
  std::ostream& out = std::cout;
  std::ostream& err = std::cerr;
  // The commands that run cases stop gracefully on Ctrl-C: reports marked interrupted.
  if (*cl.run_cmd || *cl.interop_cmd || *cl.campaign_cmd || *cl.variants_cmd || *cl.falsefail_cmd) {
    cli::stop_gracefully_on_sigint();
  }
  if (*cl.merge_cmd) return cli::run_merge(cl.merge, out, err);
  if (*cl.run_cmd) {
    cl.run.isolation.enabled = cl.isolate || (!cl.no_isolate && !mrc::harness::in_process_binding(cl.run.dut));
    return cli::run_cases(cl.run, cl.run_text, out, err);
  }
  if (*cl.interop_cmd) return cli::run_interop(cl.interop, out, err);
  if (*cl.campaign_cmd) return cli::run_campaign(cl.campaign, out, err);
  if (*cl.variants_cmd) return cli::run_variants(cl.variants, out, err);
  if (*cl.falsefail_cmd) return cli::run_falsefail(cl.falsefail, out, err);
  if (*cl.doctor_cmd) return cli::run_doctor_cli(cl.doctor, out, err);
  if (*cl.list_cmd) return cli::run_list(cl.list, out, err);
  if (*cl.golden_cmd) return cli::run_golden(cl.golden, out, err);
  if (*cl.diff_cmd) return cli::run_diff(cl.diff, out, err);
  if (*cl.keygen_cmd) return cli::run_keygen(cl.keygen, out, err);
  if (*cl.bundle_cmd) return cli::run_bundle(cl.bundle, out, err);
  if (*cl.verify_cmd) return cli::run_verify(cl.verify, out, err);
  if (*cl.replay_cmd) return cli::run_replay(cl.replay, out, err);
  if (*cl.ev_cmd) return cli::run_ev_expand(cl.ev_file, out, err);
  return run::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  cli::CommandLine cl({MRC_VERSION, MRC_GIT_HASH, command_line(argc, argv)});
  cli::declare_run_commands(cl);
  cli::declare_tool_commands(cl);
  cli::declare_study_commands(cl);
  cli::declare_certify_commands(cl);
  if (const std::optional<int> rc = parse(cl, argc, argv)) return *rc;

  apply_clauses(cl);
  if (*cl.child_cmd) {
    const int rc = cli::run_case_child(cl.child, std::cerr);
    // At once, without static destructors: a binding call the case's watchdog gave up on may
    // still hold a thread that destructors would pull the ground from under.
    std::cerr.flush();
    std::_Exit(rc);
  }
  if (!resolve_shards(cl)) return run::kExitBadInput;
  return dispatch(cl);
}
