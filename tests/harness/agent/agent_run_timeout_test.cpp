// `mrc-conform run --dut agent:... --agent-call-timeout-ms N` against an agent that accepts the
// connection and never answers: the case is an ERROR naming call_timeout N, and the run ends in
// about the time that bound allows (twice: the runner's identity probe and the case's own
// handshake), not after the 5 s default.
#include <gtest/gtest.h>

#include <chrono>

#include "harness/cli/commands.hpp"
#include "tests/harness/agent/fake_agent.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::agent::testing {
namespace {

using namespace std::chrono_literals;

TEST(AgentRunTimeouts, ANeverAnsweringAgentIsAnErrorNamingTheCallTimeoutInAboutThatTime) {
  FakeAgent mute([](const ap::Message&) -> std::optional<ap::Message> { return std::nullopt; });
  run::testing::TempDir out;
  run::RunOptions o;
  o.cases = {run::testing::case_file("spray-v-001").string()};
  o.out = out.path();
  o.dut = "agent:127.0.0.1:" + std::to_string(mute.port());
  o.agent_token = "t";
  o.progress = false;
  std::ostringstream so, se;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = cli::run_cases(o, cli::RunTextOptions{.agent_call_timeout_ms = "300"}, so, se);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(rc, 3) << se.str();
  const harness::RunResult r = harness::read_results_json(out.path() / harness::kResultsJsonName);
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.cases[0].verdict, harness::Verdict::kError);
  EXPECT_NE(r.cases[0].message.find("did not answer HELLO within call_timeout 300 ms"), std::string::npos)
      << r.cases[0].message;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 4s) << "the 5 s default applied, not --agent-call-timeout-ms";
}

}  // namespace
}  // namespace mrc::agent::testing
