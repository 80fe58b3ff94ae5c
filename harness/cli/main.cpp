// mrc-conform: the suite's command line (design.md §3). Subcommands: run, list, golden, diff,
// ev-expand. Exit codes: 0 all pass, 1 any FAIL (diff: different), 2 bad input, 3 harness error.
#include <CLI/CLI.hpp>

#include <csignal>
#include <iostream>
#include <sstream>

#include "harness/cli/ev_expand.hpp"
#include "harness/run/cli_common.hpp"
#include "harness/run/commands.hpp"
#include "harness/run/suite_runner.hpp"

#ifndef MRC_VERSION
#define MRC_VERSION "0.0.0"
#endif
#ifndef MRC_GIT_HASH
#define MRC_GIT_HASH "unknown"
#endif

namespace {

extern "C" void on_sigint(int) {
  // First Ctrl-C: only an atomic store; the suite finishes the case in progress, stops taking
  // cases and writes a partial report. A second one ends the process at once.
  if (mrc::run::interrupt_flag().exchange(true)) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mrc-conform: conformance and interoperability suite for MRC (OCP MRC 1.0)"};
  app.set_version_flag("--version", std::string("mrc-conform ") + MRC_VERSION + " (" + MRC_GIT_HASH + ")");
  app.require_subcommand(1);

  mrc::run::RunOptions run;
  run.suite_version = MRC_VERSION;
  run.git_hash = MRC_GIT_HASH;
  run.command_line = command_line(argc, argv);
  std::string seed_text;
  auto* run_cmd = app.add_subcommand("run", "run cases against a DUT and write reports");
  run_cmd->add_option("--cases", run.cases, "case files or folders (default: the suite's cases/)");
  run_cmd->add_option("--tags", run.tags, "run cases carrying any of these tags (comma list)");
  run_cmd->add_option("--exclude-tags", run.exclude_tags, "skip cases carrying any of these tags (comma list)");
  run_cmd->add_option("--testbed", run.testbed, "testbed preset or YAML for cases that name none")->capture_default_str();
  run_cmd->add_option("--dut", run.dut, "DUT binding: reference or reference:<defect>[,<defect>...]")->capture_default_str();
  run_cmd->add_option("--seed", seed_text, "replace every case's seed");
  run_cmd->add_option("--out", run.out, "report folder")->capture_default_str();
  run_cmd->add_option("--jobs,-j", run.jobs, "cases run in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  run_cmd->add_option("--expectations", run.expectations, "expectation file of the DUT (known non-PASS results)");
  run_cmd->add_option("--today", run.today, "date for expectation expiry, YYYY-MM-DD (default: today, UTC)");
  run_cmd->add_flag("--wall-clock", run.wall_clock, "put wall-clock times into the reports (not byte-reproducible)");
  run_cmd->add_flag("!--no-progress", run.progress, "no per-case progress line on stderr");

  mrc::run::ListOptions list;
  auto* list_cmd = app.add_subcommand("list", "list cases: id, level, behaviour, tags, clauses");
  list_cmd->add_option("--cases", list.cases, "case files or folders (default: the suite's cases/)");
  list_cmd->add_option("--tags", list.tags, "only cases carrying any of these tags (comma list)");
  list_cmd->add_option("--exclude-tags", list.exclude_tags, "skip cases carrying any of these tags");

  mrc::run::GoldenOptions golden;
  golden.generator = std::string("mrc-conform/") + MRC_VERSION;
  auto* golden_cmd = app.add_subcommand("golden", "regenerate golden pcaps from the reference endpoint");
  golden_cmd->add_option("--cases", golden.cases, "case files or folders (default: the suite's cases/)");
  golden_cmd->add_option("--tags", golden.tags, "only cases carrying any of these tags");
  golden_cmd->add_option("--testbed", golden.testbed, "testbed for cases that name none")->capture_default_str();
  golden_cmd->add_flag("--check", golden.check_only, "compare with the goldens on disk, write nothing (exit 1 if any differs)");

  mrc::run::DiffCliOptions diff;
  auto* diff_cmd = app.add_subcommand("diff", "field-level diff of two captures (exit 0 same, 1 different, 2 bad input)");
  diff_cmd->add_option("A", diff.a, "expected capture (pcapng or pcap)")->required();
  diff_cmd->add_option("B", diff.b, "observed capture")->required();
  diff_cmd->add_option("--mask", diff.masks, "fields to ignore (comma list; e.g. udp.sport,icrc,ts)");
  diff_cmd->add_option("--window", diff.window, "equivalence window in packets (spray reordering)")->capture_default_str();
  diff_cmd->add_option("--tolerance-ns", diff.tolerance_ns, "timestamp tolerance, ns")->capture_default_str();
  diff_cmd->add_option("--tolerance-pct", diff.tolerance_pct, "timestamp tolerance, % of elapsed time")->capture_default_str();
  diff_cmd->add_option("--max", diff.max_lines, "differences shown")->capture_default_str();

  std::string ev_file;
  auto* ev_cmd = app.add_subcommand("ev-expand", "expand an EV profile YAML (same as mrc-ev)");
  ev_cmd->add_option("FILE", ev_file, "EV profile YAML")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : mrc::run::kExitBadInput;
  }

  if (*run_cmd) {
    if (!seed_text.empty()) {
      try {
        std::size_t used = 0;
        run.seed = std::stoull(seed_text, &used, 0);
        if (used != seed_text.size()) throw std::invalid_argument(seed_text);
      } catch (const std::exception&) {
        std::cerr << "error: --seed '" << seed_text << "' is not a number\n";
        return mrc::run::kExitBadInput;
      }
    }
    std::signal(SIGINT, on_sigint);
    return mrc::run::run_suite(run, std::cout, std::cerr);
  }
  if (*list_cmd) return mrc::run::run_list(list, std::cout, std::cerr);
  if (*golden_cmd) return mrc::run::run_golden(golden, std::cout, std::cerr);
  if (*diff_cmd) return mrc::run::run_diff(diff, std::cout, std::cerr);
  if (*ev_cmd) return mrc::cli::run_ev_expand(ev_file, std::cout, std::cerr);
  return mrc::run::kExitBadInput;
}
