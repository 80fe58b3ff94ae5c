// The case selection every suite-wide subcommand starts from: the cases under --cases filtered by
// --tags / --exclude-tags, with loader errors printed, and the --testbed checked, before anything
// runs (bad input is exit 2 up front, never a half-run).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/run/suite_loader.hpp"

namespace mrc::run {

struct CaseSelection {
  LoadedSuite suite;
  std::vector<const harness::Case*> cases;  // into suite.set.cases, in suite (id) order
  bool ok = false;
};

// Prints why to `err` and leaves ok false on a loader error, a bad testbed or an empty selection.
CaseSelection select_cases(const std::vector<std::string>& inputs, const std::vector<std::string>& tags,
                           const std::vector<std::string>& exclude_tags, const std::string& testbed,
                           std::ostream& err);

}  // namespace mrc::run
