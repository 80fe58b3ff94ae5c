// folder_lock: one writer per report folder. A second taker is refused with the holder's words
// (pid, start, command line); letting go removes the lock file and frees the folder; and
// stage_report_folder() takes the lock before it reads or removes anything of the folder.
#include "harness/report/folder_lock.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "harness/report/report_folder.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;

class FolderLockTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path out() const { return dir_ / "latest"; }
  fs::path dir_;
};

TEST_F(FolderLockTest, ASecondTakerIsRefusedWithTheHolderNamedUntilTheFirstLetsGo) {
  std::string why;
  std::unique_ptr<FolderLock> first = FolderLock::take(out(), &why);
  ASSERT_TRUE(first) << why;
  EXPECT_TRUE(fs::exists(dir_ / "latest.lock"));
  EXPECT_FALSE(FolderLock::take(out(), &why));
  EXPECT_EQ(why.rfind("in use by another run (pid " + std::to_string(::getpid()) + " since ", 0), 0u) << why;
  EXPECT_NE(why.find((dir_ / "latest.lock").string() + "): wait for it to end, or give another folder"), std::string::npos)
      << why;
  first->release();
  EXPECT_FALSE(fs::exists(dir_ / "latest.lock"));  // nothing left beside the report
  EXPECT_TRUE(FolderLock::take(out(), &why)) << why;
}

TEST_F(FolderLockTest, AStaleLockFileOfAKilledRunHoldsNothing) {
  test::write_file(dir_ / "latest.lock", "pid 1 since long ago: a run that was killed\n");
  std::string why;
  EXPECT_TRUE(FolderLock::take(out(), &why)) << why;
}

TEST_F(FolderLockTest, StagingRefusesAFolderAnotherRunWritesAndTouchesNothingOfIt) {
  std::string why;
  StagedFolder first = stage_report_folder(out(), &why);
  ASSERT_FALSE(first.staging.empty()) << why;
  test::write_file(first.staging / "results.json", "the first run's");
  const StagedFolder second = stage_report_folder(out(), &why);
  EXPECT_TRUE(second.staging.empty());
  EXPECT_EQ(why.rfind("--out " + out().string() + ": in use by another run (pid ", 0), 0u) << why;
  EXPECT_EQ(test::read_file(first.staging / "results.json"), "the first run's");  // its stale-folder sweep never ran
  const Placement p = place_staged(first, /*complete=*/true);
  EXPECT_TRUE(p.error.empty()) << p.error;
  EXPECT_FALSE(fs::exists(dir_ / "latest.lock"));
  EXPECT_FALSE(stage_report_folder(out(), &why).staging.empty()) << why;  // free again
}

}  // namespace
}  // namespace mrc::harness
