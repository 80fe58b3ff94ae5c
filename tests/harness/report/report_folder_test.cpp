// report_folder: a run stages its folder in <out>.partial and swaps it in when complete; a run
// that ended early replaces only an empty or absent <out>, and keeps a previous report otherwise;
// stale .partial/.old folders of a killed run go at the next start; a bad --out is refused before
// anything runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "harness/report/report.hpp"
#include "harness/report/report_folder.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;

class ReportFolder : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path out() const { return dir_ / "latest"; }
  fs::path partial() const { return dir_ / "latest.partial"; }
  fs::path old() const { return dir_ / "latest.old"; }
  void previous_report() const {
    fs::create_directories(out() / "evidence" / "a");
    test::write_file(out() / "results.json", "previous");
    test::write_file(out() / "evidence" / "a" / "x.pcapng", "previous evidence");
  }
  StagedFolder stage() const {
    std::string why;
    StagedFolder f = stage_report_folder(out(), &why);
    EXPECT_FALSE(f.staging.empty()) << why;
    test::write_file(f.staging / "results.json", "new");
    return f;
  }
  fs::path dir_;
};

TEST_F(ReportFolder, ACompleteRunReplacesThePreviousReportWhole) {
  previous_report();
  StagedFolder f = stage();
  EXPECT_EQ(f.staging, partial());
  EXPECT_TRUE(f.had_previous);
  EXPECT_EQ(test::read_file(out() / "results.json"), "previous");  // untouched while the run goes
  const Placement p = place_staged(f, /*complete=*/true);
  EXPECT_TRUE(p.error.empty()) << p.error;
  EXPECT_FALSE(p.kept_previous);
  EXPECT_EQ(p.dir, out());
  EXPECT_EQ(test::read_file(out() / "results.json"), "new");
  EXPECT_FALSE(fs::exists(out() / "evidence"));  // nothing of the previous run mixes in
  EXPECT_FALSE(fs::exists(partial()));
  EXPECT_FALSE(fs::exists(old()));
}

TEST_F(ReportFolder, AnEarlyEndKeepsThePreviousReportAndLeavesThePartialAside) {
  previous_report();
  StagedFolder f = stage();
  const Placement p = place_staged(f, /*complete=*/false);
  EXPECT_TRUE(p.kept_previous);
  EXPECT_EQ(p.dir, partial());
  EXPECT_EQ(test::read_file(out() / "results.json"), "previous");
  EXPECT_EQ(test::read_file(out() / "evidence" / "a" / "x.pcapng"), "previous evidence");
  EXPECT_EQ(test::read_file(partial() / "results.json"), "new");
}

TEST_F(ReportFolder, AnEarlyEndOverAnEmptyOrAbsentFolderIsSwappedIn) {
  for (const bool exists : {false, true}) {
    SCOPED_TRACE(exists ? "empty folder" : "absent");
    fs::remove_all(out());
    if (exists) fs::create_directories(out());
    StagedFolder f = stage();
    EXPECT_FALSE(f.had_previous);
    const Placement p = place_staged(f, /*complete=*/false);
    EXPECT_FALSE(p.kept_previous);
    EXPECT_EQ(p.dir, out());
    EXPECT_EQ(test::read_file(out() / "results.json"), "new");
    EXPECT_FALSE(fs::exists(partial()));
  }
}

TEST_F(ReportFolder, StaleFoldersOfAKilledRunGoAtTheNextStart) {
  previous_report();
  fs::create_directories(partial() / "evidence");
  test::write_file(partial() / "results.json", "stale partial");
  fs::create_directories(old());
  test::write_file(old() / "results.json", "stale old");
  StagedFolder f = stage();
  EXPECT_FALSE(fs::exists(old()));
  EXPECT_FALSE(fs::exists(partial() / "evidence"));
  EXPECT_EQ(test::read_file(partial() / "results.json"), "new");
  discard_staged(f);
  EXPECT_FALSE(fs::exists(partial()));
  EXPECT_EQ(test::read_file(out() / "results.json"), "previous");
}

TEST_F(ReportFolder, ATrailingSlashNamesTheSameFolder) {
  std::string why;
  StagedFolder f = stage_report_folder(out().string() + "/", &why);
  ASSERT_FALSE(f.staging.empty()) << why;
  EXPECT_EQ(f.staging, partial());
  discard_staged(f);
}

TEST_F(ReportFolder, AFileOrTheRootIsRefusedWithTheReason) {
  test::write_file(out(), "a file");
  std::string why;
  EXPECT_TRUE(stage_report_folder(out(), &why).staging.empty());
  EXPECT_EQ(why, "--out " + out().string() + ": exists and is not a folder");
  EXPECT_FALSE(fs::exists(partial()));
  why.clear();
  EXPECT_TRUE(stage_report_folder("/", &why).staging.empty());
  EXPECT_NE(why.find("give a folder below /"), std::string::npos) << why;
}

// The handler closes report writing for good, so each test that runs it does so in a child
// process (a death test that checks its exit code) and leaves this process's state alone.
void in_a_child(const std::function<bool()>& body) {
  EXPECT_EXIT(::_exit(body() ? 0 : 1), ::testing::ExitedWithCode(0), "");
}

TEST_F(ReportFolder, TheSignalHandlerSwapsAnUnplacedFolderWithoutAPreviousReport) {
  in_a_child([&] {
    StagedFolder f = stage();
    // What a second Ctrl-C does before the process dies: the partial report is where the user looks.
    place_staged_from_signal_handler();
    const bool ok = test::read_file(out() / "results.json") == "new" && !fs::exists(partial());
    return ok;
  });
}

// A second Ctrl-C handled on one thread while another writes a report file (a CI flake: the
// folder moved with results.json.tmp in it). The handler waits for that write to end.
TEST_F(ReportFolder, TheSignalHandlerWaitsForAnotherThreadsWriteBeforeItMovesTheFolder) {
  in_a_child([&] {
    StagedFolder f = stage();
    std::atomic<bool> started{false};
    std::thread writer([&] {
      const fs::path tmp = f.staging / "junit.xml.tmp";
      if (!begin_report_write(&tmp)) ::_exit(2);
      test::write_file(tmp, "half");
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      fs::rename(tmp, f.staging / "junit.xml");
      end_report_write();
    });
    while (!started) std::this_thread::yield();
    place_staged_from_signal_handler();
    const bool ok = test::read_file(out() / "junit.xml") == "half" && !fs::exists(out() / "junit.xml.tmp") &&
                    !fs::exists(partial());
    writer.join();
    return ok;
  });
}

// The signal interrupted a write on the handler's own thread: that write never resumes, so its
// .tmp goes and the folder moves at once.
TEST_F(ReportFolder, TheSignalHandlerRemovesTheTmpOfAWriteItInterrupted) {
  in_a_child([&] {
    StagedFolder f = stage();
    const fs::path tmp = f.staging / "index.html.tmp";
    if (!begin_report_write(&tmp)) ::_exit(2);
    test::write_file(tmp, "half");
    const auto from = std::chrono::steady_clock::now();
    place_staged_from_signal_handler();
    const bool quick = std::chrono::steady_clock::now() - from < std::chrono::seconds(1);  // no wait on itself
    const bool ok = quick && !fs::exists(out() / "index.html.tmp") && test::read_file(out() / "results.json") == "new";
    return ok;
  });
}

}  // namespace
}  // namespace mrc::harness
