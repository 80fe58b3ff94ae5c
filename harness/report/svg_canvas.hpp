// Internal to the SVG charts (svg_chart*.cpp): the canvas a chart is drawn on, its axes, text
// and legend. Every coordinate is printed with one decimal, so the output is deterministic; text
// is laid out from a per-character width estimate so that no label runs off the canvas (a title
// wraps onto a second line, a tick label shortens with an ellipsis and keeps its full text in a
// <title>).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/verdict/verdict.hpp"

namespace mrc::harness::svg {

// Series colours, cycled when a chart has more series. Red comes last: it is the colour of the
// fault and bound markers.
inline constexpr std::array<std::string_view, 8> kPalette{"#0969da", "#bc4c00", "#1a7f37", "#8250df",
                                                          "#1b7c83", "#9a6700", "#6e7781", "#d1242f"};
inline constexpr std::string_view kBoundColor = "#d1242f";

// The canvas and its plot area, in SVG user units. `layout` places the plot once the title is
// known (a long title takes a second line and pushes the plot down).
struct Canvas {
  double width = 680, height = 300;
  double left = 64, right = 20, top = 56, bottom = 66;
  std::vector<std::string> title_lines;
  double x0() const { return left; }
  double x1() const { return width - right; }
  double y0() const { return top; }
  double y1() const { return height - bottom; }
  double legend_y() const { return top - 25; }
};

// A linear axis with "nice" ticks (1, 2 or 5 times a power of ten), computed without log/pow so
// every platform lands on the same numbers.
struct Axis {
  double lo = 0, hi = 1, step = 1;
  int decimals = 0;
  Axis(double min, double max, int target_ticks);
  std::size_t ticks() const;
  double tick(std::size_t k) const { return lo + static_cast<double>(k) * step; }
  double map(double v, double a, double b) const { return a + (v - lo) / (hi - lo) * (b - a); }
};

// One unit for a duration axis (ns, µs, ms or s), chosen from the largest magnitude shown, so two
// axes of one chart can share it.
struct TimeUnit {
  double scale = 1;
  std::string_view name = "ns";
};
TimeUnit time_unit_for(double max_abs_ns);

std::string num(double v);
// `s` cut to `max` characters (UTF-8 aware) with an ellipsis.
std::string shorten(const std::string& s, std::size_t max);
// About how wide `chars` characters are at a font size, in user units (DejaVu Sans / system-ui).
inline double text_width(std::size_t chars, double font_px) { return static_cast<double>(chars) * font_px * 0.62; }

void text(std::string& out, double x, double y, std::string_view cls, std::string_view anchor, const std::string& s,
          std::string_view extra = {});
// A line; with a tooltip it gets a <title> child (hover text, no script needed).
void line(std::string& out, double x1, double y1, double x2, double y2, std::string_view cls,
          const std::string& tooltip = {});

// Wraps the title into the canvas (two lines at most) and moves the plot down under it.
void layout_title(Canvas& cv, const std::string& title);
void open_svg(std::string& out, const Canvas& cv, const Chart& c, std::string_view kind);

// Ticks and grid of the value axis, `label` drawn rotated along it; ticks and ticks marks of the
// x axis. An axis of durations is built in its TimeUnit (values divided by its scale) and names
// the unit in its label, so every tick is a plain number.
void y_axis(std::string& out, const Canvas& cv, const Axis& ax, const std::string& label);
void x_axis(std::string& out, const Canvas& cv, const Axis& ax);
void x_label(std::string& out, const Canvas& cv, const std::string& label);
void no_data(std::string& out, const Canvas& cv);
void cap_note(std::string& out, const Canvas& cv, std::size_t shown, std::size_t total, std::string_view what);

// Legend entries under the title, left to right, wrapping onto more rows; a chart that may have
// a long legend calls reserve_legend before open_svg so the plot starts below its last row.
struct LegendItem {
  std::string label;
  std::string swatch;  // an SVG fragment drawn in (0,0)-(14,10), translated into place
};
std::size_t legend_rows(const Canvas& cv, const std::vector<LegendItem>& items);
void reserve_legend(Canvas& cv, const std::vector<LegendItem>& items);
void legend(std::string& out, const Canvas& cv, const std::vector<LegendItem>& items);
std::string line_swatch(std::string_view color, bool dashed = false);

std::optional<double> finite_at(const std::vector<double>& v, std::size_t i);

// The kinds over time (svg_chart_time.cpp); each returns the whole <svg> element.
std::string render_latency(const Chart& c);
std::string render_events(const Chart& c);
std::string render_raster(const Chart& c);

}  // namespace mrc::harness::svg
