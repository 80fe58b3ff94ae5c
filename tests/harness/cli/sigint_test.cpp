// Ctrl-C and SIGTERM: the real binary, as a child process, stops after the case in progress and
// leaves a valid partial report (interrupted = true) and exit code 3.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

#ifdef MRC_CONFORM_BIN
class Interrupt : public ::testing::TestWithParam<int> {};

TEST_P(Interrupt, LeavesAValidPartialReport) {
  TempDir out;
  const Binary b = start_binary({"run", "--cases", (source_dir() / "cases").string(), "--out", out.path().string(),
                                 "--jobs", "1"});
  ASSERT_GE(b.pid, 0);
  const pid_t pid = b.pid;
  // Wait for the first progress line ("[ 1/N] ..."), then interrupt.
  const std::string seen = read_until(b.err_fd, "] ");
  // The counter is padded to the width of the case count: "[1/9]", "[  1/163]".
  const auto open = seen.find('[');
  ASSERT_NE(open, std::string::npos) << seen;
  ASSERT_EQ(seen.compare(seen.find_first_not_of(' ', open + 1), 2, "1/"), 0) << seen;
  ASSERT_EQ(::kill(pid, GetParam()), 0);
  read_until(b.err_fd, "");  // to the end
  ::close(b.err_fd);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);  // an interrupted run is not a verdict on the DUT
  const auto r = harness::read_results_json(out.path() / "results.json");
  EXPECT_TRUE(r.interrupted);
  EXPECT_GE(r.cases.size(), 1u);
  EXPECT_LT(r.cases.size(), 9u);
  EXPECT_NE(slurp(out.path() / "index.html").find("partial"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& i) { return i.param == SIGINT ? "Sigint" : "Sigterm"; });
#endif

}  // namespace
}  // namespace mrc::run::testing
