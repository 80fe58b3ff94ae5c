#include "harness/report/interop_result.hpp"

#include <algorithm>

namespace mrc::harness {

std::optional<Verdict> InteropCell::worst() const {
  std::optional<Verdict> out;
  for (const Verdict v : kReportVerdicts) {
    if (counts.of(v) > 0) out = out ? combine(*out, v) : v;
  }
  return out;
}

const InteropCell* InteropResult::cell(std::size_t row, std::size_t col) const {
  for (const auto& c : cells) {
    if (c.row == row && c.col == col) return &c;
  }
  return nullptr;
}

int InteropResult::exit_code() const {
  int worst = 0;
  for (const auto& c : cells) {
    // A pair's bad input (2) cannot happen after the up-front checks; if it does, it is a harness
    // error here, as is anything but 0 and 1.
    worst = std::max(worst, c.exit_code == 0 || c.exit_code == 1 ? c.exit_code : 3);
  }
  if (interrupted || cells.size() < impls.size() * impls.size()) return 3;
  return worst;
}

}  // namespace mrc::harness
