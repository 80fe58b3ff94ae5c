// TarReader (tar_archive.hpp): libarchive's tar reader on the file, each header held to what a
// bundle may hold. libarchive ends an archive at a clean end of file or a single zero block and
// never looks past the end marker; the bytes from the last member's end to the end of the file
// are checked here instead, so a bundle cut at a member's end, or with bytes appended, is refused.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "harness/certify/tar_archive.hpp"

namespace mrc::harness {
namespace {

constexpr std::uint64_t kBlock = 512;
constexpr std::uint64_t kTypeFlagAt = 156;  // the ustar header's typeflag byte
constexpr std::size_t kReadBlock = 64 * 1024;  // what libarchive reads from the file at a time
constexpr std::size_t kChunk = 1 << 20;        // what read_data hands out at a time

std::string at(std::uint64_t offset) { return "offset " + std::to_string(offset); }

std::uint64_t padded(std::uint64_t size) { return (size + kBlock - 1) / kBlock * kBlock; }

// Why a header libarchive read is not a ustar header of a regular file ("" when it is).
std::string not_ustar(int format) {
  switch (format) {
    case ARCHIVE_FORMAT_TAR_USTAR: return "";
    case ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE:
    case ARCHIVE_FORMAT_TAR_PAX_RESTRICTED: return "a pax extended header, not plain ustar";
    case ARCHIVE_FORMAT_TAR_GNUTAR: return "a GNU tar header, not ustar";
    default: return "a pre-POSIX tar header, not ustar";
  }
}

std::string not_regular(archive_entry* e) {
  if (const char* target = archive_entry_hardlink(e)) return std::string("a hard link to '") + target + "'";
  switch (archive_entry_filetype(e)) {
    case AE_IFREG: return "";
    case AE_IFLNK: {
      const char* target = archive_entry_symlink(e);
      return std::string("a symbolic link to '") + (target ? target : "") + "'";
    }
    case AE_IFDIR: return "a directory";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a FIFO";
    case AE_IFSOCK: return "a socket";
    default: return "of an unknown type";
  }
}

}  // namespace

TarReader::TarReader(const std::filesystem::path& file, const TarLimits& limits) : limits_(limits) {
  fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw TarError(file.string() + ": cannot open: " + std::strerror(errno));
  try {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw TarError(file.string() + ": cannot read: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw TarError(file.string() + ": not a regular file");
    file_size_ = static_cast<std::uint64_t>(st.st_size);
    if (file_size_ > limits_.max_archive_bytes) {
      throw TarError(std::to_string(file_size_) + " bytes, over the limit of " + std::to_string(limits_.max_archive_bytes) +
                     " for a bundle");
    }
    a_ = archive_read_new();
    if (a_ == nullptr) throw TarError(file.string() + ": out of memory");
    // Tar alone, no decompression filter: a bundle is never compressed, and each format or filter
    // read is more code a vendor's file reaches.
    archive_read_support_format_tar(a_);
    buf_.resize(kChunk);
    // Opening reads the first header to recognise the format.
    if (archive_read_open_fd(a_, fd_, kReadBlock) != ARCHIVE_OK) fail_between(archive_error_string(a_));
  } catch (...) {
    if (a_ != nullptr) archive_read_free(a_);
    ::close(fd_);
    throw;
  }
}

TarReader::~TarReader() {
  archive_read_free(a_);
  ::close(fd_);
}

void TarReader::fail_between(const std::string& libarchive_says) const {
  const std::string last = current_ ? " (last member '" + current_->name + "')" : std::string();
  const std::uint64_t e = next_offset_;
  if (file_size_ < e) {
    throw TarError("tar member '" + current_->name + "' at " + at(current_->offset) + ": padding of its data is cut off at " +
                   at(file_size_) + " (truncated archive)");
  }
  const std::uint64_t left = file_size_ - e;
  if (left == 0) throw TarError("truncated archive: ends at " + at(e) + " before the end-of-archive marker" + last);
  if (left < kBlock) throw TarError("truncated archive: partial header at " + at(e) + " before the end-of-archive marker" + last);
  throw TarError("no valid ustar header at " + at(e) + (current_ ? ", after member '" + current_->name + "'" : std::string()) +
                 " (libarchive: " + (libarchive_says.empty() ? "unreadable" : libarchive_says) + ")");
}

std::optional<TarMemberInfo> TarReader::next() {
  if (current_) next_offset_ = current_->offset + kBlock + padded(current_->size);
  archive_entry* e = nullptr;
  const int r = archive_read_next_header(a_, &e);
  if (r == ARCHIVE_EOF) {
    check_end();
    current_.reset();
    return std::nullopt;
  }
  if (r != ARCHIVE_OK) {
    const char* why = archive_error_string(a_);
    fail_between(why ? why : "");
  }
  TarMemberInfo m;
  m.offset = static_cast<std::uint64_t>(archive_read_header_position(a_));
  const char* name = archive_entry_pathname(e);
  m.name = name ? name : "";
  const std::string who = "tar member '" + m.name + "' at " + at(m.offset);
  if (const std::string why = not_ustar(archive_format(a_)); !why.empty()) throw TarError(who + ": " + why);
  // Plain ustar is one header block per member: anything libarchive read past is not plain.
  if (m.offset != next_offset_) throw TarError(who + ": expected at " + at(next_offset_) + ", not plain ustar");
  if (const std::string why = not_regular(e); !why.empty()) throw TarError(who + ": not a regular file: " + why);
  // libarchive reads a type flag it does not know ('7' contiguous file, 'Z', any letter) as a
  // regular file; a bundle's members are typed '0' (or NUL, as older writers did). The flag is
  // byte 156 of the header block.
  char flag = 0;
  if (::pread(fd_, &flag, 1, static_cast<off_t>(m.offset + kTypeFlagAt)) != 1) {
    throw TarError(who + ": cannot read its header again: " + std::strerror(errno));
  }
  if (flag != '0' && flag != '\0') {
    throw TarError(who + ": not a regular file: type flag '" + std::string(1, flag) + "' (a bundle holds type '0' only)");
  }
  if (const std::string why = tar_name_problem(m.name); !why.empty()) throw TarError(who + ": " + why);
  const la_int64_t size = archive_entry_size(e);
  if (size < 0) throw TarError(who + ": no size");
  m.size = static_cast<std::uint64_t>(size);
  if (m.size > limits_.max_member_bytes) {
    throw TarError(who + ": size " + std::to_string(m.size) + " is over the limit of " +
                   std::to_string(limits_.max_member_bytes) + " bytes");
  }
  const std::uint64_t data_off = m.offset + kBlock;
  if (m.size > file_size_ - std::min(file_size_, data_off)) {
    throw TarError(who + ": declares " + std::to_string(m.size) + " bytes but only " +
                   std::to_string(file_size_ - std::min(file_size_, data_off)) + " remain (truncated archive)");
  }
  if (!names_.insert(m.name).second) throw TarError(who + ": duplicate name");
  if (count_ >= limits_.max_members) throw TarError(who + ": more than " + std::to_string(limits_.max_members) + " members");
  ++count_;
  current_ = m;
  return m;
}

void TarReader::read_data(const std::function<void(std::string_view)>& chunk) {
  if (!current_) throw TarError("tar: no member to read");
  std::uint64_t got = 0;
  for (;;) {
    const la_ssize_t n = archive_read_data(a_, buf_.data(), buf_.size());
    if (n == 0) break;
    if (n < 0) {
      // libarchive takes the padding with the last of the data: the data whole, its padding cut.
      const std::uint64_t data_end = current_->offset + kBlock + current_->size;
      if (data_end <= file_size_ && data_end + (padded(current_->size) - current_->size) > file_size_) {
        throw TarError("tar member '" + current_->name + "' at " + at(current_->offset) +
                       ": padding of its data is cut off at " + at(file_size_) + " (truncated archive)");
      }
      const char* why = archive_error_string(a_);
      throw TarError("tar member '" + current_->name + "' at " + at(current_->offset) + ": reading its data failed after " +
                     std::to_string(got) + " of " + std::to_string(current_->size) + " bytes: " + (why ? why : "") +
                     " (truncated archive)");
    }
    got += static_cast<std::uint64_t>(n);
    chunk(std::string_view(buf_.data(), static_cast<std::size_t>(n)));
  }
  if (got != current_->size) {
    throw TarError("tar member '" + current_->name + "' at " + at(current_->offset) + ": " + std::to_string(got) +
                   " bytes of data, its header declares " + std::to_string(current_->size));
  }
}

std::string TarReader::read_all() {
  std::string out;
  if (current_) out.reserve(current_->size);
  read_data([&out](std::string_view c) { out.append(c); });
  return out;
}

void TarReader::check_end() const {
  const std::uint64_t e = next_offset_;
  if (file_size_ < e + 2 * kBlock) {
    if (file_size_ < e + kBlock) fail_between("");
    throw TarError("truncated archive: a single zero block at " + at(e) + ", not the two of the end-of-archive marker" +
                   (current_ ? " (last member '" + current_->name + "')" : std::string()));
  }
  // The end marker and every byte after it: zeros (tar(1) pads to a 10 KiB record), nothing else.
  std::vector<char> buf(kReadBlock);
  for (std::uint64_t off = e; off < file_size_;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), file_size_ - off));
    const ssize_t n = ::pread(fd_, buf.data(), want, static_cast<off_t>(off));
    if (n <= 0) throw TarError("cannot read the end of the archive at " + at(off) + ": " + (n < 0 ? std::strerror(errno) : "file shrank"));
    const auto* first = std::find_if(buf.data(), buf.data() + n, [](char c) { return c != '\0'; });
    if (first != buf.data() + n) {
      const std::uint64_t bad = off + static_cast<std::uint64_t>(first - buf.data());
      if (bad < e + 2 * kBlock) {
        throw TarError("truncated archive: a single zero block at " + at(e) + ", not the two of the end-of-archive marker");
      }
      throw TarError("data after the end-of-archive marker at " + at(e + 2 * kBlock));
    }
    off += static_cast<std::uint64_t>(n);
  }
}

}  // namespace mrc::harness
