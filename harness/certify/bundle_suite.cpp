#include "harness/certify/bundle_suite.hpp"

#include <vector>

namespace mrc::harness {

namespace fs = std::filesystem;

BundleSuiteTree::BundleSuiteTree(const fs::path& cases_dir) {
  std::error_code ec;
  cases_ = fs::absolute(cases_dir, ec).lexically_normal();
  if (cases_.has_parent_path() && cases_.filename().empty()) cases_ = cases_.parent_path();  // "cases/"
}

std::string BundleSuiteTree::manifest_case_path(std::string_view recorded, std::string_view case_id) {
  const fs::path p = fs::path(recorded).lexically_normal();
  std::vector<std::string> parts;
  for (const auto& part : p) parts.push_back(part.string());
  for (std::size_t i = parts.size(); i-- > 0;) {
    if (parts[i] != "cases" || i + 1 >= parts.size()) continue;
    std::string out = "cases";
    for (std::size_t j = i + 1; j < parts.size(); ++j) out += "/" + parts[j];
    return out;
  }
  const std::string_view area = case_id.substr(0, case_id.find('-'));
  return "cases/" + std::string(area) + "/" + p.filename().string();
}

fs::path BundleSuiteTree::locate(std::string_view manifest_path) const {
  constexpr std::string_view kCases = "cases/";
  if (manifest_path.starts_with(kCases)) return cases_ / manifest_path.substr(kCases.size());
  return cases_.parent_path() / manifest_path;
}

}  // namespace mrc::harness
