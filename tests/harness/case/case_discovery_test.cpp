// Which files of a case folder are cases (testbed files beside them are not; a misnamed case is
// an error, never skipped), which clauses.yaml a case outside the suite is checked against, and
// in which order its problems are reported (cases/README.md "Case discovery").
#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "harness/case/limits.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::minimal_case;
using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

std::filesystem::path suite_clauses() { return testing::source_dir() / "cases/clauses.yaml"; }

TEST(CaseDiscovery, ATestbedFileBesideTheCasesIsNotLoadedAsACase) {
  const auto dir = scratch_dir();
  write_file(dir / "spray" / "spray-v-001.yaml", minimal_case("spray-v-001", "testbed: fabric.yaml\n"));
  write_file(dir / "spray" / "fabric.yaml", "name: two-planes\nplanes: 2\nhosts: 4\nlink_gbps: 100\n");
  write_file(dir / "spray" / "lab.yaml", "lab:\n  fabric: mini\n  ports: {p1: eth1}\n");
  const CaseSet set = load_cases(dir, {}, &project_clauses());
  EXPECT_TRUE(set.ok()) << set.diagnostics.to_string();
  EXPECT_EQ(set.files, 1u);
  ASSERT_EQ(set.cases.size(), 1u);
  ASSERT_EQ(set.testbed_files.size(), 2u);
  EXPECT_EQ(set.testbed_files[0].filename(), "fabric.yaml");
  EXPECT_EQ(set.testbed_files[1].filename(), "lab.yaml");
}

TEST(CaseDiscovery, AMisnamedCaseIsAnErrorNotSkipped) {
  const auto dir = scratch_dir();
  write_file(dir / "spray" / "my-new-case.yaml", minimal_case("spray-v-002"));
  const CaseSet set = load_cases(dir, {}, &project_clauses());
  EXPECT_TRUE(set.cases.empty());
  EXPECT_TRUE(set.testbed_files.empty());
  EXPECT_TRUE(set.diagnostics.contains("my-new-case.yaml:1:5: id: id 'spray-v-002' does not match the file name"))
      << set.diagnostics.to_string();
}

TEST(CaseDiscovery, AFileNamedLikeACaseIsLoadedAsOneWhateverItHolds) {
  const auto dir = scratch_dir();
  write_file(dir / "spray" / "spray-v-003.yaml", "planes: 2\nhosts: 4\n");  // testbed keys, case name
  write_file(dir / "spray" / "notes.yaml", "planes: 2\ntitle: not a testbed key\n");
  const CaseSet set = load_cases(dir, {}, &project_clauses());
  EXPECT_TRUE(set.testbed_files.empty());
  EXPECT_EQ(set.files, 2u);
  EXPECT_TRUE(set.diagnostics.contains("spray-v-003.yaml:1:1: unknown key 'planes'")) << set.diagnostics.to_string();
  EXPECT_TRUE(set.diagnostics.contains("notes.yaml:1:1: unknown key 'planes'")) << set.diagnostics.to_string();
}

TEST(CaseDiscovery, AFileNamedDirectlyIsAlwaysACase) {
  const auto dir = scratch_dir();
  const auto file = write_file(dir / "fabric.yaml", "planes: 2\nhosts: 4\n");
  const CaseSet set = load_cases(file, {}, &project_clauses());
  EXPECT_TRUE(set.testbed_files.empty());
  EXPECT_FALSE(set.ok());
}

TEST(CaseDiscovery, ACaseOutsideTheSuiteFallsBackToTheSuitesClauses) {
  const auto dir = scratch_dir();  // no clauses.yaml in it or the folders above
  const auto file = write_file(dir / "x" / "spray-v-001.yaml", minimal_case("spray-v-001"));
  EXPECT_TRUE(load_case(file, suite_clauses()).ok()) << load_case(file, suite_clauses()).diagnostics.to_string();
  const CaseSet set = load_cases(dir, {}, nullptr, suite_clauses());
  EXPECT_TRUE(set.ok()) << set.diagnostics.to_string();
  EXPECT_EQ(set.cases.size(), 1u);
}

TEST(CaseDiscovery, WithoutAnyClausesTheErrorSaysWhatToGive) {
  const auto dir = scratch_dir();
  const auto file = write_file(dir / "x" / "spray-v-001.yaml", minimal_case("spray-v-001"));
  const auto none = load_case(file);
  EXPECT_TRUE(none.diagnostics.contains("no suite clauses.yaml to fall back on (give --clauses FILE)"))
      << none.diagnostics.to_string();
  const auto missing = load_case(file, dir / "nowhere" / "clauses.yaml");
  EXPECT_TRUE(missing.diagnostics.contains("tried the suite's " + (dir / "nowhere" / "clauses.yaml").string()))
      << missing.diagnostics.to_string();
}

TEST(CaseDiscovery, ASyntaxErrorComesBeforeAnyClausesComplaint) {
  const auto dir = scratch_dir();
  const auto file = write_file(dir / "x" / "spray-v-001.yaml", "id: [spray-v-001\n");
  const auto r = load_case(file);
  EXPECT_TRUE(r.diagnostics.contains("YAML syntax error")) << r.diagnostics.to_string();
  EXPECT_FALSE(r.diagnostics.contains("clause")) << r.diagnostics.to_string();
}

TEST(CaseDiscovery, HostileFilesInACaseFolderAreDiagnostics) {
  const auto dir = scratch_dir();
  std::filesystem::create_directories(dir / "spray" / "spray-v-004.yaml");  // a folder named like a case
  write_file(dir / "spray" / "spray-v-005.yaml", "");
  write_file(dir / "spray" / "spray-v-006.yaml", "- a list\n- at the top\n");
  write_file(dir / "spray" / "spray-v-007.yaml", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  std::filesystem::create_symlink("spray-v-008.yaml", dir / "spray" / "spray-v-008.yaml");  // a loop
  const CaseSet set = load_cases(dir / "spray", {}, &project_clauses());
  EXPECT_TRUE(set.cases.empty());
  EXPECT_TRUE(set.diagnostics.contains("spray-v-005.yaml: file is empty")) << set.diagnostics.to_string();
  EXPECT_TRUE(set.diagnostics.contains("spray-v-006.yaml:1:1: expected a map")) << set.diagnostics.to_string();
  EXPECT_TRUE(set.diagnostics.contains("spray-v-007.yaml:1:5: control character 0x02")) << set.diagnostics.to_string();
  // The folder named x.yaml is listed through (it holds nothing); the symlink loop is named directly:
  const auto loop = load_case(dir / "spray" / "spray-v-008.yaml", project_clauses());
  EXPECT_TRUE(loop.diagnostics.contains("spray-v-008.yaml: cannot read: Too many levels of symbolic links"))
      << loop.diagnostics.to_string();
}

TEST(CaseDiscovery, AHugeSparseFileIsRefusedBySizeWithoutBeingRead) {
  const auto file = scratch_dir() / "spray-v-001.yaml";
  { std::ofstream(file) << "id: x\n"; }
  std::filesystem::resize_file(file, 2ull << 30);  // 2 GiB, sparse: reading it would take seconds
  const auto r = load_case(file, project_clauses());
  EXPECT_TRUE(r.diagnostics.contains("file too large (2147483648 bytes; the limit is 4194304 bytes, kMaxYamlFileBytes"))
      << r.diagnostics.to_string();
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace mrc::harness
