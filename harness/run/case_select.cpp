#include "harness/run/case_select.hpp"

#include <algorithm>
#include <ostream>
#include <set>

#include "harness/case/diagnostics.hpp"
#include "harness/lab/spelling_hints.hpp"
#include "harness/run/case_setup.hpp"
#include "harness/testbed/testbed.hpp"

namespace mrc::run {
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ",") + w;
  return out;
}

// Why a selection came out empty, in words that say what to type instead: no case files at all,
// or the tags given and the ones the cases carry.
std::string no_selection_reason(const std::vector<harness::Case>& cases, const std::vector<std::string>& tags,
                                const std::vector<std::string>& exclude_tags) {
  if (cases.empty()) return "no case files under --cases (a case is a .yaml file named by its id)";
  std::set<std::string> known;
  for (const auto& c : cases) known.insert(c.tags.begin(), c.tags.end());
  std::string m = std::to_string(cases.size()) + " case(s) loaded, none matches";
  if (!tags.empty()) m += " --tags " + join(split_lists(tags));
  if (!exclude_tags.empty()) m += " --exclude-tags " + join(split_lists(exclude_tags));
  m += "; tags in use: " + join({known.begin(), known.end()});
  return m;
}

// "--tags spraing: no case carries it (did you mean spraying?)" for every given tag no loaded case
// carries: a typo in a tag list otherwise narrows or empties a run without a word.
// Every tag of the suite's cases, sorted, each once.
std::vector<std::string> known_tags(const std::vector<harness::Case>& cases) {
  std::set<std::string> known;
  for (const auto& c : cases) known.insert(c.tags.begin(), c.tags.end());
  return {known.begin(), known.end()};
}

std::string unknown_tags(const std::vector<std::string>& known, const std::vector<std::string>& given, const char* option,
                         const char* prefix) {
  std::string out;
  for (const std::string& t : split_lists(given)) {
    if (std::binary_search(known.begin(), known.end(), t)) continue;
    out += std::string(prefix) + option + " " + t + ": no case carries it" + harness::did_you_mean(harness::closest_match(t, known)) + "\n";
  }
  return out;
}

}  // namespace

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
  const std::vector<std::string> known = known_tags(s.suite.set.cases);
  if (s.cases.empty()) {
    err << unknown_tags(known, tags, "--tags", "error: ")
        << unknown_tags(known, exclude_tags, "--exclude-tags", "error: ")
        << "error: no case selected: " << no_selection_reason(s.suite.set.cases, tags, exclude_tags) << '\n';
    return s;
  }
  err << unknown_tags(known, tags, "--tags", "warning: ") << unknown_tags(known, exclude_tags, "--exclude-tags", "warning: ");
  std::string why;
  if (!harness::make_sim_testbed(testbed_request(harness::TestbedSpec{}, testbed), 1, &why)) {
    err << "error: --testbed " << testbed << ": " << with_preset_hint(why) << '\n';
    return s;
  }
  s.ok = true;
  return s;
}

}  // namespace mrc::run
