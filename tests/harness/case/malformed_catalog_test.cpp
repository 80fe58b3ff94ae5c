// The catalog of malformed case files: each file starts with `# expect: <text>` lines, and the
// loader must report exactly those diagnostics (one per line, matched as substrings; a leading
// `L:C:` must be the diagnostic's line and column), no more and no fewer.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::case_tests_dir;
using testing::project_clauses;

std::vector<std::filesystem::path> catalog() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(case_tests_dir() / "malformed")) {
    if (e.path().extension() == ".yaml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> expected_lines(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line) && line.starts_with("# expect: ")) out.push_back(line.substr(10));
  return out;
}

TEST(MalformedCatalog, HasAtLeastThirtyFilesEachWithExpectations) {
  const auto files = catalog();
  EXPECT_GE(files.size(), 30u);
  for (const auto& f : files) EXPECT_FALSE(expected_lines(f).empty()) << f << " has no `# expect:` first line";
}

class MalformedCase : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(MalformedCase, ReportsExactlyTheExpectedDiagnostics) {
  const auto& file = GetParam();
  const auto expected = expected_lines(file);
  ASSERT_FALSE(expected.empty());
  const LoadResult r = load_case(file, project_clauses());
  EXPECT_FALSE(r.value.has_value()) << "a malformed file produced a case";
  std::vector<bool> used(r.diagnostics.size(), false);
  for (const auto& want : expected) {
    // "7:3: ..." must match right after the file name; other text anywhere.
    const std::string needle = (!want.empty() && std::isdigit(static_cast<unsigned char>(want[0]))) ? ":" + want : want;
    bool found = false;
    for (std::size_t i = 0; i < r.diagnostics.size() && !found; ++i) {
      const std::string got = r.diagnostics.items()[i].to_string();
      const auto at = got.find(needle);
      const bool anchored = needle[0] != ':' || at == r.diagnostics.items()[i].file.size();
      if (!used[i] && at != std::string::npos && anchored) used[i] = found = true;
    }
    EXPECT_TRUE(found) << "missing: " << want << "\ngot:\n" << r.diagnostics.to_string();
  }
  EXPECT_EQ(r.diagnostics.size(), expected.size()) << r.diagnostics.to_string();
}

std::string param_name(const ::testing::TestParamInfo<std::filesystem::path>& info) {
  std::string name = std::filesystem::relative(info.param, case_tests_dir() / "malformed").replace_extension().string();
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Catalog, MalformedCase, ::testing::ValuesIn(catalog()), param_name);

}  // namespace
}  // namespace mrc::harness
