// mrc-conform: the suite's command line (design.md §3). Parses the arguments and dispatches to the
// subcommands (commands.hpp, one cmd_<name>.cpp each): run, interop, doctor, list, golden, diff,
// campaign, variants, falsefail, merge, ev-expand, and the hidden case-child (one case of `run --isolate`). Exit
// codes: 0 pass (run: conformant, advisories allowed), 1 FAIL (run: not conformant, or any FAIL
// with --strict; diff: different), 2 bad input, 3 harness error.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <tuple>

#include "harness/case/diagnostics.hpp"
#include "harness/case/limits.hpp"
#include "harness/cli/cmd_replay.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/ev_expand.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/cli/sigint.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/run/case_child.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/verdict/diff_stream.hpp"

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

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

void set_build_info(mrc::run::RunOptions& o, int argc, char** argv) {
  o.suite_version = MRC_VERSION;
  o.git_hash = MRC_GIT_HASH;
  o.command_line = command_line(argc, argv);
}

// The options `run` and `interop` share: what runs, where, how (each interop pair is a run).
// --clauses, on every command that loads cases (harness/run/suite_loader.hpp).
std::string clauses_file;
constexpr const char* kClausesHelp =
    "clauses.yaml for case files with none in their folder or above (default: the suite's cases/clauses.yaml)";
// The variable that hands --clauses to the `run --isolate` children.
constexpr const char* kClausesEnv = "MRC_CONFORM_CLAUSES";

void add_suite_run_options(CLI::App* cmd, mrc::run::RunOptions& o, std::string& seed_text, std::string& token_file) {
  cmd->add_option("--cases", o.cases, "case files, folders or case ids (default: the suite's cases/)");
  cmd->add_option("--clauses", clauses_file, kClausesHelp);
  cmd->add_option("--tags", o.tags, "run cases carrying any of these tags (comma list)");
  cmd->add_option("--exclude-tags", o.exclude_tags, "skip cases carrying any of these tags (comma list)");
  cmd->add_option("--testbed", o.testbed, "testbed preset or YAML for cases that name none; netns, or a lab testbed file, puts the DUT on real interfaces")->capture_default_str();
  cmd->add_option("--agent-token-file", token_file,
                  "file holding the DUT agent's token (agent:... bindings; default: $MRC_AGENT_TOKEN)");
  cmd->add_option("--seed", seed_text, "replace every case's seed");
  cmd->add_option("--out", o.out, "report folder")->capture_default_str();
  cmd->add_option("--jobs,-j", o.jobs, "cases run in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_option_function<std::string>(
         "--clock", [&o](const std::string& v) { o.agent_clock = *mrc::harness::parse_agent_clock(v); },
         "agent bindings: virtual (a lockstep agent, mrc-dut-agent --clock virtual: the DUT runs in the fabric's "
         "virtual time), real (an agent on real interfaces) or auto (default: what the agent says)")
      ->check(CLI::IsMember({"auto", "real", "virtual"}));
  cmd->add_flag("--wall-clock", o.wall_clock, "put wall-clock times into the reports (not byte-reproducible)");
  cmd->add_flag_callback("--no-progress", [&p = o.progress] { p = false; }, "no progress lines on stderr");
}

// --shard, --shard-count and --shard-costs as typed, for run, campaign, variants and falsefail:
// resolved (with the schedulers' variables) by resolve_shard_options once a command is chosen.
struct ShardText {
  std::string shard;
  std::string count;
  std::string costs;
};

void add_shard_options(CLI::App* cmd, ShardText& t) {
  cmd->add_option("--shard", t.shard,
                  "run only shard K of N (0-based K/N, e.g. 1/4) and write a shard record for `mrc-conform merge`; "
                  "default: SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX when set");
  cmd->add_option("--shard-count", t.count,
                  "the shard count N with JOB_COMPLETION_INDEX (a Kubernetes Indexed Job; else $MRC_SHARD_COUNT)");
  cmd->add_option("--shard-costs", t.costs,
                  "balance the shards by the case wall times of a previous `run --wall-clock` report folder "
                  "(default: the cases' estimated simulated packets)");
}

// CLI11 converts "-1" for an unsigned option by wrapping it to 2^64-1 (`diff --max -1` then
// reserved that many records and aborted; `--tolerance-ns -1` meant "unlimited"). Every option of
// every subcommand whose value is an unsigned number refuses a minus sign, naming the option.
void refuse_negative_unsigned(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (!opt->get_type_name().starts_with("UINT")) continue;
    opt->check(CLI::Validator(
        [](std::string& text) -> std::string {
          const auto first = text.find_first_not_of(" \t");
          return first != std::string::npos && text[first] == '-' ? "'" + text + "' is negative; it takes 0 or more" : "";
        },
        ""));
  }
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) refuse_negative_unsigned(*sub);
}

}  // namespace

// "unknown option --tgas (did you mean --tags?)" for the first word after the subcommand that
// looks like an option and is none of its options; "" when no such word or no close option.
std::string option_hint(CLI::App& app, int argc, char** argv) {
  CLI::App* sub = nullptr;
  for (CLI::App* s : app.get_subcommands()) sub = s;
  if (sub == nullptr) return "";
  std::vector<std::string> names;
  for (const CLI::Option* o : sub->get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  }
  for (int i = 2; i < argc; ++i) {
    std::string word = argv[i];
    if (!word.starts_with("--")) continue;
    word = word.substr(0, word.find('='));
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    const std::string best = mrc::harness::closest_match(word, names);
    return "unknown option " + word + " for `" + sub->get_name() + "`" + mrc::harness::did_you_mean(best);
  }
  return "";
}

int main(int argc, char** argv) {
  CLI::App app{"mrc-conform: conformance and interoperability suite for MRC (OCP MRC 1.0)"};
  app.set_version_flag("--version", std::string("mrc-conform ") + MRC_VERSION + " (" + MRC_GIT_HASH + ")");
  app.require_subcommand(1);

  mrc::run::RunOptions run;
  set_build_info(run, argc, argv);
  mrc::cli::RunTextOptions run_text;
  auto* run_cmd = app.add_subcommand("run", "run cases against a DUT and write reports");
  add_suite_run_options(run_cmd, run, run_text.seed, run_text.agent_token_file);
  ShardText run_shard;
  add_shard_options(run_cmd, run_shard);
  run_cmd->add_option("--dut", run.dut,
                      "DUT binding: reference, reference:<defect>[,<defect>...], agent:HOST:PORT (with a lab testbed file) or "
                      "agent:reference[:<defect>,...] (with --testbed netns)")
      ->capture_default_str();
  run_cmd->add_option("--peer", run.peer,
                      "the harness's own side (testbed host 1), any --dut spelling; default: the in-process reference")
      ->capture_default_str();
  run_cmd->add_option("--agent-connect-timeout-ms", run_text.agent_connect_timeout_ms,
                      "agent binding: bound on connecting to the agent, ms (connect_timeout; default 5000, 1..3600000)");
  run_cmd->add_option("--agent-call-timeout-ms", run_text.agent_call_timeout_ms,
                      "agent binding: bound on each request and its reply, ms (call_timeout; default 5000, 1..3600000)");
  run_cmd->add_option("--evidence", run_text.evidence,
                      "all (default: evidence/<case>.pcapng for every case), failures (only cases whose verdict is not "
                      "PASS) or none");
  run_cmd->add_option("--snaplen", run_text.snaplen,
                      "auto (default: whole frames for cases whose checks read payload bytes, else every header), full, "
                      "or bytes N (290 .. 262144) kept of each frame in the evidence files");
  run_cmd->add_option("--expectations", run.expectations, "expectation file of the DUT (known non-PASS results)");
  run_cmd->add_option("--today", run.today, "date for expectation expiry, YYYY-MM-DD (default: today, UTC)");
  run_cmd->add_option("--profile", run_text.profile,
                      "full (default: every MUST case counts toward conformance), spec (only MUST cases of published "
                      "or spec basis: the host API, standards, and MRC 1.0 facts two spec-derived sources agree on) or "
                      "published (only MUST cases of published basis); a failed MUST case the profile does not count is "
                      "an advisory");
  run_cmd->add_flag("--strict", run.strict,
                    "exit 1 on any FAIL, advisories (SHOULD/MAY, MUST cases outside the --profile) included");
  bool isolate = false;
  bool no_isolate = false;
  auto* isolate_flag = run_cmd->add_flag(
      "--isolate", isolate,
      "run each case in a child process, so a crashing or hanging binding or DUT costs one ERROR (default for a "
      "--dut other than reference...)");
  run_cmd->add_flag("--no-isolate", no_isolate, "run every case inside this process (default for the reference)")
      ->excludes(isolate_flag);

  // Hidden (no group): started by `run --isolate` itself, never typed (harness/run/case_child.hpp).
  mrc::cli::CaseChildOptions child;
  auto* child_cmd = app.add_subcommand(mrc::run::kCaseChildCommand, "one case of an isolated run")->group("");
  child_cmd->add_option("--suite-root", child.suite_root)->required();
  child_cmd->add_option("--case", child.case_file)->required();
  child_cmd->add_option("--case-id", child.case_id)->required();
  child_cmd->add_option("--seed", child.seed)->required();
  child_cmd->add_option("--testbed", child.testbed)->required();
  child_cmd->add_option("--out", child.out)->required();
  child_cmd->add_option("--evidence", child.evidence)->required();
  child_cmd->add_option("--snaplen", child.snaplen)->required();
  child_cmd->add_option("--virtual-limit-ns", child.virtual_limit_ns)->required();
  child_cmd->add_option("--watchdog-grace-s", child.watchdog_grace_s)->required();
  child_cmd->add_option("--result-fd", child.result_fd)->required();
  child_cmd->add_option("--token-fd", child.token_fd)->required();
  child_cmd->add_option("--dut", child.dut)->required();
  child_cmd->add_option("--peer", child.peer);
  child_cmd->add_option("--dut-wire", child.dut_wire);
  child_cmd->add_option("--peer-wire", child.peer_wire);
  child_cmd->add_option("--agent-connect-timeout-ms", child.agent_connect_timeout_ms);
  child_cmd->add_option("--agent-call-timeout-ms", child.agent_call_timeout_ms);
  child_cmd->add_option("--clock", child.clock);

  mrc::cli::InteropOptions interop;
  set_build_info(interop.run, argc, argv);
  auto* interop_cmd =
      app.add_subcommand("interop", "run the cases for every ordered pair of implementations (rows: the DUT, judged; "
                                    "columns: the peer); a matrix in <out>/index.html");
  add_suite_run_options(interop_cmd, interop.run, interop.seed_text, interop.agent_token_file);
  interop_cmd->add_option("--impls", interop.impls, "binding specs, comma list (--dut spellings), e.g. reference,reference:spray-single-ev")
      ->required();

  mrc::cli::DoctorCliOptions doctor;
  auto* doctor_cmd = app.add_subcommand("doctor", "check a real-wire set-up (interfaces, MTU, capture, agent, port map, "
                                                  "pacing); exit 0 healthy, 1 not, 2 bad input");
  doctor_cmd->add_option("--testbed", doctor.testbed, "netns (a namespace and agent doctor creates) or a lab testbed file")
      ->capture_default_str();
  doctor_cmd->add_option("--dut", doctor.dut, "the agent beside the DUT, agent:HOST:PORT (lab file; netns: agent:reference)");
  doctor_cmd->add_option("--agent-token-file", doctor.agent_token_file,
                         "file holding the DUT agent's token (default: $MRC_AGENT_TOKEN)");

  mrc::cli::ListOptions list;
  auto* list_cmd = app.add_subcommand("list", "list cases (id, level, behaviour, title, tags, clauses), or the reference's defects or variants");
  list_cmd->add_option("--cases", list.cases, "case files, folders or case ids (default: the suite's cases/)");
  list_cmd->add_option("--clauses", clauses_file, kClausesHelp);
  list_cmd->add_option("--tags", list.tags, "only cases carrying any of these tags (comma list)");
  list_cmd->add_option("--exclude-tags", list.exclude_tags, "skip cases carrying any of these tags");
  list_cmd->add_flag("--defects", list.defects, "list the reference's defects (--dut reference:<defect>) and what each breaks");
  list_cmd->add_flag("--variants", list.variants,
                     "list the reference's conformant variants (--dut reference:<variant>) and the choice each makes");
  list_cmd->add_flag("--json", list.json, "print a JSON array instead of lines");

  mrc::cli::GoldenOptions golden;
  golden.generator = std::string("mrc-conform/") + MRC_VERSION;
  auto* golden_cmd = app.add_subcommand("golden", "regenerate golden pcaps from the reference endpoint");
  golden_cmd->add_option("--cases", golden.cases, "case files, folders or case ids (default: the suite's cases/)");
  golden_cmd->add_option("--clauses", clauses_file, kClausesHelp);
  golden_cmd->add_option("--tags", golden.tags, "only cases carrying any of these tags");
  golden_cmd->add_option("--testbed", golden.testbed, "testbed for cases that name none")->capture_default_str();
  golden_cmd->add_flag("--check", golden.check_only, "compare with the goldens on disk, write nothing (exit 1 if any differs)");

  mrc::cli::DiffCliOptions diff;
  auto* diff_cmd = app.add_subcommand("diff", "field-level diff of two captures (exit 0 same, 1 different, 2 bad input)");
  diff_cmd->add_option("A", diff.a, "expected capture (pcapng or pcap)")->required();
  diff_cmd->add_option("B", diff.b, "observed capture")->required();
  diff_cmd->add_option("--iface", diff.iface,
                       "in a file of several interfaces (an evidence file: one per tap), compare this one (e.g. "
                       "dut.p1.tx); a file of one interface is compared whole");
  diff_cmd->add_option("--mask", diff.masks, "fields to ignore (comma list; e.g. udp.sport,icrc,ts)");
  namespace lim = mrc::harness::limits;
  diff_cmd->add_option("--window", diff.window, "equivalence window in packets (spray reordering)")
      ->check(CLI::Range(1u, mrc::harness::kMaxStreamDiffWindow, "1 .. " + std::to_string(mrc::harness::kMaxStreamDiffWindow)))
      ->capture_default_str();
  diff_cmd->add_option("--tolerance-ns", diff.tolerance_ns, "timestamp tolerance, ns")->capture_default_str();
  // CLI::Range lets NaN through (every comparison with it is false): this check does not.
  diff_cmd->add_option("--tolerance-pct", diff.tolerance_pct, "timestamp tolerance, % of elapsed time")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end != '\0' || !(v >= 0 && v <= lim::kMaxTolerancePct)) {
              return "must be a number from 0 to 100 (kMaxTolerancePct, harness/case/limits.hpp)";
            }
            return "";
          },
          "0..100"))
      ->capture_default_str();
  diff_cmd->add_option("--max", diff.max_lines, "differences shown")->capture_default_str();
  diff_cmd->add_option("--trimmed-dscp", diff.trimmed_dscp,
                       "the DSCP that marks a trimmed packet (W13; give the case's config.dscp.trimmed if it set one)")
      ->check(CLI::Range(0u, 63u))
      ->capture_default_str();
  diff_cmd->add_option("--trimmed-lasthop-dscp", diff.trimmed_lasthop_dscp,
                       "the DSCP that marks a packet trimmed at the last hop (W13; config.dscp.trimmed_lasthop)")
      ->check(CLI::Range(0u, 63u))
      ->capture_default_str();

  mrc::cli::CampaignOptions campaign;
  auto* campaign_cmd = app.add_subcommand("campaign", "run the cases against every catalog defect of the reference; report the kill rate");
  campaign_cmd->add_option("--cases", campaign.cases, "case files, folders or case ids (default: the suite's cases/)");
  campaign_cmd->add_option("--clauses", clauses_file, kClausesHelp);
  campaign_cmd->add_option("--tags", campaign.tags, "only cases carrying any of these tags (comma list)");
  campaign_cmd->add_option("--exclude-tags", campaign.exclude_tags, "skip cases carrying any of these tags");
  campaign_cmd->add_option("--defects", campaign.defects, "all, or a comma list of defect names")->capture_default_str();
  campaign_cmd->add_option("--dut", campaign.dut,
                           "reference, or plugin:PATH serving the reference's defect catalog by name in its "
                           "arguments (the reference plugin); runs in this process")
      ->capture_default_str();
  campaign_cmd->add_option("--out", campaign.out, "report folder (campaign.json, campaign.html)")->capture_default_str();
  campaign_cmd->add_option("--jobs,-j", campaign.jobs, "case runs in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  campaign_cmd->add_option("--min-kill-rate", campaign.min_kill_rate, "exit 1 below this share of defects caught")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  campaign_cmd->add_flag("--relevant-only", campaign.relevant_only, "per defect, only the cases whose clauses it violates");
  campaign_cmd->add_flag("--run-all", campaign.run_all,
                         "also run each case with the defects its clean run never reached (their result is the clean "
                         "run's by construction; this checks it: a difference is a reach error, exit 1)");
  campaign_cmd->add_option("--kill-runs", campaign.kill_runs, "killing runs kept with report and evidence in <out>/kills/<defect>/: first (per defect), all or none")->check(CLI::IsMember({"first", "all", "none"}))->capture_default_str();
  campaign_cmd->add_option("--testbed", campaign.testbed, "testbed preset or YAML for cases that name none")->capture_default_str();
  campaign_cmd->add_flag("--wall-clock", campaign.wall_clock, "put the wall time into the reports (not byte-reproducible)");
  campaign_cmd->add_flag_callback("--no-progress", [&p = campaign.progress] { p = false; }, "no per-run progress line on stderr");
  ShardText campaign_shard;
  add_shard_options(campaign_cmd, campaign_shard);

  mrc::cli::VariantsOptions variants;
  auto* variants_cmd =
      app.add_subcommand("variants", "run the cases against every conformant variant of the reference; count false fails");
  variants_cmd->add_option("--cases", variants.cases, "case files, folders or case ids (default: the suite's cases/)");
  variants_cmd->add_option("--clauses", clauses_file, kClausesHelp);
  variants_cmd->add_option("--tags", variants.tags, "only cases carrying any of these tags (comma list)");
  variants_cmd->add_option("--exclude-tags", variants.exclude_tags, "skip cases carrying any of these tags");
  variants_cmd->add_option("--variants", variants.variants, "all, or a comma list of variant names")->capture_default_str();
  variants_cmd->add_option("--dut", variants.dut,
                           "reference, or plugin:PATH serving the reference's variants by name in its "
                           "arguments (the reference plugin); runs in this process")
      ->capture_default_str();
  variants_cmd->add_option("--seeds", variants.seeds, "runs per case and variant (its seed, seed+1, ...)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 10000u));
  variants_cmd->add_option("--out", variants.out, "report folder (variants.json, variants.html)")->capture_default_str();
  variants_cmd->add_option("--jobs,-j", variants.jobs, "case runs in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  variants_cmd->add_option("--testbed", variants.testbed, "testbed preset or YAML for cases that name none")->capture_default_str();
  variants_cmd->add_flag("--wall-clock", variants.wall_clock, "put the wall time into the reports (not byte-reproducible)");
  variants_cmd->add_flag_callback("--no-progress", [&p = variants.progress] { p = false; }, "no per-run progress line on stderr");
  ShardText variants_shard;
  add_shard_options(variants_cmd, variants_shard);

  mrc::cli::FalsefailOptions falsefail;
  auto* falsefail_cmd = app.add_subcommand("falsefail", "false-fail rate of the statistical cases over many seeds on the reference");
  falsefail_cmd->add_option("--cases", falsefail.cases, "case files, folders or case ids (default: the suite's cases/)");
  falsefail_cmd->add_option("--clauses", clauses_file, kClausesHelp);
  falsefail_cmd->add_option("--tags", falsefail.tags, "only cases carrying any of these tags (comma list)");
  falsefail_cmd->add_option("--exclude-tags", falsefail.exclude_tags, "skip cases carrying any of these tags");
  falsefail_cmd->add_option("--seeds", falsefail.seeds, "runs per case (seeds first-seed, first-seed+1, ...)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  // CLI11 alone would wrap -1 to 2^64-1: the text is checked the way run reads --seed.
  falsefail_cmd->add_option("--first-seed", falsefail.first_seed, "first seed")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            std::uint64_t seed = 0;
            const std::string why = mrc::cli::seed_error(text, seed);
            return why.empty() ? "" : "'" + text + "' " + why;
          },
          "0..2^64-1"));
  falsefail_cmd->add_option("--out", falsefail.out, "report folder (falsefail.json)")->capture_default_str();
  falsefail_cmd->add_option("--jobs,-j", falsefail.jobs, "case runs in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  falsefail_cmd->add_option("--testbed", falsefail.testbed, "testbed preset or YAML for cases that name none")->capture_default_str();
  falsefail_cmd->add_option("--dut", falsefail.dut, "binding measured (a defective reference shows the rate exceeding alpha)")
      ->capture_default_str();
  falsefail_cmd->add_flag_callback("--no-progress", [&p = falsefail.progress] { p = false; }, "no progress lines on stderr");
  ShardText falsefail_shard;
  add_shard_options(falsefail_cmd, falsefail_shard);

  mrc::cli::MergeOptions merge;
  merge.command_line = command_line(argc, argv);
  auto* merge_cmd = app.add_subcommand(
      "merge", "merge the report folders of a sharded run, campaign, variants or falsefail (--shard K/N) into one "
               "report; exit code: the single run's");
  merge_cmd->add_option("DIR", merge.dirs, "the shards' --out folders, one per shard")->required();
  merge_cmd->add_option("-o,--out", merge.out, "the merged report folder")->required();

  // The certification bundle: keygen, bundle, verify (harness/certify/bundle.hpp).
  mrc::cli::KeygenOptions keygen;
  auto* keygen_cmd = app.add_subcommand("keygen", "make an Ed25519 key pair for signing bundles (KEY, KEY.pub)");
  keygen_cmd->add_option("-o,--out", keygen.out, "private key file (PKCS#8 PEM, mode 0600); the public key goes to KEY.pub")
      ->required();
  keygen_cmd->add_flag("--force", keygen.force, "overwrite an existing KEY and KEY.pub");
  mrc::cli::BundleCliOptions bundle;
  bundle.suite_version = MRC_VERSION;
  bundle.git_hash = MRC_GIT_HASH;
  auto* bundle_cmd = app.add_subcommand("bundle", "pack a report folder into a signed certification bundle");
  bundle_cmd->add_option("REPORT_DIR", bundle.report_dir, "the --out folder of a run")->required();
  bundle_cmd->add_option("-o,--out", bundle.out, "bundle file to write")->required();
  bundle_cmd->add_option("--key", bundle.key, "signing key (mrc-conform keygen)")->required();
  bundle_cmd->add_option("--cases", bundle.cases, "the suite's cases/ folder the run used (default: found from the working directory)");
  bundle_cmd->add_option("--expectations", bundle.expectations, "the expectation file the run used");
  bundle_cmd->add_flag("--allow-partial", bundle.allow_partial, "bundle an interrupted or incomplete report");
  bundle_cmd->add_flag("--force", bundle.force, "overwrite an existing bundle file (never anything but a regular file)");
  mrc::cli::VerifyCliOptions verify;
  auto* verify_cmd = app.add_subcommand("verify", "check a bundle: every hash, the signature, and the suite's case files and "
                                                  "goldens; exit 0 OK, 1 not OK, 2 unreadable");
  verify_cmd->add_option("FILE", verify.bundle, "bundle file")->required();
  verify_cmd->add_option("--pubkey", verify.pubkey, "the signer's public key (KEY.pub); without it any valid signer is named");
  verify_cmd->add_option("--cases", verify.cases, "this suite's cases/ folder (default: found from the working directory)");
  mrc::cli::ReplayCliOptions replay;
  auto* replay_cmd = app.add_subcommand("replay", "verify a bundle, re-judge every case from its evidence with this build's "
                                                  "checks and list the verdicts that change; exit 0 none changed, 1 a "
                                                  "verdict changed, 2 bad or tampered bundle");
  replay_cmd->add_option("FILE", replay.bundle, "bundle file")->required();
  replay_cmd->add_option("--pubkey", replay.pubkey, "the signer's public key (KEY.pub), as for verify");
  replay_cmd->add_option("--cases", replay.cases, "this suite's cases/ folder (default: found from the working directory)");

  std::string ev_file;
  auto* ev_cmd = app.add_subcommand("ev-expand", "expand an EV profile YAML (same as mrc-ev)");
  ev_cmd->add_option("FILE", ev_file, "EV profile YAML")->required();

  // A first word that is no option and no subcommand is a misspelt subcommand: say so, with the
  // list, instead of CLI11's "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
      if (!sub->get_group().empty()) names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::vector<std::string> words;
      for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) words.push_back(sub->get_name());
      std::cerr << "error: unknown subcommand '" << argv[1] << "'"
                << mrc::harness::did_you_mean(mrc::harness::closest_match(argv[1], words)) << " (subcommands: " << names
                << ")\n";
      return mrc::run::kExitBadInput;
    }
  }
  refuse_negative_unsigned(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    // A misspelt option: name the closest one of the subcommand it was given to.
    if (const std::string hint = option_hint(app, argc, argv); !hint.empty()) {
      std::cerr << "error: " << hint << "\nRun with --help for more information.\n";
      return mrc::run::kExitBadInput;
    }
    return app.exit(e) == 0 ? 0 : mrc::run::kExitBadInput;
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : mrc::run::kExitBadInput;
  }

  if (!clauses_file.empty()) {
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(clauses_file, ec);
    mrc::run::set_clauses_option(abs);
    ::setenv(kClausesEnv, abs.c_str(), 1);  // inherited by the --isolate children
  } else if (const char* inherited = std::getenv(kClausesEnv); inherited != nullptr && *child_cmd) {
    mrc::run::set_clauses_option(inherited);
  }
  if (*child_cmd) {
    const int rc = mrc::cli::run_case_child(child, std::cerr);
    // At once, without static destructors: a binding call the case's watchdog gave up on may
    // still hold a thread that destructors would pull the ground from under.
    std::cerr.flush();
    std::_Exit(rc);
  }
  // The shard options and the schedulers' variables: bad values are exit 2 before anything runs.
  const auto shard_of = [](const ShardText& t, mrc::run::ShardSpec& spec, mrc::run::CaseCosts& costs) {
    return mrc::cli::resolve_shard_options(t.shard, t.count, t.costs, spec, costs, std::cerr);
  };
  const std::string build = std::string(MRC_VERSION) + " " + MRC_GIT_HASH;
  if (*run_cmd && !shard_of(run_shard, run.shard, run.shard_costs)) return mrc::run::kExitBadInput;
  for (auto [cmd, text, spec, costs, build_of, line_of] :
       {std::tuple{campaign_cmd, &campaign_shard, &campaign.shard, &campaign.shard_costs, &campaign.build, &campaign.command_line},
        std::tuple{variants_cmd, &variants_shard, &variants.shard, &variants.shard_costs, &variants.build, &variants.command_line},
        std::tuple{falsefail_cmd, &falsefail_shard, &falsefail.shard, &falsefail.shard_costs, &falsefail.build,
                   &falsefail.command_line}}) {
    if (!*cmd) continue;
    if (!shard_of(*text, *spec, *costs)) return mrc::run::kExitBadInput;
    *build_of = build;
    *line_of = command_line(argc, argv);
  }
  if (*merge_cmd) return mrc::cli::run_merge(merge, std::cout, std::cerr);
  if (*run_cmd) {
    run.isolation.enabled = isolate || (!no_isolate && !mrc::harness::in_process_binding(run.dut));
    mrc::cli::stop_gracefully_on_sigint();
    return mrc::cli::run_cases(run, run_text, std::cout, std::cerr);
  }
  if (*interop_cmd) {
    mrc::cli::stop_gracefully_on_sigint();
    return mrc::cli::run_interop(interop, std::cout, std::cerr);
  }
  if (*doctor_cmd) return mrc::cli::run_doctor_cli(doctor, std::cout, std::cerr);
  if (*list_cmd) return mrc::cli::run_list(list, std::cout, std::cerr);
  if (*golden_cmd) return mrc::cli::run_golden(golden, std::cout, std::cerr);
  if (*diff_cmd) return mrc::cli::run_diff(diff, std::cout, std::cerr);
  if (*campaign_cmd) {
    mrc::cli::stop_gracefully_on_sigint();
    return mrc::cli::run_campaign(campaign, std::cout, std::cerr);
  }
  if (*variants_cmd) {
    mrc::cli::stop_gracefully_on_sigint();
    return mrc::cli::run_variants(variants, std::cout, std::cerr);
  }
  if (*falsefail_cmd) {
    mrc::cli::stop_gracefully_on_sigint();
    return mrc::cli::run_falsefail(falsefail, std::cout, std::cerr);
  }
  if (*keygen_cmd) return mrc::cli::run_keygen(keygen, std::cout, std::cerr);
  if (*bundle_cmd) return mrc::cli::run_bundle(bundle, std::cout, std::cerr);
  if (*verify_cmd) return mrc::cli::run_verify(verify, std::cout, std::cerr);
  if (*replay_cmd) return mrc::cli::run_replay(replay, std::cout, std::cerr);
  if (*ev_cmd) return mrc::cli::run_ev_expand(ev_file, std::cout, std::cerr);
  return mrc::run::kExitBadInput;
}
