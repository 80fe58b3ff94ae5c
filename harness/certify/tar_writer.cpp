// TarWriter (tar_archive.hpp): libarchive's ustar writer on a file descriptor, fed member by member
// and chunk by chunk.
#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include "harness/certify/tar_archive.hpp"

namespace mrc::harness {
namespace {

// Blocks libarchive fills before each write(2); the last one is written as far as it is filled
// (archive_write_set_bytes_in_last_block 1), so the archive ends right after its end marker, as
// the bundles before libarchive did, not padded to a 10 KiB record as tar(1) pads.
constexpr int kBytesPerBlock = 64 * 1024;

}  // namespace

TarWriter::TarWriter(int fd, std::string what) : a_(archive_write_new()), what_(std::move(what)) {
  if (a_ == nullptr) throw TarError(what_ + ": cannot start an archive (out of memory)");
  if (archive_write_set_format_ustar(a_) != ARCHIVE_OK || archive_write_add_filter_none(a_) != ARCHIVE_OK ||
      archive_write_set_bytes_per_block(a_, kBytesPerBlock) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(a_, 1) != ARCHIVE_OK || archive_write_open_fd(a_, fd) != ARCHIVE_OK) {
    const std::string why = archive_error_string(a_) ? archive_error_string(a_) : "libarchive refused the settings";
    archive_write_free(a_);
    throw TarError(what_ + ": cannot start an archive: " + why);
  }
}

TarWriter::~TarWriter() {
  // An archive abandoned half way (an exception) is not completed: the caller removes the file.
  if (!finished_) archive_write_fail(a_);
  archive_write_free(a_);
}

void TarWriter::fail(const std::string& what) const {
  const char* why = archive_error_string(a_);
  throw TarError(what_ + ": " + what + (why ? std::string(": ") + why : std::string()));
}

void TarWriter::begin(std::string_view name, std::uint64_t size) {
  if (finished_) throw TarError(what_ + ": tar member '" + std::string(name) + "' added after the end of the archive");
  if (left_ != 0) {
    throw TarError(what_ + ": tar member '" + member_ + "' cut short: " + std::to_string(left_) + " bytes of it missing");
  }
  member_ = std::string(name);
  if (const std::string why = tar_name_problem(name); !why.empty()) throw TarError("tar member '" + member_ + "': " + why);
  const std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(), &archive_entry_free);
  if (!e) throw TarError(what_ + ": out of memory");
  // What the header holds beyond name and size is fixed, so the same members give the same bytes.
  archive_entry_copy_pathname(e.get(), member_.c_str());
  archive_entry_set_size(e.get(), static_cast<la_int64_t>(size));
  archive_entry_set_filetype(e.get(), AE_IFREG);
  archive_entry_set_perm(e.get(), 0644);
  archive_entry_set_uid(e.get(), 0);
  archive_entry_set_gid(e.get(), 0);
  archive_entry_set_mtime(e.get(), 0, 0);
  // A path over 100 bytes that has no '/' to split it into ustar's prefix and name is refused here.
  if (archive_write_header(a_, e.get()) != ARCHIVE_OK) fail("tar member '" + member_ + "' cannot be stored");
  left_ = size;
}

void TarWriter::write(std::string_view chunk) {
  if (chunk.size() > left_) {
    throw TarError(what_ + ": tar member '" + member_ + "': " + std::to_string(chunk.size() - left_) +
                   " bytes more than its header declares");
  }
  if (chunk.empty()) return;
  const la_ssize_t n = archive_write_data(a_, chunk.data(), chunk.size());
  if (n < 0 || static_cast<std::size_t>(n) != chunk.size()) fail("writing tar member '" + member_ + "' failed");
  left_ -= chunk.size();
}

void TarWriter::add(std::string_view name, std::string_view data) {
  begin(name, data.size());
  write(data);
}

std::uint64_t TarWriter::finish() {
  if (left_ != 0) {
    throw TarError(what_ + ": tar member '" + member_ + "' cut short: " + std::to_string(left_) + " bytes of it missing");
  }
  // close writes the last member's padding, the two zero blocks of the end marker, and flushes.
  if (archive_write_close(a_) != ARCHIVE_OK) fail("writing the end of the archive failed");
  finished_ = true;
  return static_cast<std::uint64_t>(archive_filter_bytes(a_, -1));
}

}  // namespace mrc::harness
