// The charts of timing and EV use: a duration per trial against its bound (latency), the events
// of each failover trial (events), and when each EV carried data (raster).
#include <algorithm>
#include <cmath>
#include <map>

#include "harness/report/svg_canvas.hpp"
#include "harness/report/svg_chart.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness::svg {
namespace {

// Rows an events chart draws at most: a failover case has a handful of trials.
constexpr std::size_t kMaxRows = 24;

std::string close(std::string& out) { return out + "</svg>"; }

// The row a point names, when it is a whole number below `limit` (a row of 1e300 or -1 is none).
std::optional<std::size_t> row_of(double v, std::size_t limit) {
  if (!std::isfinite(v) || v < 0 || v >= static_cast<double>(limit)) return std::nullopt;
  return static_cast<std::size_t>(v);
}
// A value far past the bound would squash the bound and every other value against the axis: the
// axis ends at kCutFactor times the bound, and what lies beyond is drawn on that edge as an arrow
// head pointing on, its real value in its tooltip.
constexpr double kCutFactor = 4;

std::string arrow(double x, double y, bool up, std::string_view color, const std::string& tip) {
  const std::string pts = up ? num(x - 5) + "," + num(y + 6) + " " + num(x + 5) + "," + num(y + 6) + " " + num(x) + "," + num(y - 2)
                             : num(x - 6) + "," + num(y - 5) + " " + num(x - 6) + "," + num(y + 5) + " " + num(x + 2) + "," + num(y);
  return "<polygon class=\"beyond\" fill=\"" + std::string(color) + "\" points=\"" + pts + "\"><title>" +
         html_escape(tip) + "</title></polygon>";
}

void beyond_note(std::string& out, const Canvas& cv, std::size_t count, std::string_view where) {
  if (count == 0) return;
  text(out, cv.x0(), cv.height - 24, "note", "start",
       std::to_string(count) + " past " + format_number(kCutFactor) + "x the bound, drawn at the " + std::string(where) +
           " edge");
}

// What a chart over time says under its plot: what it left out, and what lies past its cut.
struct Notes {
  std::size_t shown = 0, total = 0;
  std::string_view what;
  std::size_t beyond = 0;
  std::string_view edge;
};

// The x axis's label in its unit, the notes and the legend, and the closing tag.
std::string close_over_time(std::string& out, const Canvas& cv, const std::string& x_label_text, const TimeUnit& unit,
                            const std::vector<LegendItem>& items, const Notes& n) {
  x_label(out, cv, x_label_text + ", " + std::string(unit.name));
  cap_note(out, cv, n.shown, n.total, n.what);
  beyond_note(out, cv, n.beyond, n.edge);
  legend(out, cv, items);
  return close(out);
}

// Rows an events chart counts at most before it says how many it left out.
constexpr std::size_t kRowLimit = 1u << 20;

std::string in_unit(double ns, const TimeUnit& u) {
  return format_number(ns / u.scale) + " " + std::string(u.name);
}

// Series names in order of first appearance, and the series of each point.
struct Series {
  std::vector<std::string> names;
  std::vector<std::size_t> of_point;
};
Series series_of(const std::vector<std::string>& labels, std::size_t n) {
  Series s;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = i < labels.size() ? labels[i] : "";
    auto [it, added] = index.try_emplace(name, s.names.size());
    if (added) s.names.push_back(name);
    s.of_point.push_back(it->second);
  }
  return s;
}

// A bound's colour for a series named "bound ...", else the palette's.
std::string color_of(const std::string& name, std::size_t k) {
  if (name.rfind("bound", 0) == 0) return std::string(kBoundColor);
  return std::string(kPalette[k % (kPalette.size() - 1)]);
}

}  // namespace

std::string render_latency(const Chart& c) {
  const std::size_t total = std::min(c.values.size(), c.expected.size());
  const std::size_t n = std::min(total, kMaxPoints);
  const Series s = series_of(c.labels, n);
  // A censored trial is hollow: its value is only a lower bound.
  auto hollow = [&](std::size_t k) { return s.names[k].find("censored") != std::string::npos; };
  auto point_style = [&](std::size_t k) {
    const std::string color(kPalette[k % (kPalette.size() - 1)]);
    return hollow(k) ? "style=\"stroke:" + color + "\"" : "fill=\"" + color + "\"";
  };
  std::vector<LegendItem> items;
  if (!c.limits.empty()) items.push_back({"bound", line_swatch(kBoundColor, true)});
  for (std::size_t k = 0; k < s.names.size(); ++k) {
    items.push_back({s.names[k].empty() ? "values" : s.names[k],
                     "<circle class=\"point" + std::string(hollow(k) ? " hollow" : "") + "\" cx=\"7\" cy=\"5\" r=\"4\" " +
                         point_style(k) + "/>"});
  }
  Canvas cv;
  layout_title(cv, c.title);
  reserve_legend(cv, items);
  std::string out;
  open_svg(out, cv, c, "latency");
  double xlo = INFINITY, xhi = -INFINITY, yhi = 0;
  std::size_t points = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(c.values[i]) || !std::isfinite(c.expected[i])) continue;
    xlo = std::min(xlo, c.values[i]), xhi = std::max(xhi, c.values[i]), yhi = std::max(yhi, c.expected[i]);
    ++points;
  }
  std::vector<double> limits;
  for (double l : c.limits) {
    if (std::isfinite(l)) limits.push_back(l), yhi = std::max(yhi, l);
  }
  if (points == 0) {
    no_data(out, cv);
    return close(out);
  }
  const double bound = limits.empty() ? 0 : *std::max_element(limits.begin(), limits.end());
  const double cut = bound > 0 && yhi > kCutFactor * bound ? kCutFactor * bound : INFINITY;
  const double ytop = std::min(yhi, cut);
  // One unit for both axes: a trial's start and its duration read alike.
  const TimeUnit unit = time_unit_for(std::max({std::fabs(xlo), std::fabs(xhi), ytop}));
  const Axis ay(0, ytop * 1.12 / unit.scale, 5);
  y_axis(out, cv, ay, c.y_label + ", " + std::string(unit.name));
  // A single trial gets a little room either side.
  const double pad = xhi > xlo ? 0 : std::max(1.0, xlo * 0.05);
  const Axis ax((xlo - pad) / unit.scale, (xhi + pad) / unit.scale, 6);
  x_axis(out, cv, ax);
  auto px = [&](double ns) { return ax.map(ns / unit.scale, cv.x0(), cv.x1()); };
  auto py = [&](double ns) { return ay.map(ns / unit.scale, cv.y1(), cv.y0()); };
  for (std::size_t k = 0; k < limits.size(); ++k) {
    const double y = py(limits[k]);
    // The first limit is the upper bound judged; a second one its lower bound (timing min_ns).
    const std::string label = std::string(k == 0 ? "bound " : "not before ") + in_unit(limits[k], unit);
    out += "<line class=\"limit\" x1=\"" + num(cv.x0()) + "\" y1=\"" + num(y) + "\" x2=\"" + num(cv.x1()) +
           "\" y2=\"" + num(y) + "\"><title>" + html_escape(label) + "</title></line>";
    text(out, cv.x1() - 4, y - 4, "limit-label", "end", label);
  }
  std::vector<std::size_t> ordinal(s.names.size(), 0);
  std::size_t beyond = 0;
  for (std::size_t k = 0; k < s.names.size(); ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      if (s.of_point[i] != k || !std::isfinite(c.values[i]) || !std::isfinite(c.expected[i])) continue;
      const std::string tip = s.names[k] + " " + std::to_string(++ordinal[k]) + ": starts at " +
                              in_unit(c.values[i], unit) + ", took " + in_unit(c.expected[i], unit);
      if (c.expected[i] > cut) {
        ++beyond;
        out += arrow(px(c.values[i]), cv.y0() + 2, true, kPalette[k % (kPalette.size() - 1)], tip);
        continue;
      }
      out += "<circle class=\"point" + std::string(hollow(k) ? " hollow" : "") + "\" " + point_style(k) + " cx=\"" +
             num(px(c.values[i])) + "\" cy=\"" + num(py(c.expected[i])) + "\" r=\"3.5\"><title>" + html_escape(tip) +
             "</title></circle>";
    }
  }
  return close_over_time(out, cv, c.x_label, unit, items, {n, total, "points", beyond, "top"});
}

std::string render_events(const Chart& c) {
  const std::size_t total_points = std::min(c.values.size(), c.expected.size());
  const std::size_t n = std::min(total_points, kMaxPoints);
  std::size_t rows = 0;
  double xlo = 0, xhi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = row_of(c.expected[i], kRowLimit);
    if (!std::isfinite(c.values[i]) || !r) continue;
    rows = std::max(rows, *r + 1);
    xlo = std::min(xlo, c.values[i]), xhi = std::max(xhi, c.values[i]);
  }
  const std::size_t shown = std::min(rows, kMaxRows);
  const Series s = series_of(c.labels, n);
  std::vector<LegendItem> items;
  for (std::size_t k = 0; k < s.names.size(); ++k) {
    items.push_back({s.names[k], "<rect x=\"5\" y=\"0\" width=\"4\" height=\"10\" fill=\"" + color_of(s.names[k], k) + "\"/>"});
  }
  Canvas cv;
  cv.height = std::max(300.0, 150.0 + 24.0 * static_cast<double>(shown));
  layout_title(cv, c.title);
  reserve_legend(cv, items);
  cv.height += cv.top - 56;  // the rows keep their height under a taller header
  std::string out;
  open_svg(out, cv, c, "events");
  if (shown == 0) {
    no_data(out, cv);
    return close(out);
  }
  double bound = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (s.names[s.of_point[i]].rfind("bound", 0) == 0 && std::isfinite(c.values[i])) bound = std::max(bound, c.values[i]);
  }
  const double cut = bound > 0 && xhi > kCutFactor * bound ? kCutFactor * bound : INFINITY;
  const double right = std::min(xhi, cut);
  const TimeUnit unit = time_unit_for(std::max(std::fabs(xlo), std::fabs(right)));
  const Axis ax(xlo / unit.scale, (right + (right - xlo) * 0.04) / unit.scale, 6);
  x_axis(out, cv, ax);
  auto px = [&](double ns) { return ax.map(ns / unit.scale, cv.x0(), cv.x1()); };
  const double row_h = (cv.y1() - cv.y0()) / static_cast<double>(shown);
  auto row_y = [&](std::size_t r) { return cv.y0() + row_h * (static_cast<double>(r) + 0.5); };
  // Each trial's row: its label, and a line from its first event to its last.
  std::vector<double> row_lo(shown, INFINITY), row_hi(shown, -INFINITY);
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = row_of(c.expected[i], shown);
    if (!std::isfinite(c.values[i]) || !r) continue;
    row_lo[*r] = std::min(row_lo[*r], c.values[i]), row_hi[*r] = std::max(row_hi[*r], std::min(c.values[i], cut));
  }
  for (std::size_t r = 0; r < shown; ++r) {
    text(out, cv.x0() - 6, row_y(r) + 4, "tick", "end", "trial " + std::to_string(r + 1));
    if (row_lo[r] <= row_hi[r]) line(out, px(row_lo[r]), row_y(r), px(row_hi[r]), row_y(r), "row");
  }
  line(out, cv.x0(), cv.y0(), cv.x0(), cv.y1(), "axis");
  line(out, cv.x0(), cv.y1(), cv.x1(), cv.y1(), "axis");
  std::size_t beyond = 0;
  for (std::size_t k = 0; k < s.names.size(); ++k) {
    const std::string color = color_of(s.names[k], k);
    const double half = std::min(9.0, row_h * 0.4);
    for (std::size_t i = 0; i < n; ++i) {
      const auto row = row_of(c.expected[i], shown);
      if (s.of_point[i] != k || !std::isfinite(c.values[i]) || !row) continue;
      const std::size_t r = *row;
      const std::string tip = "trial " + std::to_string(r + 1) + ": " + s.names[k] + " at " +
                              (c.values[i] >= 0 ? "+" : "") + in_unit(c.values[i], unit) + " from the fault";
      if (c.values[i] > cut) {
        ++beyond;
        out += arrow(cv.x1() - 2, row_y(r), false, color, tip);
        continue;
      }
      out += "<rect class=\"event\" fill=\"" + color + "\" x=\"" + num(px(c.values[i]) - 1.5) + "\" y=\"" +
             num(row_y(r) - half) + "\" width=\"3.0\" height=\"" + num(2 * half) + "\"><title>" + html_escape(tip) +
             "</title></rect>";
    }
  }
  return close_over_time(out, cv, c.x_label, unit, items, {shown, rows, "trials", beyond, "right"});
}

std::string render_raster(const Chart& c) {
  const std::size_t total_rows = c.labels.size();
  const std::size_t rows = std::min(total_rows, kMaxBars);
  const std::size_t total_points = std::min(c.values.size(), c.expected.size());
  const std::size_t n = std::min(total_points, kMaxPoints);
  Canvas cv;
  cv.left = 84;
  cv.height = std::max(300.0, 130.0 + 2.0 * static_cast<double>(rows));
  layout_title(cv, c.title);
  std::string out;
  open_svg(out, cv, c, "raster");
  // The points' time range and the bin width: the smallest gap between two bins' starts.
  std::vector<double> xs;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isfinite(c.values[i]) && row_of(c.expected[i], rows)) xs.push_back(c.values[i]);
  }
  for (double m : c.markers) {
    if (std::isfinite(m)) xs.push_back(m);
  }
  if (rows == 0 || xs.empty()) {
    no_data(out, cv);
    return close(out);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  double bin = INFINITY;
  for (std::size_t i = 1; i < xs.size(); ++i) bin = std::min(bin, xs[i] - xs[i - 1]);
  if (!std::isfinite(bin)) bin = std::max(1.0, xs.front() * 0.02);
  const double xlo = xs.front(), xhi = xs.back() + bin;
  const TimeUnit unit = time_unit_for(std::max(std::fabs(xlo), std::fabs(xhi)));
  const Axis ax(xlo / unit.scale, xhi / unit.scale, 6);
  x_axis(out, cv, ax);
  auto px = [&](double ns) { return ax.map(ns / unit.scale, cv.x0(), cv.x1()); };
  const double row_h = (cv.y1() - cv.y0()) / static_cast<double>(rows);
  auto row_top = [&](std::size_t r) { return cv.y0() + row_h * static_cast<double>(r); };
  // Groups (planes) down the left side, with a separator between two.
  auto group_of = [&](std::size_t r) { return r < c.groups.size() ? c.groups[r] : std::string(); };
  std::size_t start = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    if (r + 1 < rows && group_of(r + 1) == group_of(r)) continue;
    const double y0 = row_top(start), y1 = row_top(r + 1);
    if (rows <= 24) {
      for (std::size_t k = start; k <= r; ++k) {
        text(out, cv.x0() - 6, row_top(k) + row_h / 2 + 4, "tick", "end", shorten(c.labels[k], 12));
      }
    } else {
      const std::string name = group_of(r).empty() ? std::to_string(r + 1 - start) + " rows" : group_of(r);
      text(out, cv.x0() - 6, (y0 + y1) / 2 + 4, "tick", "end", shorten(name, 12));
    }
    if (r + 1 < rows) line(out, cv.x0() - 4, y1, cv.x1(), y1, "group-sep");
    start = r + 1;
  }
  line(out, cv.x0(), cv.y0(), cv.x0(), cv.y1(), "axis");
  line(out, cv.x0(), cv.y1(), cv.x1(), cv.y1(), "axis");
  const double w = std::max(1.0, px(xlo + bin) - px(xlo));
  for (std::size_t i = 0; i < n; ++i) {
    const auto row = row_of(c.expected[i], rows);
    if (!std::isfinite(c.values[i]) || !row) continue;
    const std::size_t r = *row;
    const std::string tip = c.labels[r] + (group_of(r).empty() ? "" : " (" + group_of(r) + ")") + ": data from " +
                            in_unit(c.values[i], unit) + " to " + in_unit(c.values[i] + bin, unit);
    out += "<rect class=\"cell\" x=\"" + num(px(c.values[i])) + "\" y=\"" + num(row_top(r) + row_h * 0.1) +
           "\" width=\"" + num(w) + "\" height=\"" + num(std::max(0.8, row_h * 0.8)) + "\"><title>" +
           html_escape(tip) + "</title></rect>";
  }
  std::vector<LegendItem> items{{"data sent", "<rect class=\"cell\" x=\"0\" y=\"0\" width=\"14\" height=\"10\"/>"}};
  for (double m : c.markers) {
    if (!std::isfinite(m)) continue;
    line(out, px(m), cv.y0(), px(m), cv.y1(), "marker", "fault at " + in_unit(m, unit));
  }
  if (!c.markers.empty()) {
    items.push_back({"fault", "<line class=\"marker swatch\" x1=\"7\" y1=\"0\" x2=\"7\" y2=\"10\"/>"});
  }
  const std::size_t rotate_room = static_cast<std::size_t>((cv.y1() - cv.y0()) / 6.6);
  const double mid = (cv.y0() + cv.y1()) / 2;
  text(out, 14, mid, "axis-label", "middle", shorten(c.y_label, rotate_room),
       " transform=\"rotate(-90 14 " + num(mid) + ")\"");
  x_label(out, cv, c.x_label + ", " + std::string(unit.name));
  cap_note(out, cv, rows, total_rows, "rows");
  legend(out, cv, items);
  return close(out);
}

}  // namespace mrc::harness::svg
