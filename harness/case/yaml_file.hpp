// Reading one YAML document from disk without ever throwing: unreadable files, oversized files,
// tabs in indentation, control characters, syntax errors (with yaml-cpp's mark), nesting deeper
// than kMaxYamlDepth, duplicate keys, several documents in one file and empty files all become
// diagnostics (yaml_lint.hpp does the text and tree checks).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "harness/case/diagnostics.hpp"
#include "harness/case/limits.hpp"

namespace mrc::harness {

inline constexpr std::uintmax_t kMaxYamlFileBytes = limits::kMaxYamlFileBytes;

// The single document in `file`, or nullopt after adding diagnostics (file name as `display`).
std::optional<YAML::Node> read_yaml_file(const std::filesystem::path& file, const std::string& display,
                                         Diagnostics& out);

}  // namespace mrc::harness
