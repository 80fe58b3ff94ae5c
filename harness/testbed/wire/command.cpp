#include "harness/testbed/wire/command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mrc::harness::wire {
namespace {

constexpr std::size_t kMaxOutput = 64 * 1024;

std::int64_t monotonic_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

}  // namespace

std::string CommandResult::describe(const std::vector<std::string>& argv) const {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  s += ": ";
  if (!error.empty()) return s + error;
  if (timed_out) return s + "timed out (killed)";
  s += "exit " + std::to_string(exit_code);
  if (!output.empty()) {
    std::string out = output;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    s += ": " + out;
  }
  return s;
}

const std::string& ip_binary() {
  static const std::string path = [] {
    for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
      if (access(p, X_OK) == 0) return std::string(p);
    }
    return std::string("ip");
  }();
  return path;
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  CommandResult r;
  if (argv.empty()) {
    r.error = "empty command";
    return r;
  }
  // Everything exec needs is prepared before fork: the child only calls async-signal-safe
  // functions (dup2, close, execvp, _exit), which keeps fork safe in a threaded process.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return r;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execvp(args[0], args.data());
    static const char msg[] = "exec failed\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(127);
  }
  close(fds[1]);
  // Non-blocking read end: a grandchild that kept the pipe open can never stall the drain below.
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);

  const std::int64_t deadline = monotonic_ms() + timeout.count();
  bool eof = false;
  int status = 0;
  bool reaped = false;
  char buf[4096];
  while (!reaped) {
    const std::int64_t left = deadline - monotonic_ms();
    if (left <= 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);  // SIGKILL cannot be ignored: this returns promptly
      r.timed_out = true;
      reaped = true;
      break;
    }
    if (!eof) {
      pollfd p{fds[0], POLLIN, 0};
      const int n = poll(&p, 1, static_cast<int>(left < 50 ? left : 50));
      if (n > 0) {
        const ssize_t got = read(fds[0], buf, sizeof buf);
        if (got > 0) {
          if (r.output.size() < kMaxOutput) r.output.append(buf, static_cast<std::size_t>(got));
        } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
          eof = true;
        }
      }
    } else {
      timespec nap{0, 2'000'000};
      nanosleep(&nap, nullptr);
    }
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) reaped = true;
  }
  // Drain what is left after the exit (bounded: the writer is gone, so read ends at EOF).
  for (;;) {
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got <= 0) break;
    if (r.output.size() < kMaxOutput) r.output.append(buf, static_cast<std::size_t>(got));
  }
  close(fds[0]);
  if (!r.timed_out && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace mrc::harness::wire
