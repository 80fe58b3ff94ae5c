#include "harness/verdict/timing_budget.hpp"

#include <limits>

#include "harness/verdict/check_support.hpp"

namespace mrc::harness {

std::uint64_t widen_upper(std::uint64_t bound_ns, const TimingBudget& b) {
  const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - bound_ns;
  return b.ns > room ? std::numeric_limits<std::uint64_t>::max() : bound_ns + b.ns;
}

std::uint64_t widen_lower(std::uint64_t bound_ns, const TimingBudget& b) {
  return bound_ns > b.ns ? bound_ns - b.ns : 0;
}

std::string budget_text(const TimingBudget& b) {
  if (b.ns == 0) return {};
  std::string s = fmt_ns(static_cast<double>(b.ns)) + " timing budget";
  if (!b.source.empty()) s += " (" + b.source + ")";
  return s;
}

std::string plus_budget(const TimingBudget& b) { return b.ns == 0 ? std::string() : " + " + budget_text(b); }

std::string minus_budget(const TimingBudget& b) { return b.ns == 0 ? std::string() : " - " + budget_text(b); }

void note_budget(CheckResult& r, const TimingBudget& b) {
  if (b.ns != 0) r.metrics["timing_budget_ns"] = static_cast<double>(b.ns);
}

}  // namespace mrc::harness
