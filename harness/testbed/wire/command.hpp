// Runs a system tool (iproute2's `ip`) the safe way: fork + exec of an argument vector, no shell,
// stdout+stderr captured, and a bounded wait. A command that outlives its timeout is killed
// (SIGKILL) and reported as timed out, so a wedged tool can never hang a test or the agent.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace mrc::harness::wire {

struct CommandResult {
  int exit_code = -1;     // exit status, or -1 when it did not exit normally
  bool timed_out = false;
  std::string output;     // stdout and stderr interleaved, at most 64 KiB
  std::string error;      // why the command could not be run at all ("" when it ran)

  bool ok() const { return error.empty() && !timed_out && exit_code == 0; }
  // "ip link add ...: exit 2: RTNETLINK answers: File exists"
  std::string describe(const std::vector<std::string>& argv) const;
};

inline constexpr std::chrono::milliseconds kDefaultCommandTimeout{5000};

CommandResult run_command(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout = kDefaultCommandTimeout);

// The iproute2 binary: the first of /usr/sbin/ip, /sbin/ip, /usr/bin/ip, /bin/ip that exists,
// else "ip" (resolved through PATH by exec).
const std::string& ip_binary();

}  // namespace mrc::harness::wire
