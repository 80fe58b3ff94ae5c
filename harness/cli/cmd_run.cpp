// `mrc-conform run`: --seed and the agent token resolved (run_inputs.hpp), the case child's
// binding arguments when isolated, then the suite runner (harness/run/suite_runner.hpp).
#include "harness/cli/commands.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

int run_cases(run::RunOptions o, const std::string& seed_text, const std::string& agent_token_file, std::ostream& out,
              std::ostream& err) {
  if (!resolve_seed_and_token(o, seed_text, agent_token_file, err)) return run::kExitBadInput;
  if (o.isolation.enabled) {
    // What a case child needs to make the same bindings; the per-case arguments are the pool's.
    o.isolation.child_args.insert(o.isolation.child_args.end(), {"--dut", o.dut, "--peer", o.peer});
    o.isolation.agent_token = o.agent_token;
  }
  return run::run_suite(o, out, err);
}

}  // namespace mrc::cli
