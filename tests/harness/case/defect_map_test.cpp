// cases/defects.yaml, the campaign's defect -> requirement map: the project's table matches the
// reference's catalog both ways and names only known requirements; the loader reports every
// mistake of a malformed map as file:line:col: key: message.
#include "harness/case/defect_map.hpp"

#include <set>

#include <gtest/gtest.h>

#include "reference/defects.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::project_clauses;
using testing::scratch_dir;
using testing::source_dir;
using testing::write_file;

std::vector<std::string_view> catalog_names() {
  std::vector<std::string_view> names;
  for (const auto& d : ref::defect_catalog()) names.push_back(d.name);
  return names;
}

// Every catalog defect has an entry, every entry is a catalog defect, and every requirement it
// names exists in clauses.yaml, or the campaign could never attribute a kill to it.
TEST(ProjectDefectMap, MatchesTheCatalogBothWaysWithKnownRequirements) {
  const auto names = catalog_names();
  const DefectMapLoadResult r = load_defect_map(source_dir() / "cases" / kDefectMapName, project_clauses(), names);
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  std::set<std::string_view> in_map;
  std::size_t named = 0;
  for (const auto& e : r.entries) {
    in_map.insert(e.defect);
    EXPECT_FALSE(e.violates.empty()) << e.defect;
    for (const auto& id : e.violates) {
      ++named;
      EXPECT_NE(project_clauses().find(id), nullptr) << e.defect << " names unknown requirement " << id;
    }
  }
  EXPECT_EQ(in_map, std::set<std::string_view>(names.begin(), names.end()));
  EXPECT_EQ(r.entries.size(), names.size());  // no duplicates either
  EXPECT_GE(named, 27u);
  ASSERT_NE(r.find("spray-single-ev"), nullptr);
  EXPECT_EQ(r.find("spray-single-ev")->violates, (std::vector<std::string>{"SPRAY-PER-PACKET-EV", "SPRAY-UNIFORM-PLANES"}));
}

TEST(LoadDefectMap, ReportsEveryMistakeWithItsPlace) {
  const auto file = write_file(scratch_dir() / "defects.yaml",
                               "alpha: [GOOD-ONE]\n"
                               "gamma: [GOOD-ONE]\n"
                               "alpha: [GOOD-ONE]\n"
                               "beta: [GOOD-ONE, GOOD-ONX]\n"
                               "delta: []\n");
  Clause good;
  good.id = "GOOD-ONE";
  const ClauseIndex clauses({good});
  const std::vector<std::string_view> catalog{"alpha", "beta", "delta", "epsilon"};
  const DefectMapLoadResult r = load_defect_map(file, clauses, catalog);
  const std::string f = file.string();
  EXPECT_TRUE(r.diagnostics.contains(f + ":2:1: gamma: unknown defect 'gamma'")) << r.diagnostics.to_string();
  EXPECT_TRUE(r.diagnostics.contains(f + ":3:1: alpha: duplicate defect 'alpha' (first at line 1)"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":4:18: beta[1]: unknown requirement id 'GOOD-ONX' (did you mean 'GOOD-ONE'?)"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":5:8: delta: expected a non-empty list of requirement ids"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":1:1: epsilon: missing defect 'epsilon'"));
  EXPECT_EQ(r.diagnostics.size(), 5u) << r.diagnostics.to_string();
  ASSERT_EQ(r.entries.size(), 1u);  // only the well-formed entry survives
  EXPECT_EQ(r.entries.front().defect, "alpha");
}

TEST(LoadDefectMap, SyntaxErrorAndWrongShape) {
  const ClauseIndex clauses;
  const std::vector<std::string_view> catalog{"alpha"};
  const auto broken = write_file(scratch_dir() / "broken.yaml", "alpha: [GOOD-ONE\n");
  const DefectMapLoadResult syntax = load_defect_map(broken, clauses, catalog);
  ASSERT_EQ(syntax.diagnostics.size(), 1u) << syntax.diagnostics.to_string();
  EXPECT_TRUE(syntax.diagnostics.contains(broken.string() + ":")) << syntax.diagnostics.to_string();
  EXPECT_GT(syntax.diagnostics.items().front().loc.line, 0);

  const auto list = write_file(scratch_dir() / "list.yaml", "- alpha\n");
  const DefectMapLoadResult shape = load_defect_map(list, clauses, catalog);
  EXPECT_TRUE(shape.diagnostics.contains(list.string() + ":1:1: expected a map of defect name -> list of requirement ids"))
      << shape.diagnostics.to_string();
  EXPECT_TRUE(shape.entries.empty());
}

}  // namespace
}  // namespace mrc::harness
