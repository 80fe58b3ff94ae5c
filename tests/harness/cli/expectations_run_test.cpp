// Expectation files applied to a run: an expected FAIL keeps the exit code green but stays in
// the report; an unexpected pass and an expired entry are reported and fail the run.
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

constexpr const char* kShouldCase = R"(id: spray-v-050
title: Planes share a QP's data evenly
clauses: [SPRAY-UNIFORM-PLANES]
level: SHOULD
behaviour: valid
rationale: runner tests
requires: [stev]
role: requester
config:
  ev_format: {mode: stev, widths: [16, 16]}
stimulus:
  - traffic: {writes: 40, size: 65536, window: 8}
checks:
  - {type: positive_control, min_packets: 100}
  - {type: distribution, over: plane, effect_size: 0.3}
)";

struct Fixture {
  TempSuite suite;
  TempDir out;
  fs::path expectations;
  Fixture(const std::string& expires) {
    suite.write_case("spray-v-050", kShouldCase);
    expectations = suite.path() / "example-nic.yaml";
    std::ofstream(expectations) << "dut: example-nic\nentries:\n  - case: spray-v-050\n    expected: FAIL\n"
                                   "    reason: firmware pins a QP to one plane\n"
                                   "    link: https://bugs.example.com/NIC-1\n    expires: " << expires << "\n";
  }
  SuiteRun run_with(const std::string& dut, const std::string& today) {
    RunOptions o;
    o.cases = {(suite.path() / "cases").string()};
    o.out = out.path();
    o.dut = dut;
    o.expectations = expectations.string();
    o.today = today;
    return run(o);
  }
};

TEST(ExpectationsRun, AnExpectedFailIsReportedButKeepsTheRunGreen) {
  Fixture f("2026-09-30");
  const SuiteRun r = f.run_with("reference:spray-single-ev", "2026-06-01");
  ASSERT_TRUE(r.has_result) << r.err;
  const auto* c = r.find("spray-v-050");
  EXPECT_EQ(c->verdict, harness::Verdict::kFail);
  EXPECT_EQ(c->expectation, harness::ExpectationOutcome::kExpected);
  EXPECT_EQ(c->expectation_link, "https://bugs.example.com/NIC-1");
  EXPECT_EQ(r.rc, 0) << r.out;
}

TEST(ExpectationsRun, AnUnexpectedPassFailsTheRun) {
  Fixture f("2026-09-30");
  const SuiteRun r = f.run_with("reference", "2026-06-01");
  ASSERT_TRUE(r.has_result) << r.err;
  EXPECT_EQ(r.find("spray-v-050")->expectation, harness::ExpectationOutcome::kUnexpectedPass);
  EXPECT_NE(r.out.find("unexpected pass: spray-v-050"), std::string::npos) << r.out;
  EXPECT_EQ(r.rc, 1);
}

TEST(ExpectationsRun, AnExpiredEntryIsReported) {
  Fixture f("2026-05-01");
  const SuiteRun r = f.run_with("reference:spray-single-ev", "2026-06-01");
  ASSERT_TRUE(r.has_result) << r.err;
  EXPECT_EQ(r.find("spray-v-050")->expectation, harness::ExpectationOutcome::kExpired);
  EXPECT_NE(r.out.find("expired expectation"), std::string::npos) << r.out;
  EXPECT_NE(r.rc, 0);
}

TEST(ExpectationsRun, ABadExpectationFileIsBadInput) {
  Fixture f("2026-09-30");
  std::ofstream(f.expectations) << "dut: x\nentries:\n  - case: spray-v-999\n    expected: FAIL\n";
  const SuiteRun r = f.run_with("reference", "2026-06-01");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("spray-v-999"), std::string::npos) << r.err;
}

TEST(ExpectationsRun, TheCoverageMatrixListsEveryRequirementAndItsCases) {
  Fixture f("2026-09-30");
  const SuiteRun r = f.run_with("reference:spray-single-ev", "2026-06-01");
  ASSERT_TRUE(r.has_result);
  bool found = false;
  for (const auto& req : r.result.requirements) {
    if (req.id != "SPRAY-UNIFORM-PLANES") continue;
    found = true;
    EXPECT_EQ(req.cases, std::vector<std::string>{"spray-v-050"});
    EXPECT_EQ(req.level, "SHOULD");
  }
  EXPECT_TRUE(found);
  EXPECT_GT(r.result.requirements.size(), 50u);  // every clause of clauses.yaml, covered or not
}

}  // namespace
}  // namespace mrc::run::testing
