#include "harness/testbed/wire/netns_exec.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace mrc::harness::wire {
namespace {

std::string netns_path(const std::string& name) { return "/run/netns/" + name; }

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

std::string enter_netns(const std::string& name) {
  const int fd = open(netns_path(name).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_text(("open " + netns_path(name)).c_str());
  const int rc = setns(fd, CLONE_NEWNET);
  const int saved = errno;
  close(fd);
  if (rc != 0) {
    errno = saved;
    return errno_text("setns(CLONE_NEWNET)");
  }
  return {};
}

int socket_in_netns(const std::string& name, int domain, int type, std::string* error) {
  int fd = -1;
  std::string why;
  std::thread t([&] {
    why = enter_netns(name);
    if (!why.empty()) return;
    fd = socket(domain, type | SOCK_CLOEXEC, 0);
    if (fd < 0) why = errno_text("socket");
  });
  t.join();
  if (fd < 0 && error != nullptr) *error = why;
  return fd;
}

std::unique_ptr<ChildProcess> spawn(const std::string& netns, const std::vector<std::string>& argv,
                                    std::string* error) {
  auto fail = [&](std::string e) -> std::unique_ptr<ChildProcess> {
    if (error != nullptr) *error = std::move(e);
    return nullptr;
  };
  if (argv.empty()) return fail("empty command");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Open the namespace before fork so the child only needs async-signal-safe calls.
  int ns_fd = -1;
  if (!netns.empty()) {
    ns_fd = open(netns_path(netns).c_str(), O_RDONLY | O_CLOEXEC);
    if (ns_fd < 0) return fail(errno_text(("open " + netns_path(netns)).c_str()));
  }
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    if (ns_fd >= 0) close(ns_fd);
    return fail(errno_text("pipe"));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    if (ns_fd >= 0) close(ns_fd);
    close(out[0]);
    close(out[1]);
    return fail(errno_text("fork"));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);  // the parent died before prctl took effect
    if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) != 0) {
      static const char msg[] = "spawn: setns failed\n";
      (void)!write(out[1], msg, sizeof msg - 1);
      _exit(126);
    }
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execvp(args[0], args.data());
    static const char msg[] = "spawn: exec failed\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(127);
  }
  if (ns_fd >= 0) close(ns_fd);
  close(out[1]);
  fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<ChildProcess>(new ChildProcess(pid, out[0]));
}

bool ChildProcess::running() {
  if (reaped_) return false;
  const pid_t w = waitpid(pid_, &status_, WNOHANG);
  if (w == pid_) reaped_ = true;
  return !reaped_;
}

std::string ChildProcess::read_line(std::chrono::milliseconds timeout, std::string* error) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[512];
  for (;;) {
    const std::size_t nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      if (error != nullptr) *error = "no line from pid " + std::to_string(pid_) + " within " +
                                     std::to_string(timeout.count()) + " ms";
      return {};
    }
    pollfd p{out_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t got = read(out_fd_, buf, sizeof buf);
    if (got > 0) {
      pending_.append(buf, static_cast<std::size_t>(got));
    } else if (got == 0) {
      if (error != nullptr) *error = "pid " + std::to_string(pid_) + " closed its output: " + pending_;
      return {};
    }
  }
}

std::string ChildProcess::drain_output() {
  std::string s = std::move(pending_);
  pending_.clear();
  char buf[4096];
  for (;;) {
    const ssize_t got = read(out_fd_, buf, sizeof buf);
    if (got <= 0) break;
    s.append(buf, static_cast<std::size_t>(got));
  }
  return s;
}

int ChildProcess::stop(int sig, std::chrono::milliseconds timeout) {
  if (!running()) return status_;
  kill(pid_, sig);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!running()) return status_;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status_, 0);  // SIGKILL cannot be caught: this returns promptly
  reaped_ = true;
  return -1;
}

ChildProcess::~ChildProcess() {
  stop(SIGTERM, std::chrono::milliseconds(2000));
  if (out_fd_ >= 0) close(out_fd_);
}

}  // namespace mrc::harness::wire
