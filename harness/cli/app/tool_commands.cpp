// The tools around the runner: list, golden, diff, ev-expand; and the certify commands
// (harness/certify/): keygen, bundle, verify, replay.
#include <string>

#include "harness/cli/app/command_line.hpp"
#include "harness/cli/app/option_checks.hpp"
#include "harness/verdict/diff_stream.hpp"

namespace mrc::cli {

namespace {

constexpr const char* kSuiteCasesHelp = "this suite's cases/ folder (default: found from the working directory)";

void declare_list_golden(CommandLine& cl) {
  ListOptions& list = cl.list;
  cl.list_cmd = cl.app.add_subcommand(
      "list", "list cases (id, level, behaviour, title, tags, clauses), or the reference's defects or variants");
  add_case_selection(cl.list_cmd, {&list.cases, &cl.clauses_file, &list.tags, &list.exclude_tags});
  cl.list_cmd->add_flag("--defects", list.defects,
                        "list the reference's defects (--dut reference:<defect>) and what each breaks");
  cl.list_cmd->add_flag("--variants", list.variants,
                        "list the reference's conformant variants (--dut reference:<variant>) and the choice each makes");
  cl.list_cmd->add_flag("--json", list.json, "print a JSON array instead of lines");

  GoldenOptions& golden = cl.golden;
  golden.generator = "mrc-conform/" + cl.build.version;
  cl.golden_cmd = cl.app.add_subcommand("golden", "regenerate golden pcaps from the reference endpoint");
  add_case_selection(cl.golden_cmd, {&golden.cases, &cl.clauses_file, &golden.tags, nullptr});
  cl.golden_cmd->add_option("--testbed", golden.testbed, "testbed for cases that name none")->capture_default_str();
  cl.golden_cmd->add_flag("--check", golden.check_only,
                          "compare with the goldens on disk, write nothing (exit 1 if any differs)");
}

void declare_diff(CommandLine& cl) {
  DiffCliOptions& diff = cl.diff;
  auto* cmd = cl.diff_cmd =
      cl.app.add_subcommand("diff", "field-level diff of two captures (exit 0 same, 1 different, 2 bad input)");
  cmd->add_option("A", diff.a, "expected capture (pcapng or pcap)")->required()->check(CLI::ExistingFile);
  cmd->add_option("B", diff.b, "observed capture")->required()->check(CLI::ExistingFile);
  cmd->add_option("--iface", diff.iface,
                  "in a file of several interfaces (an evidence file: one per tap), compare this one (e.g. dut.p1.tx); "
                  "a file of one interface is compared whole");
  cmd->add_option("--mask", diff.masks, "fields to ignore (comma list; e.g. udp.sport,icrc,ts)");
  cmd->add_option("--window", diff.window, "equivalence window in packets (spray reordering)")
      ->check(CLI::Range(1u, harness::kMaxStreamDiffWindow, "1 .. " + std::to_string(harness::kMaxStreamDiffWindow)))
      ->capture_default_str();
  cmd->add_option("--tolerance-ns", diff.tolerance_ns, "timestamp tolerance, ns")->capture_default_str();
  cmd->add_option("--tolerance-pct", diff.tolerance_pct, "timestamp tolerance, % of elapsed time")
      ->check(tolerance_pct_check())
      ->capture_default_str();
  cmd->add_option("--max", diff.max_lines, "differences shown")->capture_default_str();
  cmd->add_option("--trimmed-dscp", diff.trimmed_dscp,
                  "the DSCP that marks a trimmed packet (W13; give the case's config.dscp.trimmed if it set one)")
      ->check(CLI::Range(0u, 63u))
      ->capture_default_str();
  cmd->add_option("--trimmed-lasthop-dscp", diff.trimmed_lasthop_dscp,
                  "the DSCP that marks a packet trimmed at the last hop (W13; config.dscp.trimmed_lasthop)")
      ->check(CLI::Range(0u, 63u))
      ->capture_default_str();

  cl.ev_cmd = cl.app.add_subcommand("ev-expand", "expand an EV profile YAML (same as mrc-ev)");
  cl.ev_cmd->add_option("FILE", cl.ev_file, "EV profile YAML")->required()->check(CLI::ExistingFile);
}

// The certification bundle: keygen, bundle, verify, replay (harness/certify/bundle.hpp).
void declare_certify(CommandLine& cl) {
  KeygenOptions& keygen = cl.keygen;
  cl.keygen_cmd = cl.app.add_subcommand("keygen", "make an Ed25519 key pair for signing bundles (KEY, KEY.pub)");
  cl.keygen_cmd
      ->add_option("-o,--out", keygen.out, "private key file (PKCS#8 PEM, mode 0600); the public key goes to KEY.pub")
      ->required();
  cl.keygen_cmd->add_flag("--force", keygen.force, "overwrite an existing KEY and KEY.pub");

  BundleCliOptions& bundle = cl.bundle;
  bundle.suite_version = cl.build.version;
  bundle.git_hash = cl.build.git_hash;
  auto* b = cl.bundle_cmd = cl.app.add_subcommand("bundle", "pack a report folder into a signed certification bundle");
  b->add_option("REPORT_DIR", bundle.report_dir, "the --out folder of a run")->required()->check(CLI::ExistingDirectory);
  b->add_option("-o,--out", bundle.out, "bundle file to write")->required();
  b->add_option("--key", bundle.key, "signing key (mrc-conform keygen)")->required()->check(CLI::ExistingFile);
  b->add_option("--cases", bundle.cases, "the suite's cases/ folder the run used (default: found from the working directory)")
      ->check(CLI::ExistingDirectory);
  b->add_option("--expectations", bundle.expectations, "the expectation file the run used")->check(CLI::ExistingFile);
  b->add_flag("--allow-partial", bundle.allow_partial, "bundle an interrupted or incomplete report");
  b->add_flag("--force", bundle.force, "overwrite an existing bundle file (never anything but a regular file)");

  VerifyCliOptions& verify = cl.verify;
  auto* v = cl.verify_cmd = cl.app.add_subcommand("verify", "check a bundle: every hash, the signature, and the suite's "
                                                            "case files and goldens; exit 0 OK, 1 not OK, 2 unreadable");
  v->add_option("FILE", verify.bundle, "bundle file")->required()->check(CLI::ExistingFile);
  v->add_option("--pubkey", verify.pubkey, "the signer's public key (KEY.pub); without it any valid signer is named")
      ->check(CLI::ExistingFile);
  v->add_option("--cases", verify.cases, kSuiteCasesHelp)->check(CLI::ExistingDirectory);

  ReplayCliOptions& replay = cl.replay;
  auto* r = cl.replay_cmd = cl.app.add_subcommand(
      "replay", "verify a bundle, re-judge every case from its evidence with this build's checks and list the verdicts "
                "that change; exit 0 none changed, 1 a verdict changed, 2 bad or tampered bundle");
  r->add_option("FILE", replay.bundle, "bundle file")->required()->check(CLI::ExistingFile);
  r->add_option("--pubkey", replay.pubkey, "the signer's public key (KEY.pub), as for verify")->check(CLI::ExistingFile);
  r->add_option("--cases", replay.cases, kSuiteCasesHelp)->check(CLI::ExistingDirectory);
}

}  // namespace

void declare_tool_commands(CommandLine& cl) {
  declare_list_golden(cl);
  declare_diff(cl);
}

void declare_certify_commands(CommandLine& cl) { declare_certify(cl); }

}  // namespace mrc::cli
