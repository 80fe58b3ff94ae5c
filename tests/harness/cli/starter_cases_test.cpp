// Every starter case PASSes on the reference endpoint and FAILs on the defect it exists to catch
// (design.md §4: every check is proven to bite).
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

struct Starter {
  const char* id;
  const char* defect;  // nullptr: no catalog defect breaks this behaviour
};

constexpr Starter kStarters[] = {
    {"spray-v-001", "spray-single-ev"},   {"spray-v-002", "use-denied-ev"},
    {"reorder-v-001", "sack-off-by-one"}, {"failover-v-001", "keep-failed-ev"},
    {"srcroute-v-001", "srh-wrong-sl"},   {"srcroute-v-002", "usid-reverse"},
    {"reliab-v-001", "no-trim-nack"},     {"evctl-v-001", "use-denied-ev"},
    {"invalid-i-001", nullptr},
};

TEST(StarterCases, AllPassOnTheReferenceEndpoint) {
  TempDir out;
  RunOptions o;
  for (const auto& s : kStarters) o.cases.push_back(case_file(s.id).string());
  o.out = out.path();
  o.jobs = 2;
  const SuiteRun r = run(o);
  ASSERT_TRUE(r.has_result) << r.err;
  for (const auto& s : kStarters) {
    const harness::CaseResult* c = r.find(s.id);
    ASSERT_NE(c, nullptr) << s.id;
    EXPECT_EQ(c->verdict, harness::Verdict::kPass) << s.id << ": " << c->message;
    for (const auto& chk : c->checks) {
      EXPECT_EQ(chk.verdict, harness::Verdict::kPass) << s.id << " " << chk.name << ": " << chk.message;
    }
  }
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  // Evidence: one pcap per tap of the DUT's ports, where the report says.
  const harness::CaseResult* c = r.find("spray-v-001");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->evidence_files.size(), 16u);
  for (const auto& f : c->evidence_files) EXPECT_TRUE(fs::exists(out.path() / f)) << f;
}

class StarterDefect : public ::testing::TestWithParam<Starter> {};

TEST_P(StarterDefect, FailsOnItsDefect) {
  const Starter s = GetParam();
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
  EXPECT_EQ(r.rc, 1);
  // The failing check's message names the requirement it proves.
  bool prefixed = false;
  for (const auto& chk : c->checks) {
    if (chk.verdict == harness::Verdict::kFail) prefixed |= chk.message.rfind('[', 0) == 0;
  }
  EXPECT_TRUE(prefixed);
}

std::vector<Starter> with_defects() {
  std::vector<Starter> v;
  for (const auto& s : kStarters) {
    if (s.defect) v.push_back(s);
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Catalog, StarterDefect, ::testing::ValuesIn(with_defects()),
                         [](const ::testing::TestParamInfo<Starter>& i) {
                           std::string n = std::string(i.param.id) + "_" + i.param.defect;
                           for (char& ch : n) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return n;
                         });

}  // namespace
}  // namespace mrc::run::testing
