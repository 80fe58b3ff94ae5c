#include "harness/case/expectations.hpp"

#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::scratch_dir;
using testing::write_file;

std::vector<Case> cases() {
  std::vector<Case> out(5);
  out[0].id = "spray-v-001";
  out[0].level = Level::kMust;
  out[1].id = "reliab-v-002";
  out[1].level = Level::kShould;
  out[2].id = "failover-v-003";
  out[2].level = Level::kMay;
  out[3].id = "reorder-v-004";
  out[3].level = Level::kShould;
  out[4].id = "reorder-v-005";
  out[4].level = Level::kShould;
  return out;
}

const Date kToday = *Date::parse("2026-06-01");

TEST(DateValue, ParsesRealDaysOnly) {
  EXPECT_TRUE(Date::parse("2024-02-29"));
  EXPECT_FALSE(Date::parse("2026-02-29"));
  EXPECT_FALSE(Date::parse("2026-13-01"));
  EXPECT_FALSE(Date::parse("2026-1-01"));
  EXPECT_FALSE(Date::parse("26-01-01x"));
  EXPECT_EQ(Date::parse("2026-06-01")->to_string(), "2026-06-01");
  EXPECT_EQ(Date::parse("1970-01-01")->days_since_epoch(), 0);
  EXPECT_EQ(days_between(*Date::parse("2026-02-28"), *Date::parse("2026-03-01")), 1);
  EXPECT_EQ(days_between(*Date::parse("2024-02-28"), *Date::parse("2024-03-01")), 2);
  EXPECT_LT(*Date::parse("2026-05-31"), kToday);
}

TEST(LoadExpectations, AcceptsAWellFormedFile) {
  const auto file = write_file(scratch_dir() / "nic-a.yaml",
                               "dut: nic-a\n"
                               "entries:\n"
                               "  - case: reliab-v-002\n"
                               "    expected: FAIL\n"
                               "    reason: service time reported in 16 ns units\n"
                               "    link: https://bugs.example.com/1\n"
                               "    expires: 2026-09-30\n"
                               "  - {case: failover-v-003, expected: INCONCLUSIVE, reason: capture drops at 400G,\n"
                               "     link: http://bugs.example.com/2, expires: 2026-07-01}\n");
  const auto cs = cases();
  const auto r = load_expectations(file, cs, {kToday, 180});
  EXPECT_TRUE(r.ok()) << r.diagnostics.to_string();
  EXPECT_EQ(r.set.dut, "nic-a");
  ASSERT_EQ(r.set.entries.size(), 2u);
  const Expectation* e = r.set.find("reliab-v-002");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->expected, ExpectedStatus::kFail);
  EXPECT_EQ(e->expires, *Date::parse("2026-09-30"));
  EXPECT_EQ(e->loc.line, 3);
  EXPECT_EQ(r.set.find("failover-v-003")->expected, ExpectedStatus::kInconclusive);
  EXPECT_TRUE(r.set.expired(kToday).empty());
  EXPECT_EQ(r.set.expired(*Date::parse("2026-08-01")).size(), 1u);
}

TEST(LoadExpectations, RefusesMustCasesAndReportsEveryMistake) {
  const auto file = write_file(scratch_dir() / "nic-b.yaml",
                               "dut: nic-c\n"
                               "entries:\n"
                               "  - {case: spray-v-001, expected: FAIL, reason: r, link: https://x/1, expires: 2026-07-01}\n"
                               "  - {case: spray-v-01, expected: FAIL, reason: r, link: https://x/2, expires: 2026-07-01}\n"
                               "  - {case: reliab-v-002, expected: FIAL, reason: r, link: https://x/3, expires: 2026-07-01}\n"
                               "  - {case: reorder-v-004, expected: ERROR, reason: r, link: bugs/4, expires: 2026-02-30}\n"
                               "  - {case: failover-v-003, expected: ERROR, reason: r, link: https://x/5, expires: 2027-07-01}\n"
                               "  - {case: reorder-v-005, expected: ERROR, link: https://x/6, expires: 2026-07-01, extra: 1}\n");
  const auto cs = cases();
  const auto r = load_expectations(file, cs, {kToday, 180});
  const std::string f = file.string();
  const auto& d = r.diagnostics;
  EXPECT_TRUE(d.contains(f + ":1:6: dut: dut 'nic-c' does not match the file name 'nic-b.yaml'")) << d.to_string();
  EXPECT_TRUE(d.contains(f + ":3:12: entries[0].case: case 'spray-v-001' is a MUST case; expectation files may not excuse MUST cases"));
  EXPECT_TRUE(d.contains(f + ":4:12: entries[1].case: unknown case 'spray-v-01' (did you mean 'spray-v-001'?)"));
  EXPECT_TRUE(d.contains(f + ":5:36: entries[2].expected: unknown value 'FIAL' (did you mean 'FAIL'?)"));
  EXPECT_TRUE(d.contains(f + ":6:61: entries[3].link: link must be an http(s) URL"));
  EXPECT_TRUE(d.contains(f + ":6:78: entries[3].expires: expected a real calendar date YYYY-MM-DD"));
  EXPECT_TRUE(d.contains(f + ":7:84: entries[4].expires: expires 2027-07-01 is more than 180 days after 2026-06-01"));
  EXPECT_TRUE(d.contains(f + ":8:5: entries[5]: missing required key 'reason'"));
  EXPECT_TRUE(d.contains(f + ":8:84: entries[5]: unknown key 'extra'"));
  EXPECT_EQ(d.size(), 9u) << d.to_string();
  EXPECT_TRUE(r.set.entries.empty());
}

TEST(LoadExpectations, SecondEntryForACaseIsRefused) {
  const auto file = write_file(scratch_dir() / "nic-d.yaml",
                               "dut: nic-d\n"
                               "entries:\n"
                               "  - {case: reliab-v-002, expected: FAIL, reason: r, link: https://x/1, expires: 2026-07-01}\n"
                               "  - {case: reliab-v-002, expected: ERROR, reason: r, link: https://x/2, expires: 2026-07-01}\n");
  const auto cs = cases();
  const auto r = load_expectations(file, cs);
  EXPECT_TRUE(r.diagnostics.contains(":4:12: entries[1].case: second entry for case 'reliab-v-002' (first at line 3)"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.set.entries.size(), 1u);
}

TEST(LoadExpectations, WithoutTodayNoHorizonCheck) {
  const auto file = write_file(scratch_dir() / "nic-e.yaml",
                               "dut: nic-e\nentries:\n"
                               "  - {case: reliab-v-002, expected: FAIL, reason: r, link: https://x/1, expires: 2099-01-01}\n");
  const auto cs = cases();
  EXPECT_TRUE(load_expectations(file, cs).ok());
}

TEST(LoadExpectations, BrokenFilesAreDiagnostics) {
  const auto cs = cases();
  const auto dir = scratch_dir();
  EXPECT_TRUE(load_expectations(dir / "absent.yaml", cs).diagnostics.contains("cannot read"));
  const auto r = load_expectations(write_file(dir / "x.yaml", "entries: [\n"), cs);
  EXPECT_TRUE(r.diagnostics.contains("YAML syntax error")) << r.diagnostics.to_string();
  const auto l = load_expectations(write_file(dir / "y.yaml", "- a\n"), cs);
  EXPECT_TRUE(l.diagnostics.contains("expected a map (expectation file), got a list")) << l.diagnostics.to_string();
}

ExpectationSet set_with(ExpectedStatus s, const char* expires) {
  ExpectationSet set;
  set.entries.push_back(Expectation{"reliab-v-002", s, "known bug", "https://x/1", *Date::parse(expires), {3, 5}});
  return set;
}

TEST(Classify, EveryTriage) {
  const ExpectationSet none;
  EXPECT_EQ(classify("c", RunVerdict::kPass, none, kToday).triage, Triage::kPass);
  EXPECT_FALSE(classify("c", RunVerdict::kPass, none, kToday).fails_ci);
  const auto uns = classify("c", RunVerdict::kUnsupported, none, kToday);
  EXPECT_EQ(uns.triage, Triage::kUnsupported);
  EXPECT_FALSE(uns.fails_ci);
  for (auto v : {RunVerdict::kFail, RunVerdict::kError, RunVerdict::kInconclusive}) {
    const auto c = classify("c", v, none, kToday);
    EXPECT_EQ(c.triage, Triage::kUnexpected);
    EXPECT_TRUE(c.fails_ci);
  }

  const auto fail = set_with(ExpectedStatus::kFail, "2026-09-30");
  const auto expected = classify("reliab-v-002", RunVerdict::kFail, fail, kToday);
  EXPECT_EQ(expected.triage, Triage::kExpected);
  EXPECT_FALSE(expected.fails_ci);
  EXPECT_EQ(expected.entry, &fail.entries[0]);
  EXPECT_EQ(expected.message, "expected FAIL: known bug (https://x/1)");

  const auto pass = classify("reliab-v-002", RunVerdict::kPass, fail, kToday);
  EXPECT_EQ(pass.triage, Triage::kUnexpectedPass);
  EXPECT_TRUE(pass.fails_ci);

  const auto other = classify("reliab-v-002", RunVerdict::kError, fail, kToday);
  EXPECT_EQ(other.triage, Triage::kUnexpected);
  EXPECT_TRUE(other.fails_ci);
  EXPECT_EQ(other.message, "unexpected ERROR (expected FAIL)");

  // The expiry day itself still counts; the day after does not.
  const auto last_day = set_with(ExpectedStatus::kFail, "2026-06-01");
  EXPECT_EQ(classify("reliab-v-002", RunVerdict::kFail, last_day, kToday).triage, Triage::kExpected);
  const auto old = set_with(ExpectedStatus::kFail, "2026-05-31");
  const auto expired = classify("reliab-v-002", RunVerdict::kFail, old, kToday);
  EXPECT_EQ(expired.triage, Triage::kExpiredEntry);
  EXPECT_TRUE(expired.fails_ci);
  EXPECT_EQ(classify("reliab-v-002", RunVerdict::kPass, old, kToday).triage, Triage::kExpiredEntry);

  const auto uns_entry = set_with(ExpectedStatus::kUnsupported, "2026-09-30");
  EXPECT_EQ(classify("reliab-v-002", RunVerdict::kUnsupported, uns_entry, kToday).triage, Triage::kExpected);
  EXPECT_EQ(to_string(Triage::kUnexpectedPass), "unexpected-pass");
}

}  // namespace
}  // namespace mrc::harness
