// How a run that ends early ends, in-process: a case still running kInterruptGrace after the stop
// is an ERROR "interrupted" (the session loop notices; a thread stuck in a binding call is
// abandoned), the stderr line names what the runner waits for, and an exception escaping the
// runner still leaves the partial reports with the reason "harness error: ...", exit 3.
#include <signal.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "harness/dut/reference_binding.hpp"
#include "harness/run/interrupt.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

using Clock = std::chrono::steady_clock;

class CrawlingBinding : public harness::ReferenceBinding {
 public:
  // Returns, but slowly: 200 writes one at a time (window 1) take a minute, against an hour's
  // timeout_s; the session loop comes round between them and sees the interrupt's grace end.
  harness::DutStatus post_write(const harness::WriteRequest& w, std::uint64_t now) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return ReferenceBinding::post_write(w, now);
  }
};

class StuckBinding : public harness::ReferenceBinding {
 public:
  harness::DutStatus post_write(const harness::WriteRequest&, std::uint64_t) override {
    std::this_thread::sleep_for(std::chrono::seconds(20));  // never returns within the grace
    return harness::DutStatus::failed("woke up");
  }
};

class RunEndsEarly : public ::testing::Test {
 protected:
  void SetUp() override { reset_interrupt(); }
  void TearDown() override { reset_interrupt(); }
};

// Two cases with an hour's timeout; the first gets `Slow`, then a SIGINT (as the handler records
// it) 300 ms in.
template <class Slow>
SuiteRun stopped_in_first_case(double& took) {
  TempSuite suite;
  std::string slow = tiny("001", 3600);
  const std::string fast = "writes: 4, size: 16384, window: 2";
  slow.replace(slow.find(fast), fast.size(), "writes: 200, size: 16384, window: 1");
  suite.write_case("spray-v-001", slow);
  suite.write_case("spray-v-002", tiny("002", 3600));
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  int made = 0;
  o.binding_factory = [&made]() -> std::unique_ptr<harness::DutBinding> {
    if (made++ == 1) return std::make_unique<Slow>();  // call 0 is the run's identity probe
    return std::make_unique<harness::ReferenceBinding>();
  };
  std::thread signal([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    note_stop_signal(SIGINT);
  });
  const auto start = Clock::now();
  SuiteRun r = run(o);
  took = std::chrono::duration<double>(Clock::now() - start).count();
  signal.join();
  return r;
}

TEST_F(RunEndsEarly, ACaseStillRunningAfterTheGraceIsAnInterruptedError) {
  double took = 0;
  const SuiteRun r = stopped_in_first_case<CrawlingBinding>(took);
  EXPECT_EQ(r.rc, 3) << r.err;
  EXPECT_GE(took, 5.0);  // the grace was given
  EXPECT_LT(took, 9.0);  // and nothing more (the case's timeout_s is an hour)
  EXPECT_NE(r.err.find("interrupt: waiting up to 5 s for spray-v-001 to finish; press Ctrl-C again to stop now\n"),
            std::string::npos)
      << r.err;
  ASSERT_TRUE(r.has_result);
  EXPECT_TRUE(r.result.interrupted);
  EXPECT_EQ(r.result.interrupt_reason, "SIGINT");
  EXPECT_EQ(r.result.not_run, std::vector<std::string>{"spray-v-002"});
  const auto* cut = r.find("spray-v-001");
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->verdict, harness::Verdict::kError);
  EXPECT_EQ(cut->message.rfind("interrupted: still running 5 s (kInterruptGrace) after the run was stopped (SIGINT)", 0), 0u)
      << cut->message;
  EXPECT_NE(r.out.find("interrupted (SIGINT): 1 of 2 selected case(s) did not run; partial report in "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("conformant: yes"), std::string::npos) << r.out;
}

TEST_F(RunEndsEarly, AThreadStuckInABindingCallIsAbandonedAfterTheGrace) {
  double took = 0;
  const SuiteRun r = stopped_in_first_case<StuckBinding>(took);
  EXPECT_EQ(r.rc, 3) << r.err;
  EXPECT_LT(took, 10.0);  // grace + kInterruptAbandon, not the binding's 20 s
  ASSERT_TRUE(r.has_result);
  const auto* cut = r.find("spray-v-001");
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->verdict, harness::Verdict::kError);
  EXPECT_NE(cut->message.find("interrupted: still running 5 s"), std::string::npos) << cut->message;
  EXPECT_NE(cut->message.find("stuck in dut.post_write"), std::string::npos) << cut->message;
}

TEST_F(RunEndsEarly, AnExceptionEscapingTheRunnerStillLeavesTheReports) {
  TempSuite suite;
  suite.write_case("spray-v-001", tiny("001"));
  suite.write_case("spray-v-002", tiny("002"));
  TempDir out;
  RunOptions o;
  o.cases = {(suite.path() / "cases").string()};
  o.out = out.path();
  o.binding_factory = []() -> std::unique_ptr<harness::DutBinding> { throw std::runtime_error("probe exploded"); };
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.err.find("error: harness error: probe exploded\n"), std::string::npos) << r.err;
  ASSERT_TRUE(r.has_result) << r.err;
  EXPECT_TRUE(r.result.interrupted);
  EXPECT_EQ(r.result.interrupt_reason, "harness error: probe exploded");
  EXPECT_EQ(r.result.not_run, (std::vector<std::string>{"spray-v-001", "spray-v-002"}));
  EXPECT_TRUE(fs::is_regular_file(out.path() / "junit.xml"));
  EXPECT_TRUE(fs::is_regular_file(out.path() / "index.html"));
  EXPECT_NE(r.out.find("reports: " + (out.path() / "results.json").string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("interrupted (harness error: probe exploded): 2 of 2 selected case(s) did not run"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace mrc::run::testing
