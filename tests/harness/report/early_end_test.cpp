// A run that ended early says so in every report (issue 14): results.json 1.3 carries
// interrupt_reason, not_run and a case's evidence_error (and a complete run's file stays 1.2, byte
// for byte); junit.xml lists each case not run as a skipped testcase and gives the reason as a
// property (still valid against junit.xsd); index.html's banner names the reason and the count.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/report/report.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

RunResult stopped_run() {
  RunResult run = test::sample_run();
  run.interrupted = true;
  run.interrupt_reason = "disk full: /mnt/r.partial/evidence/x/dut.p1.rx.pcapng: write failed: No space left on device";
  run.not_run = {"reorder-v-002", "failover-v-001", "a<b&\"c\""};
  run.cases[0].evidence_error = "evidence/spray-v-001/dut.p1.rx.pcapng: write failed: No space left on device";
  return run;
}

TEST(EarlyEnd, ResultsJsonCarriesTheReasonAndTheCasesNotRun) {
  const RunResult run = stopped_run();
  const std::string text = render_results_json(run);
  EXPECT_EQ(text.rfind("{\n  \"schema\": \"mrc-conform/results/1.7\",\n  \"interrupted\": true,\n"
                       "  \"interrupt_reason\": \"disk full: ",
                       0),
            0u)
      << text.substr(0, 300);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["not_run"], nlohmann::json::parse(R"(["reorder-v-002", "failover-v-001", "a<b&\"c\""])"));
  EXPECT_EQ(j["cases"][0]["evidence_error"], run.cases[0].evidence_error);
  EXPECT_FALSE(j["cases"][1].contains("evidence_error"));
  const auto v = test::validate_json(test::load_schema("harness/report/results.schema.json"), j);
  EXPECT_TRUE(v.empty()) << test::violations_text(v);
  test::expect_same_run(run, parse_results_json(text));
  EXPECT_EQ(render_results_json(parse_results_json(text)), text);
}

TEST(EarlyEnd, ACompleteRunSaysNoReasonAndNothingNotRun) {
  const std::string text = render_results_json(test::sample_run());
  EXPECT_NE(text.find("\"schema\": \"mrc-conform/results/1.7\""), std::string::npos);
  EXPECT_NE(text.find("\"interrupt_reason\": \"\""), std::string::npos);
  EXPECT_NE(text.find("\"not_run\": []"), std::string::npos);
  EXPECT_EQ(text.find("evidence_error"), std::string::npos);
}

TEST(EarlyEnd, ReaderRefusesTheNewKeysUnderAnOlderSchema) {
  auto j = nlohmann::json::parse(render_results_json(stopped_run()));
  j["schema"] = "mrc-conform/results/1.2";
  j["meta"].erase("wire");
  try {
    (void)parse_results_json(j.dump());
    FAIL() << "a 1.2 file with interrupt_reason was read";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("/interrupt_reason: needs schema mrc-conform/results/1.3"), std::string::npos)
        << e.what();
  }
  auto k = nlohmann::json::parse(render_results_json(stopped_run()));
  k["not_run"] = {1};
  EXPECT_THROW((void)parse_results_json(k.dump()), ReportError);
}

TEST(EarlyEnd, JunitListsEachCaseNotRunAsSkippedAndStaysValid) {
  const RunResult run = stopped_run();
  const std::string xml = render_junit_xml(run);
  EXPECT_NE(xml.find("<property name=\"interrupt_reason\" value=\"disk full: /mnt/r.partial/"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"not_run\" value=\"3\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"mrc.not-run\" tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"3\" time=\"0.000000\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"mrc.not-run\" name=\"reorder-v-002\" time=\"0.000000\">\n      <skipped message=\"not run: "
                     "disk full: "),
            std::string::npos);
  EXPECT_NE(xml.find("name=\"a&lt;b&amp;&quot;c&quot;\""), std::string::npos);
  // The top counts include them: a CI reading only JUnit sees 3 more skipped tests.
  const std::size_t ran = run.cases.size();
  EXPECT_NE(xml.find("<testsuites name=\"mrc-conform\" tests=\"" + std::to_string(ran + 3) + "\""), std::string::npos);

  if (!test::have_program("xmllint")) GTEST_SKIP() << "xmllint is missing: install libxml2-utils";
  const auto dir = test::fresh_dir("early-end-junit");
  test::write_file(dir / "junit.xml", xml);
  const auto r = test::run_command("xmllint --noout --schema " +
                                   test::shell_quote(test::source_path("tests/harness/report/junit.xsd").string()) + " " +
                                   test::shell_quote((dir / "junit.xml").string()));
  EXPECT_EQ(r.status, 0) << r.output;
  std::filesystem::remove_all(dir);
}

TEST(EarlyEnd, HtmlBannerNamesTheReasonAndTheCountNotRun) {
  const std::string html = render_html(stopped_run());
  EXPECT_NE(html.find("<span id=\"interrupt-reason\">disk full: /mnt/r.partial/"), std::string::npos);
  EXPECT_NE(html.find("<span id=\"not-run-count\">3</span> selected case(s) did not run: reorder-v-002, "
                      "failover-v-001, a&lt;b&amp;&quot;c&quot;."),
            std::string::npos);
  const std::string complete = render_html(test::sample_run());
  EXPECT_EQ(complete.find("partial-run"), std::string::npos);
}

}  // namespace
}  // namespace mrc::harness
