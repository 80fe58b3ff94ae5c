// The bundle's ustar container through libarchive: deterministic writing pinned by a fixture, the
// bundles of the hand-written writer before it still read (and which header bytes differ from
// them), and strict reading that names the member and offset of every kind of damage.
#include "harness/certify/tar_archive.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "tests/harness/certify/tar_test_support.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;
using testing::file_bytes;
using testing::Member;
using testing::put_file;
using testing::read_members;
using testing::write_members;

fs::path testdata(const char* name) { return fs::path(MRC_SOURCE_DIR) / "tests/harness/certify/testdata" / name; }

// A folder per process (ctest runs each test in its own, two at a time), removed at its end.
fs::path scratch(const std::string& name) {
  static const struct Folder {
    fs::path path = fs::path(::testing::TempDir()) / ("mrc-tar-test-" + std::to_string(::getpid()));
    Folder() { fs::create_directories(path); }
    ~Folder() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } folder;
  return folder.path / name;
}

// The members of both fixtures: old_writer.tar (the hand-written writer's bytes, made at commit
// 8dc68f8 before it was removed) and writer.tar (this writer's).
std::vector<Member> fixture_members() {
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

std::string written(const std::vector<Member>& members, const std::string& name = "w.tar") {
  write_members(scratch(name), members);
  return file_bytes(scratch(name));
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

std::string error_of(const std::string& tar, const TarLimits& limits = {}) {
  put_file(scratch("read.tar"), tar);
  try {
    read_members(scratch("read.tar"), limits);
  } catch (const TarError& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_members(const std::vector<Member>& got, const std::vector<Member>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].data, want[i].data) << want[i].name;
  }
}

TEST(TarArchive, RoundTripsEveryMemberInOrder) {
  write_members(scratch("rt.tar"), fixture_members());
  EXPECT_EQ(fs::file_size(scratch("rt.tar")) % 512, 0u);
  expect_members(read_members(scratch("rt.tar")), fixture_members());
}

// The same members, the same bytes: today's, and the fixture's whatever libarchive release writes.
TEST(TarArchive, WritesTheFixtureByteForByte) {
  EXPECT_EQ(written(fixture_members()), written(fixture_members(), "again.tar"));
  EXPECT_EQ(written(fixture_members()), file_bytes(testdata("writer.tar")));
}

// Every bundle made before libarchive reads as it was written.
TEST(TarArchive, ReadsTheHandWrittenWritersBundles) {
  expect_members(read_members(testdata("old_writer.tar")), fixture_members());
}

// What differs from the hand-written writer's bytes, exactly: libarchive's ustar headers end mode,
// uid, gid with " \0" and size, mtime with " " (it ended them with NUL), write devmajor/devminor as
// "000000 \0" (it left them NUL), hence another checksum; and a path over 100 bytes with two places
// to split into prefix and name is split at the first that fits (it took the last). Data, padding,
// layout and the end marker are the same bytes.
TEST(TarArchive, DiffersFromTheHandWrittenWriterOnlyInHeaderNumbersAndOneSplit) {
  const std::string old = file_bytes(testdata("old_writer.tar"));
  const std::string now = written(fixture_members());
  ASSERT_EQ(old.size(), now.size());
  struct Field {
    std::size_t from, to;
  };
  const std::vector<Field> numbers{{100, 156}, {329, 345}};  // mode..chksum, devmajor+devminor
  const std::vector<Field> split{{0, 100}, {345, 500}};      // name, prefix
  std::vector<std::size_t> headers{0};
  for (const Member& m : fixture_members()) headers.push_back(headers.back() + 512 + (m.data.size() + 511) / 512 * 512);
  headers.pop_back();
  const std::size_t two_splits = headers[5];
  std::size_t in_numbers = 0;
  for (std::size_t i = 0; i < old.size(); ++i) {
    if (old[i] == now[i]) continue;
    const auto h = std::find_if(headers.begin(), headers.end(), [&](std::size_t o) { return i >= o && i < o + 512; });
    ASSERT_NE(h, headers.end()) << "byte " << i << " differs outside every header";
    const std::size_t at = i - *h;
    const auto in = [&](const std::vector<Field>& fs) {
      return std::any_of(fs.begin(), fs.end(), [&](Field f) { return at >= f.from && at < f.to; });
    };
    in_numbers += in(numbers) ? 1 : 0;
    EXPECT_TRUE(in(numbers) || (*h == two_splits && in(split))) << "header at " << *h << ", byte " << at;
  }
  EXPECT_GE(in_numbers, headers.size() * 8) << "every header's numbers are written another way";
  EXPECT_EQ(std::string(now.data() + 100, 8), std::string("000644 \0", 8));
  EXPECT_EQ(std::string(old.data() + 100, 8), std::string("0000644\0", 8));
}

TEST(TarArchive, SystemTarReadsIt) {
  // The format is plain ustar: GNU tar lists the same names (the long ones through their prefix).
  write_members(scratch("sys.tar"), fixture_members());
  std::FILE* p = ::popen(("tar -tf " + scratch("sys.tar").string() + " 2>&1").c_str(), "r");
  if (p == nullptr) GTEST_SKIP() << "no tar";
  std::string listing;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) listing += buf;
  if (::pclose(p) != 0 && listing.find("not found") != std::string::npos) GTEST_SKIP() << "no tar";
  for (const auto& m : fixture_members()) EXPECT_NE(listing.find(m.name + "\n"), std::string::npos) << listing;
}

TEST(TarArchive, TheWriterRefusesWhatTheReaderWould) {
  for (const char* bad : {"../etc/passwd", "/etc/passwd", "a/../../b", "a//b", "./a", ""}) {
    EXPECT_THROW(write_members(scratch("bad.tar"), {{bad, "x"}}), TarError) << bad;
  }
  // Over 100 bytes and no '/' to split it at: ustar cannot hold it.
  EXPECT_THROW(write_members(scratch("bad.tar"), {{std::string(101, 'n'), "x"}}), TarError);
}

TEST(TarArchive, EveryTruncationIsAnError) {
  const std::string tar = written(fixture_members());
  for (std::size_t cut = 0; cut < tar.size(); cut += 97) {
    EXPECT_NE(error_of(tar.substr(0, cut)), "(no error)") << "cut at " << cut;
  }
  for (std::size_t cut = 512; cut < tar.size(); cut += 512) {
    EXPECT_NE(error_of(tar.substr(0, cut)).find("truncated"), std::string::npos) << "cut at " << cut << ": "
                                                                                 << error_of(tar.substr(0, cut));
  }
  // In the middle of the third member's data (its header at 1536): named, with the bytes it lacks.
  const std::string mid = error_of(tar.substr(0, 1536 + 512 + 188));
  EXPECT_NE(mid.find("'evidence/a.pcapng' at offset 1536: declares 1500 bytes but only 188 remain (truncated archive)"),
            std::string::npos)
      << mid;
  const std::string no_marker = error_of(tar.substr(0, tar.size() - 1024));
  EXPECT_EQ(no_marker, "truncated archive: ends at offset 7680 before the end-of-archive marker (last member 'manifest.sig')");
  EXPECT_NE(error_of(tar.substr(0, tar.size() - 512)).find("a single zero block at offset 7680"), std::string::npos);
  EXPECT_NE(error_of(tar.substr(0, tar.size() - 1024 - 100)).find("'manifest.sig' at offset 6656: padding of its data is cut off"),
            std::string::npos)
      << error_of(tar.substr(0, tar.size() - 1024 - 100));
}

TEST(TarArchive, AHeaderWhoseChecksumIsWrongIsNamedByOffset) {
  std::string tar = written(fixture_members());
  tar[1536 + 10] ^= 0x01;  // inside the third member's name: evidence/a.pcapng -> evidence/`.pcapng
  const std::string e = error_of(tar);
  EXPECT_NE(e.find("no valid ustar header at offset 1536, after member 'empty.txt' (libarchive: "), std::string::npos) << e;
}

TEST(TarArchive, UnsafeNamesAreRefused) {
  for (const char* bad : {"../etc/passwd", "/etc/passwd", "a/../../b", "a//b", "./a"}) {
    std::string tar = written(fixture_members());
    patch_header(tar, 0, 0, bad, 100);
    const std::string e = error_of(tar);
    EXPECT_NE(e.find(std::string("'") + bad + "' at offset 0: "), std::string::npos) << bad << ": " << e;
  }
}

TEST(TarArchive, SizesBeyondTheFileOrOverTheLimits) {
  std::string tar = written(fixture_members());
  patch_header(tar, 0, 124, "00004000000", 12);  // 1 MiB: under the limit, beyond the file
  EXPECT_NE(error_of(tar).find("'manifest.json' at offset 0: declares 1048576 bytes but only"), std::string::npos)
      << error_of(tar);
  const std::string ok = written(fixture_members());
  const std::string e = error_of(ok, TarLimits{.max_member_bytes = 1000, .max_members = 100});
  EXPECT_NE(e.find("'evidence/a.pcapng' at offset 1536: size 1500 is over the limit of 1000"), std::string::npos) << e;
  EXPECT_NE(error_of(ok, TarLimits{.max_member_bytes = 1 << 20, .max_members = 2}).find("at offset 1536: more than 2 members"),
            std::string::npos);
  // The whole file over its limit: refused before a byte is read.
  const std::string big = error_of(ok, TarLimits{.max_archive_bytes = 8000});
  EXPECT_EQ(big, "8704 bytes, over the limit of 8000 for a bundle");
}

TEST(TarArchive, DuplicatesTrailingBytesAndNoArchiveAtAll) {
  const std::string dup = written({{"a.txt", "1"}, {"a.txt", "2"}});
  EXPECT_EQ(error_of(dup), "tar member 'a.txt' at offset 1024: duplicate name");
  std::string link = written(fixture_members());
  patch_header(link, 0, 156, "2", 1);
  EXPECT_NE(error_of(link).find("'manifest.json' at offset 0: not a regular file: a symbolic link"), std::string::npos)
      << error_of(link);
  EXPECT_EQ(error_of(written(fixture_members()) + "junk"), "data after the end-of-archive marker at offset 8704");
  // tar(1) pads to a 10 KiB record with zeros: that is no damage.
  EXPECT_EQ(error_of(written(fixture_members()) + std::string(10240 - 8704, '\0')), "(no error)");
  EXPECT_EQ(error_of("hello, this is a text file\n"),
            "truncated archive: partial header at offset 0 before the end-of-archive marker");
  EXPECT_EQ(error_of(std::string(512, 'A')), "no valid ustar header at offset 0 (libarchive: Unrecognized archive format)");
  EXPECT_EQ(error_of(""), "truncated archive: ends at offset 0 before the end-of-archive marker");
  write_members(scratch("none.tar"), {});
  EXPECT_TRUE(read_members(scratch("none.tar")).empty());
}

// Members no bundle holds, made by Python's tarfile (not this code): each refused, named, at its
// offset. The first member, manifest.json of 1 byte, takes 1024 bytes; the second is at 1024.
class TarFromPython : public ::testing::Test {
 protected:
  // `second` is Python adding the second member to `t`; reg(name) adds a regular file.
  static std::string error_for(const std::string& second, const char* format = "USTAR_FORMAT") {
    const fs::path out = scratch("py.tar");
    const std::string script =
        "import io, sys, tarfile\n"
        "t = tarfile.open(sys.argv[1], 'w', format=tarfile." + std::string(format) + ")\n"
        "def reg(name, data=b'x', **kw):\n"
        "    i = tarfile.TarInfo(name); i.size = len(data)\n"
        "    for k, v in kw.items(): setattr(i, k, v)\n"
        "    t.addfile(i, io.BytesIO(data))\n"
        "def special(name, type, **kw):\n"
        "    i = tarfile.TarInfo(name); i.type = type\n"
        "    for k, v in kw.items(): setattr(i, k, v)\n"
        "    t.addfile(i)\n"
        "reg('manifest.json')\n" + second + "\nt.close()\n";
    put_file(scratch("make.py"), script);
    const std::string cmd = "python3 " + scratch("make.py").string() + " " + out.string() + " 2>&1";
    if (std::system(cmd.c_str()) != 0) return "(python3 failed)";
    try {
      read_members(out);
    } catch (const TarError& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(TarFromPython, LinksDevicesFifosAndFoldersAreNoRegularFiles) {
  EXPECT_EQ(error_for("special('evidence/x', tarfile.SYMTYPE, linkname='/etc/passwd')"),
            "tar member 'evidence/x' at offset 1024: not a regular file: a symbolic link to '/etc/passwd'");
  EXPECT_EQ(error_for("special('evidence/x', tarfile.LNKTYPE, linkname='manifest.json')"),
            "tar member 'evidence/x' at offset 1024: not a regular file: a hard link to 'manifest.json'");
  EXPECT_EQ(error_for("special('dev/null', tarfile.CHRTYPE, devmajor=1, devminor=3)"),
            "tar member 'dev/null' at offset 1024: not a regular file: a character device");
  EXPECT_EQ(error_for("special('dev/sda', tarfile.BLKTYPE, devmajor=8, devminor=0)"),
            "tar member 'dev/sda' at offset 1024: not a regular file: a block device");
  EXPECT_EQ(error_for("special('evidence/pipe', tarfile.FIFOTYPE)"),
            "tar member 'evidence/pipe' at offset 1024: not a regular file: a FIFO");
  EXPECT_NE(error_for("special('evidence', tarfile.DIRTYPE)").find("at offset 1024: not a regular file: a directory"),
            std::string::npos);
}

TEST_F(TarFromPython, PathTraversalAndDuplicatesAreRefused) {
  EXPECT_EQ(error_for("reg('../../etc/cron.d/x')"), "tar member '../../etc/cron.d/x' at offset 1024: path holds '..'");
  EXPECT_EQ(error_for("reg('evidence/../../x')"), "tar member 'evidence/../../x' at offset 1024: path holds '..'");
  EXPECT_EQ(error_for("reg('/etc/passwd')"), "tar member '/etc/passwd' at offset 1024: absolute path");
  EXPECT_EQ(error_for("reg('manifest.json')"), "tar member 'manifest.json' at offset 1024: duplicate name");
  EXPECT_EQ(error_for("reg('evidence/a.pcapng')"), "(no error)");  // the control: a member like any bundle's
}

TEST_F(TarFromPython, OtherTarFormatsAreNotUstar) {
  EXPECT_EQ(error_for("reg('a.txt')", "GNU_FORMAT"), "tar member 'manifest.json' at offset 0: a GNU tar header, not ustar");
  EXPECT_NE(error_for("reg('a.txt', pax_headers={'comment': 'hi'})", "PAX_FORMAT")
                .find("tar member 'a.txt' at offset 1024: a pax extended header, not plain ustar"),
            std::string::npos);
}

}  // namespace
}  // namespace mrc::harness
