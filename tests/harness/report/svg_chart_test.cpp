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

// A timing chart: one series of trials (a censored one hollow), the bound a dashed line on the
// value axis, both axes in one unit (here ms: trial starts up to 7.5 ms, durations to 1.2 ms).
TEST(SvgChart, LatencyDrawsTheBoundOnTheValueAxisInOneUnit) {
  const std::string svg = render_svg_chart(test::latency_chart());
  EXPECT_EQ(svg.rfind("<svg class=\"chart chart-latency\"", 0), 0u);
  EXPECT_EQ(count_of(svg, "<circle class=\"point\" fill="), 3u);
  EXPECT_EQ(count_of(svg, "<circle class=\"point hollow\" style="), 1u);
  EXPECT_EQ(count_of(svg, "<line class=\"limit\""), 1u);
  EXPECT_NE(svg.find(">bound 1 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">stop_using_failed, ms</text>"), std::string::npos);  // y axis
  EXPECT_NE(svg.find(">trial start, ms</text>"), std::string::npos);        // x axis, same unit
  EXPECT_NE(svg.find("<title>trial 3: starts at 5.5 ms, took 1.21 ms</title>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<polyline"), 0u);  // trials are not a curve
  // The bound is above the first trial's point: y grows downwards.
  const auto y_of = [&](const std::string& after) {
    const auto at = svg.find("cy=\"", svg.find(after));
    return std::stod(svg.substr(at + 4));
  };
  const auto limit_y = std::stod(svg.substr(svg.find("y1=\"", svg.find("<line class=\"limit\"")) + 4));
  EXPECT_LT(limit_y, y_of("<circle class=\"point\" fill=")) << "1 ms is above 420 us";
}

// A trial that never ended (censored at 100 ms) against a 144 us bound would flatten the bound onto
// the axis: the axis stops at 4x the bound and that trial is an arrow on the edge, its value in
// its tooltip; the same on an events chart's time axis.
TEST(SvgChart, AValueFarPastTheBoundIsAnArrowOnTheEdge) {
  Chart c = test::latency_chart();
  c.limits = {144e3};
  c.expected[3] = 100e6;
  const std::string svg = render_svg_chart(c);
  EXPECT_EQ(count_of(svg, "<polygon class=\"beyond\""), 3u);  // all but the 420 us trial are past 576 us
  EXPECT_NE(svg.find("<title>censored trial (at least) 1: starts at 7.5 ms, took 100 ms</title>"), std::string::npos);
  EXPECT_NE(svg.find(">3 past 4x the bound, drawn at the top edge</text>"), std::string::npos);
  EXPECT_NE(svg.find(">bound 0.144 ms</text>"), std::string::npos);

  Chart e = test::failover_events();
  e.values[2] = 100e6;  // trial 1 still sending on the failed EV at 100 ms
  const std::string ev = render_svg_chart(e);
  EXPECT_EQ(count_of(ev, "<polygon class=\"beyond\""), 1u);
  EXPECT_NE(ev.find("<title>trial 1: last data on a failed EV at +100 ms from the fault</title>"), std::string::npos);
  EXPECT_NE(ev.find(">1 past 4x the bound, drawn at the right edge</text>"), std::string::npos);
  EXPECT_NE(ev.find(">time since the fault, ms</text>"), std::string::npos);
}

TEST(SvgChart, EventsDrawATrialPerRowWithTheBoundInRed) {
  const std::string svg = render_svg_chart(test::failover_events());
  EXPECT_EQ(svg.rfind("<svg class=\"chart chart-events\"", 0), 0u);
  EXPECT_EQ(count_of(svg, "<rect class=\"event\""), 18u);
  for (const char* row : {">trial 1</text>", ">trial 2</text>", ">trial 3</text>"}) EXPECT_NE(svg.find(row), std::string::npos);
  EXPECT_NE(svg.find(">first retransmission on a healthy EV</text>"), std::string::npos);  // the legend wraps
  EXPECT_EQ(svg.find("\xE2\x80\xA6</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>trial 3: first retransmission on a healthy EV at +1.05 ms from the fault</title>"),
            std::string::npos);
  EXPECT_NE(svg.find("fill=\"#d1242f\" x="), std::string::npos);  // the bound is red
  EXPECT_NE(svg.find(">time since the fault, ms</text>"), std::string::npos);
  Chart many = test::failover_events();
  for (auto& row : many.expected) row *= 20;  // rows 0, 20, 40: 41 trials
  EXPECT_NE(render_svg_chart(many).find("first 24 of 41 trials shown"), std::string::npos);
}

TEST(SvgChart, RasterAt256EvsGroupsRowsByPlane) {
  const Chart c = test::ev_raster_256();
  const std::string svg = render_svg_chart(c);
  EXPECT_EQ(svg.rfind("<svg class=\"chart chart-raster\"", 0), 0u);
  EXPECT_EQ(count_of(svg, "<rect class=\"cell\" x="), c.values.size() + 1);  // and the legend's swatch
  for (int p = 1; p <= 8; ++p) EXPECT_NE(svg.find(">plane " + std::to_string(p) + "</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<line class=\"group-sep\""), 7u);
  EXPECT_NE(svg.find("<title>ev 0x42 (plane 2): data from 3.5 ms to 3.75 ms</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>fault at 2 ms</title>"), std::string::npos);
  EXPECT_EQ(svg.find("rows shown"), std::string::npos);
}

TEST(SvgChart, BarsAt256EvsStandByPlaneOnAWiderCanvas) {
  const std::string svg = render_svg_chart(test::ev_histogram_256());
  EXPECT_EQ(svg.rfind("<svg class=\"chart chart-bars\" viewBox=\"0 0 1364.0 300.0\"", 0), 0u);
  EXPECT_EQ(count_of(svg, "<rect class=\"bar\" x="), 256u);
  EXPECT_EQ(count_of(svg, "<line class=\"group-sep\""), 7u);
  for (int p = 1; p <= 8; ++p) EXPECT_NE(svg.find(">plane " + std::to_string(p) + "</text>"), std::string::npos);
  EXPECT_EQ(svg.find("transform=\"rotate(-40"), std::string::npos);  // no comb of rotated names
  EXPECT_NE(svg.find("(plane 4)</title>"), std::string::npos);
}

TEST(SvgChart, ALongTitleWrapsInsteadOfLeavingTheCanvas) {
  Chart c = test::plane_bars({1, 2, 3, 4});
  c.title = "data packets per plane observed against a uniform spread over every eligible plane of the profile, "
            "with the expected share marked";
  const std::string svg = render_svg_chart(c);
  EXPECT_EQ(count_of(svg, "<text class=\"chart-title\""), 2u);
  EXPECT_EQ(svg.find("\xE2\x80\xA6</text>"), std::string::npos) << "nothing cut";
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
  // The other kinds, empty and with odd data.
  for (auto kind : {Chart::Kind::kLatency, Chart::Kind::kEvents, Chart::Kind::kRaster}) {
    Chart k;
    k.kind = kind;
    EXPECT_NE(render_svg_chart(k).find(">no data</text>"), std::string::npos);
    k.labels = {"a"};
    k.values = {NAN, 5, -INFINITY, 7};
    k.expected = {1, -3, 2, 1e300};
    k.limits = {INFINITY};
    k.markers = {NAN};
    const std::string odd_kind = render_svg_chart(k);
    EXPECT_EQ(odd_kind.find("nan"), std::string::npos);
    EXPECT_EQ(odd_kind.find("inf"), std::string::npos);
    EXPECT_EQ(odd_kind.substr(odd_kind.size() - 6), "</svg>");
  }
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
