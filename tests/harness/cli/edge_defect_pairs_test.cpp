// The edge cases of issue 13 item 6, each paired with the catalog defect it exists to catch: every
// one PASSes on the reference endpoint and FAILs on its defect with the failing check naming a
// requirement the defect violates (cases/defects.yaml). Before these cases the suite only reached
// the middle of those requirements and let the defects through (the campaign reports before and
// after; `ctest -L campaign` runs the whole library against the whole catalog).
#include "harness/case/case_loader.hpp"
#include "harness/case/catalog_map.hpp"
#include "harness/studies/campaign.hpp"
#include "reference/defects.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

struct Pair {
  const char* id;
  const char* defect;  // nullptr: no catalog defect breaks only this edge
};

constexpr Pair kPairs[] = {
    {"spray-v-024", "last-reth-len-mtu"},     {"reorder-v-023", "tail-bytes-unplaced"},
    {"reorder-v-024", "region-end-exclusive"}, {"invalid-i-105", "region-end-off-by-one"},
    {"reorder-v-025", "sack-no-wrap"},         {"reorder-v-026", "sack-no-last-bit"},
    {"srcroute-v-022", "usid-short-container"}, {"spray-v-025", "ev-scatter-16"},
    {"reliab-v-020", "backoff-adds-t"},        {"reliab-v-021", "backoff-adds-t"},
    {"reliab-v-022", "no-backoff-cap"},        {"reliab-v-022", "timeout-cap-20"},
    {"reliab-v-026", "no-backoff-cap"},
    {"reliab-v-023", "timeout-cap-20"},        {"reliab-v-024", "retry-one-extra"},
    {"reliab-v-025", "retry-one-extra"},       {"reliab-v-026", "exp25-finite"},
    {"reorder-v-019", "place-trimmed-stub"},   {"spray-v-026", nullptr},
};

TEST(EdgeDefectPairs, AllPassOnTheReferenceEndpoint) {
  TempDir out;
  RunOptions o;
  for (const auto& s : kPairs) {
    const std::string f = case_file(s.id).string();
    if (std::find(o.cases.begin(), o.cases.end(), f) == o.cases.end()) o.cases.push_back(f);
  }
  o.out = out.path();
  o.jobs = 2;
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result) << r.err;
  for (const auto& s : kPairs) {
    const harness::CaseResult* c = r.find(s.id);
    ASSERT_NE(c, nullptr) << s.id;
    EXPECT_EQ(c->verdict, harness::Verdict::kPass) << s.id << ": " << c->message;
  }
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
}

class EdgeDefectPair : public ::testing::TestWithParam<Pair> {};

TEST_P(EdgeDefectPair, FailsOnItsDefectNamingARequirementItViolates) {
  const Pair s = GetParam();
  static const harness::CatalogMapLoadResult map = [] {
    std::vector<std::string_view> names;
    for (const auto& d : ref::defect_catalog()) names.push_back(d.name);
    const auto clauses = harness::load_clauses(source_dir() / "cases" / "clauses.yaml");
    return harness::load_catalog_map(source_dir() / "cases" / harness::kDefectMapName, clauses.index, names, "defect");
  }();
  ASSERT_TRUE(map.ok()) << map.diagnostics.to_string();
  const harness::CatalogRequirements* violates = map.find(s.defect);
  ASSERT_NE(violates, nullptr) << s.defect;
  TempDir out;
  RunOptions o;
  o.cases = {case_file(s.id).string()};
  o.out = out.path();
  o.dut = std::string("reference:") + s.defect;
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result) << r.err;
  const harness::CaseResult* c = r.find(s.id);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, harness::Verdict::kFail) << c->message;
  // Caught as the campaign counts it (studies/campaign.hpp): a FAILing check proving one of the
  // defect's requirements.
  const harness::LoadResult loaded = harness::load_case(case_file(s.id));
  ASSERT_TRUE(loaded.ok()) << loaded.diagnostics.to_string();
  const harness::Case* cases[] = {&*loaded.value};
  const harness::CampaignDefect d{s.defect, "", violates->requirements};
  const harness::DefectOutcome outcome = attribute(d, cases, std::span<const harness::CaseResult>(c, 1));
  EXPECT_TRUE(outcome.caught) << s.id << " on " << s.defect << ": " << c->message;
}

std::vector<Pair> with_defects() {
  std::vector<Pair> v;
  for (const auto& s : kPairs) {
    if (s.defect) v.push_back(s);
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Edges, EdgeDefectPair, ::testing::ValuesIn(with_defects()),
                         [](const ::testing::TestParamInfo<Pair>& i) {
                           std::string n = std::string(i.param.id) + "_" + i.param.defect;
                           for (char& ch : n) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return n;
                         });

}  // namespace
}  // namespace mrc::run::testing
