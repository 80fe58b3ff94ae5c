// cases/defects.yaml and cases/variants.yaml, the catalog -> requirement maps: the project's tables
// match the reference's catalogs both ways and names only known requirements; the loader reports every
// mistake of a malformed map as file:line:col: key: message.
#include "harness/case/catalog_map.hpp"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "reference/defects.hpp"
#include "reference/variants.hpp"
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
  const CatalogMapLoadResult r =
      load_catalog_map(source_dir() / "cases" / kDefectMapName, project_clauses(), names, "defect");
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  std::set<std::string_view> in_map;
  std::size_t named = 0;
  for (const auto& e : r.entries) {
    in_map.insert(e.name);
    EXPECT_FALSE(e.requirements.empty()) << e.name;
    for (const auto& id : e.requirements) {
      ++named;
      EXPECT_NE(project_clauses().find(id), nullptr) << e.name << " names unknown requirement " << id;
    }
  }
  EXPECT_EQ(in_map, std::set<std::string_view>(names.begin(), names.end()));
  EXPECT_EQ(r.entries.size(), names.size());  // no duplicates either
  EXPECT_GE(named, 27u);
  ASSERT_NE(r.find("spray-single-ev"), nullptr);
  EXPECT_EQ(r.find("spray-single-ev")->requirements, (std::vector<std::string>{"SPRAY-PER-PACKET-EV", "SPRAY-UNIFORM-PLANES"}));
}

// The variant map: every conformant variant names the requirements that leave its choice open.
TEST(ProjectVariantMap, MatchesTheCatalogBothWays) {
  std::vector<std::string_view> names;
  for (const auto& v : ref::variant_catalog()) names.push_back(v.name);
  const CatalogMapLoadResult r =
      load_catalog_map(source_dir() / "cases" / kVariantMapName, project_clauses(), names, "variant");
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  ASSERT_EQ(r.entries.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(r.entries[i].name, names[i]) << "catalog order";
  ASSERT_NE(r.find("random-ev"), nullptr);
  EXPECT_NE(std::find(r.find("random-ev")->requirements.begin(), r.find("random-ev")->requirements.end(),
                      "SPRAY-PER-PACKET-EV"),
            r.find("random-ev")->requirements.end());
}

TEST(LoadDefectMap, ReportsEveryMistakeWithItsPlace) {
  const auto file = write_file(scratch_dir() / "defects.yaml",
                               "alpha: [GOOD-ONE]\n"
                               "gamma: [GOOD-ONE]\n"
                               "beta: [GOOD-ONE, GOOD-ONX]\n"
                               "delta: []\n");
  Clause good;
  good.id = "GOOD-ONE";
  const ClauseIndex clauses({good});
  const std::vector<std::string_view> catalog{"alpha", "beta", "delta", "epsilon"};
  const CatalogMapLoadResult r = load_catalog_map(file, clauses, catalog, "defect");
  const std::string f = file.string();
  EXPECT_TRUE(r.diagnostics.contains(f + ":2:1: gamma: unknown defect 'gamma'")) << r.diagnostics.to_string();
  EXPECT_TRUE(r.diagnostics.contains(f + ":3:18: beta[1]: unknown requirement id 'GOOD-ONX' (did you mean 'GOOD-ONE'?)"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":4:8: delta: expected a non-empty list of requirement ids"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":1:1: epsilon: missing defect 'epsilon'"));
  EXPECT_EQ(r.diagnostics.size(), 4u) << r.diagnostics.to_string();
  // A defect named twice is refused by the YAML checks every file gets (yaml_lint.hpp).
  write_file(file, "alpha: [GOOD-ONE]\nalpha: [GOOD-ONE]\n");
  const CatalogMapLoadResult twice = load_catalog_map(file, clauses, catalog, "defect");
  EXPECT_TRUE(twice.diagnostics.contains(f + ":2:1: alpha: duplicate key 'alpha' (first at line 1, column 1)"))
      << twice.diagnostics.to_string();
  ASSERT_EQ(r.entries.size(), 1u);  // only the well-formed entry survives
  EXPECT_EQ(r.entries.front().name, "alpha");
}

TEST(LoadDefectMap, SyntaxErrorAndWrongShape) {
  const ClauseIndex clauses;
  const std::vector<std::string_view> catalog{"alpha"};
  const auto broken = write_file(scratch_dir() / "broken.yaml", "alpha: [GOOD-ONE\n");
  const CatalogMapLoadResult syntax = load_catalog_map(broken, clauses, catalog, "defect");
  ASSERT_EQ(syntax.diagnostics.size(), 1u) << syntax.diagnostics.to_string();
  EXPECT_TRUE(syntax.diagnostics.contains(broken.string() + ":")) << syntax.diagnostics.to_string();
  EXPECT_GT(syntax.diagnostics.items().front().loc.line, 0);

  const auto list = write_file(scratch_dir() / "list.yaml", "- alpha\n");
  const CatalogMapLoadResult shape = load_catalog_map(list, clauses, catalog, "defect");
  EXPECT_TRUE(shape.diagnostics.contains(list.string() + ":1:1: expected a map of defect name -> list of requirement ids"))
      << shape.diagnostics.to_string();
  EXPECT_TRUE(shape.entries.empty());
}

}  // namespace
}  // namespace mrc::harness
