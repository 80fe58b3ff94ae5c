// Shared by the capture tests: where a test writes its files.
#pragma once

#include <filesystem>
#include <string>

namespace mrc::harness::testing {

// `name` in the scratch folder `folder` of the build tree (made if missing): kept after the test
// for a look at what it wrote, and replaced by the next run.
inline std::filesystem::path scratch_file(const std::string& folder, const std::string& name) {
  auto dir = std::filesystem::path(MRC_BINARY_DIR) / "test-scratch" / folder;
  std::filesystem::create_directories(dir);
  return dir / name;
}

}  // namespace mrc::harness::testing
