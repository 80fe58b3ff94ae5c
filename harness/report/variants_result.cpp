// The variants run's totals (variants_result.hpp).
#include "harness/report/variants_result.hpp"

namespace mrc::harness {

std::size_t VariantsResult::variants() const {
  std::size_t n = 0;
  for (const auto& r : runs) n += r.name != "reference" ? 1 : 0;
  return n;
}

std::size_t VariantsResult::false_fails() const {
  std::size_t n = 0;
  for (const auto& r : runs) n += r.false_fails.size();
  return n;
}

std::size_t VariantsResult::must_false_fails() const {
  std::size_t n = 0;
  for (const auto& r : runs) {
    for (const auto& f : r.false_fails) n += f.level == "MUST" ? 1 : 0;
  }
  return n;
}

std::size_t VariantsResult::errors() const {
  std::size_t n = 0;
  for (const auto& r : runs) n += r.errors.size();
  return n;
}

int VariantsResult::exit_code() const {
  if (interrupted || errors() > 0) return 3;
  return must_false_fails() > 0 ? 1 : 0;
}

}  // namespace mrc::harness
