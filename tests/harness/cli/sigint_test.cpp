// Ctrl-C and SIGTERM: the real binary, as a child process. The first signal writes the partial
// reports at once and says which cases it waits for; the reports say why the run ended and which
// cases did not run; exit 3. A second signal ends the process at once (exit 130), yet every report file is
// there, valid and marked interrupted, with no .tmp left. A run that ends early keeps a previous
// report in --out and leaves its own in <out>.partial.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

#ifdef MRC_CONFORM_BIN
// The selected ids of the whole library: every case file under cases/<area>/.
std::size_t library_size() {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(source_dir() / "cases")) {
    if (e.is_regular_file() && e.path().extension() == ".yaml" && e.path().parent_path() != source_dir() / "cases") ++n;
  }
  return n;
}

// Everything the child wrote on stderr, and how it ended.
struct Ended {
  std::string err;
  int status = 0;
};

Ended finish(const Child& c, std::string seen) {
  Ended e;
  e.err = std::move(seen) + read_until(c.err_fd, "");
  ::close(c.err_fd);
  ::waitpid(c.pid, &e.status, 0);
  return e;
}

// Waits for the first progress line ("[  1/180] ..."), so a case has finished and the next runs.
std::string after_first_case(const Child& c) {
  std::string seen = read_stderr_until(c, "] ");
  const auto open = seen.find('[');
  EXPECT_NE(open, std::string::npos) << seen;
  if (open != std::string::npos) {
    EXPECT_EQ(seen.compare(seen.find_first_not_of(' ', open + 1), 2, "1/"), 0) << seen;
  }
  return seen;
}

std::vector<std::string> leftovers(const fs::path& dir, std::string_view suffix) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().string().ends_with(suffix)) out.push_back(e.path().string());
  }
  return out;
}

class Interrupt : public ::testing::TestWithParam<int> {};

TEST_P(Interrupt, WritesThePartialReportAtOnceAndSaysWhyAndWhatDidNotRun) {
  TempDir out;
  const Child child = start_conform({"run", "--cases", (source_dir() / "cases").string(), "--out", out.path().string(),
                                     "--jobs", "1"});
  ASSERT_GT(child.pid, 0);
  const std::string seen = after_first_case(child);
  ASSERT_EQ(::kill(child.pid, GetParam()), 0);
  const Ended e = finish(child, seen);
  ASSERT_TRUE(WIFEXITED(e.status)) << e.err;
  EXPECT_EQ(WEXITSTATUS(e.status), 3) << e.err;  // an interrupted run is not a verdict on the DUT
  // Between two cases there is nothing to wait for; in one (nearly always) it is named.
  EXPECT_TRUE(e.err.find(" to finish; press Ctrl-C again to stop now\n") != std::string::npos ||
              e.err.find("interrupt: no case in progress; writing the final reports\n") != std::string::npos)
      << e.err;
  const auto r = harness::read_results_json(out.path() / "results.json");
  // The case it waited for finished within the grace, so it is among the results.
  const std::string waiting = "interrupt: waiting up to 5 s for ";
  if (const auto at = e.err.find(waiting); at != std::string::npos) {
    const std::size_t from = at + waiting.size();
    const std::string id = e.err.substr(from, e.err.find(' ', from) - from);
    EXPECT_TRUE(std::any_of(r.cases.begin(), r.cases.end(), [&](const auto& c) { return c.id == id; })) << id;
  }
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.interrupt_reason, GetParam() == SIGINT ? "SIGINT" : "SIGTERM");
  EXPECT_GE(r.cases.size(), 1u);
  EXPECT_LT(r.cases.size(), 9u);
  EXPECT_EQ(r.cases.size() + r.not_run.size(), library_size());
  std::set<std::string> ran;
  for (const auto& c : r.cases) ran.insert(c.id);
  for (const auto& id : r.not_run) EXPECT_FALSE(ran.contains(id)) << id << " both ran and did not";
  EXPECT_TRUE(std::is_sorted(r.not_run.begin(), r.not_run.end()));  // the selection's (id) order
  const std::string junit = slurp(out.path() / "junit.xml");
  EXPECT_NE(junit.find("<testsuite name=\"mrc.not-run\" tests=\"" + std::to_string(r.not_run.size()) + "\""),
            std::string::npos);
  EXPECT_NE(junit.find("<skipped message=\"not run: " + r.interrupt_reason + "\"/>"), std::string::npos);
  EXPECT_NE(slurp(out.path() / "index.html").find("<span id=\"interrupt-reason\">" + r.interrupt_reason), std::string::npos);
  EXPECT_TRUE(leftovers(out.path(), ".tmp").empty());
  EXPECT_FALSE(fs::exists(out.path().string() + ".partial"));  // --out was empty: the partial report is in it
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& i) { return i.param == SIGINT ? "Sigint" : "Sigterm"; });

TEST(Interrupt, ASecondSigintStopsAtOnceAndLeavesEveryReportValid) {
  TempDir out;
  const Child child = start_conform({"run", "--cases", (source_dir() / "cases").string(), "--out", out.path().string(),
                                     "--jobs", "1"});
  ASSERT_GT(child.pid, 0);
  const std::string seen = after_first_case(child);
  ASSERT_EQ(::kill(child.pid, SIGINT), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(::kill(child.pid, SIGINT), 0);
  const Ended e = finish(child, seen);
  ASSERT_TRUE(WIFEXITED(e.status)) << e.err;  // the second one is not waited out
  // 130: the second signal stopped the run at once. 3: the first one's early end (cases take
  // milliseconds here) was already complete when the second arrived. Either way every report is
  // there and says interrupted.
  EXPECT_TRUE(WEXITSTATUS(e.status) == 128 + SIGINT || WEXITSTATUS(e.status) == 3) << WEXITSTATUS(e.status);
  for (const char* name : {"results.json", "junit.xml", "index.html"}) {
    EXPECT_TRUE(fs::is_regular_file(out.path() / name)) << name << " missing; stderr: " << e.err;
  }
  const auto r = harness::read_results_json(out.path() / "results.json");
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.interrupt_reason.empty());
  EXPECT_EQ(r.cases.size() + r.not_run.size(), library_size());
  EXPECT_NE(slurp(out.path() / "junit.xml").find("name=\"interrupted\" value=\"true\""), std::string::npos);
  EXPECT_NE(slurp(out.path() / "index.html").find("Partial run."), std::string::npos);
  EXPECT_TRUE(leftovers(out.path(), ".tmp").empty());
  EXPECT_FALSE(fs::exists(out.path().string() + ".partial"));
}

TEST(Interrupt, AnEarlyEndKeepsThePreviousReportAndLeavesItsOwnBeside) {
  TempSuite suite;
  suite.write_case("spray-v-001", tiny("001"));
  TempDir out;
  RunOptions first;
  first.cases = {(suite.path() / "cases").string()};
  first.out = out.path();
  const SuiteRun previous = run(first);
  ASSERT_EQ(previous.rc, 0) << previous.err;
  const std::string before = slurp(out.path() / "results.json");

  const fs::path partial = out.path().string() + ".partial";
  const Child child = start_conform({"run", "--cases", (source_dir() / "cases").string(), "--out", out.path().string(),
                                     "--jobs", "1"});
  ASSERT_GT(child.pid, 0);
  const std::string seen = after_first_case(child);
  ASSERT_EQ(::kill(child.pid, SIGINT), 0);
  const Ended e = finish(child, seen);
  ASSERT_TRUE(WIFEXITED(e.status)) << e.err;
  EXPECT_EQ(WEXITSTATUS(e.status), 3);
  EXPECT_EQ(slurp(out.path() / "results.json"), before);  // the complete previous report, untouched
  EXPECT_NE(e.err.find("note: the run ended early (SIGINT): the previous report in " + out.path().string() +
                       " was kept; this run's partial report is in " + partial.string()),
            std::string::npos)
      << e.err;
  const auto r = harness::read_results_json(partial / "results.json");
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.interrupt_reason, "SIGINT");
  fs::remove_all(partial);
}
#endif

}  // namespace
}  // namespace mrc::run::testing
