// One program run as a child process with everything about it bounded: what `run --isolate` uses
// to run a case in `mrc-conform case-child` (case_child.hpp), kept free of cases so it can be
// tested with /bin/sh.
//
// The child gets: stdin from /dev/null; stdout and stderr into one pipe whose last bytes the
// parent keeps (for the message when it dies); fd kChildResultFd, a pipe for its answer; fd
// kChildInputFd, a pipe holding `input` then end-of-file (a secret such as the agent token, so it
// never shows in `ps` or /proc/PID/environ). No other descriptor of the parent survives the exec.
// The child is in a process group of its own, so a Ctrl-C at the terminal reaches only the parent
// (which decides), and it gets SIGKILL if the parent dies (PR_SET_PDEATHSIG), so it cannot outlive
// it; a parent that died before that was set is noticed with getppid() and the child exits.
//
// The wait is bounded by `deadline`: past it the group gets SIGTERM, `term_wait_s` later SIGKILL.
// `stop` (the run's interrupt flag) ends the child the same way.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace mrc::run {

inline constexpr int kChildResultFd = 3;  // the child writes its answer here
inline constexpr int kChildInputFd = 4;   // the child reads `input` here, then end-of-file
inline constexpr std::size_t kMaxChildInput = 4096;  // what a pipe holds before anyone reads it
// After SIGKILL, how long the parent waits for the child to be reaped before it gives up on it
// (only a process stuck in the kernel takes longer).
inline constexpr auto kChildReapWait = std::chrono::seconds(5);

struct ChildSpec {
  std::string executable;           // the file exec'd (e.g. /proc/self/exe)
  std::vector<std::string> argv;    // argv[0] first
  std::string input;                // at most kMaxChildInput bytes
  std::chrono::steady_clock::time_point deadline;
  double term_wait_s = 1.0;         // SIGTERM to SIGKILL
  std::size_t max_result = 64u << 20;
  std::size_t output_tail = 4096;   // bytes of stdout+stderr kept (the last ones)
  const std::atomic<bool>* stop = nullptr;  // checked every 50 ms
};

struct ChildOutcome {
  enum class End {
    kExited,      // exit_code
    kSignaled,    // died of `signal`
    kTimedOut,    // deadline passed; ended with `signal` (SIGTERM, or SIGKILL when that was ignored)
    kStopped,     // `stop` was set; ended with `signal`
    kOverflow,    // wrote more than max_result; ended with `signal`
    kNotStarted,  // `error` says why
  };
  End end = End::kNotStarted;
  int exit_code = -1;
  int signal = 0;
  bool reaped = true;         // false: still there after SIGKILL and the reap bound (stuck in the kernel)
  std::string result;         // what it wrote on kChildResultFd
  std::string output_tail;    // the last output_tail bytes of its stdout and stderr
  std::string error;
  double wall_s = 0;
};

ChildOutcome run_child(const ChildSpec& spec);

// "SIGSEGV" (or "signal N" for a number without a name).
std::string signal_name(int sig);

// The last `lines` non-empty lines of `text`, joined with " | " (one line for a report message),
// at most `max_chars` characters (cut at the front).
std::string last_lines(const std::string& text, std::size_t lines = 5, std::size_t max_chars = 600);

}  // namespace mrc::run
