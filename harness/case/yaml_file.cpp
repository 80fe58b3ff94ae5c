#include "harness/case/yaml_file.hpp"

#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace mrc::harness {

std::optional<YAML::Node> read_yaml_file(const std::filesystem::path& file, const std::string& display,
                                         Diagnostics& out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    out.add(display, {}, "", "cannot read: not a regular file or does not exist");
    return std::nullopt;
  }
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) {
    out.add(display, {}, "", "cannot read: " + ec.message());
    return std::nullopt;
  }
  if (size > kMaxYamlFileBytes) {
    out.add(display, {}, "", "file too large (" + std::to_string(size) + " bytes; the limit is 4 MiB)");
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    out.add(display, {}, "", "cannot open for reading");
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text.str());
  } catch (const YAML::ParserException& e) {  // includes yaml-cpp's DeepRecursion
    const SourceLoc at = e.mark.line >= 0 ? SourceLoc{e.mark.line + 1, e.mark.column + 1} : SourceLoc{};
    out.add(display, at, "", "YAML syntax error: " + e.msg);
    return std::nullopt;
  } catch (const std::exception& e) {
    out.add(display, {}, "", std::string("YAML error: ") + e.what());
    return std::nullopt;
  }
  if (docs.empty() || docs.front().IsNull()) {
    out.add(display, {}, "", "file is empty");
    return std::nullopt;
  }
  if (docs.size() > 1) {
    const YAML::Mark m = docs[1].Mark();
    const SourceLoc at = m.line >= 0 ? SourceLoc{m.line + 1, m.column + 1} : SourceLoc{};
    out.add(display, at, "", "more than one YAML document; one file holds one document");
    return std::nullopt;
  }
  return docs.front();
}

}  // namespace mrc::harness
