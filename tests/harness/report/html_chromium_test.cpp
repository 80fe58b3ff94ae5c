// index.html opened by a real browser, offline: headless Chromium parses it into the expected DOM
// (summary, a chart <svg>, case anchors) and renders a non-trivial screenshot. Skipped only when
// chromium is not installed (scripts/install-deps installs it); every browser run is bounded.
#include <gtest/gtest.h>

#include <cstdint>

#include "harness/report/report.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

using test::shell_quote;

class HtmlInChromium : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::have_program("chromium")) GTEST_SKIP() << "chromium is not installed (scripts/install-deps)";
    dir_ = test::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Chromium with everything that could reach the network or leave state behind turned off; a
  // fresh profile folder per call.
  test::CommandResult chromium(const std::string& args) {
    const auto profile = dir_ / ("profile-" + std::to_string(++profiles_));
    return test::run_command("chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                             "--disable-background-networking --disable-component-update --disable-sync "
                             "--disable-dev-shm-usage --user-data-dir=" +
                                 shell_quote(profile.string()) + " " + args,
                             60);
  }

  std::filesystem::path dir_;
  int profiles_ = 0;
};

TEST_F(HtmlInChromium, DomHasSummaryChartsAndCaseAnchors) {
  RunResult run = test::sample_run();
  run.interrupted = true;
  const ReportFiles files = write_reports(run, dir_ / "report");
  const auto r = chromium("--dump-dom " + shell_quote("file://" + files.index_html.string()));
  ASSERT_EQ(r.status, 0) << r.output.substr(0, 2000);
  const std::string& dom = r.output;
  EXPECT_NE(dom.find("id=\"summary\""), std::string::npos);
  EXPECT_NE(dom.find("id=\"partial-run\""), std::string::npos);
  EXPECT_NE(dom.find("<svg class=\"chart chart-bars\""), std::string::npos);
  EXPECT_NE(dom.find("<svg class=\"chart chart-timeline\""), std::string::npos);
  EXPECT_NE(dom.find("id=\"case-spray-v-002\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"req req-must uncovered uncovered-must\""), std::string::npos);
  // The hostile case's markup stayed text: the parsed DOM has one script element, the filter's.
  const std::size_t script = dom.find("<script");
  ASSERT_NE(script, std::string::npos);
  EXPECT_EQ(dom.find("<script", script + 1), std::string::npos);
  EXPECT_NE(dom.find("case-filter", script), std::string::npos);
  // The filter ran: it counted the rows it shows.
  EXPECT_NE(dom.find("8 of 8 cases</span>"), std::string::npos);
  EXPECT_NE(dom.find("<section id=\"findings\">"), std::string::npos);
  EXPECT_NE(dom.find("&lt;script&gt;alert('x')&lt;/script&gt;"), std::string::npos);
}

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(static_cast<unsigned char>(s[at])) << 24) |
         (std::uint32_t(static_cast<unsigned char>(s[at + 1])) << 16) |
         (std::uint32_t(static_cast<unsigned char>(s[at + 2])) << 8) | std::uint32_t(static_cast<unsigned char>(s[at + 3]));
}

TEST_F(HtmlInChromium, ScreenshotIsANonTrivialPng) {
  const ReportFiles files = write_reports(test::sample_run(), dir_ / "report");
  const auto png = dir_ / "report.png";
  const auto r = chromium("--hide-scrollbars --window-size=1280,2000 --screenshot=" + shell_quote(png.string()) + " " +
                          shell_quote("file://" + files.index_html.string()));
  ASSERT_EQ(r.status, 0) << r.output.substr(0, 2000);
  const std::string bytes = test::read_file(png);
  ASSERT_GT(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(bytes.substr(12, 4), "IHDR");
  EXPECT_EQ(be32(bytes, 16), 1280u);
  EXPECT_EQ(be32(bytes, 20), 2000u);
  // A blank or near-blank page compresses to a few kB; the report has text, badges and charts.
  EXPECT_GT(bytes.size(), 60u * 1024) << "screenshot suspiciously small: " << bytes.size() << " bytes";
  if (const char* keep = std::getenv("MRC_REPORT_SCREENSHOT")) std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
}

// What a lab engineer sees of a failing report: the top of the page (the findings: MUST failures
// with their first finding and frame, then advisories, then what was not judged, with reasons)
// and, further down the same page, the failing case's section with its evidence row (frame,
// filter, the wireshark command). Headless Chromium renders a page scrolled to a #fragment blank,
// so the second picture is the page 5000 px tall rather than the case's anchor. Both are kept
// under build/screenshots/ for a reader of the test run.
TEST_F(HtmlInChromium, FailingReportTopAndEvidenceRowScreenshots) {
  const ReportFiles files = write_reports(test::sample_run(), dir_ / "report");
  const std::filesystem::path keep = std::filesystem::path(MRC_BINARY_DIR) / "screenshots";
  std::filesystem::create_directories(keep);
  const char* names[2] = {"failing-report-top.png", "failing-report-page.png"};
  const int heights[2] = {1000, 5000};
  for (int k = 0; k < 2; ++k) {
    const auto png = keep / names[k];
    std::filesystem::remove(png);
    const auto r = chromium("--hide-scrollbars --window-size=1280," + std::to_string(heights[k]) +
                            " --screenshot=" + shell_quote(png.string()) + " " + shell_quote("file://" + files.index_html.string()));
    ASSERT_EQ(r.status, 0) << r.output.substr(0, 2000);
    const std::string bytes = test::read_file(png);
    ASSERT_GT(bytes.size(), 24u);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(be32(bytes, 20), static_cast<std::uint32_t>(heights[k]));
    EXPECT_GT(bytes.size(), 60u * 1024) << names[k] << " suspiciously small: " << bytes.size() << " bytes";
  }
  // What the pictures show, in the DOM the browser built: the findings first, and the failing
  // case's evidence row with its frame and command.
  const auto dom = chromium("--dump-dom " + shell_quote("file://" + files.index_html.string()));
  ASSERT_EQ(dom.status, 0);
  const std::size_t findings = dom.output.find("<section id=\"findings\">");
  ASSERT_NE(findings, std::string::npos);
  EXPECT_LT(findings, dom.output.find("<section id=\"outcome\">"));
  EXPECT_NE(dom.output.find("<code class=\"cmd\">wireshark -r 'evidence/spray-v-002/dut0.pcapng' -Y 'frame.number == 42'</code>"),
            std::string::npos);
}

}  // namespace
}  // namespace mrc::harness
