// Running things inside a network namespace.
//
// setns(CLONE_NEWNET) moves only the calling thread, and a socket belongs for its whole life to
// the namespace it was created in. So: spawn() forks and enters the namespace before exec (for
// `mrc-dut-agent`); enter_netns() moves the calling thread (an in-process agent's server thread);
// socket_in_netns() creates a socket inside the namespace from a short-lived helper thread and
// hands it back, which is how the harness reaches an agent that listens on the namespace's
// loopback.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mrc::harness::wire {

// Moves the calling thread into the namespace `name` (/run/netns/<name>). "" or why not.
std::string enter_netns(const std::string& name);

// A socket(domain, type, 0) created inside `name`; -1 and *error on failure.
int socket_in_netns(const std::string& name, int domain, int type, std::string* error);

// A child process; the destructor stops it (SIGTERM, a bounded wait, then SIGKILL) and reaps it.
class ChildProcess {
 public:
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // Reads one line of the child's stdout (without the newline) within `timeout`. "" and *error
  // set on timeout or EOF.
  std::string read_line(std::chrono::milliseconds timeout, std::string* error);
  // Everything the child wrote to stdout/stderr that has not been read yet (non-blocking).
  std::string drain_output();
  // Sends `sig`; then waits up to `timeout` for the exit. Returns the wait status, or -1 when the
  // child was still running (it is then SIGKILLed and reaped).
  int stop(int sig, std::chrono::milliseconds timeout);

 private:
  friend std::unique_ptr<ChildProcess> spawn(const std::string&, const std::vector<std::string>&, std::string*);
  ChildProcess(pid_t pid, int out_fd) : pid_(pid), out_fd_(out_fd) {}
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string pending_;  // bytes read past the last returned line
};

// Starts argv[0] (an absolute path, or found in PATH) with stdout+stderr on a pipe the caller
// reads. With `netns` non-empty, the child enters that namespace before exec. The child gets
// SIGKILL if the parent dies (PR_SET_PDEATHSIG), so no agent outlives a crashed test.
std::unique_ptr<ChildProcess> spawn(const std::string& netns, const std::vector<std::string>& argv,
                                    std::string* error);

}  // namespace mrc::harness::wire
