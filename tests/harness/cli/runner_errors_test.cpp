// The runner's error paths: malformed cases, bindings that throw, hang, crawl, lack capabilities
// or implement nothing. Each is an ERROR (or UNSUPPORTED / exit 2) for that case, never a crash,
// and the run goes on.
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "harness/cli/commands.hpp"
#include "harness/cli/run_inputs.hpp"
#include "harness/case/limits.hpp"
#include "harness/run/suite_loader.hpp"
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


// ---------------------------------------------------------------- load-time errors (issue 14)

TEST(LoadErrors, GoldenCheckCallsAMissingGoldenMissingNotDiffers) {
  TempSuite suite;  // has no pcaps/ folder
  suite.write_case("spray-v-005", slurp(source_dir() / "cases/spray/spray-v-005.yaml"));
  cli::GoldenOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.check_only = true;
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_golden(o, out, err), 1) << err.str();
  EXPECT_NE(out.str().find("MISSING  pcaps/spray/spray-v-005.pcapng"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("DIFFERS"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("0 golden(s) up to date, 0 differ, 1 missing"), std::string::npos) << out.str();
}

TEST(LoadErrors, DiffNamesAMissingFileOnce) {
  TempDir dir;
  cli::DiffCliOptions o;
  o.a = (dir.path() / "nope.pcapng").string();
  o.b = o.a;
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_diff(o, out, err), 2);
  EXPECT_EQ(err.str(), "error: " + o.a + ": no such file\n");
}

TEST(LoadErrors, SeedsOutsideZeroTo2Pow64Minus1AreRefusedNamingTheOption) {
  for (const char* bad : {"-1", " -1", "18446744073709551616", "0x10000000000000000", "+5", "1e3", ""}) {
    if (*bad == '\0') continue;  // empty: each case's own seed
    RunOptions o;
    std::ostringstream err;
    EXPECT_FALSE(cli::resolve_seed_and_token(o, bad, "", err)) << bad;
    EXPECT_NE(err.str().find("error: --seed '" + std::string(bad) + "'"), std::string::npos) << err.str();
  }
  std::ostringstream err;
  RunOptions o;
  ASSERT_TRUE(cli::resolve_seed_and_token(o, "18446744073709551615", "", err)) << err.str();
  EXPECT_EQ(o.seed, UINT64_MAX);
  ASSERT_TRUE(cli::resolve_seed_and_token(o, "0xffffffffffffffff", "", err)) << err.str();
  EXPECT_EQ(o.seed, UINT64_MAX);
  ASSERT_TRUE(cli::resolve_seed_and_token(o, "010", "", err)) << err.str();
  EXPECT_EQ(o.seed, 8u);
  std::uint64_t first = 7;  // falsefail's --first-seed is checked the same way
  EXPECT_EQ(cli::seed_error("-1", first), "is negative; seeds are 0 .. 2^64-1");
  EXPECT_EQ(cli::seed_error("18446744073709551616", first), "is out of range; seeds are 0 .. 2^64-1");
  EXPECT_EQ(first, 7u);
  EXPECT_EQ(cli::seed_error("18446744073709551615", first), "");
  EXPECT_EQ(first, UINT64_MAX);
  std::ostringstream big;
  EXPECT_FALSE(cli::resolve_seed_and_token(o, "18446744073709551616", "", big));
  EXPECT_NE(big.str().find("is out of range; seeds are 0 .. 2^64-1"), std::string::npos) << big.str();
}

TEST(LoadErrors, ACaseOutsideTheSuiteIsCheckedAgainstTheSuitesClauses) {
  TempDir outside;  // no clauses.yaml in it or above it
  const fs::path file = outside.path() / "spray-v-002.yaml";
  std::ofstream(file) << kTinyPlainCase;
  cli::ListOptions o;
  o.cases = {file.string()};
  std::ostringstream out, err;
  // The suite root is found from the working directory (the tests run inside the build tree).
  const fs::path cwd = fs::current_path();
  fs::current_path(source_dir());
  const int rc = cli::run_list(o, out, err);
  fs::current_path(cwd);
  EXPECT_EQ(rc, 0) << err.str();
  EXPECT_NE(out.str().find("spray-v-002"), std::string::npos) << out.str();
}

TEST(LoadErrors, ClausesOptionNamesTheIndexForCasesWithoutOne) {
  TempDir outside;
  const fs::path file = outside.path() / "spray-v-002.yaml";
  std::ofstream(file) << kTinyPlainCase;
  cli::ListOptions o;
  o.cases = {file.string()};
  std::ostringstream out, err;
  set_clauses_option(outside.path() / "missing.yaml");
  EXPECT_EQ(cli::run_list(o, out, err), 2);
  EXPECT_NE(err.str().find("--clauses " + (outside.path() / "missing.yaml").string() + ": no such file"),
            std::string::npos) << err.str();
  set_clauses_option(source_dir() / "cases" / "clauses.yaml");
  std::ostringstream out2, err2;
  const int rc = cli::run_list(o, out2, err2);
  set_clauses_option({});
  EXPECT_EQ(rc, 0) << err2.str();
}


#ifdef MRC_CONFORM_BIN
// Measured 361 MiB peak RSS on the 2-core dev machine (cases/README.md "Limits"); the bound leaves
// room for allocator and build differences, and is far from the 6.4 GB of the unbounded case.
constexpr long kWorstCaseRssBoundMib = 1024;

// The largest stimulus the case limits allow (kMaxCaseWrites writes moving kMaxCaseTrafficBytes)
// runs in a bounded amount of memory: the real binary, its peak RSS from wait4. Before the limits a
// case the schema accepted (writes: 10000000) reached 6.4 GB.
TEST(LoadErrors, TheLargestCaseTheLimitsAllowStaysUnderItsMemoryBound) {
  static_assert(harness::limits::kMaxCaseWrites * 4096 == harness::limits::kMaxCaseTrafficBytes);
  TempSuite suite;
  std::string text = kTinyPlainCase;
  text.replace(text.find("writes: 4, size: 16384, window: 2"), 33,
               "writes: " + std::to_string(harness::limits::kMaxCaseWrites) + ", size: 4096, window: 64");
  text += "timeout_s: 600\n";
  const fs::path file = suite.write_case("spray-v-002", text);
  TempDir out;
  const Child c = start_conform({"run", "--cases", file.string(), "--out", out.path().string(), "--no-progress"});
  ASSERT_GT(c.pid, 0);
  std::string err = read_until(c.err_fd, "");
  ::close(c.err_fd);
  int status = 0;
  struct rusage use {};
  ASSERT_EQ(::wait4(c.pid, &status, 0, &use), c.pid);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 0) << err;
  const long max_rss_mib = use.ru_maxrss / 1024;  // ru_maxrss is in KiB
  EXPECT_LT(max_rss_mib, kWorstCaseRssBoundMib) << "peak RSS " << max_rss_mib << " MiB";
  std::cout << "worst allowed case: peak RSS " << max_rss_mib << " MiB\n";
}
#endif

}  // namespace
}  // namespace mrc::run::testing
