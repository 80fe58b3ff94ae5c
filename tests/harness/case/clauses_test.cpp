#include "harness/case/clauses.hpp"

#include <gtest/gtest.h>

#include <array>
#include <regex>
#include <set>

#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

TEST(ProjectClauses, LoadCleanlyAndCoverEveryArea) {
  const ClauseIndex& idx = project_clauses();
  EXPECT_GE(idx.size(), 60u);
  std::set<ClauseArea> areas;
  std::set<Level> levels;
  for (const auto& c : idx.all()) {
    areas.insert(c.area);
    levels.insert(c.level);
    EXPECT_FALSE(c.text.empty()) << c.id;
    EXPECT_FALSE(c.source.empty()) << c.id;
    EXPECT_GT(c.loc.line, 0) << c.id;
  }
  EXPECT_EQ(areas.size(), kClauseAreaNames.size());
  EXPECT_TRUE(levels.contains(Level::kMust));
  EXPECT_TRUE(levels.contains(Level::kShould));
}

TEST(ProjectClauses, LookupAndSuggestion) {
  const ClauseIndex& idx = project_clauses();
  const Clause* c = idx.find("WIRE-ICRC");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->level, Level::kMust);
  EXPECT_EQ(c->area, ClauseArea::kWire);
  EXPECT_EQ(idx.find("WIRE-ICRX"), nullptr);
  EXPECT_EQ(idx.suggest("WIRE-ICRX"), "WIRE-ICRC");
  EXPECT_EQ(idx.suggest("SOMETHING-ELSE-ENTIRELY"), "");
}

TEST(ClauseIds, Shape) {
  EXPECT_TRUE(is_clause_id("SPRAY-PER-PACKET-EV"));
  EXPECT_TRUE(is_clause_id("SRV6-USID-CONTAINER"));
  EXPECT_FALSE(is_clause_id("SPRAY"));           // one word
  EXPECT_FALSE(is_clause_id("spray-per-packet"));
  EXPECT_FALSE(is_clause_id("SPRAY--EV"));
  EXPECT_FALSE(is_clause_id("-SPRAY-EV"));
  EXPECT_FALSE(is_clause_id("SPRAY-EV-"));
  EXPECT_FALSE(is_clause_id("6SPRAY-EV"));
  EXPECT_FALSE(is_clause_id("SPRAY EV"));
}

TEST(LoadClauses, ReportsEveryMistake) {
  const auto file = write_file(scratch_dir() / "clauses.yaml",
                               "- id: GOOD-ONE\n"
                               "  text: fine\n"
                               "  source: test\n"
                               "  basis: published\n"
                               "  level: MUST\n"
                               "  area: spray\n"
                               "- id: GOOD-ONE\n"
                               "  text: again\n"
                               "  source: test\n"
                               "  basis: model\n"
                               "  level: SHOULD\n"
                               "  area: spray\n"
                               "- id: lower-case\n"
                               "  text: t\n"
                               "  source: s\n"
                               "  basis: model\n"
                               "  level: MUST\n"
                               "  area: spray\n"
                               "- id: NO-LEVEL\n"
                               "  txet: t\n"
                               "  source: s\n"
                               "  basis: model\n"
                               "  level: MUTS\n"
                               "  area: sprya\n");
  const ClauseLoadResult r = load_clauses(file);
  const std::string f = file.string();
  EXPECT_TRUE(r.diagnostics.contains(f + ":7:7: [1].id: duplicate clause id 'GOOD-ONE' (first at line 1)")) << r.diagnostics.to_string();
  EXPECT_TRUE(r.diagnostics.contains(f + ":13:7: [2].id: clause id 'lower-case' must be upper-case words"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":20:3: [3]: unknown key 'txet' (did you mean 'text'?)"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":19:3: [3]: missing required key 'text'"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":23:10: [3].level: unknown value 'MUTS' (did you mean 'MUST'?)"));
  EXPECT_TRUE(r.diagnostics.contains(f + ":24:9: [3].area: unknown value 'sprya' (did you mean 'spray'?)"));
  EXPECT_EQ(r.diagnostics.size(), 6u) << r.diagnostics.to_string();
  ASSERT_EQ(r.index.size(), 1u);  // the well-formed entry survives
  EXPECT_NE(r.index.find("GOOD-ONE"), nullptr);
}

// Every requirement must say what it rests on: a missing or misspelt basis is an error at its
// place, like any other key, and the entry is dropped rather than guessed.
TEST(LoadClauses, BasisIsRequiredAndChecked) {
  const auto file = write_file(scratch_dir() / "clauses.yaml",
                               "- id: HAS-BASIS\n"
                               "  text: fine\n"
                               "  source: IBA\n"
                               "  basis: published\n"
                               "  level: MUST\n"
                               "  area: wire\n"
                               "- id: NO-BASIS\n"
                               "  text: t\n"
                               "  source: wire model W5\n"
                               "  level: MUST\n"
                               "  area: wire\n"
                               "- id: BAD-BASIS\n"
                               "  text: t\n"
                               "  source: wire model W5\n"
                               "  basis: modle\n"
                               "  level: SHOULD\n"
                               "  area: wire\n");
  const ClauseLoadResult r = load_clauses(file);
  const std::string f = file.string();
  EXPECT_TRUE(r.diagnostics.contains(f + ":7:3: [1]: missing required key 'basis'")) << r.diagnostics.to_string();
  EXPECT_TRUE(r.diagnostics.contains(f + ":15:10: [2].basis: unknown value 'modle' (did you mean 'model'?)"))
      << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.size(), 2u) << r.diagnostics.to_string();
  ASSERT_EQ(r.index.size(), 1u);
  EXPECT_EQ(r.index.find("HAS-BASIS")->basis, Basis::kPublished);
}

TEST(ProjectClauses, EveryRequirementHasABasisFromItsWireModelEntry) {
  const ClauseIndex& idx = project_clauses();
  std::array<std::size_t, kBasisNames.size()> by{};
  const std::regex w_entry(R"(wire model W[0-9]+)");
  const std::regex old_entry(R"(\bM[0-9]+\b)");
  for (const auto& c : idx.all()) {
    ++by[static_cast<std::size_t>(c.basis)];
    // The rule of the header: a requirement that rests on any MRC 1.0 wire fact or project choice
    // cites its W entry; one that cites none rests on published sources alone.
    if (!std::regex_search(c.source, w_entry)) {
      EXPECT_EQ(c.basis, Basis::kPublished) << c.id;
    }
    EXPECT_FALSE(std::regex_search(c.source, old_entry)) << c.id << ": cites an entry of the older model";
  }
  EXPECT_EQ(by[static_cast<std::size_t>(Basis::kPublished)], 35u);
  EXPECT_EQ(by[static_cast<std::size_t>(Basis::kSpec)], 21u);  // TRIM-DSCP-CONFIGURED: the values are configuration (F5, F6)
  EXPECT_EQ(by[static_cast<std::size_t>(Basis::kSpecSingle)], 20u);
  EXPECT_EQ(by[static_cast<std::size_t>(Basis::kModel)], 18u);  // FAILOVER-INFERRED-LOSS: loss inference is the project's (W6)
  EXPECT_EQ(idx.find("INVALID-WRONG-QPN")->basis, Basis::kPublished);    // IBA alone
  EXPECT_EQ(idx.find("PSN-WRAP")->basis, Basis::kSpec);                  // "SACKed": SETH offsets, F1 and F2
  EXPECT_EQ(idx.find("FB-SACK-BITMAP")->basis, Basis::kSpecSingle);      // the bit order is F1's alone
  EXPECT_EQ(idx.find("EV-STEV-PLACEMENT")->basis, Basis::kModel);        // the split: the project's reading
}

TEST(CaseBasis, TheWeakestBasisOfItsClauses) {
  const ClauseIndex& idx = project_clauses();
  EXPECT_EQ(case_basis({"INVALID-WRONG-QPN"}, idx), Basis::kPublished);
  EXPECT_EQ(case_basis({"WIMM-IMM-DATA", "WIMM-COMPLETION-EXACTLY-ONCE"}, idx), Basis::kPublished);
  EXPECT_EQ(case_basis({"WIMM-IMM-DATA", "PSN-WRAP"}, idx), Basis::kSpec);
  EXPECT_EQ(case_basis({"PSN-WRAP", "FB-SACK-BITMAP", "INVALID-WRONG-QPN"}, idx), Basis::kSpecSingle);
  EXPECT_EQ(case_basis({"FB-SACK-BITMAP", "EV-STEV-PLACEMENT"}, idx), Basis::kModel);
  EXPECT_EQ(case_basis({}, idx), Basis::kPublished);
}

TEST(LoadClauses, TopLevelMustBeAList) {
  const auto file = write_file(scratch_dir() / "clauses.yaml", "id: X-Y\n");
  const ClauseLoadResult r = load_clauses(file);
  EXPECT_TRUE(r.diagnostics.contains("expected a list of clauses")) << r.diagnostics.to_string();
  EXPECT_TRUE(r.index.empty());
}

}  // namespace
}  // namespace mrc::harness
