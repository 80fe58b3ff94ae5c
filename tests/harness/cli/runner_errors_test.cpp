// The runner's error paths: malformed cases, bindings that throw, hang, crawl, lack capabilities
// or implement nothing. Each is an ERROR (or UNSUPPORTED / exit 2) for that case, never a crash,
// and the run goes on.
#include <chrono>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "harness/cli/commands.hpp"
#include "harness/dut/reference_binding.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

class ThrowingBinding : public harness::ReferenceBinding {
 public:
  harness::DutStatus post_write(const harness::WriteRequest&, std::uint64_t) override {
    throw std::runtime_error("driver exploded");
  }
};

class HangingBinding : public harness::ReferenceBinding {
 public:
  harness::DutStatus post_write(const harness::WriteRequest&, std::uint64_t) override {
    std::this_thread::sleep_for(std::chrono::seconds(30));  // never returns within the bound
    return harness::DutStatus::failed("woke up");
  }
};

class CrawlingBinding : public harness::ReferenceBinding {
 public:
  std::size_t poll_completions(std::vector<harness::CompletionRecord>& out, std::uint64_t now) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // returns, but far too slowly
    return ReferenceBinding::poll_completions(out, now);
  }
};

class BareBinding : public harness::DutBinding {
 public:
  harness::DutIdentity identity() const override { return {"bare", "bare", "0", ""}; }
  std::vector<std::string> capabilities() const override { return {"stev"}; }
};

TEST(RunnerErrors, MalformedCaseIsExit2WithEveryLoaderError) {
  TempSuite suite;
  suite.write_case("spray-v-001", tiny("001"));
  suite.write_case("spray-v-002", "id: spray-v-002\ntitle: broken\nclauess: [X]\nlevel: MUST\n");
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("spray-v-002.yaml:3:1: unknown key 'clauess'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing required key 'clauses'"), std::string::npos) << r.err;
  EXPECT_FALSE(r.has_result);  // nothing ran
}

TEST(RunnerErrors, BadDutSpecIsExit2ListingTheDefects) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.out = out.path();
  o.dut = "reference:no-such-defect";
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown defect or variant 'no-such-defect'"), std::string::npos);
  EXPECT_NE(r.err.find("spray-single-ev"), std::string::npos);
}

TEST(RunnerErrors, ATagThatSelectsNothingIsExit2NamingTheTagsInUse) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.out = out.path();
  o.tags = {"spray"};  // the tag is "spraying"
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("none matches --tags spray; tags in use:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("spraying"), std::string::npos) << r.err;
  EXPECT_FALSE(r.has_result);  // nothing written over an earlier report
}

TEST(RunnerErrors, AFolderWithoutCasesIsExit2) {
  TempSuite suite;
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("no case files under --cases"), std::string::npos) << r.err;
}

TEST(RunnerErrors, AnUnwritableOutputFolderIsExit2BeforeAnyCaseRuns) {
  TempDir out;
  const fs::path file = out.path() / "a-file";
  std::ofstream(file) << "not a folder";
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.out = file / "reports";  // a folder cannot be made inside a file
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[1/1]"), std::string::npos) << r.err;  // no case ran
}

TEST(RunnerErrors, AMissingGoldenIsExit2WithTheCheckLocationBeforeAnyCaseRuns) {
  TempSuite suite;  // has no pcaps/ folder
  suite.write_case("spray-v-005", slurp(source_dir() / "cases/spray/spray-v-005.yaml"));
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("spray-v-005.yaml:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".pcap: golden pcaps/spray/spray-v-005.pcapng does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(r.has_result);
}

TEST(RunnerErrors, ANegativeSeedIsExit2) {
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_cases(o, cli::RunTextOptions{.seed = "-1"}, out, err), 2);
  EXPECT_NE(err.str().find("--seed '-1' is negative"), std::string::npos) << err.str();
}

TEST(RunnerErrors, AgentDutWithoutATokenIsExit2) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.out = out.path();
  o.dut = "agent:127.0.0.1:7411";
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--agent-token-file FILE or $MRC_AGENT_TOKEN"), std::string::npos) << r.err;
}

TEST(RunnerErrors, UnreadableAgentTokenFileIsExit2) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.out = out.path();
  o.dut = "agent:127.0.0.1:7411";
  std::ostringstream so, se;
  EXPECT_EQ(cli::run_cases(o, cli::RunTextOptions{.agent_token_file = (out.path() / "no-such-token").string()}, so, se), 2);
  EXPECT_NE(se.str().find("--agent-token-file"), std::string::npos) << se.str();
}

TEST(RunnerErrors, AgentTimeoutsOutOfRangeOrNotNumbersAreExit2NamingTheOption) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.out = out.path();
  const struct {
    cli::RunTextOptions text;
    const char* message;
  } bad[] = {
      {{.agent_connect_timeout_ms = "0"}, "--agent-connect-timeout-ms 0 is out of range: 1 .. 3600000 ms"},
      {{.agent_call_timeout_ms = "3600001"}, "--agent-call-timeout-ms 3600001 is out of range: 1 .. 3600000 ms"},
      {{.agent_call_timeout_ms = "99999999999999999999999"}, "--agent-call-timeout-ms 99999999999999999999999 is out of range"},
      {{.agent_call_timeout_ms = "2s"}, "--agent-call-timeout-ms '2s' is not a whole number of milliseconds; give 1 .. 3600000 ms"},
      {{.agent_connect_timeout_ms = "-5"}, "--agent-connect-timeout-ms '-5' is not a whole number of milliseconds"},
  };
  for (const auto& b : bad) {
    std::ostringstream so, se;
    EXPECT_EQ(cli::run_cases(o, b.text, so, se), 2) << b.message;
    EXPECT_NE(se.str().find(b.message), std::string::npos) << se.str();
    EXPECT_FALSE(fs::exists(out.path() / harness::kResultsJsonName)) << "no case may run on bad input";
  }
}

// Nothing listens on port 1: every case is an ERROR naming the refused connection, at once.
TEST(RunnerErrors, AnUnreachableAgentIsAnErrorPerCase) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("spray-v-001").string()};
  o.out = out.path();
  o.dut = "agent:127.0.0.1:1";
  o.agent_token = "t";
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 3);
  ASSERT_TRUE(r.has_result);
  const harness::CaseResult* c = r.find("spray-v-001");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, harness::Verdict::kError);
  EXPECT_NE(c->message.find("cannot connect"), std::string::npos) << c->message;
}

TEST(RunnerErrors, AThrowingBindingIsAnErrorAndTheRunGoesOn) {
  TempSuite suite;
  suite.write_case("spray-v-001", tiny("001"));
  suite.write_case("spray-v-002", tiny("002"));
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  int made = 0;
  o.binding_factory = [&made]() -> std::unique_ptr<harness::DutBinding> {
    // Call 0 is the run's identity probe; call 1 the first case.
    if (made++ == 1) return std::make_unique<ThrowingBinding>();
    return std::make_unique<harness::ReferenceBinding>();
  };
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result);
  ASSERT_EQ(r.result.cases.size(), 2u);
  EXPECT_EQ(r.find("spray-v-001")->verdict, harness::Verdict::kError);
  EXPECT_NE(r.find("spray-v-001")->message.find("driver exploded"), std::string::npos);
  EXPECT_EQ(r.find("spray-v-002")->verdict, harness::Verdict::kPass) << r.find("spray-v-002")->message;
  EXPECT_EQ(r.rc, 3);
}

TEST(RunnerErrors, AHungBindingIsBoundedAndTheRunGoesOn) {
  TempSuite suite;
  suite.write_case("spray-v-001", tiny("001", 1));
  suite.write_case("spray-v-002", tiny("002"));
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  o.watchdog_grace_s = 0.5;
  int made = 0;
  o.binding_factory = [&made]() -> std::unique_ptr<harness::DutBinding> {
    if (made++ == 1) return std::make_unique<HangingBinding>();
    return std::make_unique<harness::ReferenceBinding>();
  };
  const auto start = std::chrono::steady_clock::now();
  const SuiteRun r = run(o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 10.0);
  ASSERT_TRUE(r.has_result);
  const auto* hung = r.find("spray-v-001");
  ASSERT_NE(hung, nullptr);
  EXPECT_EQ(hung->verdict, harness::Verdict::kError);
  EXPECT_NE(hung->message.find("hung"), std::string::npos) << hung->message;
  EXPECT_NE(hung->message.find("post_write"), std::string::npos) << hung->message;
  EXPECT_EQ(r.find("spray-v-002")->verdict, harness::Verdict::kPass);
}

TEST(RunnerErrors, ASlowBindingHitsTheWallClockBoundBetweenSlices) {
  TempSuite suite;
  suite.write_case("spray-v-001", tiny("001", 1));
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  int made = 0;
  o.binding_factory = [&made]() -> std::unique_ptr<harness::DutBinding> {
    if (made++ == 1) return std::make_unique<CrawlingBinding>();
    return std::make_unique<harness::ReferenceBinding>();
  };
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result);
  const auto* c = r.find("spray-v-001");
  EXPECT_EQ(c->verdict, harness::Verdict::kError);
  EXPECT_NE(c->message.find("wall-clock bound of 1 s exceeded"), std::string::npos) << c->message;
}

TEST(RunnerErrors, MissingCapabilitiesAreUnsupportedAndUnimplementedCallsAreErrors) {
  TempSuite suite;
  suite.write_case("spray-v-001", tiny("001"));
  suite.copy_case("srcroute-v-001");  // requires srv6
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  o.binding_factory = [] { return std::make_unique<BareBinding>(); };
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result);
  const auto* srv6 = r.find("srcroute-v-001");
  EXPECT_EQ(srv6->verdict, harness::Verdict::kUnsupported);
  EXPECT_NE(srv6->message.find("srv6"), std::string::npos);
  const auto* bare = r.find("spray-v-001");
  EXPECT_EQ(bare->verdict, harness::Verdict::kError);
  EXPECT_NE(bare->message.find("does not implement attach()"), std::string::npos) << bare->message;
  EXPECT_EQ(r.rc, 3);
}

TEST(RunnerErrors, AnUnmatchedExpectFailsWithTheClosestFrame) {
  TempSuite suite;
  suite.write_case("invalid-i-002", R"(id: invalid-i-002
title: expects a remote access NAK where the DUT sends an invalid-request NAK
clauses: [INVALID-FORBIDDEN-OPCODE]
level: MUST
behaviour: invalid
rationale: runner tests
role: responder
stimulus:
  - inject: {at_ns: 1000, frame: {opcode: read_request, psn: 0, payload: {len: 0}}}
  - expect: {within_ns: 20000, match: {opcode: ack, aeth.syndrome: 0x62}}
checks:
  - {type: invariant, name: not_placed}
)");
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result);
  const auto* c = r.find("invalid-i-002");
  EXPECT_EQ(c->verdict, harness::Verdict::kFail);
  EXPECT_NE(c->message.find("aeth.syndrome"), std::string::npos) << c->message;
  EXPECT_EQ(r.rc, 1);
}

}  // namespace
}  // namespace mrc::run::testing
