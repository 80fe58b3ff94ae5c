// `run` judges conformance (harness/report/run_outcome.hpp) on real cases against catalog defects:
// a SHOULD-only failure is an advisory (exit 0, conformant yes; --strict exits 1), a MUST failure
// is not conformant (exit 1), and --profile published turns a model-basis MUST failure into an
// advisory while a published-basis one stays non-conformant. The headline keeps its count line
// first and adds the conformance line.
#include "harness/cli/commands.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

// reliab-v-016 (SHOULD, FB-ECN-ECHO: model) fails only on no-ce-sack; reorder-v-022 (MUST,
// WIMM-COMPLETION-EXACTLY-ONCE: model) on double-completion; invalid-i-012 (MUST,
// INVALID-WRONG-QPN: IBA alone, published) on accept-wrong-qpn (case_defect_pairs_test.cpp).
struct OneCase {
  SuiteRun r;
  const harness::CaseResult* only() const { return r.result.cases.size() == 1 ? &r.result.cases[0] : nullptr; }
};

OneCase run_one(const std::string& id, const std::string& defect, const cli::RunTextOptions& text = {},
            bool strict = false) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file(id).string()};
  o.out = out.path();
  o.dut = "reference:" + defect;
  o.strict = strict;
  OneCase run;
  run.r = run_with(o, [&](const RunOptions& x, std::ostream& so, std::ostream& se) {
    return cli::run_cases(x, text, so, se);
  });
  return run;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }
std::string second_line(const std::string& s) {
  const auto a = s.find('\n') + 1;
  return s.substr(a, s.find('\n', a) - a);
}

TEST(ConformanceRun, AShouldOnlyFailureIsAnAdvisory) {
  const OneCase run = run_one("reliab-v-016", "no-ce-sack");
  ASSERT_TRUE(run.r.has_result) << run.r.err;
  const harness::CaseResult* c = run.only();
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->verdict, harness::Verdict::kFail) << c->message;
  EXPECT_EQ(c->level, "SHOULD");
  EXPECT_EQ(c->basis, harness::Basis::kSpec);  // FB-ECN-ECHO: W6 trigger 2 and SETH m, two sources
  EXPECT_EQ(run.r.rc, 0) << run.r.out;
  EXPECT_EQ(first_line(run.r.out), "1 case(s): 0 PASS, 1 FAIL, 0 UNSUPPORTED, 0 INCONCLUSIVE, 0 ERROR");
  EXPECT_EQ(second_line(run.r.out),
            "conformant: yes (profile full): MUST failures 0 (published 0, spec 0, spec-single 0, model 0), "
            "MUST not judged 0, advisories 1 (SHOULD/MAY 1, MUST outside the profile 0)");
  EXPECT_NE(run.r.out.find("  FAIL (advisory) reliab-v-016: "), std::string::npos) << run.r.out;
  EXPECT_FALSE(run.r.result.strict);

  const OneCase strict = run_one("reliab-v-016", "no-ce-sack", {}, true);
  EXPECT_EQ(strict.r.rc, 1) << strict.r.out;
  EXPECT_EQ(second_line(strict.r.out).rfind("conformant: yes (profile full, --strict): ", 0), 0u) << strict.r.out;
  EXPECT_TRUE(strict.r.result.strict);  // recorded, so results.json's exit_code is the process's
}

TEST(ConformanceRun, AMustFailureIsNotConformant) {
  const OneCase run = run_one("reorder-v-022", "double-completion");
  ASSERT_TRUE(run.r.has_result) << run.r.err;
  const harness::CaseResult* c = run.only();
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->verdict, harness::Verdict::kFail) << c->message;
  EXPECT_EQ(c->basis, harness::Basis::kPublished);  // WIMM-COMPLETION-EXACTLY-ONCE: IBA
  EXPECT_EQ(run.r.rc, 1);
  EXPECT_EQ(second_line(run.r.out),
            "conformant: no (profile full): MUST failures 1 (published 1, spec 0, spec-single 0, model 0), "
            "MUST not judged 0, advisories 0 (SHOULD/MAY 0, MUST outside the profile 0)");
  EXPECT_NE(run.r.out.find("  FAIL reorder-v-022: "), std::string::npos) << run.r.out;
}

TEST(ConformanceRun, ProfilePublishedMakesANonPublishedMustFailureAnAdvisory) {
  const OneCase run = run_one("reorder-v-001", "sack-off-by-one", {.profile = "published"});
  ASSERT_TRUE(run.r.has_result) << run.r.err;
  ASSERT_NE(run.only(), nullptr);
  EXPECT_EQ(run.only()->verdict, harness::Verdict::kFail);
  EXPECT_EQ(run.only()->basis, harness::Basis::kSpecSingle);  // FB-SACK-BITMAP: the bit order is F1's only
  EXPECT_EQ(run.r.rc, 0) << run.r.out;
  EXPECT_EQ(run.r.result.profile, harness::ConformanceProfile::kPublished);
  EXPECT_EQ(second_line(run.r.out),
            "conformant: yes (profile published): MUST failures 0 (published 0, spec 0, spec-single 0, model 0), "
            "MUST not judged 0, advisories 1 (SHOULD/MAY 0, MUST outside the profile 1)");
}

// --profile spec: a spec-single MUST failure is an advisory, a spec one a non-conformance.
TEST(ConformanceRun, ProfileSpecCountsSpecButNotSpecSingleMustFailures) {
  const OneCase single = run_one("reorder-v-001", "sack-off-by-one", {.profile = "spec"});
  ASSERT_TRUE(single.r.has_result) << single.r.err;
  ASSERT_NE(single.only(), nullptr);
  EXPECT_EQ(single.only()->verdict, harness::Verdict::kFail);
  EXPECT_EQ(single.r.rc, 0) << single.r.out;
  EXPECT_EQ(single.r.result.profile, harness::ConformanceProfile::kSpec);
  EXPECT_EQ(second_line(single.r.out),
            "conformant: yes (profile spec): MUST failures 0 (published 0, spec 0, spec-single 0, model 0), "
            "MUST not judged 0, advisories 1 (SHOULD/MAY 0, MUST outside the profile 1)");

  const OneCase spec = run_one("reliab-v-102", "probe-reqid-mangled", {.profile = "spec"});
  ASSERT_TRUE(spec.r.has_result) << spec.r.err;
  ASSERT_NE(spec.only(), nullptr);
  ASSERT_EQ(spec.only()->verdict, harness::Verdict::kFail) << spec.only()->message;
  EXPECT_EQ(spec.only()->basis, harness::Basis::kSpec);  // EP-PROBE-REQID-ECHO: the id in PSN[15:0], F1 and F2
  EXPECT_EQ(spec.r.rc, 1) << spec.r.out;
  EXPECT_EQ(second_line(spec.r.out),
            "conformant: no (profile spec): MUST failures 1 (published 0, spec 1, spec-single 0, model 0), "
            "MUST not judged 0, advisories 0 (SHOULD/MAY 0, MUST outside the profile 0)");
}

TEST(ConformanceRun, ProfilePublishedKeepsAPublishedMustFailureNonConformant) {
  const OneCase run = run_one("invalid-i-012", "accept-wrong-qpn", {.profile = "published"});
  ASSERT_TRUE(run.r.has_result) << run.r.err;
  const harness::CaseResult* c = run.only();
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->verdict, harness::Verdict::kFail) << c->message;
  EXPECT_EQ(c->basis, harness::Basis::kPublished);
  EXPECT_EQ(run.r.rc, 1);
  EXPECT_EQ(second_line(run.r.out),
            "conformant: no (profile published): MUST failures 1 (published 1, spec 0, spec-single 0, model 0), "
            "MUST not judged 0, advisories 0 (SHOULD/MAY 0, MUST outside the profile 0)");
}

TEST(ConformanceRun, AnUnknownProfileIsBadInputBeforeAnythingRuns) {
  TempDir out;
  RunOptions o;
  o.cases = {case_file("reliab-v-016").string()};
  o.out = out.path() / "reports";
  std::ostringstream so, se;
  EXPECT_EQ(cli::run_cases(o, cli::RunTextOptions{.profile = "vendor"}, so, se), 2);
  EXPECT_NE(se.str().find("error: --profile 'vendor' is not a profile: full (every MUST case counts toward "
                          "conformance), spec (only MUST cases of published or spec basis) or published"),
            std::string::npos)
      << se.str();
  EXPECT_FALSE(fs::exists(o.out));
}

#ifdef MRC_CONFORM_BIN
// The options as typed on the command line reach the run (main.cpp): exit 0, 1 with --strict,
// 0 again with --profile published or spec on a spec-single MUST failure, 2 for an unknown profile.
TEST(ConformanceRun, TheCommandLineTakesStrictAndProfile) {
  TempDir out;
  auto run = [&](const std::string& id, const std::string& defect, const std::string& extra) {
    const std::string cmd = std::string(MRC_CONFORM_BIN) + " run --no-progress --cases " + case_file(id).string() +
                            " --dut reference:" + defect + " --out " + (out.path() / "r").string() + " " + extra +
                            " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    std::string text;
    char buf[512];
    while (p != nullptr && std::fgets(buf, sizeof buf, p)) text += buf;
    const int status = p == nullptr ? -1 : ::pclose(p);
    return std::pair{WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
  };
  const auto plain = run("reliab-v-016", "no-ce-sack", "");
  EXPECT_EQ(plain.first, 0) << plain.second;
  EXPECT_NE(plain.second.find("\nconformant: yes (profile full): "), std::string::npos) << plain.second;
  EXPECT_EQ(run("reliab-v-016", "no-ce-sack", "--strict").first, 1);
  EXPECT_EQ(run("reorder-v-001", "sack-off-by-one", "").first, 1);
  EXPECT_EQ(run("reorder-v-001", "sack-off-by-one", "--profile published").first, 0);
  EXPECT_EQ(run("reorder-v-001", "sack-off-by-one", "--profile spec").first, 0);
  EXPECT_EQ(run("reorder-v-022", "double-completion", "--profile published").first, 1);  // published basis
  const auto bad = run("reliab-v-016", "no-ce-sack", "--profile vendor");
  EXPECT_EQ(bad.first, 2);
  EXPECT_NE(bad.second.find("--profile: 'vendor' is not a profile"), std::string::npos) << bad.second;
}
#endif

}  // namespace
}  // namespace mrc::run::testing
