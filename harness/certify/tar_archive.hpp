// A POSIX ustar archive, written and read by this small code alone (no libarchive): the container
// of a certification bundle (bundle.hpp). Writing is deterministic (members in the order given,
// mode 0644, uid/gid 0, mtime 0, no user or group names), so the same members give the same bytes.
// Reading is strict and bounded: anything but well-formed regular-file members followed by the
// end-of-archive marker is a TarError naming the member and the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mrc::harness {

struct TarMember {
  std::string name;  // relative path, '/'-separated, at most 255 bytes
  std::string data;
};

// Bounds on what read_tar accepts (a bundle is bad input until proven otherwise).
struct TarLimits {
  std::uint64_t max_member_bytes = 1ULL << 30;  // 1 GiB: far above any evidence pcap
  std::size_t max_members = 100'000;
};

// Bad archive: what() names the offset and, when known, the member.
class TarError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The archive: a 512-byte header and the data padded to 512 bytes per member, then two zero
// blocks. Throws TarError when a name cannot be stored (empty, absolute, `..`, too long).
std::string write_tar(std::span<const TarMember> members);

// Every member, in archive order. Throws TarError on a truncated archive, a header whose checksum
// or magic is wrong, a member that is not a regular file, a path that is empty, absolute or holds
// `..`, a size beyond the end of the archive or over `limits`, a duplicate name, or bytes after
// the end-of-archive marker that are not zero.
std::vector<TarMember> read_tar(std::string_view archive, const TarLimits& limits = {});

// Why `name` cannot be a member name ("" when it can).
std::string tar_name_problem(std::string_view name);

}  // namespace mrc::harness
