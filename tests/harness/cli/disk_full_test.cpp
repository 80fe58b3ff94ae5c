// A disk that fills during `run` (a tmpfs of the test's own, mounted and always unmounted; root
// only, skipped with the reason otherwise): the run stops taking cases, no torn or zero-byte
// evidence file is left, the final reports still land thanks to the reserve and say "disk full:
// ...", the text output names only files that exist and never says "conformant: yes"; exit 3.
// When even the final reports cannot be written, stderr names the file that failed.
#include <sys/mount.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

#ifdef MRC_CONFORM_BIN
// Sizes measured on the 180-case library: its evidence is ~460 MiB and its three reports ~2.4 MiB,
// so a disk of the 4 MiB reserve plus 2 MiB fills during the run, and the reports still fit once
// the reserve is gone. A report of no case (every case not run) is ~62 KiB of results.json, ~34
// KiB of junit.xml: 1 MiB with all but 40 KiB taken holds neither the reserve nor results.json.
constexpr unsigned kEvidenceDiskKib = 6 * 1024;
constexpr unsigned kTinyDiskKib = 1024;
constexpr unsigned kTinyFillerBytes = 1024 * 1024 - 40 * 1024;

class SmallDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root (the CI machine runs as root)";
  }
  void TearDown() override {
    if (mounted_) ::umount2(disk().c_str(), MNT_DETACH);
  }
  // A fresh tmpfs of `kib` KiB at <tmp>/disk.
  bool mount_disk(unsigned kib) {
    fs::create_directories(disk());
    const std::string opts = "size=" + std::to_string(kib) + "k";
    mounted_ = ::mount("tmpfs", disk().c_str(), "tmpfs", 0, opts.c_str()) == 0;
    return mounted_;
  }
  fs::path disk() const { return tmp_.path() / "disk"; }
  // `mrc-conform ARGS` after `prelude` (a shell command), stdout and stderr kept apart.
  struct Result {
    int rc = -1;
    std::string out, err;
  };
  Result conform(const std::string& args, const std::string& prelude = "true") const {
    const fs::path o = tmp_.path() / "stdout.txt", e = tmp_.path() / "stderr.txt";
    const std::string cmd = "cd '" + tmp_.path().string() + "' && " + prelude + " && timeout -k 5 120 " +
                            MRC_CONFORM_BIN + " " + args + " >'" + o.string() + "' 2>'" + e.string() + "'";
    Result r;
    const int raw = std::system(cmd.c_str());
    r.rc = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(o);
    r.err = slurp(e);
    return r;
  }
  static std::vector<std::string> empty_files(const fs::path& dir) {
    std::vector<std::string> out;
    if (!fs::exists(dir)) return out;
    for (const auto& f : fs::recursive_directory_iterator(dir)) {
      if (f.is_regular_file() && f.file_size() == 0) out.push_back(f.path().string());
    }
    return out;
  }
  TempDir tmp_;
  bool mounted_ = false;
};

TEST_F(SmallDisk, EvidenceFillingTheDiskStopsTheRunAndTheReportsSaySo) {
  ASSERT_TRUE(mount_disk(kEvidenceDiskKib)) << "mount -t tmpfs failed: " << std::strerror(errno);
  const Result r = conform("run --cases '" + (source_dir() / "cases").string() + "' --jobs 2 --no-progress --out disk/r");
  EXPECT_EQ(r.rc, 3) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  const fs::path out = disk() / "r";
  const auto res = harness::read_results_json(out / "results.json");
  EXPECT_TRUE(res.interrupted);
  EXPECT_EQ(res.interrupt_reason.rfind("disk full: ", 0), 0u) << res.interrupt_reason;
  EXPECT_NE(res.interrupt_reason.find("No space left on device"), std::string::npos) << res.interrupt_reason;
  EXPECT_FALSE(res.not_run.empty());  // it stopped taking cases
  EXPECT_TRUE(std::any_of(res.cases.begin(), res.cases.end(), [](const auto& c) { return !c.evidence_error.empty(); }));
  EXPECT_TRUE(empty_files(out).empty()) << empty_files(out).size() << " zero-byte file(s), e.g. " << empty_files(out)[0];
  EXPECT_FALSE(fs::exists(out / ".reserve"));
  EXPECT_FALSE(fs::exists(disk() / "r.partial"));
  EXPECT_TRUE(fs::is_regular_file(out / "junit.xml"));
  EXPECT_TRUE(fs::is_regular_file(out / "index.html"));
  EXPECT_EQ(r.out.find("conformant: yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reports: " + (out / "results.json").string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("interrupted (disk full: "), std::string::npos) << r.out;
}

TEST_F(SmallDisk, ReportsThatCannotBeWrittenAreNamedAndNeverListed) {
  // No room for the reserve, and no room for results.json either: nothing runs, and the output
  // must not pretend a report exists.
  ASSERT_TRUE(mount_disk(kTinyDiskKib)) << "mount -t tmpfs failed: " << std::strerror(errno);
  const Result r = conform("run --cases '" + (source_dir() / "cases").string() + "' --no-progress --out disk/r",
                           "head -c " + std::to_string(kTinyFillerBytes) + " /dev/zero > disk/filler");
  EXPECT_EQ(r.rc, 3) << r.err;
  EXPECT_NE(r.err.find("error: writing the final reports: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("results.json.tmp: write failed: No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("reports: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reports NOT written: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("conformant: yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conformant: no (profile full, interrupted)"), std::string::npos) << r.out;
  EXPECT_TRUE(empty_files(disk()).empty());
}
#endif

}  // namespace
}  // namespace mrc::run::testing
