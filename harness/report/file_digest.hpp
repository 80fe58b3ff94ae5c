// SHA-256 digests of files (OpenSSL libcrypto), for the manifests the suite writes: the golden
// pcaps' pcaps/MANIFEST today, certification bundles later.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace mrc::harness {

// Lower-case hex SHA-256 of the file's bytes; nullopt when it cannot be read.
std::optional<std::string> sha256_file_hex(const std::filesystem::path& file);

}  // namespace mrc::harness
