// What `run`, `interop` (and `doctor`, the token) read from the command line the same way: --seed as typed, and the
// agent token (--agent-token-file, else $MRC_AGENT_TOKEN).
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "harness/run/shard.hpp"
#include "harness/run/suite_runner.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::cli {

// Sets o.seed from `seed_text` (empty: each case's own; decimal, 0x hex or 0 octal) and
// o.agent_token from the first line of `agent_token_file` (empty: $MRC_AGENT_TOKEN, if set).
// A negative or non-numeric seed, or an unreadable token file, is printed to `err` naming the
// option and returns false (exit 2).
bool resolve_seed_and_token(run::RunOptions& o, const std::string& seed_text, const std::string& agent_token_file,
                            std::ostream& err);
// A seed as typed (decimal, 0x hex or 0 octal, 0 .. 2^64-1): "" and `seed` set, or why not
// ("is negative; ...", "is out of range; ...", "is not a number ..."), `seed` unchanged. --seed and
// falsefail's --first-seed both read seeds this way.
std::string seed_error(const std::string& text, std::uint64_t& seed);
// An agent timeout as typed (--agent-connect-timeout-ms, --agent-call-timeout-ms): "" when
// empty (absent; *ms untouched) or good (*ms set when given), else why not, without the option.
std::string agent_timeout_problem(const std::string& text, std::chrono::milliseconds* ms);
// --profile as typed: "" and *out set (when given), or why not (with the closest profile).
std::string profile_problem(const std::string& text, harness::ConformanceProfile* out);
// The agent token alone, the same way (`doctor`): `token` from the file's first line, else
// $MRC_AGENT_TOKEN; an unreadable file is printed to `err` and returns false.
bool resolve_agent_token(const std::string& agent_token_file, std::string& token, std::ostream& err);

// The shard of run, campaign, variants and falsefail (harness/run/shard.hpp): --shard K/N as
// typed, else the scheduler's variables from the environment, with --shard-count; and the costs
// of --shard-costs DIR (empty: the estimate). A bad value is printed to `err` naming the option
// or the variable and returns false (exit 2).
bool resolve_shard_options(const std::string& shard_text, const std::string& count_text, const std::string& costs_dir,
                           run::ShardSpec& shard, run::CaseCosts& costs, std::ostream& err);

}  // namespace mrc::cli
