// A POSIX ustar archive through libarchive: the container of a certification bundle (bundle.hpp).
// Both ways stream: the writer takes each member's data in chunks straight to the output file, the
// reader hands each member's data out in chunks from the file, so no archive and no member need be
// in memory whole.
//
// Writing is deterministic: members in the order given, mode 0644, uid/gid 0, mtime 0, no user or
// group names, the end-of-archive marker unpadded. libarchive's ustar headers end their numbers
// with a space where the hand-written writer before it (until commit 8dc68f8) ended them with a NUL,
// fill devmajor/devminor with zeros it left empty, and split a path over 100 bytes with two places
// to split at the first that fits (it took the last). No setting of libarchive changes these, so
// the bytes differ from its bundles in those header fields (and the checksum) alone;
// tests/harness/certify/tar_archive_test.cpp pins both writers' bytes.
//
// Reading is strict and bounded: the file is refused before reading when over the limit, then
// anything but plain ustar headers of regular files with safe, unique names within the limits,
// followed by the end-of-archive marker and nothing but zeros, is a TarError naming the member and
// its byte offset. Written by the old writer or this one, a bundle reads the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct archive;

namespace mrc::harness {

// Bounds on what TarReader accepts (a bundle is bad input until proven otherwise).
struct TarLimits {
  std::uint64_t max_member_bytes = 1ULL << 30;   // 1 GiB: far above any evidence pcap
  std::size_t max_members = 100'000;
  std::uint64_t max_archive_bytes = 4ULL << 30;  // 4 GiB: a full run's bundle is about 100 MB
};

// Bad archive, or an archive that cannot be written: what() names the offset and, when known, the
// member.
class TarError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Why `name` cannot be a member name ("" when it can): empty, absolute, over 255 bytes, a NUL, or
// an empty, '.' or '..' component.
std::string tar_name_problem(std::string_view name);

// Writes an archive to an open file descriptor (left open: the caller syncs and renames).
class TarWriter {
 public:
  // `what` names the output in errors.
  TarWriter(int fd, std::string what);
  ~TarWriter();
  TarWriter(const TarWriter&) = delete;
  TarWriter& operator=(const TarWriter&) = delete;

  // A member of `size` bytes whose data follows in write() calls that add up to `size`. Throws
  // TarError for a name tar_name_problem refuses or ustar cannot hold, or the previous member cut
  // short.
  void begin(std::string_view name, std::uint64_t size);
  void write(std::string_view chunk);
  // begin() and write() of a member held in memory.
  void add(std::string_view name, std::string_view data);
  // The end-of-archive marker; returns the archive's size in bytes. Nothing may be added after it.
  std::uint64_t finish();

 private:
  void fail(const std::string& what) const;
  archive* a_;
  std::string what_;
  std::string member_;
  std::uint64_t left_ = 0;  // bytes of the current member still to come
  bool finished_ = false;
};

// One member's header, checked.
struct TarMemberInfo {
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;  // of its header in the archive
};

// Reads an archive file member by member: next() gives each header, read_data() its bytes.
class TarReader {
 public:
  // Opens `file`. Throws TarError when it cannot be opened, is not a regular file, is over
  // limits.max_archive_bytes (before a byte is read) or does not start like an archive.
  explicit TarReader(const std::filesystem::path& file, const TarLimits& limits = {});
  ~TarReader();
  TarReader(const TarReader&) = delete;
  TarReader& operator=(const TarReader&) = delete;

  // The next member, or nullopt after the last one once the end-of-archive marker and what follows
  // it are checked. Skips what read_data() did not take of the previous member. Throws TarError.
  std::optional<TarMemberInfo> next();
  // The current member's data, in chunks of at most 1 MiB, in order. Throws TarError (truncated).
  void read_data(const std::function<void(std::string_view)>& chunk);
  // The current member's data whole (for the small members callers hold).
  std::string read_all();
  std::uint64_t file_size() const { return file_size_; }

 private:
  [[noreturn]] void fail_between(const std::string& libarchive_says) const;
  void check_end() const;
  archive* a_ = nullptr;
  int fd_ = -1;
  std::uint64_t file_size_ = 0;
  TarLimits limits_;
  std::size_t count_ = 0;
  std::optional<TarMemberInfo> current_;
  std::uint64_t next_offset_ = 0;  // where the header after the current member starts
  std::set<std::string, std::less<>> names_;
  std::vector<char> buf_;
};

}  // namespace mrc::harness
