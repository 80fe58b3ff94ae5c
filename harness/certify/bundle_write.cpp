// write_bundle_file (bundle_write.hpp): the second pass of `bundle`, from the files to the archive.
#include "harness/certify/bundle_write.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "harness/certify/bundle.hpp"
#include "harness/certify/bundle_crypto.hpp"
#include "harness/certify/tar_archive.hpp"
#include "harness/report/atomic_file.hpp"
#include "harness/report/report.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kChunk = 1 << 20;

// One file into the archive, chunk by chunk, checked against what the manifest says of it.
void copy_member(TarWriter& w, const BundleFile& f, std::vector<char>& buf) {
  std::ifstream in(f.path, std::ios::binary);
  if (!in) throw BundleInputError(f.path.string() + ": cannot read: " + std::strerror(errno));
  w.begin(f.name, f.size);
  Sha256 sha;
  std::uint64_t left = f.size;
  while (left > 0) {
    in.read(buf.data(), static_cast<std::streamsize>(std::min<std::uint64_t>(buf.size(), left)));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    sha.update({buf.data(), got});
    w.write({buf.data(), got});
    left -= got;
  }
  const bool longer = left == 0 && in.peek() != std::char_traits<char>::eof();
  if (left > 0 || longer || sha.hex() != f.sha256) {
    throw BundleInputError(f.path.string() + ": changed while it was being bundled (" +
                           (left > 0 ? "now shorter than" : longer ? "now longer than" : "other bytes than") +
                           " when it was hashed): bundle a report nothing is writing to");
  }
}

// The archive on an open file; TarError is a write failure (the names were checked before).
std::uint64_t write_archive(int fd, const fs::path& tmp, std::string_view manifest, const std::vector<BundleFile>& files,
                            std::string_view signature) {
  try {
    TarWriter w(fd, tmp.string());
    w.add(kBundleManifestName, manifest);
    std::vector<char> buf(kChunk);
    for (const BundleFile& f : files) copy_member(w, f, buf);
    w.add(kBundleSignatureName, signature);
    return w.finish();
  } catch (const TarError& e) {
    throw BundleWriteError(e.what());
  }
}

}  // namespace

std::uint64_t write_bundle_file(const fs::path& out, std::string_view manifest, const std::vector<BundleFile>& files,
                                std::string_view signature) {
  fs::path tmp = out;
  tmp += ".tmp";
  std::uint64_t size = 0;
  // The report folder's bracket (atomic_file.hpp): FILE.tmp, synced, renamed; removed on failure.
  try {
    write_through_tmp(out, [&](int fd) { size = write_archive(fd, tmp, manifest, files, signature); });
  } catch (const ReportError& e) {
    throw BundleWriteError(e.what());
  }
  return size;
}

}  // namespace mrc::harness
