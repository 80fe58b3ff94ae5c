#include "harness/run/case_select.hpp"

#include <ostream>

#include "harness/run/case_setup.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::run {

CaseSelection select_cases(const std::vector<std::string>& inputs, const std::vector<std::string>& tags,
                           const std::vector<std::string>& exclude_tags, const std::string& testbed,
                           std::ostream& err) {
  CaseSelection s;
  s.suite = load_suite(inputs, {}, {}, err);
  if (!s.suite.ok) return s;
  const harness::CaseFilter filter{split_lists(tags), split_lists(exclude_tags)};
  for (const auto& c : s.suite.set.cases) {
    if (filter.matches(c)) s.cases.push_back(&c);
  }
  if (s.cases.empty()) {
    err << "error: no case selected (check --cases, --tags and --exclude-tags)\n";
    return s;
  }
  std::string why;
  if (!harness::make_sim_testbed(testbed_request(harness::TestbedSpec{}, testbed), 1, &why)) {
    err << "error: --testbed " << testbed << ": " << why << '\n';
    return s;
  }
  s.ok = true;
  return s;
}

}  // namespace mrc::run
