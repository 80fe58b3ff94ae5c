// cases/edges.yaml, the edge audit: the project's audit names every MUST and SHOULD requirement
// of clauses.yaml, every edge has a case, and every case exists and names the requirement; the
// loader reports each kind of mistake as file:line:col: key: message.
#include "harness/case/edge_audit.hpp"

#include <set>

#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::project_clauses;
using testing::scratch_dir;
using testing::source_dir;
using testing::write_file;

// Two requirements (one MUST, one MAY) and three cases; `spray-v-002` names only the MAY one.
ClauseIndex small_clauses() {
  Clause must;
  must.id = "GOOD-MUST";
  must.level = Level::kMust;
  Clause may;
  may.id = "GOOD-MAY";
  may.level = Level::kMay;
  return ClauseIndex({must, may});
}

std::vector<Case> small_cases() {
  std::vector<Case> cases(3);
  cases[0].id = "spray-v-001";
  cases[0].clauses = {"GOOD-MUST"};
  cases[1].id = "spray-v-002";
  cases[1].clauses = {"GOOD-MAY"};
  cases[2].id = "reorder-v-001";
  cases[2].clauses = {"GOOD-MUST", "GOOD-MAY"};
  return cases;
}

EdgeAuditLoadResult load(const std::string& text) {
  const auto file = write_file(scratch_dir() / "edges.yaml", text);
  return load_edge_audit(file, small_clauses(), small_cases());
}

// "<file>:<line>:<col>: " of the scratch edges.yaml of the running test.
std::string where(const EdgeAuditLoadResult&, int line, int col) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto file = std::filesystem::path(MRC_BINARY_DIR) / "test-scratch" / "case" /
                    (std::string(info->test_suite_name()) + "." + info->name()) / "edges.yaml";
  return file.string() + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
}

// The project's audit loads against the whole library; every MUST and SHOULD requirement has
// edges, every edge a case, and each listed case names the requirement (the loader checks that).
TEST(ProjectEdgeAudit, CoversEveryMustAndShouldRequirementWithCasesThatNameIt) {
  const ClauseIndex& clauses = project_clauses();
  const CaseSet library = load_cases(source_dir() / "cases", CaseFilter{}, &clauses);
  ASSERT_TRUE(library.ok()) << library.diagnostics.to_string();
  const EdgeAuditLoadResult r = load_edge_audit(source_dir() / "cases" / kEdgeAuditName, clauses, library.cases);
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  std::size_t required = 0;
  for (const Clause& cl : clauses.all()) {
    if (cl.level == Level::kMay) continue;
    ++required;
    const RequirementEdges* e = r.find(cl.id);
    ASSERT_NE(e, nullptr) << cl.id;
    EXPECT_FALSE(e->edges.empty()) << cl.id;
    for (const auto& edge : e->edges) EXPECT_FALSE(edge.cases.empty()) << cl.id << " " << edge.name;
  }
  EXPECT_GE(r.entries.size(), required);
}

TEST(LoadEdgeAudit, WellFormedAuditLoads) {
  const auto r = load(
      "GOOD-MUST:\n"
      "  - {edge: low-end, what: the smallest value, cases: [spray-v-001]}\n"
      "  - edge: high-end\n"
      "    what: the largest value\n"
      "    cases: [spray-v-001, reorder-v-001]\n"
      "GOOD-MAY:\n"
      "  - {edge: middle, what: any value, cases: [spray-v-002]}\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  ASSERT_EQ(r.entries.size(), 2u);
  const RequirementEdges* must = r.find("GOOD-MUST");
  ASSERT_NE(must, nullptr);
  ASSERT_EQ(must->edges.size(), 2u);
  EXPECT_EQ(must->edges[1].name, "high-end");
  EXPECT_EQ(must->edges[1].what, "the largest value");
  EXPECT_EQ(must->edges[1].cases, (std::vector<std::string>{"spray-v-001", "reorder-v-001"}));
  EXPECT_EQ(must->edges[1].loc.line, 3);
}

TEST(LoadEdgeAudit, UnknownRequirementId) {
  const auto r = load(
      "GOOD-MUST:\n"
      "  - {edge: low-end, what: the smallest value, cases: [spray-v-001]}\n"
      "GOOD-MUTS:\n"
      "  - {edge: low-end, what: the smallest value, cases: [spray-v-001]}\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 3, 1) + "GOOD-MUTS: unknown requirement id 'GOOD-MUTS' (did you mean 'GOOD-MUST'?)"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();
}

TEST(LoadEdgeAudit, UnknownCaseId) {
  const auto r = load(
      "GOOD-MUST:\n"
      "  - {edge: low-end, what: the smallest value, cases: [spray-v-001, spray-v-01]}\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 2, 68) + "GOOD-MUST[0].cases[1]: unknown case id 'spray-v-01' (did you mean"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();
  EXPECT_TRUE(r.entries.empty());  // a requirement with a bad edge is not kept
}

TEST(LoadEdgeAudit, MissingMustRequirement) {
  const auto r = load("GOOD-MAY:\n  - {edge: middle, what: any value, cases: [spray-v-002]}\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 1, 1) + "GOOD-MUST: missing MUST requirement 'GOOD-MUST'"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();
}

// A SHOULD requirement needs its entry as a MUST one does; a MAY requirement does not.
TEST(LoadEdgeAudit, MissingShouldRequirement) {
  Clause must;
  must.id = "GOOD-MUST";
  must.level = Level::kMust;
  Clause should;
  should.id = "GOOD-SHOULD";
  should.level = Level::kShould;
  const auto file = write_file(scratch_dir() / "edges.yaml",
                               "GOOD-MUST:\n  - {edge: low-end, what: the smallest value, cases: [spray-v-001]}\n");
  const auto r = load_edge_audit(file, ClauseIndex({must, should}), small_cases());
  EXPECT_TRUE(r.diagnostics.contains(where(r, 1, 1) + "GOOD-SHOULD: missing SHOULD requirement 'GOOD-SHOULD'"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();
}

TEST(LoadEdgeAudit, EdgeWithNoCase) {
  const auto r = load("GOOD-MUST:\n  - {edge: low-end, what: the smallest value, cases: []}\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 2, 54) + "GOOD-MUST[0].cases: edge 'low-end' of GOOD-MUST has no case"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();
}

TEST(LoadEdgeAudit, EdgeWithoutCasesKey) {
  const auto r = load("GOOD-MUST:\n  - {edge: low-end, what: the smallest value}\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 2, 5) + "GOOD-MUST[0]: missing required key 'cases'")) << r.diagnostics.to_string();
}

TEST(LoadEdgeAudit, CaseThatDoesNotNameTheRequirement) {
  const auto r = load("GOOD-MUST:\n  - {edge: low-end, what: the smallest value, cases: [spray-v-002]}\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 2, 55) +
                                     "GOOD-MUST[0].cases[0]: case 'spray-v-002' does not name GOOD-MUST in its clauses"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();
}

TEST(LoadEdgeAudit, RequirementWithoutEdges) {
  const auto r = load("GOOD-MUST: []\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 1, 12) + "GOOD-MUST: expected a non-empty list of edges")) << r.diagnostics.to_string();
}

TEST(LoadEdgeAudit, DuplicateRequirementAndEdge) {
  const auto r = load(
      "GOOD-MUST:\n"
      "  - {edge: low-end, what: the smallest value, cases: [spray-v-001]}\n"
      "  - {edge: low-end, what: again, cases: [spray-v-001]}\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 3, 12) + "GOOD-MUST[1].edge: duplicate edge 'low-end' of GOOD-MUST (first at line 2)"))
      << r.diagnostics.to_string();
  // A requirement named twice is a duplicate key, refused by the YAML checks every file gets.
  const auto twice = load(
      "GOOD-MUST:\n"
      "  - {edge: low-end, what: the smallest value, cases: [spray-v-001]}\n"
      "GOOD-MUST:\n"
      "  - {edge: high-end, what: the largest value, cases: [spray-v-001]}\n");
  EXPECT_TRUE(twice.diagnostics.contains(where(twice, 3, 1) + "GOOD-MUST: duplicate key 'GOOD-MUST' (first at line 1, column 1)"))
      << twice.diagnostics.to_string();
}

TEST(LoadEdgeAudit, MalformedEdgeNameAndRepeatedCase) {
  const auto r = load("GOOD-MUST:\n  - {edge: Low_End, what: the smallest value, cases: [spray-v-001, spray-v-001]}\n");
  EXPECT_TRUE(r.diagnostics.contains(where(r, 2, 12) + "GOOD-MUST[0].edge: edge name 'Low_End' must be lower-case words"))
      << r.diagnostics.to_string();
  EXPECT_TRUE(r.diagnostics.contains("GOOD-MUST[0].cases[1]: case 'spray-v-001' is listed twice")) << r.diagnostics.to_string();
}

TEST(LoadEdgeAudit, WrongShapeAndSyntax) {
  const auto list = load("- GOOD-MUST\n");
  EXPECT_TRUE(list.diagnostics.contains(where(list, 1, 1) + "expected a map of requirement id -> list of edges"))
      << list.diagnostics.to_string();
  const auto broken = load("GOOD-MUST: [\n");
  ASSERT_EQ(broken.diagnostics.size(), 1u) << broken.diagnostics.to_string();
  EXPECT_GT(broken.diagnostics.items().front().loc.line, 0);
}

TEST(EdgeName, Shape) {
  EXPECT_TRUE(is_edge_name("one-byte-past-end"));
  EXPECT_TRUE(is_edge_name("wrap-2x24"));
  EXPECT_FALSE(is_edge_name(""));
  EXPECT_FALSE(is_edge_name("-x"));
  EXPECT_FALSE(is_edge_name("x-"));
  EXPECT_FALSE(is_edge_name("a--b"));
  EXPECT_FALSE(is_edge_name("Upper"));
  EXPECT_FALSE(is_edge_name("under_score"));
}

}  // namespace
}  // namespace mrc::harness
