// `mrc-conform falsefail`: the exact binomial tail against hand-computed values, the tally rules
// (INCONCLUSIVE and ERROR apart, never PASS), and short runs over a tiny statistical case on the
// clean reference (consistent) and on one that always fails it (exceeds alpha).
#include <cmath>

#include "harness/cli/commands.hpp"
#include "harness/studies/falsefail.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

using cli::FalsefailOptions;
using cli::run_falsefail;
using harness::FalsefailCase;
using harness::FalsefailResult;
using harness::Verdict;

TEST(FalsefailStats, BinomialUpperTailKnownValues) {
  // P[X >= 8], n = 10, p = 1/2: (45 + 10 + 1) / 1024.
  EXPECT_NEAR(binomial_upper_tail(10, 8, 0.5), 56.0 / 1024.0, 1e-15);
  // P[X >= 1] = 1 - (1 - p)^n.
  EXPECT_NEAR(binomial_upper_tail(200, 1, 0.001), 1.0 - std::pow(0.999, 200), 1e-13);
  // P[X >= 3], n = 20, p = 0.05 = 1 - P[X <= 2] = 0.0754837...
  const double le2 = std::pow(0.95, 20) + 20 * 0.05 * std::pow(0.95, 19) + 190 * 0.0025 * std::pow(0.95, 18);
  EXPECT_NEAR(binomial_upper_tail(20, 3, 0.05), 1.0 - le2, 1e-13);
  EXPECT_NEAR(binomial_upper_tail(20, 3, 0.05), 0.07548367, 1e-8);
  // Every run failing: p^n, far below double's normal range once n is large (no underflow to a
  // wrong 0 before it has to).
  EXPECT_NEAR(binomial_upper_tail(5, 5, 0.001), 1e-15, 1e-27);
  EXPECT_GT(binomial_upper_tail(40, 40, 0.001), 0.0);
  EXPECT_NEAR(std::log10(binomial_upper_tail(40, 40, 0.001)), -120.0, 1e-9);
  // Edges.
  EXPECT_EQ(binomial_upper_tail(10, 0, 0.3), 1.0);
  EXPECT_EQ(binomial_upper_tail(10, 11, 0.3), 0.0);
  EXPECT_EQ(binomial_upper_tail(10, 1, 0.0), 0.0);
  EXPECT_EQ(binomial_upper_tail(10, 10, 1.0), 1.0);
  // Monotone in k.
  for (std::uint64_t k = 1; k <= 30; ++k) EXPECT_LE(binomial_upper_tail(30, k, 0.2), binomial_upper_tail(30, k - 1, 0.2));
}

TEST(FalsefailStats, TallyKeepsInconclusiveAndErrorsApart) {
  harness::Case c;
  c.id = "spray-v-001";
  c.clauses = {"A", "B"};
  harness::Check pc;
  pc.params = harness::PositiveControlCheck{};
  harness::Check d1;
  d1.params = harness::DistributionCheck{};
  std::get<harness::DistributionCheck>(d1.params).alpha = 0.01;
  d1.clauses = {"A"};
  harness::Check d2;
  d2.params = harness::DistributionCheck{};
  std::get<harness::DistributionCheck>(d2.params).alpha = 0.02;
  c.checks = {pc, d1, d2};
  EXPECT_TRUE(is_statistical(c));

  auto run = [](Verdict v, std::vector<Verdict> checks) {
    harness::CaseResult r;
    r.verdict = v;
    for (std::size_t i = 0; i < checks.size(); ++i) {
      harness::CheckResult k;
      k.name = "check" + std::to_string(i);
      k.verdict = checks[i];
      r.checks.push_back(k);
    }
    return r;
  };
  const std::vector<harness::CaseResult> runs{
      run(Verdict::kPass, {Verdict::kPass, Verdict::kPass, Verdict::kPass}),
      run(Verdict::kFail, {Verdict::kPass, Verdict::kFail, Verdict::kPass}),
      run(Verdict::kInconclusive, {Verdict::kPass, Verdict::kPass, Verdict::kInconclusive}),
      run(Verdict::kError, {}),  // the session broke: no check ran
  };
  const FalsefailCase t = tally_falsefail(c, runs);
  EXPECT_DOUBLE_EQ(t.count.alpha, 0.03);  // Bonferroni: the sum
  EXPECT_EQ(t.count.runs, 4u);
  EXPECT_EQ(t.count.judged, 2u);
  EXPECT_EQ(t.count.fails, 1u);
  EXPECT_EQ(t.count.inconclusive, 1u);
  EXPECT_EQ(t.count.errors, 1u);
  EXPECT_NEAR(t.count.p_value, 1 - 0.97 * 0.97, 1e-12);
  ASSERT_EQ(t.checks.size(), 2u);
  EXPECT_EQ(t.checks[0].name, "check1");
  EXPECT_EQ(t.checks[0].clauses, std::vector<std::string>{"A"});
  EXPECT_EQ(t.checks[0].count.judged, 3u);
  EXPECT_EQ(t.checks[0].count.fails, 1u);
  EXPECT_EQ(t.checks[0].count.errors, 1u);
  EXPECT_EQ(t.checks[1].clauses, (std::vector<std::string>{"A", "B"}));  // the case's
  EXPECT_EQ(t.checks[1].count.judged, 2u);
  EXPECT_EQ(t.checks[1].count.inconclusive, 1u);
  EXPECT_EQ(t.checks[1].count.verdict, "consistent");

  FalsefailResult r;
  r.cases.push_back(t);
  EXPECT_EQ(r.exit_code(), 1);  // an ERROR run is never silently fine
}




TEST(FalsefailCommand, TheCleanReferenceIsConsistent) {
  TempSuite suite;
  suite.write_case("spray-v-001", kTinySprayCase);
  suite.write_case("spray-v-002", kTinyPlainCase);
  FalsefailOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.seeds = 6;
  o.jobs = 2;
  o.out = suite.path() / "out";
  const CommandRun r = run_command(run_falsefail, o, "falsefail.json");
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 statistical case(s), 6 seed(s) from 1 on reference"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("spray-v-002"), std::string::npos);  // no distribution check: not selected
  EXPECT_NE(r.json.find("\"verdict\": \"consistent\""), std::string::npos) << r.json;
  EXPECT_EQ(r.json.find("exceeds alpha"), std::string::npos) << r.json;
  EXPECT_NE(r.json.find("\"runs\": 6"), std::string::npos);
  EXPECT_NE(r.json.find("\"name\": \"distribution/ev\""), std::string::npos) << r.json;
  // Deterministic.
  o.out = suite.path() / "again";
  o.jobs = 1;
  EXPECT_EQ(run_command(run_falsefail, o, "falsefail.json").json, r.json);
}

TEST(FalsefailCommand, ADefectThatAlwaysFailsExceedsAlpha) {
  TempSuite suite;
  suite.write_case("spray-v-001", kTinySprayCase);
  FalsefailOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.seeds = 3;
  o.first_seed = 10;
  o.dut = "reference:spray-single-ev";
  o.out = suite.path() / "out";
  const CommandRun r = run_command(run_falsefail, o, "falsefail.json");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("exceeds alpha"), std::string::npos) << r.out;
  EXPECT_NE(r.json.find("\"fails\": 3"), std::string::npos) << r.json;
  EXPECT_NE(r.json.find("\"first_seed\": 10"), std::string::npos);
}

TEST(FalsefailCommand, BadInputIsExit2) {
  TempSuite suite;
  suite.write_case("spray-v-002", kTinyPlainCase);
  FalsefailOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = suite.path() / "out";
  o.seeds = 2;
  CommandRun r = run_command(run_falsefail, o, "falsefail.json");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("has a distribution check"), std::string::npos) << r.err;
  o.dut = "reference:no-such-defect";
  EXPECT_EQ(run_command(run_falsefail, o, "falsefail.json").rc, 2);
  o.dut = "reference";
  o.seeds = 0;
  EXPECT_EQ(run_command(run_falsefail, o, "falsefail.json").rc, 2);
}

}  // namespace
}  // namespace mrc::run::testing
