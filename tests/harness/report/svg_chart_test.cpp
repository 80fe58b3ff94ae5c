// Inline SVG charts: bars with expected markers, timelines with fault/bound markers, and charts
// built from inconsistent or extreme data render without crashing and say what they left out.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/report/svg_chart.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + needle.size())) ++n;
  return n;
}

TEST(SvgChart, BarsHaveOneBarAndOneExpectedMarkerPerCategory) {
  const std::string svg = render_svg_chart(test::plane_bars({2480, 2533, 2491, 2496}));
  EXPECT_EQ(svg.rfind("<svg class=\"chart chart-bars\" viewBox=\"0 0 680.0 300.0\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
  EXPECT_NE(svg.find("<title>Packets per plane</title>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<rect class=\"bar\" x="), 4u);
  EXPECT_EQ(count_of(svg, "<line class=\"expected\" x1="), 4u);
  EXPECT_NE(svg.find("<title>plane 1: observed 2533, expected 2500</title>"), std::string::npos);
  EXPECT_NE(svg.find(">plane 3</text>"), std::string::npos);
  EXPECT_NE(svg.find(">observed</text>"), std::string::npos);  // legend
  EXPECT_NE(svg.find(">expected</text>"), std::string::npos);
  EXPECT_NE(svg.find(">packets</text>"), std::string::npos);   // y label
  EXPECT_EQ(svg.find("no data"), std::string::npos);
}

TEST(SvgChart, AxisTicksAreRoundNumbers) {
  Chart c = test::plane_bars({0.1, 0.2, 0.3, 0.25});
  c.expected.clear();
  const std::string svg = render_svg_chart(c);
  EXPECT_NE(svg.find(">0.3</text>"), std::string::npos);  // step 0.1: 3 * 0.1 is not 0.3 in binary
  EXPECT_NE(svg.find(">0.4</text>"), std::string::npos);
  EXPECT_EQ(svg.find("0000000"), std::string::npos);  // no 0.30000000000000004
  EXPECT_EQ(svg.find(">expected</text>"), std::string::npos);  // no expected values, no legend entry
}

TEST(SvgChart, TimelineDrawsSeriesPointsAndMarkers) {
  const std::string svg = render_svg_chart(test::failover_timeline());
  EXPECT_EQ(svg.rfind("<svg class=\"chart chart-timeline\"", 0), 0u);
  EXPECT_EQ(count_of(svg, "<polyline class=\"series\""), 2u);
  EXPECT_EQ(count_of(svg, "<circle class=\"point\""), 60u);
  EXPECT_EQ(count_of(svg, "<title>marker "), 3u);
  EXPECT_NE(svg.find(">M1 1.5 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">M3 2.5 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">ev 3</text>"), std::string::npos);
  EXPECT_NE(svg.find(">ev 7</text>"), std::string::npos);
  EXPECT_NE(svg.find(">fault / bound</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>ev 7 at 2.1 ms: 74.2857142857"), std::string::npos);
}

TEST(SvgChart, InconsistentAndEmptyChartsRenderSafely) {
  Chart empty;
  EXPECT_NE(render_svg_chart(empty).find(">no data</text>"), std::string::npos);
  Chart tl;
  tl.kind = Chart::Kind::kTimeline;
  EXPECT_NE(render_svg_chart(tl).find(">no data</text>"), std::string::npos);
  tl.markers = {5};  // markers only: a single instant
  EXPECT_EQ(count_of(render_svg_chart(tl), "<title>marker "), 1u);

  Chart odd = test::plane_bars({1, std::nan(""), INFINITY});  // 4 labels, 3 values, one NaN, one inf
  odd.expected = {1};
  const std::string svg = render_svg_chart(odd);
  EXPECT_EQ(count_of(svg, "<rect class=\"bar\" x="), 1u);
  EXPECT_EQ(count_of(svg, "<line class=\"expected\" x1="), 1u);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);

  Chart tl_odd;
  tl_odd.kind = Chart::Kind::kTimeline;
  tl_odd.values = {1, 2, 3, NAN};
  tl_odd.expected = {1, 2, 3, 4, 5};  // x and y of unequal length: pairs only
  tl_odd.markers = {INFINITY, 2};
  const std::string t = render_svg_chart(tl_odd);
  EXPECT_EQ(count_of(t, "<circle class=\"point\""), 3u);
  EXPECT_EQ(count_of(t, "<title>marker "), 1u);
}

TEST(SvgChart, LargeChartsAreCappedWithANote) {
  Chart big;
  for (std::size_t i = 0; i < kMaxBars + 10; ++i) {
    big.labels.push_back("c" + std::to_string(i));
    big.values.push_back(static_cast<double>(i));
  }
  const std::string svg = render_svg_chart(big);
  EXPECT_EQ(count_of(svg, "<rect class=\"bar\" x="), kMaxBars);
  EXPECT_NE(svg.find("first 256 of 266 categories shown"), std::string::npos);
}

TEST(SvgChart, HostileLabelsAreEscaped) {
  Chart c = test::plane_bars({1, 2, 3, 4});
  c.title = "</svg><script>alert(1)</script>";
  c.labels[0] = "<b onmouseover=\"x\">";
  c.y_label = "&\x01";
  const std::string svg = render_svg_chart(c);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<b "), std::string::npos);
  EXPECT_NE(svg.find("&lt;/svg&gt;&lt;script&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">&amp;\\u0001</text>"), std::string::npos);
}

}  // namespace
}  // namespace mrc::harness
