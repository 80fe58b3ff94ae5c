// `mrc-conform campaign`: the attribution rule on hand-made results, and whole campaigns over tiny
// temporary suites (a caught defect, a survivor, a baseline failure, an unknown defect name,
// byte-identical reports).
#include "harness/cli/commands.hpp"
#include "harness/studies/campaign.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

using cli::CampaignOptions;
using cli::run_campaign;
using harness::CampaignDefect;
using harness::CampaignResult;
using harness::CaseOutcome;
using harness::DefectOutcome;
using harness::Verdict;

// ---------------------------------------------------------------- attribution, no runs

harness::Case make_case(const std::string& id, std::vector<std::string> clauses,
                        std::vector<std::vector<std::string>> check_clauses) {
  harness::Case c;
  c.id = id;
  c.clauses = std::move(clauses);
  for (auto& cl : check_clauses) {
    harness::Check k;
    k.clauses = std::move(cl);
    c.checks.push_back(std::move(k));
  }
  return c;
}

harness::CaseResult make_result(const std::string& id, std::vector<Verdict> checks) {
  harness::CaseResult r;
  r.id = id;
  r.verdict = Verdict::kPass;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    harness::CheckResult k;
    k.name = "check" + std::to_string(i);
    k.verdict = checks[i];
    k.message = "message of check" + std::to_string(i);
    r.checks.push_back(k);
    r.verdict = i == 0 ? checks[i] : harness::combine(r.verdict, checks[i]);
  }
  r.message = "case message";
  return r;
}

TEST(CampaignAttribution, OnlyAFailingCheckOnAViolatedClauseIsAKill) {
  const CampaignDefect d{"d", "symptom", {"B"}};
  // a: FAILs on a check proving only A (its own clauses), B is proven by a check that passes.
  const harness::Case a = make_case("a", {"A", "B"}, {{"A"}, {"B"}});
  // b: FAILs on a check without clauses of its own: the case's [B] -> a kill.
  const harness::Case b = make_case("b", {"B"}, {{}});
  // c: clauses do not intersect at all, FAILs -> collateral.
  const harness::Case c = make_case("c", {"C"}, {{}});
  // e: covers B but ERRORs: never a kill.
  const harness::Case e = make_case("e", {"B"}, {{}});
  // p: covers B and PASSes: neither.
  const harness::Case p = make_case("p", {"B"}, {{}});
  const std::vector<const harness::Case*> cases{&a, &b, &c, &e, &p};
  const std::vector<harness::CaseResult> results{
      make_result("a", {Verdict::kFail, Verdict::kPass}), make_result("b", {Verdict::kFail}),
      make_result("c", {Verdict::kFail}), make_result("e", {Verdict::kError}), make_result("p", {Verdict::kPass})};
  const DefectOutcome o = attribute(d, cases, results);
  EXPECT_TRUE(o.caught);
  ASSERT_EQ(o.killers.size(), 1u);
  EXPECT_EQ(o.killers[0].id, "b");
  ASSERT_EQ(o.killers[0].checks.size(), 1u);
  EXPECT_EQ(o.killers[0].checks[0].name, "check0");
  EXPECT_EQ(o.killers[0].checks[0].clauses, std::vector<std::string>{"B"});
  EXPECT_EQ(o.killers[0].checks[0].message, "message of check0");
  ASSERT_EQ(o.collateral.size(), 3u);
  EXPECT_EQ(o.collateral[0].id, "a");
  EXPECT_EQ(o.collateral[1].id, "c");
  EXPECT_EQ(o.collateral[2].id, "e");
  EXPECT_EQ(o.cases_run.size(), 5u);

  // Without b the same defect survives: a FAIL elsewhere is not a kill.
  const std::vector<const harness::Case*> without_b{&a, &c, &e, &p};
  const std::vector<harness::CaseResult> results_without_b{results[0], results[2], results[3], results[4]};
  EXPECT_FALSE(attribute(d, without_b, results_without_b).caught);
}

TEST(CampaignAttribution, RelevanceAndTotals) {
  const harness::Case a = make_case("a", {"A", "B"}, {{"A"}});
  EXPECT_TRUE(case_is_relevant(a, CampaignDefect{"d", "", {"B"}}));
  EXPECT_FALSE(case_is_relevant(a, CampaignDefect{"d", "", {"C"}}));
  EXPECT_EQ(check_clauses(a, 0), std::vector<std::string>{"A"});
  EXPECT_EQ(check_clauses(a, 5), (std::vector<std::string>{"A", "B"}));  // an extra (expect) result

  CampaignResult r;
  r.min_kill_rate = 0.5;
  r.defects.resize(2);
  r.defects[0].defect.name = "x";
  r.defects[0].caught = true;
  r.defects[1].defect.name = "y";
  EXPECT_EQ(r.caught(), 1u);
  EXPECT_DOUBLE_EQ(r.kill_rate(), 0.5);
  EXPECT_EQ(r.survivors(), std::vector<std::string>{"y"});
  EXPECT_EQ(r.exit_code(), 0);
  r.min_kill_rate = 0.9;
  EXPECT_EQ(r.exit_code(), 1);
  r.min_kill_rate = 0.5;
  r.baseline_problems.push_back(CaseOutcome{"z", Verdict::kFail, "m", {}});
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(CampaignAttribution, AShardDealtNoDefectPasses) {
  // `--shard K/N` may deal a shard no defect: it judged nothing, so nothing survived (was exit 1,
  // a kill rate of 0 of 0 below the minimum); an interruption or a broken baseline still counts.
  CampaignResult r;
  r.min_kill_rate = 0.9;
  EXPECT_EQ(r.exit_code(), 0);
  r.interrupted = true;
  EXPECT_EQ(r.exit_code(), 3);
  r.interrupted = false;
  r.baseline_problems.push_back(CaseOutcome{"z", Verdict::kFail, "m", {}});
  EXPECT_EQ(r.exit_code(), 1);
}

// ---------------------------------------------------------------- whole campaigns



// Asks for more packets than the transfer makes: FAILs on the clean reference.
constexpr const char* kBrokenCase = R"(id: spray-v-003
title: fails without any defect
clauses: [SPRAY-PER-PACKET-EV]
level: MUST
behaviour: valid
rationale: campaign tests
requires: [stev]
role: requester
config:
  ev_format: {mode: stev, widths: [16, 16]}
stimulus:
  - traffic: {writes: 2, size: 4096, window: 1}
checks:
  - {type: positive_control, min_packets: 100000}
)";


TEST(CampaignCommand, CaughtSurvivorAndDeterministicReports) {
  TempSuite suite;
  suite.write_case("spray-v-001", kTinySprayCase);
  suite.write_case("spray-v-002", kTinyPlainCase);
  CampaignOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.defects = "use-denied-ev,spray-single-ev";
  o.relevant_only = true;
  o.jobs = 2;
  o.out = suite.path() / "out1";
  const CommandRun a = run_command(run_campaign, o, "campaign.json");
  // One of two caught: 50% < 90%.
  EXPECT_EQ(a.rc, 1) << a.out << a.err;
  // Catalog order, one line per defect.
  EXPECT_NE(a.out.find("CAUGHT   spray-single-ev  by spray-v-001"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("SURVIVED use-denied-ev"), std::string::npos) << a.out;
  EXPECT_LT(a.out.find("spray-single-ev"), a.out.find("use-denied-ev"));
  EXPECT_NE(a.out.find("kill rate 50.0% (1 of 2"), std::string::npos) << a.out;
  EXPECT_NE(a.json.find("\"survivors\": [\n      \"use-denied-ev\"\n    ]"), std::string::npos) << a.json;
  EXPECT_NE(a.json.find("\"SPRAY-PER-PACKET-EV\""), std::string::npos);
  const std::string html = slurp(o.out / "campaign.html");
  EXPECT_NE(html.find("<tr class=\"survivor\"><td class=\"req-id\"><code>use-denied-ev</code>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // No evidence pcaps, no run reports.
  EXPECT_FALSE(fs::exists(o.out / "evidence"));
  EXPECT_FALSE(fs::exists(o.out / "results.json"));

  o.out = suite.path() / "out2";
  o.jobs = 1;
  const CommandRun b = run_command(run_campaign, o, "campaign.json");
  EXPECT_EQ(b.rc, a.rc);
  EXPECT_EQ(b.json, a.json);
  EXPECT_EQ(slurp(o.out / "campaign.html"), html);

  // With the bar at 50% the same result passes.
  o.min_kill_rate = 0.5;
  o.out = suite.path() / "out3";
  EXPECT_EQ(run_command(run_campaign, o, "campaign.json").rc, 0);
}

TEST(CampaignCommand, ACollateralFailIsNotAKill) {
  TempSuite suite;
  // The same spraying check, but proving SPRAY-EVEN-EVS, which spray-single-ev does not claim to
  // violate: the case FAILs under the defect, and that is collateral, not a kill.
  std::string even = kTinySprayCase;
  even.replace(even.find("clauses: [SPRAY-PER-PACKET-EV]"), 30, "clauses: [SPRAY-EVEN-EVS]");
  even.replace(even.find("level: MUST"), 11, "level: SHOULD");
  even.replace(even.find("id: spray-v-001"), 15, "id: spray-v-004");
  suite.write_case("spray-v-004", even);
  CampaignOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.defects = "spray-single-ev";
  o.out = suite.path() / "out";
  const CommandRun r = run_command(run_campaign, o, "campaign.json");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("SURVIVED spray-single-ev  (1 case(s) ran"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("collateral: spray-v-004"), std::string::npos) << r.out;
  EXPECT_NE(r.json.find("\"caught\": false"), std::string::npos);
  EXPECT_NE(r.json.find("\"collateral\": [\n        {\n          \"case\": \"spray-v-004\",\n          \"verdict\": \"FAIL\""),
            std::string::npos)
      << r.json;
  // --relevant-only does not even run it.
  o.relevant_only = true;
  o.out = suite.path() / "out-relevant";
  const CommandRun rel = run_command(run_campaign, o, "campaign.json");
  EXPECT_NE(rel.out.find("SURVIVED spray-single-ev  (no selected case covers"), std::string::npos) << rel.out;
}

TEST(CampaignCommand, BaselineFailureIsReportedAndExcluded) {
  TempSuite suite;
  suite.write_case("spray-v-001", kTinySprayCase);
  suite.write_case("spray-v-003", kBrokenCase);
  CampaignOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.defects = "spray-single-ev";
  o.min_kill_rate = 0.0;
  o.out = suite.path() / "out";
  const CommandRun r = run_command(run_campaign, o, "campaign.json");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;  // caught, but the baseline is not clean
  EXPECT_NE(r.out.find("BASELINE FAIL spray-v-003"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CAUGHT   spray-single-ev  by spray-v-001"), std::string::npos) << r.out;
  EXPECT_NE(r.json.find("\"baseline_problems\": [\n      {\n        \"case\": \"spray-v-003\""), std::string::npos)
      << r.json;
  EXPECT_NE(r.json.find("\"cases_run\": 1"), std::string::npos) << r.json;  // spray-v-003 excluded
  EXPECT_NE(r.out.find("baseline-excluded: spray-v-003"), std::string::npos) << r.out;
}

TEST(CampaignCommand, BadInputIsExit2) {
  TempSuite suite;
  suite.write_case("spray-v-001", kTinySprayCase);
  CampaignOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = suite.path() / "out";
  o.defects = "spray-single-ev,no-such-defect";
  CommandRun r = run_command(run_campaign, o, "campaign.json");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown defect 'no-such-defect'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("spray-single-ev"), std::string::npos);  // the known names are listed
  EXPECT_FALSE(fs::exists(o.out / "campaign.json"));
  o.defects = "";
  EXPECT_EQ(run_command(run_campaign, o, "campaign.json").rc, 2);
  o.defects = "all";
  o.cases = {(suite.path() / "nowhere").string()};
  EXPECT_EQ(run_command(run_campaign, o, "campaign.json").rc, 2);
  o.cases = {(suite.path() / "cases").string()};
  o.tags = {"no-such-tag"};
  r = run_command(run_campaign, o, "campaign.json");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("no case selected"), std::string::npos);
}

}  // namespace
}  // namespace mrc::run::testing
