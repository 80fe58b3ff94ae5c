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
  int err_pipe[2];
  ASSERT_EQ(::pipe(err_pipe), 0);
  const std::string cases = (source_dir() / "cases").string();
  const std::string out_dir = out.path().string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(err_pipe[1], 2);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::execl(MRC_CONFORM_BIN, MRC_CONFORM_BIN, "run", "--cases", cases.c_str(), "--out", out_dir.c_str(), "--jobs",
            "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(err_pipe[1]);
  // Wait for the first progress line ("[ 1/N] ..."), then interrupt.
  std::string seen;
  char buf[256];
  while (seen.find("] ") == std::string::npos) {
    const ssize_t n = ::read(err_pipe[0], buf, sizeof(buf));
    if (n <= 0) break;
    seen.append(buf, static_cast<std::size_t>(n));
  }
  // The counter is padded to the width of the case count: "[1/9]", "[  1/163]".
  const auto open = seen.find('[');
  ASSERT_NE(open, std::string::npos) << seen;
  ASSERT_EQ(seen.compare(seen.find_first_not_of(' ', open + 1), 2, "1/"), 0) << seen;
  ASSERT_EQ(::kill(pid, GetParam()), 0);
  while (::read(err_pipe[0], buf, sizeof(buf)) > 0) {
  }
  ::close(err_pipe[0]);
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
