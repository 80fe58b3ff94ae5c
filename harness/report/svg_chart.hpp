// Inline SVG charts for the HTML report (no script, no external resource): a bar chart of a
// distribution with expected-value markers, and a timeline of points with vertical markers for
// faults and bounds. Coordinates are printed with fixed decimals, so the output is deterministic.
#pragma once

#include <string>

#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// The chart as an <svg> element (with a <title> for screen readers), ready to inline in HTML.
// Tolerates any Chart: vectors of mismatched length are cut to what pairs up, non-finite values
// are skipped, an empty chart renders a "no data" frame, and very large charts are capped
// (kMaxBars categories, kMaxPoints points) with a note saying so.
std::string render_svg_chart(const Chart& chart);

inline constexpr std::size_t kMaxBars = 256;
inline constexpr std::size_t kMaxPoints = 4096;

}  // namespace mrc::harness
