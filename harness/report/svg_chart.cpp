#include "harness/report/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "harness/report/text_escape.hpp"

namespace mrc::harness {
namespace {

// Canvas and plot area, in SVG user units.
constexpr double kWidth = 680, kHeight = 300;
constexpr double kLeft = 64, kRight = 20, kTop = 56, kBottom = 66;
constexpr double kPlotX0 = kLeft, kPlotX1 = kWidth - kRight, kPlotY0 = kTop, kPlotY1 = kHeight - kBottom;

// Series colours, cycled when a timeline has more series. Red comes last: it is the colour of
// the fault/bound markers.
constexpr std::array<std::string_view, 8> kPalette{"#0969da", "#bc4c00", "#1a7f37", "#8250df",
                                                   "#1b7c83", "#9a6700", "#6e7781", "#d1242f"};

std::string num(double v) { return format_fixed(v, 1); }

// A linear axis with "nice" ticks (1, 2 or 5 times a power of ten), computed without log/pow so
// every platform lands on the same numbers.
struct Axis {
  double lo = 0, hi = 1, step = 1;
  int decimals = 0;

  Axis(double min, double max, int target_ticks) {
    if (!std::isfinite(min) || !std::isfinite(max)) min = 0, max = 1;
    if (max <= min) max = min + 1;
    double raw = (max - min) / target_ticks;
    double mag = 1;
    int exp10 = 0;
    if (raw >= 1) {
      for (int i = 0; i < 400 && mag * 10 <= raw; ++i) mag *= 10, ++exp10;
    } else {
      for (int i = 0; i < 400 && mag > raw; ++i) mag /= 10, --exp10;
    }
    const double m = raw / mag;
    double nice = 10;
    if (m <= 1) {
      nice = 1;
    } else if (m <= 2) {
      nice = 2;
    } else if (m <= 5) {
      nice = 5;
    }
    if (nice == 10) nice = 1, mag *= 10, ++exp10;
    step = nice * mag;
    decimals = exp10 < 0 ? std::min(-exp10, 12) : 0;
    lo = std::floor(min / step) * step;
    hi = std::ceil(max / step) * step;
    if (hi <= lo) hi = lo + step;
  }
  std::size_t ticks() const { return std::min<std::size_t>(static_cast<std::size_t>(std::lround((hi - lo) / step)), 24); }
  double tick(std::size_t k) const { return lo + static_cast<double>(k) * step; }
  // Maps a value to [a, b] (a for lo, b for hi).
  double map(double v, double a, double b) const { return a + (v - lo) / (hi - lo) * (b - a); }
};

// Label text cut to `max` characters (UTF-8 aware) with an ellipsis; the full text stays in the
// element's <title>.
std::string shorten(const std::string& s, std::size_t max) {
  std::size_t chars = 0, i = 0;
  while (i < s.size()) {
    if (chars == max) return s.substr(0, i) + "\xE2\x80\xA6";
    const auto c = static_cast<unsigned char>(s[i]);
    i += c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    ++chars;
  }
  return s;
}

void text(std::string& out, double x, double y, std::string_view cls, std::string_view anchor, const std::string& s,
          std::string_view extra = {}) {
  out += "<text class=\"" + std::string(cls) + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" +
         std::string(anchor) + "\"" + std::string(extra) + ">" + html_escape(s) + "</text>";
}

// A line; with a tooltip it gets a <title> child (hover text, no script needed).
void line(std::string& out, double x1, double y1, double x2, double y2, std::string_view cls,
          const std::string& tooltip = {}) {
  out += "<line class=\"" + std::string(cls) + "\" x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) +
         "\" y2=\"" + num(y2) + "\"";
  out += tooltip.empty() ? "/>" : "><title>" + html_escape(tooltip) + "</title></line>";
}

void open_svg(std::string& out, const Chart& c, std::string_view kind) {
  out += "<svg class=\"chart chart-" + std::string(kind) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
         "\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) + "\" role=\"img\">";
  out += "<title>" + html_escape(c.title.empty() ? std::string(kind) + " chart" : c.title) + "</title>";
  out += "<rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"" + num(kWidth - 1) + "\" height=\"" + num(kHeight - 1) +
         "\"/>";
  text(out, 12, 20, "chart-title", "start", shorten(c.title, 90));
}

void y_axis(std::string& out, const Axis& ax, const std::string& label) {
  for (std::size_t k = 0; k <= ax.ticks(); ++k) {
    const double v = ax.tick(k);
    const double y = ax.map(v, kPlotY1, kPlotY0);
    line(out, kPlotX0, y, kPlotX1, y, v == 0 ? "axis" : "grid");
    text(out, kPlotX0 - 6, y + 4, "tick", "end", format_fixed(v, ax.decimals));
  }
  line(out, kPlotX0, kPlotY0, kPlotX0, kPlotY1, "axis");
  const std::string rot = " transform=\"rotate(-90 14 " + num((kPlotY0 + kPlotY1) / 2) + ")\"";
  text(out, 14, (kPlotY0 + kPlotY1) / 2, "axis-label", "middle", shorten(label, 40), rot);
}

void x_label(std::string& out, const std::string& label) {
  text(out, (kPlotX0 + kPlotX1) / 2, kHeight - 8, "axis-label", "middle", shorten(label, 80));
}

void no_data(std::string& out) {
  text(out, (kPlotX0 + kPlotX1) / 2, (kPlotY0 + kPlotY1) / 2, "note", "middle", "no data");
}

void cap_note(std::string& out, std::size_t shown, std::size_t total, std::string_view what) {
  if (shown == total) return;
  text(out, kPlotX1, kHeight - 8, "note", "end",
       "first " + std::to_string(shown) + " of " + std::to_string(total) + " " + std::string(what) + " shown");
}

// Legend entries on their own row under the title, left to right; a character is about 6.2
// units wide at the legend's 11px, and entries that would run off the canvas become an ellipsis.
struct LegendItem {
  std::string label;
  std::string swatch;  // an SVG fragment drawn in (0,0)-(14,10), translated into place
};
void legend(std::string& out, const std::vector<LegendItem>& items) {
  double x = kPlotX0;
  for (const auto& item : items) {
    const std::string label = shorten(item.label, 24);
    const double w = 20 + 6.2 * static_cast<double>(std::min<std::size_t>(label.size(), 24)) + 16;
    if (x + w > kWidth - 12) {
      text(out, x, 40, "legend", "start", "\xE2\x80\xA6");
      return;
    }
    out += "<g transform=\"translate(" + num(x) + " 31)\">" + item.swatch + "</g>";
    text(out, x + 20, 40, "legend", "start", label);
    x += w;
  }
}

std::optional<double> finite_at(const std::vector<double>& v, std::size_t i) {
  if (i < v.size() && std::isfinite(v[i])) return v[i];
  return std::nullopt;
}

void bars(std::string& out, const Chart& c) {
  const std::size_t total = !c.labels.empty() ? c.labels.size() : std::max(c.values.size(), c.expected.size());
  const std::size_t n = std::min(total, kMaxBars);
  if (n == 0) return no_data(out);
  double lo = 0, hi = 0;
  bool any_expected = false;
  for (std::size_t i = 0; i < n; ++i) {
    for (auto v : {finite_at(c.values, i), finite_at(c.expected, i)}) {
      if (v) lo = std::min(lo, *v), hi = std::max(hi, *v);
    }
    any_expected = any_expected || finite_at(c.expected, i).has_value();
  }
  const Axis ax(lo, hi * 1.08, 5);
  y_axis(out, ax, c.y_label);
  const double band = (kPlotX1 - kPlotX0) / static_cast<double>(n);
  const double bar_w = band * 0.64;
  const double zero_y = ax.map(0, kPlotY1, kPlotY0);
  const std::size_t label_every = (n + 23) / 24;
  const bool rotate = n > 8;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string label = i < c.labels.size() ? c.labels[i] : "#" + std::to_string(i);
    const auto obs = finite_at(c.values, i);
    const auto exp = finite_at(c.expected, i);
    const double x = kPlotX0 + static_cast<double>(i) * band + (band - bar_w) / 2;
    std::string tip = label + ": observed " + (obs ? format_number(*obs) : "n/a");
    if (exp) tip += ", expected " + format_number(*exp);
    if (obs) {
      const double y = ax.map(*obs, kPlotY1, kPlotY0);
      out += "<rect class=\"bar\" x=\"" + num(x) + "\" y=\"" + num(std::min(y, zero_y)) + "\" width=\"" +
             num(bar_w) + "\" height=\"" + num(std::fabs(zero_y - y)) + "\"><title>" + html_escape(tip) +
             "</title></rect>";
      if (n <= 16) text(out, x + bar_w / 2, std::min(y, zero_y) - 4, "value", "middle", format_number(*obs));
    }
    if (exp) {
      const double y = ax.map(*exp, kPlotY1, kPlotY0);
      line(out, x - band * 0.12, y, x + bar_w + band * 0.12, y, "expected", tip);
    }
    if (i % label_every == 0) {
      const double lx = x + bar_w / 2;
      const double ly = kPlotY1 + 14;
      if (rotate) {
        text(out, lx, ly, "tick", "end", shorten(label, 14), " transform=\"rotate(-40 " + num(lx) + " " + num(ly) + ")\"");
      } else {
        text(out, lx, ly, "tick", "middle", shorten(label, 16));
      }
    }
  }
  x_label(out, c.x_label);
  cap_note(out, n, total, "categories");
  std::vector<LegendItem> items{{"observed", "<rect class=\"bar swatch\" x=\"0\" y=\"0\" width=\"14\" height=\"10\"/>"}};
  if (any_expected) items.push_back({"expected", "<line class=\"expected swatch\" x1=\"0\" y1=\"5\" x2=\"14\" y2=\"5\"/>"});
  legend(out, items);
}

void timeline(std::string& out, const Chart& c) {
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
  if (names.empty() && markers.empty()) return no_data(out);
  const Axis ay(ylo, yhi * 1.08, 5);
  y_axis(out, ay, c.y_label);
  const Axis ax(xlo, xhi, 6);
  for (std::size_t k = 0; k <= ax.ticks(); ++k) {
    const double x = ax.map(ax.tick(k), kPlotX0, kPlotX1);
    line(out, x, kPlotY1, x, kPlotY1 + 4, "axis");
    text(out, x, kPlotY1 + 16, "tick", "middle", format_duration_ns(ax.tick(k)));
  }
  std::vector<LegendItem> items;
  for (std::size_t s = 0; s < names.size(); ++s) {
    const std::string color(kPalette[s % kPalette.size()]);
    auto& pts = series[names[s]];
    std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string poly;
    for (const auto& [x, y] : pts) {
      if (!poly.empty()) poly += ' ';
      poly += num(ax.map(x, kPlotX0, kPlotX1)) + "," + num(ay.map(y, kPlotY1, kPlotY0));
    }
    out += "<polyline class=\"series\" stroke=\"" + color + "\" points=\"" + poly + "\"/>";
    for (const auto& [x, y] : pts) {
      const std::string tip = (names[s].empty() ? "" : names[s] + " ") + "at " + format_duration_ns(x) + ": " +
                              format_number(y);
      out += "<circle class=\"point\" fill=\"" + color + "\" cx=\"" + num(ax.map(x, kPlotX0, kPlotX1)) + "\" cy=\"" +
             num(ay.map(y, kPlotY1, kPlotY0)) + "\" r=\"3\"><title>" + html_escape(tip) + "</title></circle>";
    }
    items.push_back({names[s].empty() ? "values" : names[s],
                     "<line stroke=\"" + color + "\" stroke-width=\"2\" x1=\"0\" y1=\"5\" x2=\"14\" y2=\"5\"/>"});
  }
  for (std::size_t k = 0; k < markers.size(); ++k) {
    const double x = ax.map(markers[k], kPlotX0, kPlotX1);
    const std::string tip = "marker " + std::to_string(k + 1) + " at " + format_duration_ns(markers[k]);
    line(out, x, kPlotY0, x, kPlotY1, "marker", tip);
    text(out, x + 3, kPlotY0 + 10 + static_cast<double>(k % 2) * 12, "marker-label", "start",
         "M" + std::to_string(k + 1) + " " + format_duration_ns(markers[k]));
  }
  if (!markers.empty()) {
    items.push_back({"fault / bound", "<line class=\"marker swatch\" x1=\"7\" y1=\"0\" x2=\"7\" y2=\"10\"/>"});
  }
  x_label(out, c.x_label);
  cap_note(out, n, total, "points");
  legend(out, items);
}

}  // namespace

std::string render_svg_chart(const Chart& chart) {
  std::string out;
  const bool is_bars = chart.kind == Chart::Kind::kBars;
  open_svg(out, chart, is_bars ? "bars" : "timeline");
  if (is_bars) {
    bars(out, chart);
  } else {
    timeline(out, chart);
  }
  out += "</svg>";
  return out;
}

}  // namespace mrc::harness
