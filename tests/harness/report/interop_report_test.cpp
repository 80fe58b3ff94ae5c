// interop.json and the interop index.html on hand-made matrices: the JSON validates against
// harness/report/interop.schema.json with keys in order, the page is self-contained with one cell
// per pair coloured by its worst verdict and linking to the pair's report, hostile specs are
// escaped, an interrupted matrix says so, and the exit code follows the cells.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/report/interop_report.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

nlohmann::json load_schema() { return test::load_schema("harness/report/interop.schema.json"); }

VerdictCounts counts(std::size_t pass, std::size_t fail, std::size_t error = 0) {
  VerdictCounts c;
  for (const auto& [v, n] : {std::pair{Verdict::kPass, pass}, {Verdict::kFail, fail}, {Verdict::kError, error}}) {
    CaseResult r;
    r.verdict = v;
    for (std::size_t i = 0; i < n; ++i) c.add(r);
  }
  return c;
}

InteropCell cell(std::size_t row, std::size_t col, const std::vector<std::string>& impls, VerdictCounts c, int code) {
  InteropCell x;
  x.row = row;
  x.col = col;
  x.dut = impls[row];
  x.peer = impls[col];
  x.report_dir = "pairs/" + std::to_string(row) + "_x--" + std::to_string(col) + "_y";
  x.counts = c;
  x.exit_code = code;
  return x;
}

// 2 x 2: the clean implementation passes in its row, the defective one fails in its row.
InteropResult sample() {
  InteropResult r;
  r.impls = {"reference", "reference:spray-single-ev"};
  r.cases = {"spray-v-001", "spray-v-002"};
  r.tags = {"spraying"};
  r.testbed = "mini";
  r.seed = 7;
  r.suite_version = "0.1.0";
  r.git_hash = "abc123";
  r.command_line = "mrc-conform interop --impls reference,reference:spray-single-ev";
  r.cells = {cell(0, 0, r.impls, counts(2, 0), 0), cell(0, 1, r.impls, counts(2, 0), 0),
             cell(1, 0, r.impls, counts(1, 1), 1), cell(1, 1, r.impls, counts(1, 1), 1)};
  return r;
}

TEST(InteropJson, ValidatesAgainstItsSchemaInEveryShape) {
  const auto schema = load_schema();
  for (const auto& v : test::validate_json(schema, nlohmann::json::object())) EXPECT_NE(v.pointer, "(schema)") << v.message;
  InteropResult interrupted = sample();
  interrupted.cells.resize(1);
  interrupted.interrupted = true;
  InteropResult timed = sample();
  timed.wall_seconds = 3.5;
  timed.cells[0].wall_seconds = 1.25;
  InteropResult unseeded = sample();
  unseeded.seed.reset();
  InteropResult empty_cell = sample();
  empty_cell.cells[3].counts = VerdictCounts{};
  for (const InteropResult& r : {sample(), interrupted, timed, unseeded, empty_cell, InteropResult{}}) {
    const auto v = test::validate_json(schema, nlohmann::json::parse(render_interop_json(r)));
    EXPECT_TRUE(v.empty()) << test::violations_text(v);
  }
  auto drifted = nlohmann::json::parse(render_interop_json(sample()));
  drifted["cells"][0].erase("worst");
  drifted["cells"][1]["counts"]["PASS"] = "2";
  EXPECT_EQ(test::validate_json(schema, drifted).size(), 2u);
}

TEST(InteropJson, CellsCarryPairCountsLinksAndTheExitCode) {
  const auto j = nlohmann::json::parse(render_interop_json(sample()));
  EXPECT_EQ(j["schema"], "mrc-conform/interop/1");
  EXPECT_EQ(j["interrupted"], false);
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["meta"]["seed"], 7);
  EXPECT_EQ(j["selection"]["cases"], nlohmann::json::array({"spray-v-001", "spray-v-002"}));
  EXPECT_EQ(j["impls"], nlohmann::json::array({"reference", "reference:spray-single-ev"}));
  ASSERT_EQ(j["cells"].size(), 4u);
  const auto& c = j["cells"][2];
  EXPECT_EQ(c["row"], 1);
  EXPECT_EQ(c["col"], 0);
  EXPECT_EQ(c["dut"], "reference:spray-single-ev");
  EXPECT_EQ(c["peer"], "reference");
  EXPECT_EQ(c["report"], "pairs/1_x--0_y/index.html");
  EXPECT_EQ(c["results"], "pairs/1_x--0_y/results.json");
  EXPECT_EQ(c["worst"], "FAIL");
  EXPECT_EQ(c["counts"]["total"], 2);
  EXPECT_EQ(c["counts"]["PASS"], 1);
  EXPECT_EQ(c["counts"]["FAIL"], 1);
  EXPECT_EQ(c["exit_code"], 1);
  EXPECT_EQ(j["cells"][0]["worst"], "PASS");
  // Wall times only when the result carries them; the same result gives the same bytes.
  const std::string text = render_interop_json(sample());
  EXPECT_EQ(text.find("wall_seconds"), std::string::npos);
  EXPECT_EQ(text, render_interop_json(sample()));
  EXPECT_EQ(text.rfind("{\n  \"schema\": \"mrc-conform/interop/1\",\n  \"interrupted\": false,\n  \"exit_code\": 1,", 0),
            0u);
  InteropResult unseeded = sample();
  unseeded.seed.reset();
  EXPECT_TRUE(nlohmann::json::parse(render_interop_json(unseeded))["meta"]["seed"].is_null());
}

TEST(InteropResult, ExitCodeFollowsTheWorstPair) {
  InteropResult r = sample();
  EXPECT_EQ(r.exit_code(), 1);
  r.cells[2].exit_code = r.cells[3].exit_code = 0;
  EXPECT_EQ(r.exit_code(), 0);
  r.cells[1].exit_code = 3;  // an ERROR in one pair
  EXPECT_EQ(r.exit_code(), 3);
  r = sample();
  r.cells.pop_back();  // a pair missing: a partial matrix is never a verdict
  EXPECT_EQ(r.exit_code(), 3);
  r = sample();
  r.interrupted = true;
  EXPECT_EQ(r.exit_code(), 3);
}

TEST(InteropResult, WorstVerdictIsTheMostSevereThatOccurred) {
  EXPECT_EQ(sample().cells[0].worst(), Verdict::kPass);
  EXPECT_EQ(sample().cells[2].worst(), Verdict::kFail);
  InteropCell c = sample().cells[0];
  c.counts = counts(3, 1, 1);
  EXPECT_EQ(c.worst(), Verdict::kError);
  c.counts = VerdictCounts{};
  EXPECT_FALSE(c.worst().has_value());
}

TEST(InteropHtml, MatrixHasARowPerDutAColumnPerPeerAndLinkedColouredCells) {
  const std::string html = render_interop_html(sample());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(html.find("Rows are judged."), std::string::npos);
  EXPECT_NE(html.find("<th class=\"dut\" scope=\"row\"><code>reference:spray-single-ev</code></th>"), std::string::npos);
  EXPECT_NE(html.find("<th class=\"peer\"><code>reference:spray-single-ev</code></th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"cell v-pass diagonal\" id=\"cell-0-0\"><a href=\"pairs/0_x--0_y/index.html\">"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"cell v-pass\" id=\"cell-0-1\"><a href=\"pairs/0_x--1_y/index.html\">"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"cell v-fail\" id=\"cell-1-0\"><a href=\"pairs/1_x--0_y/index.html\">"
                      "<span class=\"worst\">FAIL</span><span class=\"line\">1 PASS</span><span class=\"line\">1 FAIL</span>"),
            std::string::npos);
  // Rows come before the legend, in impls order.
  EXPECT_LT(html.find("id=\"cell-0-1\""), html.find("id=\"cell-1-0\""));
  EXPECT_NE(html.find("exit 1: a pair not conformant (a MUST FAIL) or with a case INCONCLUSIVE"), std::string::npos);
  EXPECT_EQ(html.find("Partial matrix"), std::string::npos);
  EXPECT_EQ(html, render_interop_html(sample()));
}

TEST(InteropHtml, IsSelfContained) {
  const std::string html = render_interop_html(sample());
  for (const char* banned : {"<script", "src=", "http://", "https://", "@import", "url("}) {
    // The only URL allowed is none at all (the generator meta tag names no site).
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  }
}

TEST(InteropHtml, InterruptedMatrixShowsABannerAndNotRunCells) {
  InteropResult r = sample();
  r.cells.resize(2);
  r.cells[1].interrupted = true;
  r.interrupted = true;
  const std::string html = render_interop_html(r);
  EXPECT_NE(html.find("<title>[partial] MRC interop matrix</title>"), std::string::npos);
  EXPECT_NE(html.find("Partial matrix.</strong> Interrupted after 2 of 4 pair(s)"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"cell not-run\" id=\"cell-1-0\">not run</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"cell not-run diagonal\" id=\"cell-1-1\">not run</td>"), std::string::npos);
  EXPECT_NE(html.find("partial: interrupted"), std::string::npos);
  EXPECT_NE(html.find("exit 3"), std::string::npos);
}

TEST(InteropHtml, HostileSpecsAndPathsAreEscapedOrNotLinked) {
  InteropResult r = sample();
  r.impls[1] = "<script>alert(1)</script>";
  r.cells[1].peer = r.impls[1];
  r.cells[1].report_dir = "../outside";  // never linked: not inside the interop folder
  const std::string html = render_interop_html(r);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("href=\"../"), std::string::npos);
  EXPECT_NE(html.find("id=\"cell-0-1\"><span><span class=\"worst\">PASS"), std::string::npos);
}

TEST(InteropText, OneLinePerPairAndTheExitCode) {
  const std::string text = render_interop_text(sample());
  EXPECT_NE(text.find("reference:spray-single-ev  x  reference                  FAIL"), std::string::npos) << text;
  EXPECT_NE(text.find("1 PASS, 1 FAIL, 0 UNSUPPORTED, 0 INCONCLUSIVE, 0 ERROR  exit 1  pairs/1_x--0_y\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("interop: 4 of 4 pair(s) ran, 2 case(s) each; rows (the DUT) are judged; exit 1\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace mrc::harness
