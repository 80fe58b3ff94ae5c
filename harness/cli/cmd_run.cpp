// `mrc-conform run`: --seed as typed turned into the runner's seed, the agent binding's token
// found and its timeouts range-checked, then the suite runner (harness/run/suite_runner.hpp).
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <tuple>

#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

namespace {

// The token's first line, without trailing whitespace (files written by `echo` end in a newline).
bool read_token_file(const std::string& path, std::string& token) {
  std::ifstream f(path);
  if (!f || !std::getline(f, token)) return false;
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) token.pop_back();
  return true;
}

// An agent timeout option as typed: "" when absent (*ms untouched) or good (*ms set), else the
// message for the user.
std::string parse_timeout_ms(const std::string& option, const std::string& text, std::chrono::milliseconds* ms) {
  if (text.empty()) return {};
  const std::string range = "1 .. " + std::to_string(kMaxAgentTimeoutMs) + " ms (1 h, the longest a case may run)";
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ptr != end || (r.ec != std::errc{} && r.ec != std::errc::result_out_of_range)) {
    return "error: " + option + " '" + text + "' is not a whole number of milliseconds; give " + range + "\n";
  }
  if (r.ec != std::errc{} || v == 0 || v > kMaxAgentTimeoutMs) {
    return "error: " + option + " " + text + " is out of range: " + range + "\n";
  }
  *ms = std::chrono::milliseconds(v);
  return {};
}

}  // namespace

int run_cases(run::RunOptions o, const RunTextOptions& text, std::ostream& out, std::ostream& err) {
  const std::string& seed_text = text.seed;
  const std::string& agent_token_file = text.agent_token_file;
  for (const auto& [option, value, into] :
       {std::tuple{"--agent-connect-timeout-ms", &text.agent_connect_timeout_ms, &o.agent_timeouts.connect_timeout},
        std::tuple{"--agent-call-timeout-ms", &text.agent_call_timeout_ms, &o.agent_timeouts.call_timeout}}) {
    if (std::string e = parse_timeout_ms(option, *value, into); !e.empty()) {
      err << e;
      return run::kExitBadInput;
    }
  }
  if (!agent_token_file.empty()) {
    if (!read_token_file(agent_token_file, o.agent_token)) {
      err << "error: --agent-token-file " << agent_token_file << " cannot be read\n";
      return run::kExitBadInput;
    }
  } else if (const char* env = std::getenv("MRC_AGENT_TOKEN")) {
    o.agent_token = env;
  }
  if (!seed_text.empty()) {
    if (seed_text.front() == '-') {  // stoull would wrap -1 to 2^64-1
      err << "error: --seed '" << seed_text << "' is negative; seeds are 0 .. 2^64-1\n";
      return run::kExitBadInput;
    }
    try {
      std::size_t used = 0;
      o.seed = std::stoull(seed_text, &used, 0);  // decimal, 0x hex or 0 octal, like C literals
      if (used != seed_text.size()) throw std::invalid_argument(seed_text);
    } catch (const std::exception&) {
      err << "error: --seed '" << seed_text << "' is not a number\n";
      return run::kExitBadInput;
    }
  }
  return run::run_suite(o, out, err);
}

}  // namespace mrc::cli
