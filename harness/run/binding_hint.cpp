#include "harness/run/binding_hint.hpp"

#include <string_view>
#include <vector>

#include "harness/case/diagnostics.hpp"
#include "reference/defects.hpp"
#include "reference/variants.hpp"

namespace mrc::run {

std::string with_binding_hint(std::string why) {
  // The reference adapter's words (harness/dut/reference_adapter.cpp).
  constexpr std::string_view kUnknown = "unknown defect or variant '";
  const auto at = why.find(kUnknown);
  if (at == std::string::npos) return why;
  const auto start = at + kUnknown.size();
  const auto end = why.find('\'', start);
  if (end == std::string::npos) return why;
  std::vector<std::string_view> names;
  for (const auto& d : ref::defect_catalog()) names.push_back(d.name);
  for (const auto& v : ref::variant_catalog()) names.push_back(v.name);
  const std::string hint = harness::did_you_mean(harness::closest_match(std::string_view(why).substr(start, end - start), names));
  return why.insert(end + 1, hint);
}

}  // namespace mrc::run
