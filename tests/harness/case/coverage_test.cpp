// Coverage: every requirement in cases/clauses.yaml, whatever its level, is named by at least one
// case in cases/ (loaded with the case loader, so a case that does not load covers nothing). The
// failure lists the uncovered ids, and the case files that did not load, so the gap is actionable.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "harness/case/case_loader.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::project_clauses;
using testing::source_dir;

TEST(Coverage, EveryRequirementOfEveryLevelIsNamedByACase) {
  const ClauseIndex& clauses = project_clauses();
  ASSERT_FALSE(clauses.empty());
  const CaseSet set = load_cases(source_dir() / "cases", CaseFilter{}, &clauses);
  ASSERT_GT(set.files, 0u);
  std::set<std::string> named;
  for (const Case& c : set.cases) named.insert(c.clauses.begin(), c.clauses.end());
  std::vector<std::string> uncovered;
  for (const Clause& cl : clauses.all()) {
    if (!named.count(cl.id)) uncovered.push_back(cl.id + " (" + std::string(to_string(cl.level)) + ")");
  }
  std::string list;
  for (const auto& id : uncovered) list += "\n  " + id;
  EXPECT_TRUE(uncovered.empty()) << uncovered.size() << " of " << clauses.all().size()
                                 << " requirements are named by no loadable case in cases/:" << list
                                 << (set.ok() ? std::string()
                                              : "\ncase files with errors (they cover nothing):\n" +
                                                    set.diagnostics.to_string());
}

}  // namespace
}  // namespace mrc::harness
