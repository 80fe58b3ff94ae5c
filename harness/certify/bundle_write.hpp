// Writing a bundle file (bundle.hpp) from what make_bundle gathered: the manifest and signature in
// memory, every other member streamed from its file on disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mrc::harness {

// A file of the report folder (or the run's expectation file) as a member: hashed by the first
// pass, copied by the second.
struct BundleFile {
  std::string name;            // member name
  std::filesystem::path path;  // where it is on disk
  std::uint64_t size = 0;
  std::string sha256;          // hex, as the manifest records it
};

// Writes manifest.json, `files` in order, then manifest.sig to `out`: to `out`.tmp first, synced,
// then renamed over `out`, so a failure leaves no bundle and no .tmp. Each file is streamed in 1 MiB
// chunks and hashed again on the way: one whose size or SHA-256 is no longer the first pass's is
// refused (BundleInputError), as the manifest would not match it. Throws BundleWriteError when the
// file cannot be written. Returns its size.
std::uint64_t write_bundle_file(const std::filesystem::path& out, std::string_view manifest, const std::vector<BundleFile>& files,
                                std::string_view signature);

}  // namespace mrc::harness
