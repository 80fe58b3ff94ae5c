#include "harness/report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/report/svg_canvas.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness {
namespace {

using namespace svg;

// Bars of a distribution. With groups (an EV histogram: each EV's plane) the bars of one group
// stand together under the group's name, and the canvas widens so that 256 EVs keep a few units
// each; without, every bar is labelled (rotated when there are many).
std::string bars(const Chart& c) {
  const std::size_t total = !c.labels.empty() ? c.labels.size() : std::max(c.values.size(), c.expected.size());
  const std::size_t n = std::min(total, kMaxBars);
  const bool grouped = !c.groups.empty();
  Canvas cv;
  if (n > 96) cv.width = cv.left + cv.right + 5.0 * static_cast<double>(n);
  cv.bottom = 52;
  layout_title(cv, c.title);
  std::string out;
  open_svg(out, cv, c, "bars");
  if (n == 0) {
    no_data(out, cv);
    return out + "</svg>";
  }
  double lo = 0, hi = 0;
  bool any_expected = false;
  for (std::size_t i = 0; i < n; ++i) {
    for (auto v : {finite_at(c.values, i), finite_at(c.expected, i)}) {
      if (v) lo = std::min(lo, *v), hi = std::max(hi, *v);
    }
    any_expected = any_expected || finite_at(c.expected, i).has_value();
  }
  const Axis ax(lo, hi * 1.08, 5);
  y_axis(out, cv, ax, c.y_label);
  const double band = (cv.x1() - cv.x0()) / static_cast<double>(n);
  const double bar_w = band * (n > 96 ? 0.8 : 0.64);
  const double zero_y = ax.map(0, cv.y1(), cv.y0());
  // Category names stay horizontal, every k-th one, each given the room of k bars (about 70
  // units) and shortened to it: rotated names run into each other and off the canvas.
  const auto label_every = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(70.0 / band)));
  const auto label_chars = static_cast<std::size_t>(
      std::max(3.0, (band * static_cast<double>(label_every) - 6) / text_width(1, 10)));
  auto group_of = [&](std::size_t i) { return i < c.groups.size() ? c.groups[i] : std::string(); };
  std::size_t group_start = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string label = i < c.labels.size() ? c.labels[i] : "#" + std::to_string(i);
    const auto obs = finite_at(c.values, i);
    const auto exp = finite_at(c.expected, i);
    const double x = cv.x0() + static_cast<double>(i) * band + (band - bar_w) / 2;
    std::string tip = label + ": observed " + (obs ? format_number(*obs) : "n/a");
    if (exp) tip += ", expected " + format_number(*exp);
    if (grouped && !group_of(i).empty()) tip += " (" + group_of(i) + ")";
    if (obs) {
      const double y = ax.map(*obs, cv.y1(), cv.y0());
      out += "<rect class=\"bar\" x=\"" + num(x) + "\" y=\"" + num(std::min(y, zero_y)) + "\" width=\"" +
             num(bar_w) + "\" height=\"" + num(std::fabs(zero_y - y)) + "\"><title>" + html_escape(tip) +
             "</title></rect>";
      if (n <= 16) text(out, x + bar_w / 2, std::min(y, zero_y) - 4, "value", "middle", format_number(*obs));
    }
    if (exp) {
      const double y = ax.map(*exp, cv.y1(), cv.y0());
      line(out, x - band * 0.12, y, x + bar_w + band * 0.12, y, "expected", tip);
    }
    if (grouped) {
      // A group ends here: its name under its bars, a separator before the next.
      if (i + 1 == n || group_of(i + 1) != group_of(i)) {
        const double gx0 = cv.x0() + static_cast<double>(group_start) * band;
        const double gx1 = cv.x0() + static_cast<double>(i + 1) * band;
        const auto room = static_cast<std::size_t>(std::max(1.0, (gx1 - gx0) / 6.0));
        text(out, (gx0 + gx1) / 2, cv.y1() + 14, "tick", "middle", shorten(group_of(i), room));
        if (i + 1 < n) line(out, gx1, cv.y0(), gx1, cv.y1() + 18, "group-sep");
        group_start = i + 1;
      }
    } else if (i % label_every == 0) {
      // The first label starts at its bar, so it never reaches past the plot's left edge.
      const double lx = label_every == 1 ? x + bar_w / 2 : x;
      text(out, lx, cv.y1() + 14, "tick", label_every == 1 ? "middle" : "start", shorten(label, label_chars));
    }
  }
  x_label(out, cv, c.x_label);
  cap_note(out, cv, n, total, "categories");
  std::vector<LegendItem> items{{"observed", "<rect class=\"bar swatch\" x=\"0\" y=\"0\" width=\"14\" height=\"10\"/>"}};
  if (any_expected) items.push_back({"expected", "<line class=\"expected swatch\" x1=\"0\" y1=\"5\" x2=\"14\" y2=\"5\"/>"});
  legend(out, cv, items);
  return out + "</svg>";
}

// Numbers over time, one polyline per series; the x axis is time in one unit.
std::string timeline(const Chart& c) {
  const std::size_t total = std::min(c.values.size(), c.expected.size());
  const std::size_t n = std::min(total, kMaxPoints);
  // Series in order of first appearance; each keeps its points sorted by time.
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  double xlo = INFINITY, xhi = -INFINITY, ylo = 0, yhi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = c.values[i], y = c.expected[i];
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    const std::string name = i < c.labels.size() ? c.labels[i] : "";
    auto [it, added] = series.try_emplace(name);
    if (added) names.push_back(name);
    it->second.emplace_back(x, y);
    xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
  }
  std::vector<double> markers;
  for (double m : c.markers) {
    if (std::isfinite(m)) markers.push_back(m), xlo = std::min(xlo, m), xhi = std::max(xhi, m);
  }
  std::vector<LegendItem> items;
  for (std::size_t k = 0; k < names.size(); ++k) {
    items.push_back({names[k].empty() ? "values" : names[k], line_swatch(kPalette[k % kPalette.size()])});
  }
  if (!markers.empty()) {
    items.push_back({"fault / bound", "<line class=\"marker swatch\" x1=\"7\" y1=\"0\" x2=\"7\" y2=\"10\"/>"});
  }
  Canvas cv;
  layout_title(cv, c.title);
  reserve_legend(cv, items);
  std::string out;
  open_svg(out, cv, c, "timeline");
  if (names.empty() && markers.empty()) {
    no_data(out, cv);
    return out + "</svg>";
  }
  const Axis ay(ylo, yhi * 1.08, 5);
  y_axis(out, cv, ay, c.y_label);
  const TimeUnit unit = time_unit_for(std::max(std::fabs(xlo), std::fabs(xhi)));
  const Axis ax(xlo / unit.scale, xhi / unit.scale, 6);
  x_axis(out, cv, ax);
  auto px = [&](double x_ns) { return ax.map(x_ns / unit.scale, cv.x0(), cv.x1()); };
  for (std::size_t s = 0; s < names.size(); ++s) {
    const std::string color(kPalette[s % kPalette.size()]);
    auto& pts = series[names[s]];
    std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string poly;
    for (const auto& [x, y] : pts) {
      if (!poly.empty()) poly += ' ';
      poly += num(px(x)) + "," + num(ay.map(y, cv.y1(), cv.y0()));
    }
    out += "<polyline class=\"series\" stroke=\"" + color + "\" points=\"" + poly + "\"/>";
    for (const auto& [x, y] : pts) {
      const std::string tip = (names[s].empty() ? "" : names[s] + " ") + "at " + format_duration_ns(x) + ": " +
                              format_number(y);
      out += "<circle class=\"point\" fill=\"" + color + "\" cx=\"" + num(px(x)) + "\" cy=\"" +
             num(ay.map(y, cv.y1(), cv.y0())) + "\" r=\"3\"><title>" + html_escape(tip) + "</title></circle>";
    }
  }
  for (std::size_t k = 0; k < markers.size(); ++k) {
    const double x = px(markers[k]);
    const std::string tip = "marker " + std::to_string(k + 1) + " at " + format_duration_ns(markers[k]);
    line(out, x, cv.y0(), x, cv.y1(), "marker", tip);
    const std::string label = "M" + std::to_string(k + 1) + " " + format_duration_ns(markers[k]);
    const bool near_right = x + 3 + text_width(label.size(), 10) > cv.width - 4;
    text(out, near_right ? x - 3 : x + 3, cv.y0() + 10 + static_cast<double>(k % 2) * 12, "marker-label",
         near_right ? "end" : "start", label);
  }
  x_label(out, cv, c.x_label + ", " + std::string(unit.name));
  cap_note(out, cv, n, total, "points");
  legend(out, cv, items);
  return out + "</svg>";
}

}  // namespace

std::string render_svg_chart(const Chart& chart) {
  switch (chart.kind) {
    case Chart::Kind::kBars: return bars(chart);
    case Chart::Kind::kTimeline: return timeline(chart);
    case Chart::Kind::kLatency: return svg::render_latency(chart);
    case Chart::Kind::kEvents: return svg::render_events(chart);
    case Chart::Kind::kRaster: return svg::render_raster(chart);
  }
  return bars(chart);
}

}  // namespace mrc::harness
