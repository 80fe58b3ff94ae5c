#include "harness/certify/tar_archive.hpp"

#include <algorithm>
#include <cstring>
#include <set>

namespace mrc::harness {
namespace {

constexpr std::size_t kBlock = 512;
// Field offsets and lengths of the ustar header (POSIX.1-1988).
constexpr std::size_t kName = 0, kNameLen = 100;
constexpr std::size_t kMode = 100, kUid = 108, kGid = 116, kNumLen = 8;
constexpr std::size_t kSize = 124, kMtime = 136, kBigNumLen = 12;
constexpr std::size_t kChksum = 148, kChksumLen = 8;
constexpr std::size_t kTypeflag = 156;
constexpr std::size_t kMagic = 257;  // "ustar\0" then version "00"
constexpr std::size_t kPrefix = 345, kPrefixLen = 155;

std::string at(std::size_t offset) { return "offset " + std::to_string(offset); }

void put_octal(char* field, std::size_t len, std::uint64_t v) {
  // len-1 octal digits, zero-padded, then NUL.
  for (std::size_t i = len - 1; i-- > 0;) {
    field[i] = static_cast<char>('0' + (v & 7));
    v >>= 3;
  }
  field[len - 1] = '\0';
}

unsigned checksum(const char* h) {
  unsigned sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i) {
    const bool in_field = i >= kChksum && i < kChksum + kChksumLen;
    sum += in_field ? ' ' : static_cast<unsigned char>(h[i]);
  }
  return sum;
}

// An octal field: digits, optionally led by spaces and ended by NUL or spaces. nullopt-like
// failure reported by `ok`.
std::uint64_t read_octal(const char* field, std::size_t len, bool& ok) {
  std::size_t i = 0;
  while (i < len && field[i] == ' ') ++i;
  std::uint64_t v = 0;
  std::size_t digits = 0;
  for (; i < len && field[i] >= '0' && field[i] <= '7'; ++i, ++digits) {
    if (v >> 60) {
      ok = false;
      return 0;
    }
    v = (v << 3) | static_cast<std::uint64_t>(field[i] - '0');
  }
  for (; i < len; ++i) {
    if (field[i] != '\0' && field[i] != ' ') ok = false;
  }
  if (digits == 0) ok = false;
  return v;
}

std::string c_string(const char* field, std::size_t len) {
  return std::string(field, strnlen(field, len));
}

bool all_zero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == '\0'; });
}

}  // namespace

std::string tar_name_problem(std::string_view name) {
  if (name.empty()) return "empty path";
  if (name.front() == '/') return "absolute path";
  if (name.size() > kNameLen + kPrefixLen) return "path longer than 255 bytes";
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

std::string write_tar(std::span<const TarMember> members) {
  std::size_t total = 2 * kBlock;
  for (const auto& m : members) total += kBlock + (m.data.size() + kBlock - 1) / kBlock * kBlock;
  std::string out;
  out.reserve(total);
  for (const auto& m : members) {
    if (const std::string why = tar_name_problem(m.name); !why.empty()) {
      throw TarError("tar member '" + m.name + "': " + why);
    }
    char h[kBlock] = {};
    // A name over 100 bytes is split at a '/' into prefix (<= 155) and name (<= 100).
    std::string_view name = m.name, prefix;
    if (name.size() > kNameLen) {
      std::size_t cut = name.rfind('/', kPrefixLen);
      while (cut != std::string_view::npos && name.size() - cut - 1 > kNameLen) cut = std::string_view::npos;
      if (cut == std::string_view::npos || cut == 0) {
        throw TarError("tar member '" + m.name + "': path cannot be split into ustar prefix and name");
      }
      prefix = name.substr(0, cut);
      name = name.substr(cut + 1);
    }
    std::memcpy(h + kName, name.data(), name.size());
    std::memcpy(h + kPrefix, prefix.data(), prefix.size());
    put_octal(h + kMode, kNumLen, 0644);
    put_octal(h + kUid, kNumLen, 0);
    put_octal(h + kGid, kNumLen, 0);
    put_octal(h + kSize, kBigNumLen, m.data.size());
    put_octal(h + kMtime, kBigNumLen, 0);
    h[kTypeflag] = '0';
    std::memcpy(h + kMagic, "ustar\0" "00", 8);
    const unsigned sum = checksum(h);
    put_octal(h + kChksum, 7, sum);  // six digits, NUL, then a space (the traditional form)
    h[kChksum + 7] = ' ';
    out.append(h, kBlock);
    out += m.data;
    out.append((kBlock - m.data.size() % kBlock) % kBlock, '\0');
  }
  out.append(2 * kBlock, '\0');
  return out;
}

std::vector<TarMember> read_tar(std::string_view a, const TarLimits& limits) {
  std::vector<TarMember> members;
  std::set<std::string, std::less<>> names;
  std::size_t off = 0;
  for (;;) {
    if (a.size() - off < kBlock) {
      throw TarError("truncated archive: " + std::string(off == a.size() ? "ends" : "partial header") + " at " + at(off) +
                     " before the end-of-archive marker" +
                     (members.empty() ? std::string() : " (last member '" + members.back().name + "')"));
    }
    const char* h = a.data() + off;
    if (all_zero(a.substr(off, kBlock))) {
      if (a.size() - off < 2 * kBlock || !all_zero(a.substr(off + kBlock, kBlock))) {
        throw TarError("truncated archive: a single zero block at " + at(off) +
                       ", not the two of the end-of-archive marker");
      }
      const std::size_t end = off + 2 * kBlock;
      if (!all_zero(a.substr(end))) throw TarError("data after the end-of-archive marker at " + at(end));
      return members;
    }
    // The magic first: a block that is no header has no name worth quoting.
    if (std::memcmp(h + kMagic, "ustar\0" "00", 8) != 0) {
      throw TarError("no ustar header at " + at(off) + " (wrong magic)" +
                     (members.empty() ? std::string() : ", after member '" + members.back().name + "'"));
    }
    std::string name = c_string(h + kName, kNameLen);
    const std::string prefix = c_string(h + kPrefix, kPrefixLen);
    if (!prefix.empty()) name = prefix + "/" + name;
    const std::string who = "tar member '" + name + "' at " + at(off);
    bool ok = true;
    const std::uint64_t stored_sum = read_octal(h + kChksum, kChksumLen, ok);
    if (!ok || stored_sum != checksum(h)) {
      throw TarError(who + ": header checksum mismatch (stored " + std::to_string(stored_sum) + ", computed " +
                     std::to_string(checksum(h)) + ")");
    }
    if (h[kTypeflag] != '0' && h[kTypeflag] != '\0') {
      throw TarError(who + ": not a regular file (type '" + std::string(1, h[kTypeflag]) + "')");
    }
    if (const std::string why = tar_name_problem(name); !why.empty()) throw TarError(who + ": " + why);
    const std::uint64_t size = read_octal(h + kSize, kBigNumLen, ok);
    if (!ok) throw TarError(who + ": size field is not an octal number");
    if (size > limits.max_member_bytes) {
      throw TarError(who + ": size " + std::to_string(size) + " is over the limit of " +
                     std::to_string(limits.max_member_bytes) + " bytes");
    }
    const std::size_t data_off = off + kBlock;
    if (size > a.size() - data_off) {
      throw TarError(who + ": declares " + std::to_string(size) + " bytes but only " +
                     std::to_string(a.size() - data_off) + " remain (truncated archive)");
    }
    if (!names.insert(name).second) throw TarError(who + ": duplicate name");
    if (members.size() >= limits.max_members) {
      throw TarError(who + ": more than " + std::to_string(limits.max_members) + " members");
    }
    members.push_back({name, std::string(a.substr(data_off, size))});
    const std::size_t padded = (size + kBlock - 1) / kBlock * kBlock;
    if (padded > a.size() - data_off) {
      throw TarError(who + ": padding of its data is cut off at " + at(a.size()) + " (truncated archive)");
    }
    off = data_off + padded;
  }
}

}  // namespace mrc::harness
