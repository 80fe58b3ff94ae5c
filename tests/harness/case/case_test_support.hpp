// Helpers shared by the case-layer tests: repository paths, a scratch folder per test, and the
// project's requirement index loaded once.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "harness/case/clauses.hpp"

namespace mrc::harness::testing {

inline std::filesystem::path source_dir() { return std::filesystem::path(MRC_SOURCE_DIR); }
inline std::filesystem::path case_tests_dir() { return source_dir() / "tests/harness/case"; }

// The real cases/clauses.yaml; the test fails if it does not load cleanly.
inline const ClauseIndex& project_clauses() {
  static const ClauseLoadResult r = load_clauses(source_dir() / "cases/clauses.yaml");
  EXPECT_TRUE(r.ok()) << r.diagnostics.to_string();
  return r.index;
}

// A fresh, empty folder under the build tree named after the running test.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::path(MRC_BINARY_DIR) / "test-scratch" / "case" /
                   (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::filesystem::path write_file(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A minimal valid case body with the given id (for tests that vary one thing).
inline std::string minimal_case(std::string_view id, std::string_view extra = "") {
  return "id: " + std::string(id) +
         "\ntitle: Minimal case\nclauses: [SPRAY-PER-PACKET-EV]\nlevel: MUST\nbehaviour: valid\n"
         "rationale: A test fixture.\nrole: requester\nstimulus:\n  - traffic: {writes: 10, size: 4096}\n"
         "checks:\n  - {type: positive_control}\n" +
         std::string(extra);
}

}  // namespace mrc::harness::testing
