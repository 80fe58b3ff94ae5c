// `mrc-conform run`: the agent timeouts range-checked, --profile read, --seed and the agent token
// resolved (run_inputs.hpp), then the suite runner
// (harness/run/suite_runner.hpp).
#include <charconv>
#include <chrono>
#include <tuple>

#include "harness/case/diagnostics.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

namespace {

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
  for (const auto& [option, value, into] :
       {std::tuple{"--agent-connect-timeout-ms", &text.agent_connect_timeout_ms, &o.agent_timeouts.connect_timeout},
        std::tuple{"--agent-call-timeout-ms", &text.agent_call_timeout_ms, &o.agent_timeouts.call_timeout}}) {
    if (std::string e = parse_timeout_ms(option, *value, into); !e.empty()) {
      err << e;
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
    const auto profile = harness::conformance_profile_from_string(text.profile);
    if (!profile) {
      const std::vector<std::string> profiles{"full", "spec", "published"};
      err << "error: --profile '" << text.profile << "'"
          << harness::did_you_mean(harness::closest_match(text.profile, profiles)) << " is not a profile: full (every MUST case counts toward conformance), spec (only MUST cases of "
             "published or spec basis) or published (only MUST cases of published basis); a failed MUST case the "
             "profile does not count is an advisory\n";
      return run::kExitBadInput;
    }
    o.profile = *profile;
  }
  if (!resolve_seed_and_token(o, text.seed, text.agent_token_file, err)) return run::kExitBadInput;
  return run::run_suite(o, out, err);
}

}  // namespace mrc::cli
