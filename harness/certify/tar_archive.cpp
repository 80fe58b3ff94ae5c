// The names a bundle member may have (tar_archive.hpp): the writer refuses to store, and the reader
// to accept, any name an extracting tool could be led outside its folder with.
#include "harness/certify/tar_archive.hpp"

#include <algorithm>

namespace mrc::harness {

std::string tar_name_problem(std::string_view name) {
  // ustar's prefix (155 bytes) and name (100) fields, joined by the '/' split out of them.
  constexpr std::size_t kMaxName = 255;
  if (name.empty()) return "empty path";
  if (name.front() == '/') return "absolute path";
  if (name.size() > kMaxName) return "path longer than 255 bytes";
  if (name.find('\0') != std::string_view::npos) return "path holds a NUL byte";
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part == "..") return "path holds '..'";
    if (part.empty() || part == ".") return "path has an empty or '.' component";
    start = end + 1;
  }
  return "";
}

}  // namespace mrc::harness
