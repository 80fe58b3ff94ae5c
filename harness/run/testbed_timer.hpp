// Time spent inside the testbed during one case (simulator work: building it, delivering injected
// frames, running the clock), to measure the harness's own overhead apart from the DUT's.
#pragma once

#include <chrono>
#include <ctime>

#include "harness/run/case_session.hpp"

namespace mrc::run {

inline double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Adds the wall time spent inside the testbed (simulator work: building it, delivering injected
// frames, running the clock) to the session's counters. Only the steady clock is read per step (a
// vDSO call); the thread CPU clock is a system call, so run_session() reads it once at each end
// and splits the session's CPU time by the testbed's share of its wall time.
class TestbedTimer {
 public:
  explicit TestbedTimer(SessionResult& r) : r_(r), wall0_(std::chrono::steady_clock::now()) {}
  ~TestbedTimer() {
    r_.testbed_wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0_).count();
  }
  TestbedTimer(const TestbedTimer&) = delete;
  TestbedTimer& operator=(const TestbedTimer&) = delete;

 private:
  SessionResult& r_;
  std::chrono::steady_clock::time_point wall0_;
};

}  // namespace mrc::run
