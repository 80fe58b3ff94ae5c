// `mrc-conform run`: the agent timeouts range-checked, --profile read, --seed and the agent token
// resolved (run_inputs.hpp), then the suite runner (harness/run/suite_runner.hpp). The command
// line has checked them already (app/option_checks.hpp); a caller in-process has not.
#include <chrono>
#include <tuple>

#include "harness/cli/commands.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

int run_cases(run::RunOptions o, const RunTextOptions& text, std::ostream& out, std::ostream& err) {
  for (const auto& [option, value, into] :
       {std::tuple{"--agent-connect-timeout-ms", &text.agent_connect_timeout_ms, &o.agent_timeouts.connect_timeout},
        std::tuple{"--agent-call-timeout-ms", &text.agent_call_timeout_ms, &o.agent_timeouts.call_timeout}}) {
    if (std::string e = agent_timeout_problem(*value, into); !e.empty()) {
      err << "error: " << option << " " << e << '\n';
      return run::kExitBadInput;
    }
  }
  for (const std::string& e :
       {run::parse_evidence_keep(text.evidence, o.evidence.keep), run::parse_snaplen(text.snaplen, o.evidence)}) {
    if (!e.empty()) {
      err << "error: " << e << '\n';
      return run::kExitBadInput;
    }
  }
  if (!text.profile.empty()) {
    if (std::string e = profile_problem(text.profile, &o.profile); !e.empty()) {
      err << "error: --profile " << e << '\n';
      return run::kExitBadInput;
    }
  }
  if (!resolve_seed_and_token(o, text.seed, text.agent_token_file, err)) return run::kExitBadInput;
  return run::run_suite(o, out, err);
}

}  // namespace mrc::cli
