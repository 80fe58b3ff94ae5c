// `mrc-conform run`: --seed as typed turned into the runner's seed, the agent binding's token
// found, the case child's binding arguments when isolated, then the suite runner
// (harness/run/suite_runner.hpp).
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <stdexcept>

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

}  // namespace

int run_cases(run::RunOptions o, const std::string& seed_text, const std::string& agent_token_file, std::ostream& out,
              std::ostream& err) {
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
  if (o.isolation.enabled) {
    // What a case child needs to make the same bindings; the per-case arguments are the pool's.
    o.isolation.child_args.insert(o.isolation.child_args.end(), {"--dut", o.dut});
    o.isolation.agent_token = o.agent_token;
  }
  return run::run_suite(o, out, err);
}

}  // namespace mrc::cli
