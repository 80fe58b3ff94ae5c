// The simulated fabric paced to CLOCK_MONOTONIC, with hosts bound to real interfaces
// (testbed/wire_host.hpp).
//
// Once a host is bound, the fabric runs on a thread of its own from the first run_until() on: it
// reads the interfaces, lets every frame enter the fabric at its capture time, runs the fabric's
// events as their time comes (sleeping until the next one or
// until a frame arrives) and hands frames to the bridge as they reach a bound host. The testbed's
// clock is the monotonic clock from that moment, offset so it continues where the simulation
// stood: set-up calls before it take no testbed time.
//
// The runner's thread and the fabric's thread share the fabric under one mutex, which the runner's
// thread holds from bind() on, except while run_until() waits and while a DUT call that does not
// touch the fabric runs (release() / hold(): an agent's request over its socket). So the fabric
// keeps time while the runner talks to an external DUT, and everything else the runner does (the
// peer endpoint, injections, taps) sees a fabric that stands still.
//
// A fabric turn that starts more than kMaxCatchUpNs behind the clock does not run the whole gap
// at once: the clock stands still for the rest (a pause, counted in pauses()). Why: a small VM at
// times leaves the fabric's thread asleep for milliseconds (a late wake-up), and a turn whose
// frames go into a veth the DUT's agent captures takes 40 to 300 us per 4 KiB frame there. Running
// such a gap in one turn would fire every timer of the in-process peer in it (its ACK
// timeout, its probe timeouts) before the DUT had the frames that same turn hands it; a peer that
// retransmits and probes what the DUT had no chance to answer starts a storm no DUT caused. To
// the DUT a pause is network delay; to a time measured on the fabric it is an error of up to its
// length, which the runner weighs against the bridge's timing budget like the bridge's own lag.
// For the same reason the clock stands still while the runner holds the fabric (clock_now() is
// the time it took it), so the runner's own work (posts that build and checksum frames) is not a
// gap the fabric must run at once.
#pragma once

#include <poll.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/testbed/wire_host.hpp"

namespace mrc::sim {

class Simulator;

class PacedRun {
 public:
  explicit PacedRun(Simulator& sim) : sim_(sim) {}
  ~PacedRun();  // stops the fabric's thread (the caller holds the fabric)
  PacedRun(const PacedRun&) = delete;
  PacedRun& operator=(const PacedRun&) = delete;

  // Attaches `wire` as `host`'s port (before the first run_until()). "" or why not. The first bind
  // makes the calling thread the fabric's holder.
  std::string bind(std::uint32_t host, std::unique_ptr<harness::WireHost> wire);
  // The fabric thread's SCHED_FIFO priority (0: default scheduling) and how much of each wait it
  // spends awake, the most asked for by any bind (Testbed::BridgeDeclaration); the priority is
  // taken when the thread starts, which fails the run (error()) if the kernel refuses it.
  void ask_realtime(int priority, std::uint64_t spin_ns) {
    priority_ = std::max(priority_, priority);
    spin_ns_ = std::max(spin_ns_, spin_ns);
  }
  bool active() const { return !hosts_.empty(); }

  // Lets the fabric run until the clock reaches t_ns (the caller holds the fabric before and
  // after). false when an interface failed (error() says which).
  bool run_until(std::uint64_t t_ns);
  // Starts the fabric's thread and its clock (the holder keeps the fabric).
  void start_clock();
  // Around a call of the holder that does not touch the fabric.
  void release();
  void hold();

  // The testbed time of CLOCK_MONOTONIC now (never behind the fabric), or while the caller holds
  // the fabric the time it took it; the fabric's time before the clock starts.
  std::uint64_t clock_now() const;
  // The clock itself, running on while the runner holds the fabric (never before clock_now()).
  std::uint64_t wall_now() const;
  std::string error() const;
  harness::WireHost* host(std::uint32_t host) const;
  // How late the fabric's thread reached the times it waited for (the pacing jitter).
  const harness::LatencyHistogram& wake_lateness() const { return wake_lateness_; }
  // The most the simulated fabric has trailed the clock, ns: a fabric with more events than the
  // machine can run in real time falls behind and no figure of the run is real-time any more.
  std::uint64_t max_behind_ns() const { return max_behind_ns_.load(std::memory_order_relaxed); }
  // How long the clock stood still at each pause (read with the fabric held).
  const harness::LatencyHistogram& pauses() const { return pauses_; }

 private:
  void start();
  void fabric_loop();
  bool receive_all();
  void flush_all();
  void wait_for(std::uint64_t aim);
  bool ready(const timespec& wait);
  void wake_fabric();
  void pause_if_behind();

  Simulator& sim_;
  harness::PacedClock clock_;
  std::vector<std::pair<std::uint32_t, std::unique_ptr<harness::WireHost>>> hosts_;
  std::vector<pollfd> fds_;  // every bound interface, then wake_fd_
  int wake_fd_ = -1;         // eventfd: the holder released the fabric with new work in it
  harness::LatencyHistogram wake_lateness_;
  harness::LatencyHistogram pauses_;
  // The latest clock time the runner was given (clock_now()): a pause never moves the clock back
  // past it, so every time the runner reads stays monotonic.
  mutable std::atomic<std::uint64_t> observed_{0};
  std::uint64_t held_at_ = 0;  // the clock when the runner last took the fabric (its thread only)
  std::mutex mu_;            // the fabric: held by the runner's thread unless released
  bool holder_locked_ = false;
  // The runner waits for the fabric: the fabric's thread lets it have the mutex before taking it
  // again (std::mutex is not fair, and a saturated fabric would otherwise starve the runner).
  std::atomic<bool> runner_waiting_{false};
  std::atomic<std::uint64_t> max_behind_ns_{0};
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> clock_started_{false};
  std::atomic<bool> failed_{false};
  std::string error_;        // written once, before failed_ is set
  int priority_ = 0;
  std::uint64_t spin_ns_ = 0;
};

}  // namespace mrc::sim
