#include "harness/run/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace mrc::run {
namespace {

using Clock = std::chrono::steady_clock;

// The stop flag is an atomic set by a signal handler, which wakes no poll in this thread.
constexpr auto kStopCheck = std::chrono::milliseconds(50);
// Without a pidfd (kernels before 5.3) the child's exit is noticed by polling this often.
constexpr auto kExitCheck = std::chrono::milliseconds(5);

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

bool make_pipe(Fd& r, Fd& w) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return false;
  r.reset(p[0]);
  w.reset(p[1]);
  return true;
}

// In the child between fork and exec: only async-signal-safe calls (the parent has threads).
[[noreturn]] void exec_child(const char* exe, char* const* argv, pid_t parent, int null_in, int out_w, int result_w,
                             int input_r) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(126);  // the parent died before the line above took effect
  sigset_t none;
  sigemptyset(&none);
  ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
  // Dispositions set to ignore survive exec; the child starts from the defaults.
  for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP}) ::signal(sig, SIG_DFL);
  // Copies above the targets first, so no dup2 below overwrites a source it still needs.
  const int n = ::fcntl(null_in, F_DUPFD_CLOEXEC, 10);
  const int o = ::fcntl(out_w, F_DUPFD_CLOEXEC, 10);
  const int r = ::fcntl(result_w, F_DUPFD_CLOEXEC, 10);
  const int i = ::fcntl(input_r, F_DUPFD_CLOEXEC, 10);
  if (n < 0 || o < 0 || r < 0 || i < 0 || ::dup2(n, 0) < 0 || ::dup2(o, 1) < 0 || ::dup2(o, 2) < 0 ||
      ::dup2(r, kChildResultFd) < 0 || ::dup2(i, kChildInputFd) < 0) {
    ::_exit(125);
  }
  // Whatever else the parent had open without O_CLOEXEC (a report file another thread is writing)
  // is closed by the exec.
  ::close_range(kChildInputFd + 1, ~0U, CLOSE_RANGE_CLOEXEC);
  ::execv(exe, argv);
  const int e = errno;
  const char msg[] = "case child: exec failed, errno ";
  [[maybe_unused]] ssize_t ignored = ::write(2, msg, sizeof(msg) - 1);
  char digits[12];
  int len = 0;
  for (int v = e; len == 0 || v > 0; v /= 10) digits[len++] = static_cast<char>('0' + v % 10);
  while (len > 0) ignored = ::write(2, &digits[--len], 1);
  ::_exit(127);
}

// Reads what is there; false at end-of-file or on an error (the pipe is done).
bool drain(int fd, std::string& into) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n > 0) {
      into.append(buf, static_cast<std::size_t>(n));
      if (static_cast<std::size_t>(n) < sizeof(buf)) return true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;
  }
}

void keep_tail(std::string& s, std::size_t n) {
  if (s.size() > 2 * n) s.erase(0, s.size() - n);
}

// Waits up to `bound` for the child to end; true with its status when it did.
bool reap_within(pid_t pid, Clock::duration bound, int& status) {
  const auto until = Clock::now() + bound;
  for (;;) {
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) return true;
    if (got < 0 && errno != EINTR) {
      status = 0;  // ECHILD: someone else reaped it; it is gone either way
      return true;
    }
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(kExitCheck);
  }
}

// The child's group (it and whatever it started), else the child alone (its setpgid failed).
void signal_child(pid_t pid, int sig) {
  if (::kill(-pid, sig) != 0) ::kill(pid, sig);
}

}  // namespace

std::string signal_name(int sig) {
  if (const char* abbrev = ::sigabbrev_np(sig)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

std::string last_lines(const std::string& text, std::size_t lines, std::size_t max_chars) {
  std::vector<std::string> kept;
  std::size_t end = text.size();
  while (end > 0 && kept.size() < lines) {
    const std::size_t nl = text.rfind('\n', end - 1);
    const std::size_t begin = nl == std::string::npos ? 0 : nl + 1;
    std::string line = text.substr(begin, end - begin);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) kept.push_back(std::move(line));
    if (nl == std::string::npos) break;
    end = nl;
  }
  std::string out;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) out += (out.empty() ? "" : " | ") + *it;
  if (out.size() > max_chars) out = "..." + out.substr(out.size() - max_chars);
  return out;
}

ChildOutcome run_child(const ChildSpec& s) {
  ChildOutcome out;
  const auto start = Clock::now();
  if (s.input.size() > kMaxChildInput) {
    out.error = "its input of " + std::to_string(s.input.size()) + " bytes exceeds " + std::to_string(kMaxChildInput);
    return out;
  }
  Fd result_r, result_w, out_r, out_w, input_r, input_w;
  Fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!make_pipe(result_r, result_w) || !make_pipe(out_r, out_w) || !make_pipe(input_r, input_w) ||
      !null_in.valid()) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  // Fits in the empty pipe (kMaxChildInput), so this never blocks; closing the write end now gives
  // the child its end-of-file.
  if (!s.input.empty() && ::write(input_w.get(), s.input.data(), s.input.size()) != static_cast<ssize_t>(s.input.size())) {
    out.error = std::string("writing its input: ") + std::strerror(errno);
    return out;
  }
  input_w.reset();
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const auto& a : s.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    out.error = std::string("fork: ") + std::strerror(errno);
    return out;
  }
  if (pid == 0) {
    exec_child(s.executable.c_str(), argv.data(), parent, null_in.get(), out_w.get(), result_w.get(), input_r.get());
  }
  ::setpgid(pid, pid);  // also here, so a kill(-pid) right away finds the group (fails once it exec'd)
  result_w.reset();
  out_w.reset();
  input_r.reset();
  null_in.reset();
  ::fcntl(result_r.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(out_r.get(), F_SETFL, O_NONBLOCK);
  // Readable when the child ends, so the wait below needs no polling. By syscall: Debian 12's
  // <sys/pidfd.h> declares pidfd_open without C linkage. Fails on kernels before 5.3 (then the
  // wait polls every kExitCheck).
  Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));

  // ---- wait: its output, its exit, the deadline, the stop flag ----
  int status = 0;
  bool exited = false;
  bool result_open = true, out_open = true;
  for (;;) {
    const auto now = Clock::now();
    if (now >= s.deadline) {
      out.end = ChildOutcome::End::kTimedOut;
      break;
    }
    if (s.stop && s.stop->load()) {
      out.end = ChildOutcome::End::kStopped;
      break;
    }
    // At most a minute per poll, so a far deadline cannot overflow poll's int milliseconds.
    auto wait = std::min<std::chrono::milliseconds>(std::chrono::ceil<std::chrono::milliseconds>(s.deadline - now),
                                                    std::chrono::minutes(1));
    if (s.stop) wait = std::min<std::chrono::milliseconds>(wait, kStopCheck);
    if (!pidfd.valid()) wait = std::min<std::chrono::milliseconds>(wait, kExitCheck);
    pollfd fds[3];
    nfds_t n = 0;
    if (result_open) fds[n++] = {result_r.get(), POLLIN, 0};
    if (out_open) fds[n++] = {out_r.get(), POLLIN, 0};
    if (pidfd.valid()) fds[n++] = {pidfd.get(), POLLIN, 0};
    const int ready = ::poll(fds, n, static_cast<int>(wait.count()));
    if (ready < 0 && errno != EINTR) {
      out.error = std::string("poll: ") + std::strerror(errno);
      out.end = ChildOutcome::End::kTimedOut;
      break;
    }
    if (result_open) result_open = drain(result_r.get(), out.result);
    if (out_open) out_open = drain(out_r.get(), out.output_tail);
    keep_tail(out.output_tail, s.output_tail);
    if (out.result.size() > s.max_result) {
      out.end = ChildOutcome::End::kOverflow;
      break;
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
  }
  if (!exited) {
    signal_child(pid, SIGTERM);
    out.signal = SIGTERM;
    if (!reap_within(pid, std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s.term_wait_s)),
                     status)) {
      signal_child(pid, SIGKILL);
      out.signal = SIGKILL;
      out.reaped = reap_within(pid, kChildReapWait, status);
    }
  }
  // Whatever it started and left behind (still in its group) goes with it. Safe after the reap:
  // no new process gets this number while a group of that number lives (and only the group is
  // signalled here, never the number alone).
  ::kill(-pid, SIGKILL);
  // What it wrote just before it ended (its ends are closed now, unless a process it started
  // still holds them: then only what is already there).
  if (result_open) drain(result_r.get(), out.result);
  if (out_open) drain(out_r.get(), out.output_tail);
  if (out.output_tail.size() > s.output_tail) out.output_tail.erase(0, out.output_tail.size() - s.output_tail);
  out.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (exited) {
    if (WIFSIGNALED(status)) {
      out.end = ChildOutcome::End::kSignaled;
      out.signal = WTERMSIG(status);
    } else {
      out.end = ChildOutcome::End::kExited;
      out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
  }
  return out;
}

}  // namespace mrc::run
