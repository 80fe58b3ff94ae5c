// The child-process launcher under `run --isolate` (harness/run/child_process.hpp), driven with
// /bin/sh: every way a child can end is told apart, every wait is bounded, nothing leaks into it.
#include "harness/run/child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

namespace mrc::run {
namespace {

using Clock = std::chrono::steady_clock;
using End = ChildOutcome::End;

ChildSpec sh(const std::string& script, double bound_s = 10) {
  ChildSpec s;
  s.executable = "/bin/sh";
  s.argv = {"sh", "-c", script};
  s.deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(bound_s * 1000));
  s.term_wait_s = 0.3;
  return s;
}

TEST(ChildProcess, ExitCodeResultAndOutputTail) {
  const ChildOutcome o = run_child(sh("echo out; echo err >&2; printf answer >&3; exit 7"));
  EXPECT_EQ(o.end, End::kExited);
  EXPECT_EQ(o.exit_code, 7);
  EXPECT_EQ(o.result, "answer");
  EXPECT_EQ(o.output_tail, "out\nerr\n");
  EXPECT_TRUE(o.reaped);
}

TEST(ChildProcess, TheInputArrivesOnItsFdThenEndOfFile) {
  ChildSpec s = sh("cat <&4 >&3");
  s.input = "s3cret token";
  const ChildOutcome o = run_child(s);
  EXPECT_EQ(o.end, End::kExited);
  EXPECT_EQ(o.result, "s3cret token");
  s.input.assign(kMaxChildInput + 1, 'x');
  const ChildOutcome big = run_child(s);
  EXPECT_EQ(big.end, End::kNotStarted);
  EXPECT_NE(big.error.find("exceeds 4096"), std::string::npos) << big.error;
}

TEST(ChildProcess, NothingButItsOwnDescriptorsSurviveTheExec) {
  // A descriptor the parent holds without O_CLOEXEC (the kind a report file is).
  const int leaky = ::dup(2);
  ASSERT_GE(leaky, 0);
  const ChildOutcome o = run_child(sh("ls /proc/self/fd >&3"));
  ::close(leaky);
  // 0-4, plus the descriptor `ls` opens on /proc/self/fd itself.
  EXPECT_EQ(o.result, "0\n1\n2\n3\n4\n5\n") << o.result;
}

TEST(ChildProcess, ItRunsInAProcessGroupOfItsOwn) {
  // /proc/PID/stat: "pid (comm) state ppid pgrp ...".
  const ChildOutcome o = run_child(sh("cut -d' ' -f5 /proc/$$/stat >&3; echo $$ >&3"));
  const auto nl = o.result.find('\n');
  ASSERT_NE(nl, std::string::npos) << o.result;
  EXPECT_EQ(o.result.substr(0, nl), o.result.substr(nl + 1, o.result.size() - nl - 2)) << o.result;
  EXPECT_NE(o.result.substr(0, nl), std::to_string(::getpgrp()));
}

TEST(ChildProcess, DeathBySignalIsNamed) {
  const ChildOutcome o = run_child(sh("echo dying >&2; kill -SEGV $$"));
  EXPECT_EQ(o.end, End::kSignaled);
  EXPECT_EQ(o.signal, SIGSEGV);
  EXPECT_EQ(signal_name(o.signal), "SIGSEGV");
  EXPECT_EQ(o.output_tail, "dying\n");
  EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
  EXPECT_EQ(signal_name(0x7f), "signal 127");
}

TEST(ChildProcess, PastTheDeadlineItGetsSigterm) {
  const auto start = Clock::now();
  const ChildOutcome o = run_child(sh("echo waiting; exec sleep 30", 0.3));
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(o.end, End::kTimedOut);
  EXPECT_EQ(o.signal, SIGTERM);
  EXPECT_TRUE(o.reaped);
  EXPECT_EQ(o.output_tail, "waiting\n");
  EXPECT_GE(s, 0.29);
  EXPECT_LT(s, 20.0);  // the child alone would take 30 s (or for ever)
}

TEST(ChildProcess, AChildIgnoringSigtermGetsSigkill) {
  const auto start = Clock::now();
  const ChildOutcome o = run_child(sh("trap '' TERM; echo ready; while :; do sleep 0.05; done", 0.3));
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(o.end, End::kTimedOut);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_TRUE(o.reaped);
  EXPECT_GE(s, 0.59);  // bound + term_wait_s
  EXPECT_LT(s, 20.0);  // the child alone would take 30 s (or for ever)
}

TEST(ChildProcess, AnExitedChildIsNotWaitedOnForWhatItLeftBehind) {
  // The background sleep keeps the output pipe open after the shell exits.
  const auto start = Clock::now();
  const ChildOutcome o = run_child(sh("sleep 30 & echo $! >&3; exit 4", 10));
  EXPECT_EQ(o.end, End::kExited);
  EXPECT_EQ(o.exit_code, 4);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 20.0);  // not the 30 s sleep
  // ... and the sleep went with it: gone, or a zombie its new parent has not reaped yet.
  const std::string proc = "/proc/" + o.result.substr(0, o.result.find('\n')) + "/stat";
  bool dead = false;
  for (int i = 0; i < 100 && !dead; ++i) {
    std::ifstream f(proc);
    std::string stat;
    std::getline(f, stat);
    dead = stat.empty() || stat.find(") Z") != std::string::npos;
    if (!dead) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(dead) << proc;
}

TEST(ChildProcess, TheStopFlagEndsItEarly) {
  std::atomic<bool> stop{true};
  ChildSpec s = sh("exec sleep 30");
  s.stop = &stop;
  const auto start = Clock::now();
  const ChildOutcome o = run_child(s);
  EXPECT_EQ(o.end, End::kStopped);
  EXPECT_EQ(o.signal, SIGTERM);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 20.0);  // not the 30 s sleep
}

TEST(ChildProcess, TooMuchResultIsCutOff) {
  ChildSpec s = sh("while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done >&3");
  s.max_result = 100000;
  const ChildOutcome o = run_child(s);
  EXPECT_EQ(o.end, End::kOverflow);
  EXPECT_GT(o.result.size(), 100000u);
}

TEST(ChildProcess, AnExecutableThatIsNotThereExits127Saying) {
  ChildSpec s = sh("");
  s.executable = "/nonexistent/mrc-conform";
  const ChildOutcome o = run_child(s);
  EXPECT_EQ(o.end, End::kExited);
  EXPECT_EQ(o.exit_code, 127);
  EXPECT_EQ(o.output_tail, "case child: exec failed, errno 2");
}

TEST(ChildProcess, LastLinesJoinsTheTail) {
  EXPECT_EQ(last_lines("a\nb\n\nc\r\nd\ne\nf\n", 3), "d | e | f");
  EXPECT_EQ(last_lines("only"), "only");
  EXPECT_EQ(last_lines(""), "");
  EXPECT_EQ(last_lines(std::string(50, 'x') + "\n", 5, 10), "..." + std::string(10, 'x'));
}

}  // namespace
}  // namespace mrc::run
