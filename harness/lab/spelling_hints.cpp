#include "harness/lab/spelling_hints.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/diagnostics.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/defects.hpp"
#include "reference/variants.hpp"

namespace mrc::run {

namespace {

// Inserts the hint after the quoted word that follows `lead` in `why`.
std::string hint_after(std::string why, std::string_view lead, std::span<const std::string_view> names) {
  const auto at = why.find(lead);
  if (at == std::string::npos) return why;
  const auto start = at + lead.size();
  const auto end = why.find('\'', start);
  if (end == std::string::npos) return why;
  const std::string hint = harness::did_you_mean(harness::closest_match(std::string_view(why).substr(start, end - start), names));
  return why.insert(end + 1, hint);
}

}  // namespace

std::string with_binding_hint(std::string why) {
  std::vector<std::string_view> names;
  for (const auto& d : ref::defect_catalog()) names.push_back(d.name);
  for (const auto& v : ref::variant_catalog()) names.push_back(v.name);
  // The reference adapter's words (harness/dut/reference_adapter.cpp).
  return hint_after(std::move(why), "unknown defect or variant '", names);
}

std::string with_preset_hint(std::string why) {
  const std::vector<std::string> presets = harness::testbed_preset_names();
  const std::vector<std::string_view> names(presets.begin(), presets.end());
  // The simulator's words (harness/testbed/sim/sim_testbed.cpp).
  return hint_after(std::move(why), "unknown testbed preset '", names);
}

}  // namespace mrc::run
