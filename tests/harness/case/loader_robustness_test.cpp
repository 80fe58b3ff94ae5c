// The loaders never throw and never crash, whatever bytes they are given: seeded random
// mutations of valid files (byte flips, deletions, duplications, truncations, YAML punctuation
// inserted) must each end as either a Case or diagnostics, and never both.
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "harness/case/expectations.hpp"
#include "harness/case/yaml_file.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::case_tests_dir;
using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string mutate(std::string text, std::mt19937_64& rng) {
  static constexpr char kPunct[] = ":-[]{},&*!|>'\"#%@`\t\n ";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = rng() % text.size();
    switch (rng() % 5) {
      case 0: text[at] = static_cast<char>(rng() % 256); break;
      case 1: text.erase(at, 1 + rng() % 8); break;
      case 2: text.insert(at, text.substr(at, 1 + rng() % 16)); break;
      case 3: text.resize(at); break;
      default: text.insert(at, 1, kPunct[rng() % (sizeof kPunct - 1)]); break;
    }
  }
  return text;
}

TEST(LoaderRobustness, RandomMutationsOfValidCasesNeverThrow) {
  const auto dir = scratch_dir();
  std::vector<std::pair<std::string, std::string>> seeds;
  for (const auto& e : std::filesystem::directory_iterator(case_tests_dir() / "valid")) {
    seeds.emplace_back(e.path().filename().string(), read(e.path()));
  }
  ASSERT_FALSE(seeds.empty());
  std::mt19937_64 rng(20260601);
  int loaded = 0;
  int rejected = 0;
  for (int i = 0; i < 1500; ++i) {
    const auto& [name, text] = seeds[rng() % seeds.size()];
    const auto file = write_file(dir / name, mutate(text, rng));
    LoadResult r;
    ASSERT_NO_THROW(r = load_case(file, project_clauses())) << "iteration " << i;
    EXPECT_NE(r.value.has_value(), !r.diagnostics.empty()) << "iteration " << i;
    for (const auto& d : r.diagnostics.items()) {
      EXPECT_FALSE(d.message.empty());
      EXPECT_GE(d.loc.line, 0);
    }
    (r.value ? loaded : rejected) += 1;
  }
  // Most mutations break something, but some land in comments or strings and still load.
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(loaded, 0);
}

TEST(LoaderRobustness, RandomMutationsOfClausesAndExpectationsNeverThrow) {
  const auto dir = scratch_dir();
  const std::string clauses = read(testing::source_dir() / "cases/clauses.yaml");
  const std::string expect =
      "dut: x\nentries:\n  - {case: reliab-v-001, expected: FAIL, reason: r, link: https://x/1, expires: 2026-07-01}\n";
  std::vector<Case> cases(1);
  cases[0].id = "reliab-v-001";
  cases[0].level = Level::kShould;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 300; ++i) {
    ClauseLoadResult c;
    ASSERT_NO_THROW(c = load_clauses(write_file(dir / "clauses.yaml", mutate(clauses, rng))));
    ExpectationLoadResult e;
    ASSERT_NO_THROW(e = load_expectations(write_file(dir / "x.yaml", mutate(expect, rng)), cases, {Date{2026, 6, 1}, 180}));
  }
}

TEST(LoaderRobustness, HostileDocuments) {
  const auto dir = scratch_dir();
  const std::vector<std::string> docs{
      "",                                   // empty
      "\xff\xfe\x00\x01",                   // not text
      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
      "a: &a [*a, *a, *a]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nstimulus: [*c, *c]\nchecks: *c\n",
      "id: &x {id: *x}\n",
      "? [complex, key]\n: value\n",
      "stimulus:\n  - {? [a] : 1}\n",
      "--- !!map\nid: !!binary aGVsbG8=\n",
      std::string(5000, '-') + "\n",
  };
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const auto file = write_file(dir / "spray-v-001.yaml", docs[i]);
    LoadResult r;
    ASSERT_NO_THROW(r = load_case(file, project_clauses())) << "doc " << i;
    EXPECT_FALSE(r.value) << "doc " << i;
    EXPECT_FALSE(r.diagnostics.empty()) << "doc " << i;
  }
}

TEST(LoaderRobustness, OversizedFileIsRefusedWithoutParsing) {
  const auto file = write_file(scratch_dir() / "spray-v-001.yaml", std::string(kMaxYamlFileBytes + 1, '#'));
  const auto r = load_case(file, project_clauses());
  EXPECT_TRUE(r.diagnostics.contains("file too large")) << r.diagnostics.to_string();
}

}  // namespace
}  // namespace mrc::harness
