// `run --testbed netns --dut agent:...` isolates each case by default: the case child makes the
// same agent binding on the same wire (namespace, port map, bridge declaration), and a child that
// crashes costs that case one ERROR while the next case runs on the same agent and wire.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "harness/report/report.hpp"
#include "tests/harness/wirelab/doctor_lab.hpp"
#include "tests/harness/wirelab/wirelab_support.hpp"

namespace mrc::wirelab::testing {
namespace {

namespace fs = std::filesystem;

TEST(IsolateWire, ACrashingCaseChildCostsOneErrorAndTheWireCarriesOn) {
  MRC_SKIP_UNLESS_NETNS();
  char t[] = "/tmp/mrc-wirelab-isolate-XXXXXX";
  const fs::path out = mkdtemp(t);
  const fs::path cases = fs::path(MRC_SOURCE_DIR) / "cases" / "evctl";
  // The fault hook of the case child (harness/cli/cmd_case_child.cpp), inherited by the children.
  setenv("MRC_CASE_CHILD_FAULT", "segv", 1);
  setenv("MRC_CASE_CHILD_FAULT_CASE", "evctl-i-101", 1);
  const auto r = hw::run_command({built_binary("mrc-conform").string(), "run", "--testbed", "netns", "--dut",
                                  "agent:reference", "--cases", (cases / "evctl-i-101.yaml").string(),
                                  (cases / "evctl-i-102.yaml").string(), "--out", out.string()},
                                 std::chrono::milliseconds(120'000));
  unsetenv("MRC_CASE_CHILD_FAULT");
  unsetenv("MRC_CASE_CHILD_FAULT_CASE");
  const harness::RunResult run = harness::read_results_json(out / "results.json");
  ASSERT_EQ(run.cases.size(), 2u) << r.output;
  const harness::CaseResult& crashed = run.cases[0];
  const harness::CaseResult& next = run.cases[1];
  EXPECT_EQ(crashed.verdict, harness::Verdict::kError);
  EXPECT_NE(crashed.message.find("died of signal 11"), std::string::npos) << crashed.message;
  // The next case ran in its own child on the same agent and wire, as the in-process run does
  // (a control-plane case: its verdict does not hang on how fast this machine bridges).
  EXPECT_EQ(next.verdict, harness::Verdict::kPass) << next.message;
  EXPECT_NE(next.message.find("real-time bridge"), std::string::npos) << next.message;
  EXPECT_EQ(ip_out({"netns", "list"}).find("mrcc-"), std::string::npos);
  std::error_code ec;
  fs::remove_all(out, ec);
}

}  // namespace
}  // namespace mrc::wirelab::testing
