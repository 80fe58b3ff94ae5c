#include "harness/cli/run_inputs.hpp"

#include <cstdlib>
#include <fstream>
#include <ostream>
#include <stdexcept>

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

bool resolve_agent_token(const std::string& agent_token_file, std::string& token, std::ostream& err) {
  if (!agent_token_file.empty()) {
    if (!read_token_file(agent_token_file, token)) {
      err << "error: --agent-token-file " << agent_token_file << " cannot be read\n";
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
    if (seed_text.front() == '-') {  // stoull would wrap -1 to 2^64-1
      err << "error: --seed '" << seed_text << "' is negative; seeds are 0 .. 2^64-1\n";
      return false;
    }
    try {
      std::size_t used = 0;
      o.seed = std::stoull(seed_text, &used, 0);  // decimal, 0x hex or 0 octal, like C literals
      if (used != seed_text.size()) throw std::invalid_argument(seed_text);
    } catch (const std::exception&) {
      err << "error: --seed '" << seed_text << "' is not a number\n";
      return false;
    }
  }
  return true;
}

}  // namespace mrc::cli
