#include "harness/cli/run_inputs.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <string_view>
#include <system_error>

#include "harness/agentproto/token_file.hpp"
#include "harness/case/diagnostics.hpp"
#include "harness/cli/commands.hpp"

namespace mrc::cli {

// Digits only: stoull alone would skip leading blanks and wrap " -1" to 2^64-1.
std::string seed_error(const std::string& text, std::uint64_t& seed) {
  if (text.empty()) return "is empty; seeds are 0 .. 2^64-1";
  if (text.front() == '-') return "is negative; seeds are 0 .. 2^64-1";
  std::string_view digits = text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8;
    digits.remove_prefix(1);
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (ec == std::errc::result_out_of_range) return "is out of range; seeds are 0 .. 2^64-1";
  if (ec != std::errc{} || end != digits.data() + digits.size()) return "is not a number (decimal, 0x hex or 0 octal)";
  seed = v;
  return "";
}

std::string agent_timeout_problem(const std::string& text, std::chrono::milliseconds* ms) {
  if (text.empty()) return {};
  const std::string range = "1 .. " + std::to_string(kMaxAgentTimeoutMs) + " ms (1 h, the longest a case may run)";
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ptr != end || (r.ec != std::errc{} && r.ec != std::errc::result_out_of_range)) {
    return "'" + text + "' is not a whole number of milliseconds; give " + range;
  }
  if (r.ec != std::errc{} || v == 0 || v > kMaxAgentTimeoutMs) return text + " is out of range: " + range;
  if (ms != nullptr) *ms = std::chrono::milliseconds(v);
  return {};
}

std::string profile_problem(const std::string& text, harness::ConformanceProfile* out) {
  const auto profile = harness::conformance_profile_from_string(text);
  if (!profile) {
    const std::vector<std::string> profiles{"full", "spec", "published"};
    return "'" + text + "'" + harness::did_you_mean(harness::closest_match(text, profiles)) +
           " is not a profile: full (every MUST case counts toward conformance), spec (only MUST cases of "
           "published or spec basis) or published (only MUST cases of published basis); a failed MUST case the "
           "profile does not count is an advisory";
  }
  if (out != nullptr) *out = *profile;
  return {};
}

bool resolve_agent_token(const std::string& agent_token_file, std::string& token, std::ostream& err) {
  if (!agent_token_file.empty()) {
    if (std::string why = agentproto::read_token_file(agent_token_file, token); !why.empty()) {
      err << "error: --agent-token-file " << agent_token_file << " " << why << '\n';
      return false;
    }
  } else if (const char* env = std::getenv("MRC_AGENT_TOKEN")) {
    token = env;
  }
  return true;
}

bool resolve_seed_and_token(run::RunOptions& o, const std::string& seed_text, const std::string& agent_token_file,
                            std::ostream& err) {
  if (!resolve_agent_token(agent_token_file, o.agent_token, err)) return false;
  if (!seed_text.empty()) {
    std::uint64_t seed = 0;
    if (const std::string why = seed_error(seed_text, seed); !why.empty()) {
      err << "error: --seed '" << seed_text << "' " << why << '\n';
      return false;
    }
    o.seed = seed;
  }
  return true;
}

bool resolve_shard_options(const std::string& shard_text, const std::string& count_text, const std::string& costs_dir,
                           run::ShardSpec& shard, run::CaseCosts& costs, std::ostream& err) {
  if (std::string e = run::resolve_shard(shard_text, count_text, [](const char* n) { return std::getenv(n); }, shard);
      !e.empty()) {
    err << "error: " << e << '\n';
    return false;
  }
  if (costs_dir.empty()) return true;
  if (!shard.active) {
    err << "error: --shard-costs " << costs_dir
        << " balances shards, but this process is not one (no --shard K/N, SLURM_ARRAY_TASK_ID or "
           "JOB_COMPLETION_INDEX)\n";
    return false;
  }
  if (std::string e = run::load_case_costs(costs_dir, costs); !e.empty()) {
    err << "error: " << e << '\n';
    return false;
  }
  return true;
}

}  // namespace mrc::cli
