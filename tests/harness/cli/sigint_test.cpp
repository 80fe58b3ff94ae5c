// Ctrl-C and SIGTERM: the real binary, as a child process, stops after the case in progress and
// leaves a valid partial report (interrupted = true) and exit code 3.
#include <signal.h>

#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

#ifdef MRC_CONFORM_BIN
class Interrupt : public ::testing::TestWithParam<int> {};

TEST_P(Interrupt, LeavesAValidPartialReport) {
  TempDir out;
  const Child child = start_conform({"run", "--cases", (source_dir() / "cases").string(), "--out", out.path().string(),
                                     "--jobs", "1"});
  ASSERT_GT(child.pid, 0);
  // Wait for the first progress line ("[ 1/N] ..."), then interrupt.
  const std::string seen = read_stderr_until(child, "] ");
  // The counter is padded to the width of the case count: "[1/9]", "[  1/163]".
  const auto open = seen.find('[');
  ASSERT_NE(open, std::string::npos) << seen;
  ASSERT_EQ(seen.compare(seen.find_first_not_of(' ', open + 1), 2, "1/"), 0) << seen;
  ASSERT_EQ(::kill(child.pid, GetParam()), 0);
  EXPECT_EQ(wait_for_exit(child), 3);  // an interrupted run is not a verdict on the DUT
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
