// Reading one YAML document from disk without ever throwing: unreadable files, oversized files,
// syntax errors (with yaml-cpp's mark), several documents in one file and empty files all become
// diagnostics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "harness/case/diagnostics.hpp"

namespace mrc::harness {

// Largest file a loader accepts; case, clause and expectation files are a few KiB.
inline constexpr std::uintmax_t kMaxYamlFileBytes = 4u << 20;

// The single document in `file`, or nullopt after adding diagnostics (file name as `display`).
std::optional<YAML::Node> read_yaml_file(const std::filesystem::path& file, const std::string& display,
                                         Diagnostics& out);

}  // namespace mrc::harness
