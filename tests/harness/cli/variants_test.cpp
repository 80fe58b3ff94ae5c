// `mrc-conform variants`: how one case run of a conformant variant is filed, the totals and exit
// codes, and whole runs over a tiny temporary suite (a case that pins the out-of-order tolerance
// FAILs the variant that NACKs at once, the report names the requirement that leaves it open,
// byte-identical reports, bad input).
#include "harness/cli/commands.hpp"
#include "harness/studies/variants_engine.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

using cli::run_variants;
using cli::VariantsOptions;
using harness::Verdict;

harness::CaseResult result_of(Verdict v, std::string level = "MUST") {
  harness::CaseResult r;
  r.id = "reorder-v-001";
  r.level = std::move(level);
  r.seed = 9;
  r.verdict = v;
  r.message = "case message";
  harness::CheckResult pass;
  pass.name = "positive_control";
  pass.verdict = Verdict::kPass;
  harness::CheckResult fail;
  fail.name = "expect";
  fail.verdict = v;
  fail.message = "a NACK 3 us after the hole";
  r.checks = {pass, fail};
  return r;
}

TEST(VariantsRecord, FilesEachVerdictWhereItBelongs) {
  harness::Case c;
  c.id = "reorder-v-001";
  c.clauses = {"FB-NACK-LOSS", "FB-SACK-BITMAP"};
  c.checks.resize(2);
  c.checks[1].clauses = {"FB-NACK-LOSS"};
  harness::VariantRun run;
  run.leaves_open = {"FB-NACK-LOSS"};
  record_variant_case(run, c, result_of(Verdict::kPass));
  record_variant_case(run, c, result_of(Verdict::kFail, "SHOULD"));
  record_variant_case(run, c, result_of(Verdict::kError));
  record_variant_case(run, c, result_of(Verdict::kInconclusive));
  EXPECT_EQ(run.case_runs, 4u);
  EXPECT_EQ(run.passed, 1u);
  ASSERT_EQ(run.false_fails.size(), 1u);
  const harness::FalseFail& f = run.false_fails[0];
  EXPECT_EQ(f.level, "SHOULD");
  EXPECT_EQ(f.seed, 9u);
  ASSERT_EQ(f.outcome.checks.size(), 1u);  // only the FAILing check, with its own clauses
  EXPECT_EQ(f.outcome.checks[0].name, "expect");
  EXPECT_EQ(f.outcome.checks[0].clauses, std::vector<std::string>{"FB-NACK-LOSS"});
  EXPECT_EQ(f.outcome.checks[0].message, "a NACK 3 us after the hole");
  EXPECT_EQ(f.pinned_choice, std::vector<std::string>{"FB-NACK-LOSS"});
  ASSERT_EQ(run.errors.size(), 1u);
  ASSERT_EQ(run.other.size(), 1u);
  EXPECT_EQ(run.other[0].verdict, Verdict::kInconclusive);
}

TEST(VariantsRecord, OnlyAMustFalseFailFailsTheRun) {
  harness::VariantsResult r;
  r.runs.resize(3);
  r.runs[0].name = "reference";
  r.runs[1].name = "a";
  r.runs[2].name = "b";
  EXPECT_EQ(r.variants(), 2u);
  EXPECT_EQ(r.exit_code(), 0);
  r.runs[1].false_fails.push_back(harness::FalseFail{{}, "SHOULD", 1, {}});
  EXPECT_EQ(r.false_fails(), 1u);
  EXPECT_EQ(r.exit_code(), 0);  // a SHOULD false fail is reported, not fatal
  r.runs[0].false_fails.push_back(harness::FalseFail{{}, "MUST", 1, {}});  // the default counts too
  EXPECT_EQ(r.must_false_fails(), 1u);
  EXPECT_EQ(r.exit_code(), 1);
  r.runs[2].errors.push_back(harness::CaseOutcome{"x", Verdict::kError, "broke", {}});
  EXPECT_EQ(r.exit_code(), 3);  // an ERROR proves nothing either way
}

// A requester case that demands a TSETH on the data packets: it pins a choice W4 leaves to the
// implementation (TSETH per configuration), which CC-RTT-FROM-TSETH leaves open.
constexpr const char* kPinsTseth = R"(id: spray-v-003
title: pins the TSETH choice
clauses: [CC-RTT-FROM-TSETH]
level: SHOULD
behaviour: valid
rationale: variants tests
requires: [stev]
role: requester
config:
  ev_format: {mode: stev, widths: [16, 16]}
stimulus:
  - traffic: {writes: 8, size: 65536, window: 8}
  - expect: {within_ns: 150000, match: {opcode: write_first, bth.ts: true}}
checks:
  - {type: positive_control, min_packets: 100}
)";

TEST(VariantsCommand, APinnedChoiceIsAFalseFailNamingTheRequirementThatLeavesItOpen) {
  TempSuite suite;
  suite.write_case("spray-v-003", kPinsTseth);
  suite.write_case("spray-v-001", kTinySprayCase);
  VariantsOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.variants = "tseth-off,sack-eager";
  o.progress = false;
  o.jobs = 2;
  o.out = suite.path() / "out1";
  const CommandRun a = run_command(run_variants, o, "variants.json");
  EXPECT_EQ(a.rc, 0) << a.out << a.err;  // the false fail is SHOULD: reported, exit 0
  EXPECT_NE(a.out.find("CLEAN      reference"), std::string::npos) << a.out;
  const auto falsefail = a.out.find("FALSE-FAIL tseth-off ");
  ASSERT_NE(falsefail, std::string::npos) << a.out;
  EXPECT_EQ(a.out.find("1 of 2 PASS, 1 false fail(s) (0 MUST)"), a.out.find_first_not_of(' ', falsefail + 20)) << a.out;
  EXPECT_NE(a.out.find("SHOULD FAIL spray-v-003 (seed"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("pins a choice CC-RTT-FROM-TSETH leave open"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("CLEAN      sack-eager"), std::string::npos) << a.out;
  EXPECT_TRUE(a.out.ends_with("2 variants, 1 false fails\n")) << a.out;
  EXPECT_NE(a.json.find("\"pinned_choice\": [\n            \"CC-RTT-FROM-TSETH\"\n          ]"), std::string::npos) << a.json;
  const std::string html = slurp(o.out / "variants.html");
  EXPECT_NE(html.find("<tr class=\"falsefail\"><td class=\"req-id\"><code>tseth-off</code>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_FALSE(fs::exists(o.out / "evidence"));

  o.out = suite.path() / "out2";
  o.jobs = 1;
  const CommandRun b = run_command(run_variants, o, "variants.json");
  EXPECT_EQ(b.rc, a.rc);
  EXPECT_EQ(b.json, a.json);
  EXPECT_EQ(slurp(o.out / "variants.html"), html);

  // Two seeds per case: every run twice.
  o.seeds = 2;
  o.out = suite.path() / "out3";
  const CommandRun two = run_command(run_variants, o, "variants.json");
  const auto clean = two.out.find("CLEAN      sack-eager ");
  ASSERT_NE(clean, std::string::npos) << two.out;
  EXPECT_EQ(two.out.find("4 of 4 PASS", clean), two.out.find_first_not_of(' ', clean + 21)) << two.out;
}

TEST(VariantsCommand, BadInputIsExit2) {
  TempSuite suite;
  suite.write_case("spray-v-001", kTinySprayCase);
  VariantsOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = suite.path() / "out";
  o.progress = false;
  o.variants = "random-ev,no-such-variant";
  CommandRun r = run_command(run_variants, o, "variants.json");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown variant 'no-such-variant'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("reverse-rotation"), std::string::npos);  // the known names are listed
  EXPECT_FALSE(fs::exists(o.out / "variants.json"));
  o.variants = "";
  EXPECT_EQ(run_command(run_variants, o, "variants.json").rc, 2);
  // A suite whose variant map misses a variant is bad input, with the file and the name.
  o.variants = "all";
  std::ofstream(suite.path() / "cases" / "variants.yaml") << "random-ev: [SPRAY-PER-PACKET-EV]\n";
  r = run_command(run_variants, o, "variants.json");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("missing variant 'reverse-rotation'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mrc::run::testing
