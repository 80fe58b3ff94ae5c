// index.html opened by a real browser, offline: headless Chromium parses it into the expected DOM
// (summary, a chart <svg>, case anchors) and renders a non-trivial screenshot. Skipped only when
// chromium is not installed (scripts/install-deps installs it); every browser run is bounded.
#include <gtest/gtest.h>

#include <cstdint>

#include "harness/report/html_parts.hpp"
#include "harness/report/report.hpp"
#include "harness/report/svg_chart.hpp"
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

// Every kind of chart the report draws, in a page with the report's stylesheet, opened by the
// browser: a script measures each label's box after layout and names any that leaves its chart
// or overlaps another label, and a screenshot of the page is kept (build/screenshots/charts.png)
// for a reader: a timing chart with its dashed bound, a failover timeline per trial, the EV
// raster and the per-EV histogram at 256 EVs grouped by plane.
TEST_F(HtmlInChromium, ChartsKeepEveryLabelInsideAndApart) {
  Chart long_title = test::plane_bars({2480, 2533, 2491, 2496});
  long_title.title = "data packets per plane observed against a uniform spread over every eligible plane of the "
                     "profile, with the expected share of each marked";
  Chart many = test::plane_bars({});
  many.labels.clear();
  many.expected.clear();
  for (int i = 0; i < 40; ++i) {
    many.labels.push_back("ev 0x" + std::to_string(1000 + i) + " (index " + std::to_string(i) + ", port 3)");
    many.values.push_back(100 + i % 7);
  }
  const std::vector<Chart> charts{test::plane_bars({2480, 2533, 2491, 2496}), long_title, many,
                                  test::failover_timeline(), test::latency_chart(), test::failover_events(),
                                  test::ev_raster_256(), test::ev_histogram_256()};
  std::string page = "<!doctype html><html><head><meta charset=\"utf-8\"><style>" + std::string(html::stylesheet()) +
                     "</style></head><body><main style=\"max-width:1240px\">";
  for (const Chart& c : charts) page += "<figure class=\"chart\">" + render_svg_chart(c) + "</figure>";
  page += R"(</main><pre id="labels"></pre><script>
const bad = [];
document.querySelectorAll('svg.chart').forEach((svg, si) => {
  const frame = svg.getBoundingClientRect();
  const boxes = [];
  svg.querySelectorAll('text').forEach(t => {
    const b = t.getBoundingClientRect();
    if (b.width === 0) return;
    const name = 'chart ' + si + ' "' + t.textContent + '"';
    if (b.left < frame.left - 0.5 || b.right > frame.right + 0.5 || b.top < frame.top - 0.5 || b.bottom > frame.bottom + 0.5)
      bad.push(name + ' leaves its chart');
    for (const o of boxes) {
      const w = Math.min(b.right, o.b.right) - Math.max(b.left, o.b.left);
      const h = Math.min(b.bottom, o.b.bottom) - Math.max(b.top, o.b.top);
      if (w > 1 && h > 1) bad.push(name + ' overlaps ' + o.name);
    }
    boxes.push({b, name});
  });
});
document.getElementById('labels').textContent = 'labels: ' + bad.length + ' bad' + (bad.length ? '\n' + bad.join('\n') : '') + '\nend';
</script></body></html>)";
  const auto html = dir_ / "charts.html";
  test::write_file(html, page);
  const auto dom = chromium("--window-size=1280,1000 --dump-dom " + shell_quote("file://" + html.string()));
  ASSERT_EQ(dom.status, 0) << dom.output.substr(0, 2000);
  const std::size_t at = dom.output.find("labels: ");
  ASSERT_NE(at, std::string::npos) << "the measuring script did not run";
  EXPECT_EQ(dom.output.substr(at, dom.output.find("end", at) - at), "labels: 0 bad\n");

  const std::filesystem::path keep = std::filesystem::path(MRC_BINARY_DIR) / "screenshots";
  std::filesystem::create_directories(keep);
  const auto png = keep / "charts.png";
  std::filesystem::remove(png);
  const auto shot = chromium("--hide-scrollbars --window-size=1280,3600 --screenshot=" + shell_quote(png.string()) + " " +
                             shell_quote("file://" + html.string()));
  ASSERT_EQ(shot.status, 0) << shot.output.substr(0, 2000);
  const std::string bytes = test::read_file(png);
  ASSERT_GT(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(bytes.size(), 60u * 1024) << "charts.png suspiciously small: " << bytes.size() << " bytes";
}

}  // namespace
}  // namespace mrc::harness
