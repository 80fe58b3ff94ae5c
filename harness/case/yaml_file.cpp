#include "harness/case/yaml_file.hpp"

#include "harness/case/yaml_lint.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

namespace mrc::harness {

std::optional<YAML::Node> read_yaml_file(const std::filesystem::path& file, const std::string& display,
                                         Diagnostics& out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    const bool folder = !ec && std::filesystem::is_directory(file, ec);
    out.add(display, {}, "",
            ec       ? "cannot read: " + ec.message()  // a symlink loop, a permission on the way
            : folder ? std::string("cannot read: a folder, not a file")
                     : std::string("cannot read: not a regular file or does not exist"));
    return std::nullopt;
  }
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) {
    out.add(display, {}, "", "cannot read: " + ec.message());
    return std::nullopt;
  }
  if (size > kMaxYamlFileBytes) {
    out.add(display, {}, "", "file too large (" + std::to_string(size) + " bytes; the limit is " + std::to_string(kMaxYamlFileBytes) +
                           " bytes, kMaxYamlFileBytes in harness/case/limits.hpp)");
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    out.add(display, {}, "", "cannot open for reading");
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_yaml_document(text.str(), display, out);
}

}  // namespace mrc::harness
