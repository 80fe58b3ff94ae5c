// run_outcome: what a run's verdicts mean for conformance, the one rule behind the headline,
// results.json, junit.xml and index.html: which FAILs are non-conformances and which are
// advisories, under each profile, and the exit status with and without --strict.
#include "harness/report/run_outcome.hpp"

#include <gtest/gtest.h>

#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

using test::make_case;

CaseResult with_basis(CaseResult c, Basis b) {
  c.basis = b;
  return c;
}

RunResult run_of(std::vector<CaseResult> cases, ConformanceProfile profile = ConformanceProfile::kFull,
                 bool strict = false) {
  RunResult r;
  r.cases = std::move(cases);
  r.profile = profile;
  r.strict = strict;
  return r;
}

TEST(CaseConformance, AFailCountsOnlyForAMustCaseTheProfileJudges) {
  const CaseResult must_model = with_basis(make_case("reorder-v-022", "reorder", Verdict::kFail), Basis::kModel);
  const CaseResult must_published = with_basis(make_case("invalid-i-012", "invalid", Verdict::kFail), Basis::kPublished);
  const CaseResult should = with_basis(make_case("reorder-v-016", "reorder", Verdict::kFail, "SHOULD"), Basis::kPublished);
  const CaseResult may = with_basis(make_case("spray-v-100", "spray", Verdict::kFail, "MAY"), Basis::kModel);

  for (const auto& c : {must_model, must_published}) {
    const CaseConformance o = case_conformance(c, ConformanceProfile::kFull);
    EXPECT_TRUE(o.counted) << c.id;
    EXPECT_TRUE(o.non_conformance) << c.id;
    EXPECT_FALSE(o.advisory) << c.id;
  }
  for (const auto& c : {should, may}) {
    for (auto p : {ConformanceProfile::kFull, ConformanceProfile::kPublished}) {
      const CaseConformance o = case_conformance(c, p);
      EXPECT_FALSE(o.counted) << c.id;
      EXPECT_FALSE(o.non_conformance) << c.id;
      EXPECT_TRUE(o.advisory) << c.id;
    }
  }
  const CaseConformance model_published = case_conformance(must_model, ConformanceProfile::kPublished);
  EXPECT_FALSE(model_published.counted);
  EXPECT_FALSE(model_published.non_conformance);
  EXPECT_TRUE(model_published.advisory);
  EXPECT_TRUE(case_conformance(must_published, ConformanceProfile::kPublished).non_conformance);
}

TEST(CaseConformance, OnlyFailsAreAdvisoriesAndOnlyCountedCasesGoUnjudged) {
  for (Verdict v : {Verdict::kPass, Verdict::kUnsupported, Verdict::kInconclusive, Verdict::kError}) {
    const CaseConformance o = case_conformance(make_case("spray-v-001", "spray", v, "SHOULD"), ConformanceProfile::kFull);
    EXPECT_FALSE(o.advisory) << to_string(v);
    EXPECT_FALSE(o.not_judged) << to_string(v);
  }
  EXPECT_TRUE(case_conformance(make_case("spray-v-001", "spray", Verdict::kInconclusive), ConformanceProfile::kFull).not_judged);
  EXPECT_TRUE(case_conformance(make_case("spray-v-001", "spray", Verdict::kError), ConformanceProfile::kFull).not_judged);
  EXPECT_FALSE(case_conformance(make_case("spray-v-001", "spray", Verdict::kUnsupported), ConformanceProfile::kFull).not_judged);
  const CaseResult model = with_basis(make_case("spray-v-001", "spray", Verdict::kInconclusive), Basis::kModel);
  EXPECT_TRUE(case_conformance(model, ConformanceProfile::kFull).not_judged);
  EXPECT_FALSE(case_conformance(model, ConformanceProfile::kPublished).not_judged);
}

// An accepted expectation counts as not failing, as it always did: never a non-conformance.
TEST(CaseConformance, AnAcceptedExpectationIsNeverANonConformance) {
  CaseResult c = make_case("spray-v-050", "spray", Verdict::kFail, "SHOULD");
  c.expectation = ExpectationOutcome::kExpected;
  EXPECT_TRUE(case_conformance(c, ConformanceProfile::kFull).advisory);
  CaseResult must = make_case("spray-v-051", "spray", Verdict::kFail);  // only a hand-made run has this
  must.expectation = ExpectationOutcome::kExpected;
  EXPECT_FALSE(case_conformance(must, ConformanceProfile::kFull).non_conformance);
  EXPECT_FALSE(case_conformance(must, ConformanceProfile::kFull).advisory);  // accepted, not advice
  must.verdict = Verdict::kInconclusive;
  EXPECT_FALSE(case_conformance(must, ConformanceProfile::kFull).not_judged);
  CaseResult other = make_case("spray-v-052", "spray", Verdict::kFail);
  other.expectation = ExpectationOutcome::kUnexpectedOther;  // not the expected result: counts
  EXPECT_TRUE(case_conformance(other, ConformanceProfile::kFull).non_conformance);
}

// A MUST case whose FAILing checks prove only SHOULD requirements (fail_level) failed a SHOULD.
TEST(CaseConformance, AMustCaseFailingOnlyAShouldScopedCheckIsAnAdvisory) {
  CaseResult c = make_case("failover-v-003", "failover", Verdict::kFail);
  c.fail_level = "SHOULD";
  const CaseConformance o = case_conformance(c, ConformanceProfile::kFull);
  EXPECT_FALSE(o.counted);
  EXPECT_FALSE(o.non_conformance);
  EXPECT_TRUE(o.advisory);
  const RunOutcome r = run_outcome(run_of({c}));
  EXPECT_TRUE(r.conformant);
  EXPECT_EQ(r.advisories_should_may, 1u);  // a SHOULD advisory, not a MUST outside the profile
  EXPECT_EQ(r.advisories_must_outside_profile, 0u);
  EXPECT_EQ(exit_code(run_of({c})), 0);
  c.fail_level.clear();  // a failing check proved a MUST requirement
  EXPECT_TRUE(case_conformance(c, ConformanceProfile::kFull).non_conformance);
  // fail_level speaks of a FAIL only: an INCONCLUSIVE MUST case stays unjudged.
  c.fail_level = "SHOULD";
  c.verdict = Verdict::kInconclusive;
  EXPECT_TRUE(case_conformance(c, ConformanceProfile::kFull).not_judged);
}

TEST(RunOutcome, AShouldFailIsAnAdvisoryExitZeroUnlessStrict) {
  const RunResult run = run_of({make_case("spray-v-001", "spray", Verdict::kPass),
                                make_case("reorder-v-016", "reorder", Verdict::kFail, "SHOULD")});
  const RunOutcome o = run_outcome(run);
  EXPECT_TRUE(o.conformant);
  EXPECT_EQ(o.must_failures.total(), 0u);
  EXPECT_EQ(o.advisories, 1u);
  EXPECT_EQ(o.advisories_should_may, 1u);
  EXPECT_EQ(o.advisories_must_outside_profile, 0u);
  EXPECT_EQ(exit_code(run), 0);
  RunResult strict = run;
  strict.strict = true;
  EXPECT_TRUE(run_outcome(strict).conformant);  // --strict changes the exit status, not the verdict
  EXPECT_EQ(exit_code(strict), 1);
}

TEST(RunOutcome, AMustFailIsNotConformantUnderFull) {
  const RunResult run = run_of({with_basis(make_case("reorder-v-022", "reorder", Verdict::kFail), Basis::kModel),
                                make_case("reorder-v-016", "reorder", Verdict::kFail, "SHOULD")});
  const RunOutcome o = run_outcome(run);
  EXPECT_FALSE(o.conformant);
  EXPECT_EQ(o.must_failures.of(Basis::kModel), 1u);
  EXPECT_EQ(o.must_failures.of(Basis::kPublished), 0u);
  EXPECT_EQ(o.advisories, 1u);
  EXPECT_EQ(exit_code(run), 1);
}

TEST(RunOutcome, ProfilePublishedMakesAModelMustFailAnAdvisoryButNotAPublishedOne) {
  const CaseResult model_fail = with_basis(make_case("reorder-v-022", "reorder", Verdict::kFail), Basis::kModel);
  const CaseResult published_fail = with_basis(make_case("invalid-i-012", "invalid", Verdict::kFail), Basis::kPublished);

  const RunResult model_only = run_of({model_fail}, ConformanceProfile::kPublished);
  const RunOutcome m = run_outcome(model_only);
  EXPECT_TRUE(m.conformant);
  EXPECT_EQ(m.advisories, 1u);
  EXPECT_EQ(m.advisories_must_outside_profile, 1u);
  EXPECT_EQ(m.advisories_should_may, 0u);
  EXPECT_EQ(exit_code(model_only), 0);
  EXPECT_EQ(exit_code(run_of({model_fail}, ConformanceProfile::kPublished, true)), 1);
  EXPECT_EQ(exit_code(run_of({model_fail}, ConformanceProfile::kFull)), 1);

  const RunResult both = run_of({model_fail, published_fail}, ConformanceProfile::kPublished);
  const RunOutcome b = run_outcome(both);
  EXPECT_FALSE(b.conformant);
  EXPECT_EQ(b.must_failures.of(Basis::kPublished), 1u);
  EXPECT_EQ(b.must_failures.of(Basis::kModel), 0u);
  EXPECT_EQ(b.advisories_must_outside_profile, 1u);
  EXPECT_EQ(exit_code(both), 1);
}

// --profile spec counts the MUST cases of published and spec basis; spec-single and model MUST
// FAILs are advisories there, and each basis is counted apart.
TEST(RunOutcome, ProfileSpecCountsPublishedAndSpecMustCasesOnly) {
  const CaseResult published = with_basis(make_case("invalid-i-012", "invalid", Verdict::kFail), Basis::kPublished);
  const CaseResult spec = with_basis(make_case("reorder-v-001", "reorder", Verdict::kFail), Basis::kSpec);
  const CaseResult single = with_basis(make_case("reorder-v-002", "reorder", Verdict::kFail), Basis::kSpecSingle);
  const CaseResult model = with_basis(make_case("reorder-v-022", "reorder", Verdict::kFail), Basis::kModel);
  for (const CaseResult& c : {published, spec}) {
    EXPECT_TRUE(case_conformance(c, ConformanceProfile::kSpec).non_conformance) << c.id;
  }
  for (const CaseResult& c : {single, model}) {
    const CaseConformance o = case_conformance(c, ConformanceProfile::kSpec);
    EXPECT_FALSE(o.counted) << c.id;
    EXPECT_TRUE(o.advisory) << c.id;
  }
  EXPECT_FALSE(case_conformance(spec, ConformanceProfile::kPublished).counted);
  EXPECT_TRUE(case_conformance(single, ConformanceProfile::kFull).non_conformance);

  const RunOutcome only_weak = run_outcome(run_of({single, model}, ConformanceProfile::kSpec));
  EXPECT_TRUE(only_weak.conformant);
  EXPECT_EQ(only_weak.advisories_must_outside_profile, 2u);
  const RunOutcome all = run_outcome(run_of({published, spec, single, model}, ConformanceProfile::kSpec));
  EXPECT_FALSE(all.conformant);
  EXPECT_EQ(all.must_failures.of(Basis::kPublished), 1u);
  EXPECT_EQ(all.must_failures.of(Basis::kSpec), 1u);
  EXPECT_EQ(all.must_failures.of(Basis::kSpecSingle), 0u);
  EXPECT_EQ(all.must_failures.total(), 2u);
  EXPECT_EQ(all.cell(Level::kMust, Basis::kSpecSingle).advisory, 1u);
  const RunOutcome full = run_outcome(run_of({published, spec, single, model}, ConformanceProfile::kFull));
  EXPECT_EQ(full.must_failures.total(), 4u);
  EXPECT_EQ(basis_split(full.must_failures), "published 1, spec 1, spec-single 1, model 1");
}

// ERROR and INCONCLUSIVE keep the exit status they always had, whatever the level or profile; a
// MUST case left unjudged also keeps the run from being called conformant.
TEST(RunOutcome, UnjudgedCasesKeepTheirExitStatus) {
  const RunResult inconclusive_should = run_of({make_case("spray-v-001", "spray", Verdict::kInconclusive, "SHOULD")});
  EXPECT_TRUE(run_outcome(inconclusive_should).conformant);
  EXPECT_EQ(exit_code(inconclusive_should), 1);

  const RunResult inconclusive_must = run_of({make_case("spray-v-001", "spray", Verdict::kInconclusive)});
  const RunOutcome o = run_outcome(inconclusive_must);
  EXPECT_FALSE(o.conformant);
  EXPECT_EQ(o.must_not_judged.of(Basis::kPublished), 1u);
  EXPECT_EQ(o.must_failures.total(), 0u);
  EXPECT_EQ(exit_code(inconclusive_must), 1);

  const RunResult model_inconclusive_published = run_of(
      {with_basis(make_case("spray-v-001", "spray", Verdict::kInconclusive), Basis::kModel)}, ConformanceProfile::kPublished);
  EXPECT_TRUE(run_outcome(model_inconclusive_published).conformant);
  EXPECT_EQ(exit_code(model_inconclusive_published), 1);

  EXPECT_EQ(exit_code(run_of({make_case("spray-v-001", "spray", Verdict::kError, "SHOULD")})), 3);
  EXPECT_EQ(exit_code(run_of({make_case("spray-v-001", "spray", Verdict::kError)}, ConformanceProfile::kPublished)), 3);
  EXPECT_EQ(exit_code(run_of({make_case("spray-v-001", "spray", Verdict::kUnsupported)})), 0);
}

TEST(RunOutcome, ExpectationsAndInterruptionKeepTheirExitStatus) {
  CaseResult expected = make_case("spray-v-050", "spray", Verdict::kFail, "SHOULD");
  expected.expectation = ExpectationOutcome::kExpected;
  EXPECT_EQ(exit_code(run_of({expected}, ConformanceProfile::kFull, true)), 0);  // accepted, even under --strict

  CaseResult stale = make_case("spray-v-051", "spray", Verdict::kPass, "SHOULD");
  stale.expectation = ExpectationOutcome::kUnexpectedPass;
  EXPECT_TRUE(run_outcome(run_of({stale})).conformant);
  EXPECT_EQ(exit_code(run_of({stale})), 1);

  CaseResult expired = make_case("spray-v-052", "spray", Verdict::kFail, "SHOULD");
  expired.expectation = ExpectationOutcome::kExpired;
  EXPECT_EQ(exit_code(run_of({expired})), 3);

  RunResult interrupted = run_of({make_case("spray-v-001", "spray", Verdict::kPass)});
  interrupted.interrupted = true;
  EXPECT_FALSE(run_outcome(interrupted).conformant);
  EXPECT_EQ(exit_code(interrupted), 3);
  EXPECT_EQ(exit_code(RunResult{}), 0);
}

// The run line under the headline says which cases make the exit status, those of exit 3 first,
// so "exit 3" never reads as a harness failure when a DUT was judged.
TEST(RunOutcome, TheExitReasonNamesTheCasesBehindTheStatus) {
  EXPECT_EQ(exit_reason(run_of({make_case("spray-v-001", "spray", Verdict::kPass)})),
            "exit 0: conformant, nothing INCONCLUSIVE or unexpected");
  CaseResult expired = make_case("spray-v-052", "spray", Verdict::kFail, "SHOULD");
  expired.expectation = ExpectationOutcome::kExpired;
  EXPECT_EQ(exit_reason(run_of({make_case("failover-v-016", "failover", Verdict::kError, "SHOULD"), expired,
                                make_case("spray-v-012", "spray", Verdict::kInconclusive)})),
            "exit 3: 1 case(s) ERROR (failover-v-016); 1 expectation(s) expired (spray-v-052); not conformant (1 MUST "
            "case(s) not judged); 1 case(s) INCONCLUSIVE (spray-v-012)");
  std::vector<CaseResult> many;
  for (int i = 1; i <= 7; ++i) many.push_back(make_case("spray-v-00" + std::to_string(i), "spray", Verdict::kFail));
  EXPECT_EQ(exit_reason(run_of(many)), "exit 1: not conformant (7 MUST failure(s))");
  EXPECT_EQ(exit_reason(run_of(many, ConformanceProfile::kFull, /*strict=*/true)),
            "exit 1: not conformant (7 MUST failure(s)); 7 FAIL(s) under --strict (spray-v-001, spray-v-002, spray-v-003, "
            "spray-v-004, spray-v-005, and 2 more)");
  RunResult interrupted = run_of({make_case("spray-v-001", "spray", Verdict::kPass)});
  interrupted.interrupted = true;
  interrupted.interrupt_reason = "SIGINT";
  EXPECT_EQ(exit_reason(interrupted).rfind("exit 3: interrupted (SIGINT)", 0), 0u) << exit_reason(interrupted);
}

TEST(RunOutcome, CellsCountEveryVerdictByLevelAndBasis) {
  CaseResult expected = make_case("spray-v-050", "spray", Verdict::kFail, "SHOULD");
  expected.expectation = ExpectationOutcome::kExpected;
  const RunResult run = run_of({with_basis(make_case("a-v-001", "spray", Verdict::kPass), Basis::kModel),
                                with_basis(make_case("a-v-002", "spray", Verdict::kFail), Basis::kModel),
                                make_case("a-v-003", "spray", Verdict::kFail),
                                make_case("a-v-004", "spray", Verdict::kUnsupported, "MAY"), expected});
  const RunOutcome o = run_outcome(run);
  const OutcomeCell& must_model = o.cell(Level::kMust, Basis::kModel);
  EXPECT_EQ(must_model.verdicts.total, 2u);
  EXPECT_EQ(must_model.verdicts.of(Verdict::kPass), 1u);
  EXPECT_EQ(must_model.non_conformance, 1u);
  EXPECT_EQ(o.cell(Level::kMust, Basis::kPublished).non_conformance, 1u);
  EXPECT_EQ(o.cell(Level::kShould, Basis::kPublished).advisory, 1u);
  EXPECT_EQ(o.cell(Level::kShould, Basis::kPublished).verdicts.expected, 1u);
  EXPECT_EQ(o.cell(Level::kMay, Basis::kPublished).verdicts.of(Verdict::kUnsupported), 1u);
  EXPECT_EQ(o.cell(Level::kShould, Basis::kModel).verdicts.total, 0u);
}

TEST(RunOutcome, ConformanceLineSpellsItOut) {
  EXPECT_EQ(conformance_line(run_outcome(RunResult{})),
            "conformant: yes (profile full): MUST failures 0 (published 0, spec 0, spec-single 0, model 0), "
            "MUST not judged 0, advisories 0 (SHOULD/MAY 0, MUST outside the profile 0)");
  RunResult run = run_of({with_basis(make_case("reorder-v-022", "reorder", Verdict::kFail), Basis::kModel),
                          make_case("invalid-i-012", "invalid", Verdict::kFail),
                          make_case("reorder-v-016", "reorder", Verdict::kFail, "SHOULD"),
                          make_case("spray-v-001", "spray", Verdict::kError)},
                         ConformanceProfile::kPublished, true);
  run.interrupted = true;
  EXPECT_EQ(conformance_line(run_outcome(run)),
            "conformant: no (profile published, --strict, interrupted): MUST failures 1 (published 1, spec 0, "
            "spec-single 0, model 0), MUST not judged 1, advisories 2 (SHOULD/MAY 1, MUST outside the profile 1)");
}

}  // namespace
}  // namespace mrc::harness
