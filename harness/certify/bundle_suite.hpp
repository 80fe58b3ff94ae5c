// Where a run's case files, clauses.yaml and goldens are in a suite tree, for the certification
// bundle: `cases_dir` is the suite's cases/ folder and goldens ("pcaps/...", relative to the
// repository root, case_model.hpp) live under its parent, as in this repository.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace mrc::harness {

class BundleSuiteTree {
 public:
  explicit BundleSuiteTree(const std::filesystem::path& cases_dir);  // made absolute, normalized

  // A case file as the manifest names it, "cases/<area>/<file>", from the path results.json
  // recorded (relative to the run's suite root, or absolute when the case was outside it):
  // the part after its last "cases" folder, else <area>/<file name> with the area from the id.
  static std::string manifest_case_path(std::string_view recorded, std::string_view case_id);
  // A manifest path ("cases/..." or "pcaps/...") in this tree.
  std::filesystem::path locate(std::string_view manifest_path) const;
  std::filesystem::path clauses() const { return cases_ / "clauses.yaml"; }
  const std::filesystem::path& cases_dir() const { return cases_; }

 private:
  std::filesystem::path cases_;
};

}  // namespace mrc::harness
