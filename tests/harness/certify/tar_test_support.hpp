// Archives as the certify tests build and take apart: whole members in memory, through the
// streaming TarWriter and TarReader (harness/certify/tar_archive.hpp), and files as bytes.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/certify/tar_archive.hpp"

namespace mrc::harness::testing {

struct Member {
  std::string name;
  std::string data;
};

inline std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void put_file(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// Every member of the archive file, data and all. Throws TarError as TarReader does.
inline std::vector<Member> read_members(const std::filesystem::path& file, const TarLimits& limits = {}) {
  std::vector<Member> out;
  TarReader r(file, limits);
  while (const auto m = r.next()) out.push_back({m->name, r.read_all()});
  return out;
}

// The members written to `file` by TarWriter.
inline void write_members(const std::filesystem::path& file, const std::vector<Member>& members) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(file.string() + ": cannot create");
  try {
    TarWriter w(fd, file.string());
    for (const Member& m : members) w.add(m.name, m.data);
    w.finish();
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

}  // namespace mrc::harness::testing
