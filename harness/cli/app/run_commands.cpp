// The runner's commands: run, the hidden case-child of `run --isolate`, interop (each pair is a
// run), doctor; and the option groups every case-loading command shares.
#include <string>

#include "harness/cli/app/command_line.hpp"
#include "harness/cli/app/option_checks.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/run/case_child.hpp"

namespace mrc::cli {

namespace {

constexpr const char* kClausesHelp =
    "clauses.yaml for case files with none in their folder or above (default: the suite's cases/clauses.yaml)";

void set_build_info(run::RunOptions& o, const BuildInfo& b) {
  o.suite_version = b.version;
  o.git_hash = b.git_hash;
  o.command_line = b.command_line;
}

// The options `run` and `interop` share: what runs, where, how.
void add_suite_run_options(CommandLine& cl, CLI::App* cmd, run::RunOptions& o, std::string& seed_text,
                           std::string& token_file) {
  add_case_selection(cmd, {&o.cases, &cl.clauses_file, &o.tags, &o.exclude_tags});
  cmd->add_option("--testbed", o.testbed,
                  "testbed preset or YAML for cases that name none; netns, or a lab testbed file, puts the DUT on "
                  "real interfaces")
      ->capture_default_str();
  cmd->add_option("--agent-token-file", token_file,
                  "file holding the DUT agent's token (agent:... bindings; default: $MRC_AGENT_TOKEN)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--seed", seed_text, "replace every case's seed")->check(seed_check());
  cmd->add_option("--out", o.out, "report folder")->capture_default_str();
  cmd->add_option("--jobs,-j", o.jobs, "cases run in parallel")->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_option_function<std::string>(
         "--clock", [&o](const std::string& v) { o.agent_clock = *harness::parse_agent_clock(v); },
         "agent bindings: virtual (a lockstep agent, mrc-dut-agent --clock virtual: the DUT runs in the fabric's "
         "virtual time), real (an agent on real interfaces) or auto (default: what the agent says)")
      ->check(CLI::IsMember({"auto", "real", "virtual"}));
  cmd->add_flag("--wall-clock", o.wall_clock, "put wall-clock times into the reports (not byte-reproducible)");
  cmd->add_flag_callback("--no-progress", [&p = o.progress] { p = false; }, "no progress lines on stderr");
}

}  // namespace

CommandLine::CommandLine(BuildInfo b)
    : app("mrc-conform: conformance and interoperability suite for MRC (OCP MRC 1.0)"), build(std::move(b)) {
  app.set_version_flag("--version", "mrc-conform " + build.version + " (" + build.git_hash + ")");
  app.require_subcommand(1);
}

void add_case_selection(CLI::App* cmd, const CaseSelectionText& t) {
  cmd->add_option("--cases", *t.cases, "case files, folders or case ids (default: the suite's cases/)");
  cmd->add_option("--clauses", *t.clauses, kClausesHelp)->check(CLI::ExistingFile);
  cmd->add_option("--tags", *t.tags, "only cases carrying any of these tags (comma list)");
  if (t.exclude_tags != nullptr) {
    cmd->add_option("--exclude-tags", *t.exclude_tags, "skip cases carrying any of these tags (comma list)");
  }
}

void add_shard_options(CLI::App* cmd, ShardText& t) {
  cmd->add_option("--shard", t.shard,
                  "run only shard K of N (0-based K/N, e.g. 1/4) and write a shard record for `mrc-conform merge`; "
                  "default: SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX when set");
  cmd->add_option("--shard-count", t.count,
                  "the shard count N with JOB_COMPLETION_INDEX (a Kubernetes Indexed Job; else $MRC_SHARD_COUNT)");
  cmd->add_option("--shard-costs", t.costs,
                  "balance the shards by the case wall times of a previous `run --wall-clock` report folder "
                  "(default: the cases' estimated simulated packets)")
      ->check(CLI::ExistingDirectory);
}

void declare_run_commands(CommandLine& cl) {
  set_build_info(cl.run, cl.build);
  auto* run_cmd = cl.run_cmd = cl.app.add_subcommand("run", "run cases against a DUT and write reports");
  add_suite_run_options(cl, run_cmd, cl.run, cl.run_text.seed, cl.run_text.agent_token_file);
  add_shard_options(run_cmd, cl.run_shard);
  run_cmd->add_option("--dut", cl.run.dut,
                      "DUT binding: reference, reference:<defect>[,<defect>...], agent:HOST:PORT (with a lab testbed file) or "
                      "agent:reference[:<defect>,...] (with --testbed netns)")
      ->capture_default_str();
  run_cmd->add_option("--peer", cl.run.peer,
                      "the harness's own side (testbed host 1), any --dut spelling; default: the in-process reference")
      ->capture_default_str();
  run_cmd->add_option("--agent-connect-timeout-ms", cl.run_text.agent_connect_timeout_ms,
                      "agent binding: bound on connecting to the agent, ms (connect_timeout; default 5000)")
      ->check(agent_timeout_check());
  run_cmd->add_option("--agent-call-timeout-ms", cl.run_text.agent_call_timeout_ms,
                      "agent binding: bound on each request and its reply, ms (call_timeout; default 5000)")
      ->check(agent_timeout_check());
  run_cmd->add_option("--evidence", cl.run_text.evidence,
                      "all (evidence/<case>.pcapng for every case), failures (only cases whose verdict is not PASS) or "
                      "none")
      ->capture_default_str()
      ->check(evidence_check());
  run_cmd->add_option("--snaplen", cl.run_text.snaplen,
                      "auto (whole frames for cases whose checks read payload bytes, else every header), full, or "
                      "bytes N kept of each frame in the evidence files")
      ->capture_default_str()
      ->check(snaplen_check());
  run_cmd->add_option("--expectations", cl.run.expectations, "expectation file of the DUT (known non-PASS results)")
      ->check(CLI::ExistingFile);
  run_cmd->add_option("--today", cl.run.today, "date for expectation expiry, YYYY-MM-DD (default: today, UTC)");
  run_cmd->add_option("--profile", cl.run_text.profile,
                      "full (default: every MUST case counts toward conformance), spec (only MUST cases of published "
                      "or spec basis: the host API, standards, and MRC 1.0 facts two spec-derived sources agree on) or "
                      "published (only MUST cases of published basis); a failed MUST case the profile does not count is "
                      "an advisory")
      ->check(profile_check());
  run_cmd->add_flag("--strict", cl.run.strict,
                    "exit 1 on any FAIL, advisories (SHOULD/MAY, MUST cases outside the --profile) included");
  auto* isolate_flag = run_cmd->add_flag(
      "--isolate", cl.isolate,
      "run each case in a child process, so a crashing or hanging binding or DUT costs one ERROR (default for a "
      "--dut other than reference...)");
  run_cmd->add_flag("--no-isolate", cl.no_isolate, "run every case inside this process (default for the reference)")
      ->excludes(isolate_flag);

  // Hidden (no group): started by `run --isolate` itself, never typed (harness/run/case_child.hpp).
  CaseChildOptions& child = cl.child;
  auto* child_cmd = cl.child_cmd = cl.app.add_subcommand(run::kCaseChildCommand, "one case of an isolated run")->group("");
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

  set_build_info(cl.interop.run, cl.build);
  cl.interop_cmd =
      cl.app.add_subcommand("interop", "run the cases for every ordered pair of implementations (rows: the DUT, judged; "
                                       "columns: the peer); a matrix in <out>/index.html");
  add_suite_run_options(cl, cl.interop_cmd, cl.interop.run, cl.interop.seed_text, cl.interop.agent_token_file);
  cl.interop_cmd
      ->add_option("--impls", cl.interop.impls,
                   "binding specs, comma list (--dut spellings), e.g. reference,reference:spray-single-ev")
      ->required();

  DoctorCliOptions& doctor = cl.doctor;
  cl.doctor_cmd = cl.app.add_subcommand("doctor", "check a real-wire set-up (interfaces, MTU, capture, agent, port map, "
                                                  "pacing); exit 0 healthy, 1 not, 2 bad input");
  cl.doctor_cmd
      ->add_option("--testbed", doctor.testbed, "netns (a namespace and agent doctor creates) or a lab testbed file")
      ->capture_default_str();
  cl.doctor_cmd->add_option("--dut", doctor.dut,
                            "the agent beside the DUT, agent:HOST:PORT (lab file; netns: agent:reference)");
  cl.doctor_cmd
      ->add_option("--agent-token-file", doctor.agent_token_file,
                   "file holding the DUT agent's token (default: $MRC_AGENT_TOKEN)")
      ->check(CLI::ExistingFile);
}

}  // namespace mrc::cli
