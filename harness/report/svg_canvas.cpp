#include "harness/report/svg_canvas.hpp"

#include <algorithm>
#include <cmath>

#include "harness/report/text_escape.hpp"

namespace mrc::harness::svg {

Axis::Axis(double min, double max, int target_ticks) {
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

std::size_t Axis::ticks() const {
  return std::min<std::size_t>(static_cast<std::size_t>(std::lround((hi - lo) / step)), 24);
}

TimeUnit time_unit_for(double max_abs_ns) {
  if (!std::isfinite(max_abs_ns)) return {};
  if (max_abs_ns >= 1e9) return {1e9, "s"};
  if (max_abs_ns >= 1e6) return {1e6, "ms"};
  if (max_abs_ns >= 1e3) return {1e3, "\xC2\xB5s"};
  return {};
}

std::string num(double v) { return format_fixed(v, 1); }

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
          std::string_view extra) {
  out += "<text class=\"" + std::string(cls) + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" +
         std::string(anchor) + "\"" + std::string(extra) + ">" + html_escape(s) + "</text>";
}

void line(std::string& out, double x1, double y1, double x2, double y2, std::string_view cls,
          const std::string& tooltip) {
  out += "<line class=\"" + std::string(cls) + "\" x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) +
         "\" y2=\"" + num(y2) + "\"";
  out += tooltip.empty() ? "/>" : "><title>" + html_escape(tooltip) + "</title></line>";
}

void layout_title(Canvas& cv, const std::string& title) {
  // The title is 13px bold: about 8 units a character.
  const auto per_line = static_cast<std::size_t>((cv.width - 24) / 8.0);
  cv.title_lines.clear();
  std::string rest = title;
  while (!rest.empty() && cv.title_lines.size() < 2) {
    if (rest.size() <= per_line || cv.title_lines.size() == 1) {
      cv.title_lines.push_back(shorten(rest, per_line));
      break;
    }
    std::size_t cut = rest.rfind(' ', per_line);
    if (cut == std::string::npos || cut == 0) cut = per_line;
    cv.title_lines.push_back(rest.substr(0, cut));
    rest = rest.substr(std::min(rest.size(), cut + 1));
  }
  if (cv.title_lines.size() > 1) cv.top += 16;
}

void open_svg(std::string& out, const Canvas& cv, const Chart& c, std::string_view kind) {
  out += "<svg class=\"chart chart-" + std::string(kind) + "\" viewBox=\"0 0 " + num(cv.width) + " " +
         num(cv.height) + "\" width=\"" + num(cv.width) + "\" height=\"" + num(cv.height) + "\" role=\"img\">";
  out += "<title>" + html_escape(c.title.empty() ? std::string(kind) + " chart" : c.title) + "</title>";
  out += "<rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"" + num(cv.width - 1) + "\" height=\"" +
         num(cv.height - 1) + "\"/>";
  for (std::size_t i = 0; i < cv.title_lines.size(); ++i) {
    text(out, 12, 20 + 16 * static_cast<double>(i), "chart-title", "start", cv.title_lines[i]);
  }
}

void y_axis(std::string& out, const Canvas& cv, const Axis& ax, const std::string& label) {
  for (std::size_t k = 0; k <= ax.ticks(); ++k) {
    const double v = ax.tick(k);
    const double y = ax.map(v, cv.y1(), cv.y0());
    line(out, cv.x0(), y, cv.x1(), y, v == 0 ? "axis" : "grid");
    // 10px ticks: room for the left margin less the axis label's column.
    const auto room = static_cast<std::size_t>((cv.left - 30) / 6.0);
    text(out, cv.x0() - 6, y + 4, "tick", "end", shorten(format_fixed(v, ax.decimals), room));
  }
  line(out, cv.x0(), cv.y0(), cv.x0(), cv.y1(), "axis");
  const double mid = (cv.y0() + cv.y1()) / 2;
  const auto room = static_cast<std::size_t>((cv.y1() - cv.y0()) / 6.6);
  text(out, 14, mid, "axis-label", "middle", shorten(label, room), " transform=\"rotate(-90 14 " + num(mid) + ")\"");
}

void x_axis(std::string& out, const Canvas& cv, const Axis& ax) {
  for (std::size_t k = 0; k <= ax.ticks(); ++k) {
    const double x = ax.map(ax.tick(k), cv.x0(), cv.x1());
    line(out, x, cv.y1(), x, cv.y1() + 4, "axis");
    const std::string label = format_fixed(ax.tick(k), ax.decimals);
    // The last tick sits on the plot's right edge: anchor it there so it never leaves the canvas.
    const bool last = x + text_width(label.size(), 10) / 2 > cv.width - 4;
    text(out, x, cv.y1() + 16, "tick", last ? "end" : "middle", label);
  }
}

void x_label(std::string& out, const Canvas& cv, const std::string& label) {
  const auto room = static_cast<std::size_t>((cv.x1() - cv.x0()) / 6.6);
  text(out, (cv.x0() + cv.x1()) / 2, cv.height - 8, "axis-label", "middle", shorten(label, room));
}

void no_data(std::string& out, const Canvas& cv) {
  text(out, (cv.x0() + cv.x1()) / 2, (cv.y0() + cv.y1()) / 2, "note", "middle", "no data");
}

void cap_note(std::string& out, const Canvas& cv, std::size_t shown, std::size_t total, std::string_view what) {
  if (shown == total) return;
  text(out, cv.x1(), cv.height - 24, "note", "end",
       "first " + std::to_string(shown) + " of " + std::to_string(total) + " " + std::string(what) + " shown");
}

namespace {
constexpr std::size_t kLegendChars = 40;
double legend_item_width(const std::string& label) {
  return 20 + text_width(std::min<std::size_t>(label.size(), kLegendChars), 11) + 14;
}
}  // namespace

std::size_t legend_rows(const Canvas& cv, const std::vector<LegendItem>& items) {
  std::size_t rows = items.empty() ? 0 : 1;
  double x = cv.x0();
  for (const auto& item : items) {
    const double w = legend_item_width(shorten(item.label, kLegendChars));
    if (x + w > cv.width - 12 && x > cv.x0()) ++rows, x = cv.x0();
    x += w;
  }
  return rows;
}

void reserve_legend(Canvas& cv, const std::vector<LegendItem>& items) {
  const std::size_t rows = legend_rows(cv, items);
  if (rows > 1) cv.top += 16 * static_cast<double>(rows - 1);
}

void legend(std::string& out, const Canvas& cv, const std::vector<LegendItem>& items) {
  const std::size_t rows = legend_rows(cv, items);
  double x = cv.x0();
  // The first row sits where a one-row legend would; the plot was moved down for the others.
  double y = cv.legend_y() - 16 * static_cast<double>(rows > 1 ? rows - 1 : 0);
  for (const auto& item : items) {
    const std::string label = shorten(item.label, kLegendChars);
    const double w = legend_item_width(label);
    if (x + w > cv.width - 12 && x > cv.x0()) x = cv.x0(), y += 16;
    out += "<g transform=\"translate(" + num(x) + " " + num(y) + ")\">" + item.swatch + "</g>";
    text(out, x + 20, y + 9, "legend", "start", label);
    x += w;
  }
}

std::string line_swatch(std::string_view color, bool dashed) {
  return "<line stroke=\"" + std::string(color) + "\" stroke-width=\"2\"" +
         (dashed ? " stroke-dasharray=\"4 2\"" : "") + " x1=\"0\" y1=\"5\" x2=\"14\" y2=\"5\"/>";
}

std::optional<double> finite_at(const std::vector<double>& v, std::size_t i) {
  if (i < v.size() && std::isfinite(v[i])) return v[i];
  return std::nullopt;
}

}  // namespace mrc::harness::svg
