// CLI11 validators for the options whose values the suite reads its own way, so that `--help`
// shows what each takes ("TEXT:{all,failures,none}", "TEXT:0..2^64-1") and a refusal is
// "--option: why" before anything runs. Each validator asks the same function the command itself
// uses (run_inputs.hpp, harness/run/case_evidence.hpp): one message for the command line and for
// a caller that fills the options in-process.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace mrc::cli {

// A seed (decimal, 0x hex or 0 octal, 0 .. 2^64-1): --seed, --first-seed.
CLI::Validator seed_check();
// --agent-connect-timeout-ms / --agent-call-timeout-ms: whole ms, 1 .. kMaxAgentTimeoutMs.
CLI::Validator agent_timeout_check();
// --evidence all|failures|none, --snaplen auto|full|N, --profile full|spec|published.
CLI::Validator evidence_check();
CLI::Validator snaplen_check();
CLI::Validator profile_check();
// --tolerance-pct: a number 0 .. 100 (CLI::Range lets NaN through; this does not).
CLI::Validator tolerance_pct_check();

// Every option of `app` and its subcommands whose value is an unsigned number refuses a minus
// sign: CLI11 alone converts "-1" by wrapping it to 2^64-1.
void refuse_negative_unsigned(CLI::App& app);

// "unknown option --tgas for `run` (did you mean --tags?)" for the first word after the
// subcommand that looks like an option and is none of its options; "" when there is none.
std::string option_hint(CLI::App& app, int argc, char** argv);

// The message for a first word that is no option and no subcommand ("unknown subcommand 'rnu'
// (did you mean 'run'?) (subcommands: ...)"); "" when it is a subcommand or an option.
std::string unknown_subcommand(CLI::App& app, int argc, char** argv);

}  // namespace mrc::cli
