// The bundle's ustar container: deterministic writing, and strict reading that names the member
// and offset of every kind of damage.
#include "harness/certify/tar_archive.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace mrc::harness {
namespace {

std::vector<TarMember> sample() {
  return {{"manifest.json", "{}\n"},
          {"evidence/spray-v-001/dut.p1.tx.pcapng", std::string(1500, 'x')},
          {"empty.txt", ""},
          {std::string(120, 'd') + "/" + std::string(90, 'f'), "long name"},
          {"exactly.bin", std::string(512, '\x01')}};
}

// Rewrites a header field of the member whose header starts at `off` and fixes its checksum, so
// the reader gets past the checksum to the damage under test.
void patch_header(std::string& tar, std::size_t off, std::size_t field, std::string_view value, std::size_t len) {
  std::memset(tar.data() + off + field, 0, len);
  std::memcpy(tar.data() + off + field, value.data(), value.size());
  unsigned sum = 0;
  for (std::size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(tar[off + i]);
  char buf[8];
  std::snprintf(buf, sizeof buf, "%06o", sum);
  std::memcpy(tar.data() + off + 148, buf, 7);
}

std::string error_of(std::string_view tar, const TarLimits& limits = {}) {
  try {
    read_tar(tar, limits);
  } catch (const TarError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TarArchive, RoundTripsEveryMemberInOrder) {
  const auto members = sample();
  const std::string tar = write_tar(members);
  EXPECT_EQ(tar.size() % 512, 0u);
  const auto back = read_tar(tar);
  ASSERT_EQ(back.size(), members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ(back[i].name, members[i].name);
    EXPECT_EQ(back[i].data, members[i].data);
  }
}

TEST(TarArchive, SameMembersSameBytes) {
  EXPECT_EQ(write_tar(sample()), write_tar(sample()));
}

TEST(TarArchive, SystemTarReadsIt) {
  // The format is plain ustar: GNU tar lists the same names (the long one through its prefix).
  const std::string tar = write_tar(sample());
  const std::string path = testing::TempDir() + "/mrc-tar-test.tar";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(tar.data(), 1, tar.size(), f);
  std::fclose(f);
  std::FILE* p = ::popen(("tar -tf " + path + " 2>&1").c_str(), "r");
  if (p == nullptr) GTEST_SKIP() << "no tar";
  std::string listing;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) listing += buf;
  if (::pclose(p) != 0 && listing.find("not found") != std::string::npos) GTEST_SKIP() << "no tar";
  for (const auto& m : sample()) EXPECT_NE(listing.find(m.name + "\n"), std::string::npos) << listing;
  std::remove(path.c_str());
}

TEST(TarArchive, EveryTruncationIsAnError) {
  const std::string tar = write_tar(sample());
  for (std::size_t cut = 0; cut < tar.size(); cut += 97) {
    EXPECT_NE(error_of(tar.substr(0, cut)), "(no error)") << "cut at " << cut;
  }
  for (std::size_t cut = 0; cut < tar.size(); cut += 512) {
    EXPECT_NE(error_of(tar.substr(0, cut)).find("truncated"), std::string::npos) << "cut at " << cut;
  }
  // In the middle of the second member's data (its header at 1024, after manifest.json's header
  // and data block): named, with the bytes it lacks.
  const std::string mid = error_of(tar.substr(0, 1024 + 512 + 188));
  EXPECT_NE(mid.find("'evidence/spray-v-001/dut.p1.tx.pcapng' at offset 1024: declares 1500 bytes but only 188 remain"),
            std::string::npos)
      << mid;
}

TEST(TarArchive, HeaderChecksumMismatchNamesTheMember) {
  std::string tar = write_tar(sample());
  tar[1024 + 10] ^= 0x01;  // inside the second member's name: evidence/spray-v-001 -> evidence/spray-w-001
  const std::string e = error_of(tar);
  EXPECT_NE(e.find("at offset 1024: header checksum mismatch"), std::string::npos) << e;
}

TEST(TarArchive, UnsafeNamesAreRefused) {
  for (const char* bad : {"../etc/passwd", "/etc/passwd", "a/../../b", "a//b", "./a"}) {
    std::string tar = write_tar(sample());
    patch_header(tar, 0, 0, bad, 100);
    const std::string e = error_of(tar);
    EXPECT_NE(e.find(std::string("'") + bad + "' at offset 0"), std::string::npos) << bad << ": " << e;
    EXPECT_THROW(write_tar(std::vector<TarMember>{{bad, "x"}}), TarError) << bad;
  }
}

TEST(TarArchive, SizeBeyondTheFileOrOverTheLimit) {
  std::string tar = write_tar(sample());
  patch_header(tar, 0, 124, "00004000000", 12);  // 1 MiB: under the limit, beyond the file
  EXPECT_NE(error_of(tar).find("'manifest.json' at offset 0: declares 1048576 bytes but only"), std::string::npos)
      << error_of(tar);
  const std::string ok = write_tar(sample());
  const std::string e = error_of(ok, TarLimits{.max_member_bytes = 1000, .max_members = 100});
  EXPECT_NE(e.find("'evidence/spray-v-001/dut.p1.tx.pcapng' at offset 1024: size 1500 is over the limit of 1000"),
            std::string::npos)
      << e;
  EXPECT_NE(error_of(ok, TarLimits{.max_member_bytes = 1 << 20, .max_members = 2}).find("more than 2 members"),
            std::string::npos);
}

TEST(TarArchive, DuplicatesLinksAndTrailingBytes) {
  const std::string dup = write_tar(std::vector<TarMember>{{"a.txt", "1"}, {"a.txt", "2"}});
  EXPECT_NE(error_of(dup).find("'a.txt' at offset 1024: duplicate name"), std::string::npos) << error_of(dup);
  std::string link = write_tar(sample());
  patch_header(link, 0, 156, "2", 1);
  EXPECT_NE(error_of(link).find("not a regular file (type '2')"), std::string::npos) << error_of(link);
  std::string trailing = write_tar(sample()) + "junk";
  EXPECT_NE(error_of(trailing).find("data after the end-of-archive marker"), std::string::npos) << error_of(trailing);
  EXPECT_NE(error_of("hello, this is a text file\n").find("truncated"), std::string::npos);
  EXPECT_EQ(error_of(std::string(512, 'A')), "no ustar header at offset 0 (wrong magic)");
  EXPECT_TRUE(read_tar(write_tar({})).empty());
}

// The members of testdata/old_writer.tar, the fixture this writer made: the bytes a bundle of
// these members has always had, for the reader and writer that come after it to be held to.
std::vector<TarMember> fixture_members() {
  std::string pattern(1500, '\0');
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>((i * 31 + 7) & 0xFF);
  return {{"manifest.json", "{\"schema\": \"fixture\"}\n"},
          {"empty.txt", ""},
          {"evidence/a.pcapng", pattern},
          {"exactly.bin", std::string(512, '\x01')},
          {std::string(120, 'd') + "/" + std::string(90, 'f'), "long name, one place to split\n"},
          {"evidence/" + std::string(60, 'a') + "/" + std::string(60, 'b') + "/c.pcapng", "long name, two places to split\n"},
          {"manifest.sig", "00ff\n"}};
}

TEST(TarArchive, WritesTheFixtureByteForByte) {
  std::ifstream in(std::string(MRC_SOURCE_DIR) + "/tests/harness/certify/testdata/old_writer.tar", std::ios::binary);
  ASSERT_TRUE(in);
  std::stringstream bytes;
  bytes << in.rdbuf();
  EXPECT_EQ(write_tar(fixture_members()), bytes.str());
}

}  // namespace
}  // namespace mrc::harness
