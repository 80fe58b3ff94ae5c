// `mrc-conform run`: --seed and the agent token resolved (run_inputs.hpp), then the suite runner
// (harness/run/suite_runner.hpp).
#include "harness/cli/commands.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

int run_cases(run::RunOptions o, const std::string& seed_text, const std::string& agent_token_file, std::ostream& out,
              std::ostream& err) {
  if (!resolve_seed_and_token(o, seed_text, agent_token_file, err)) return run::kExitBadInput;
  return run::run_suite(o, out, err);
}

}  // namespace mrc::cli
