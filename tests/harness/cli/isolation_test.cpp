// `run --isolate` (harness/run/case_child.hpp): each case in a child process of the real
// mrc-conform. The results are the in-process run's byte for byte; a child that crashes, aborts,
// exits or hangs costs its case one ERROR naming how, and the run goes on; an interrupted or
// killed parent leaves no child behind. The misbehaving children come from the case-child test
// hook (MRC_CASE_CHILD_FAULT, cmd_case_child.cpp).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "harness/cli/commands.hpp"
#include "harness/dut/binding_factory.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

#ifdef MRC_CONFORM_BIN
using Clock = std::chrono::steady_clock;

// Through the `run` subcommand's function, as the binary calls it (it adds the child's --dut).
SuiteRun run_cli(RunOptions o) {
  return run_with(std::move(o), [](const RunOptions& x, std::ostream& out, std::ostream& err) {
    return cli::run_cases(x, cli::RunTextOptions{}, out, err);
  });
}

RunOptions isolated(RunOptions o) {
  o.isolation.enabled = true;
  o.isolation.executable = MRC_CONFORM_BIN;
  return o;
}

// Sets the case-child fault for the life of the object (each test is a process of its own).
class Fault {
 public:
  Fault(const std::string& fault, const std::string& case_id) {
    ::setenv("MRC_CASE_CHILD_FAULT", fault.c_str(), 1);
    ::setenv("MRC_CASE_CHILD_FAULT_CASE", case_id.c_str(), 1);
  }
  ~Fault() {
    ::unsetenv("MRC_CASE_CHILD_FAULT");
    ::unsetenv("MRC_CASE_CHILD_FAULT_CASE");
  }
};

// spray-v-001 .. spray-v-<n>, each a small transfer with the given timeout, in a suite of their
// own, with an output folder and isolated run options over them.
struct TinySuite {
  TempSuite suite;
  TempDir out;
  RunOptions o = isolated(RunOptions{});
  TinySuite(int n, int timeout_s) {
    for (int i = 1; i <= n; ++i) {
      const std::string id = (i < 10 ? "00" : "0") + std::to_string(i);
      suite.write_case("spray-v-" + id, tiny(id, timeout_s));
    }
    o.cases = {(suite.path() / "cases").string()};
    o.out = out.path();
  }
};

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Isolation, GivesTheSameReportsAndEvidenceAsInProcess) {
  TempDir a, b;
  RunOptions o;
  for (const char* id : {"spray-v-001", "reliab-v-001", "failover-v-001", "evctl-v-001", "invalid-i-001"}) {
    o.cases.push_back(case_file(id).string());
  }
  o.seed = 4242;
  o.jobs = 2;
  o.out = a.path();
  const SuiteRun in_process = run_cli(o);
  o.out = b.path();
  const SuiteRun in_children = run_cli(isolated(o));
  ASSERT_TRUE(in_process.has_result && in_children.has_result) << in_children.err;
  EXPECT_EQ(in_process.rc, in_children.rc);
  ASSERT_EQ(in_children.result.cases.size(), 5u);
  // The results carry what the codec must get across: checks, metrics, charts, evidence files.
  std::size_t metrics = 0, charts = 0;
  for (const auto& c : in_children.result.cases) {
    EXPECT_FALSE(c.evidence_files.empty()) << c.id;
    for (const auto& chk : c.checks) {
      metrics += chk.metrics.size();
      charts += chk.charts.size();
    }
  }
  EXPECT_GT(metrics, 0u);
  EXPECT_GT(charts, 0u);
  for (const char* f : {"results.json", "junit.xml", "index.html"}) {
    EXPECT_EQ(slurp(a.path() / f), slurp(b.path() / f)) << f;
  }
  const auto evidence = files_under(a.path() / "evidence");
  EXPECT_EQ(evidence.size(), 10u);  // a pcapng and its context file per case
  ASSERT_EQ(evidence, files_under(b.path() / "evidence"));
  for (const auto& rel : evidence) {
    EXPECT_EQ(slurp(a.path() / "evidence" / rel), slurp(b.path() / "evidence" / rel)) << rel;
  }
}

// A fault of the test hook and what the case's ERROR says about it.
struct Misbehaviour {
  const char* fault;
  const char* says;
};

class IsolationCrash : public ::testing::TestWithParam<Misbehaviour> {};

TEST_P(IsolationCrash, CostsOneErrorNamingItAndTheRunGoesOn) {
  TinySuite t(3, 30);
  t.o.jobs = 2;
  const Fault fault(GetParam().fault, "spray-v-002");
  const SuiteRun r = run_cli(t.o);
  ASSERT_TRUE(r.has_result) << r.err;
  EXPECT_EQ(r.rc, 3);  // an ERROR
  ASSERT_EQ(r.result.cases.size(), 3u);
  EXPECT_EQ(r.find("spray-v-001")->verdict, harness::Verdict::kPass);
  EXPECT_EQ(r.find("spray-v-003")->verdict, harness::Verdict::kPass);
  const harness::CaseResult* bad = r.find("spray-v-002");
  EXPECT_EQ(bad->verdict, harness::Verdict::kError);
  EXPECT_EQ(bad->message, std::string(GetParam().says) + "; its last output: case-child: test fault " +
                              GetParam().fault + " for spray-v-002");
  EXPECT_EQ(bad->title, "A small transfer");  // the case's identity, from the parent's copy
  EXPECT_TRUE(fs::exists(t.out.path() / "evidence/spray-v-003.pcapng"));
  EXPECT_NE(r.out.find("ERROR spray-v-002: " + bad->message), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Faults, IsolationCrash,
    ::testing::Values(Misbehaviour{"segv", "the case's child process died of signal 11 (SIGSEGV)"},
                      Misbehaviour{"abort", "the case's child process died of signal 6 (SIGABRT)"},
                      Misbehaviour{"exit:5", "the case's child process exited with code 5 without a result"},
                      Misbehaviour{"exit:0", "the case's child process exited with code 0 without a result"}),
    [](const ::testing::TestParamInfo<Misbehaviour>& i) {
      std::string n = i.param.fault;
      for (char& ch : n) {
        if (ch == ':') ch = '_';
      }
      return n;
    });

class IsolationHang : public ::testing::TestWithParam<Misbehaviour> {};

TEST_P(IsolationHang, IsKilledAtItsBoundWithANamedError) {
  TinySuite t(3, 1);
  t.o.watchdog_grace_s = 0.2;
  t.o.isolation.report_allowance_s = 0.2;
  t.o.isolation.term_wait_s = 0.3;
  const Fault fault(GetParam().fault, "spray-v-001");
  const auto start = Clock::now();
  const SuiteRun r = run_cli(t.o);
  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_TRUE(r.has_result) << r.err;
  ASSERT_EQ(r.result.cases.size(), 3u);
  EXPECT_EQ(r.find("spray-v-001")->message,
            std::string("case child exceeded timeout_s=1 + 0.2s grace + 0.2s to report ") + GetParam().says +
                "; its last output: case-child: test fault " + GetParam().fault + " for spray-v-001");
  EXPECT_EQ(r.find("spray-v-002")->verdict, harness::Verdict::kPass);
  EXPECT_EQ(r.find("spray-v-003")->verdict, harness::Verdict::kPass);
  // Not before its bound (1 + 0.2 + 0.2 s); the hung child never ends by itself, so finishing at
  // all shows the kill. The upper bound is loose: a shared machine can stall for seconds.
  EXPECT_GE(wall_s, 1.4);
  EXPECT_LT(wall_s, 20.0);
}

INSTANTIATE_TEST_SUITE_P(Faults, IsolationHang,
                         ::testing::Values(Misbehaviour{"hang", "(killed)"},
                                           Misbehaviour{"hang-hard", "(killed with SIGKILL: SIGTERM was ignored for 0.3s)"}),
                         [](const ::testing::TestParamInfo<Misbehaviour>& i) {
                           return std::string(i.param.fault) == "hang" ? "Hang" : "HangIgnoringSigterm";
                         });

// The children of `t` become a shell script with `body` (it is <t.out>/child.sh, as $0); the
// reports go to <t.out>/reports.
void stand_in_child(TinySuite& t, const std::string& body) {
  const fs::path script = t.out.path() / "child.sh";
  std::ofstream(script) << "#!/bin/sh\n" << body;
  fs::permissions(script, fs::perms::owner_all);
  t.o.isolation.executable = script.string();
  t.o.out = t.out.path() / "reports";
}

TEST(Isolation, TheChildGetsItsArgumentsOnTheCommandLineAndTheTokenOnAPipe) {
  // A stand-in child that records what it was given and answers nothing.
  TinySuite t(1, 7);
  stand_in_child(t, "echo \"$@\" > \"$0.args\"\ncat <&4 > \"$0.token\"\nexit 9\n");
  t.o.dut = "agent:127.0.0.1:1";
  t.o.agent_token = "tok-3e5a";
  t.o.seed = 99;
  t.o.watchdog_grace_s = 0.5;
  t.o.agent_timeouts = {std::chrono::milliseconds(1500), std::chrono::milliseconds(2500)};
  const SuiteRun r = run_cli(t.o);
  ASSERT_TRUE(r.has_result) << r.err;
  EXPECT_EQ(r.find("spray-v-001")->message, "the case's child process exited with code 9 without a result");
  const fs::path root = t.suite.path();
  EXPECT_EQ(slurp(t.out.path() / "child.sh.args"),
            "case-child --suite-root " + root.string() + " --case " + (root / "cases/spray/spray-v-001.yaml").string() +
                " --case-id spray-v-001 --seed 99 --testbed mini --out " + t.o.out.string() + ".partial" +
                " --evidence all --snaplen auto --virtual-limit-ns 100000000 --watchdog-grace-s 0.5 --result-fd 3 --token-fd 4"
                " --dut agent:127.0.0.1:1 --agent-connect-timeout-ms 1500 --agent-call-timeout-ms 2500 --clock auto\n");
  EXPECT_EQ(slurp(t.out.path() / "child.sh.token"), "tok-3e5a");
}

TEST(Isolation, AResultThatDoesNotDecodeIsAnErrorSayingWhy) {
  TinySuite t(2, 7);
  stand_in_child(t, "printf MRCR >&3\n");
  const SuiteRun r = run_cli(t.o);
  ASSERT_TRUE(r.has_result) << r.err;
  ASSERT_EQ(r.result.cases.size(), 2u);
  for (const auto& c : r.result.cases) {
    EXPECT_EQ(c.message,
              "the case's child process sent a result that does not decode: truncated: 4 byte(s), shorter than the "
              "10-byte header");
  }
}

TEST(Isolation, AnAgentChildUsesTheTokenFromThePipe) {
  // The real child: without the token it would refuse the spec ("needs the agent's token"); with
  // it, the agent binding is made and its first call finds nobody listening.
  TinySuite t(1, 5);
  t.o.dut = "agent:127.0.0.1:1";
  t.o.agent_token = "tok";
  const SuiteRun r = run_cli(t.o);
  ASSERT_TRUE(r.has_result) << r.err;
  const harness::CaseResult* c = r.find("spray-v-001");
  EXPECT_EQ(c->verdict, harness::Verdict::kError);
  EXPECT_EQ(c->message.find("child process"), std::string::npos) << c->message;
  EXPECT_NE(c->message.find("agent 127.0.0.1:1"), std::string::npos) << c->message;
}

TEST(Isolation, AnInProcessFactoryCannotBeIsolated) {
  TempDir out;
  RunOptions o = isolated(RunOptions{});
  o.cases = {case_file("spray-v-001").string()};
  o.out = out.path();
  o.binding_factory = [] { return harness::make_binding("reference", nullptr); };
  const SuiteRun r = run(o);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("an in-process binding factory cannot cross into it"), std::string::npos) << r.err;
}

TEST(Isolation, IsTheDefaultOnlyForExternalBindings) {
  for (const char* spec : {"reference", "reference-random", "reference:spray-single-ev", "reference-random:x,y"}) {
    EXPECT_TRUE(harness::in_process_binding(spec)) << spec;
  }
  for (const char* spec : {"agent:127.0.0.1:7411", "agent:[::1]:1", "referencex", "", "vendor:reference"}) {
    EXPECT_FALSE(harness::in_process_binding(spec)) << spec;
  }
}

// ---- the real binary as a process: a parent that is interrupted or killed ----

// The pid of a child of `parent`, waiting up to 10 s for one to appear (0: none).
pid_t child_of(pid_t parent) {
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < until) {
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string stat = slurp(e.path() / "stat");  // "pid (comm) state ppid ..."
      const auto close = stat.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream rest(stat.substr(close + 1));
      std::string state;
      pid_t ppid = 0;
      rest >> state >> ppid;
      if (ppid == parent) return static_cast<pid_t>(std::stol(name));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

// Gone, or a zombie nobody reaps (an orphan whose new parent does not wait).
bool dead(pid_t pid) {
  const std::string stat = slurp(fs::path("/proc") / std::to_string(pid) / "stat");
  const auto close = stat.rfind(')');
  return stat.empty() || (close != std::string::npos && stat.compare(close + 2, 1, "Z") == 0);
}

// `mrc-conform run --isolate` over spray-v-001 (passes) and spray-v-002 (its child hangs), until
// the second case's child is running; the test then signals the parent.
struct HangingRun {
  TinySuite t{2, 30};
  pid_t parent = -1;
  pid_t child = 0;
  bool paused = false;  // the child is in the hang fault's pause()
  bool reaped = false;
  int err_fd = -1;  // the parent's stderr, read to the end so it never writes into a closed pipe
  HangingRun() {
    const Fault fault("hang", "spray-v-002");
    const Binary b = start_binary({"run", "--isolate", "--cases", t.o.cases.front(), "--out", t.o.out.string()});
    parent = b.pid;
    err_fd = b.err_fd;
    if (parent < 0) return;
    // "[1/2] spray-v-001 PASS ...": that case's child is reaped, the next one is being started.
    const std::string seen = read_until(err_fd, "1/2]");
    ::fcntl(err_fd, F_SETFL, O_NONBLOCK);
    if (seen.find("1/2]") == std::string::npos) return;
    child = child_of(parent);
    // Until it sits in the fault's pause(): signalled earlier, the parent could take the child
    // down another way (its next write to the parent's closed pipe), proving nothing.
    const auto until = Clock::now() + std::chrono::seconds(10);
    while (child > 0 && !paused && Clock::now() < until) {
      paused = slurp(fs::path("/proc") / std::to_string(child) / "wchan").find("pause") != std::string::npos;
      if (!paused) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~HangingRun() {
    if (parent > 0 && !reaped) {
      ::kill(parent, SIGKILL);
      ::waitpid(parent, nullptr, 0);
    }
    if (err_fd >= 0) ::close(err_fd);
  }
  // The parent's exit status, waiting up to 10 s (-1: still running; the destructor kills it).
  int wait_parent() {
    const auto until = Clock::now() + std::chrono::seconds(10);
    int status = 0;
    char buf[256];
    while (Clock::now() < until) {
      while (::read(err_fd, buf, sizeof(buf)) > 0) {
      }
      if (::waitpid(parent, &status, WNOHANG) == parent) {
        reaped = true;
        return status;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
};

TEST(Isolation, CtrlCStopsTheRunningChildAfterTheGraceAndLeavesAPartialReport) {
  HangingRun run;
  ASSERT_GT(run.child, 0);
  ASSERT_TRUE(run.paused);
  const auto signalled = Clock::now();
  ASSERT_EQ(::kill(run.parent, SIGINT), 0);
  const int status = run.wait_parent();  // well before the hanging case's 30 s
  const double took = std::chrono::duration<double>(Clock::now() - signalled).count();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_GE(took, 4.9);  // the child had kInterruptGrace to finish its case
  EXPECT_TRUE(dead(run.child));
  const auto r = harness::read_results_json(run.t.out.path() / "results.json");
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.interrupt_reason, "SIGINT");
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[0].id, "spray-v-001");
  EXPECT_EQ(r.cases[1].verdict, harness::Verdict::kError);  // cut short, and it says so
  EXPECT_NE(r.cases[1].message.find("interrupted: still running 5 s"), std::string::npos) << r.cases[1].message;
  EXPECT_NE(r.cases[1].message.find("its child process was stopped"), std::string::npos) << r.cases[1].message;
}

TEST(Isolation, AChildDoesNotOutliveAKilledParent) {
  HangingRun run;
  ASSERT_GT(run.child, 0);
  ASSERT_TRUE(run.paused);
  ASSERT_EQ(::kill(run.parent, SIGKILL), 0);
  run.wait_parent();

  const auto until = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < until && !dead(run.child)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(dead(run.child));
  if (!dead(run.child)) ::kill(run.child, SIGKILL);  // not left running after a failure
}
#endif

}  // namespace
}  // namespace mrc::run::testing
