#include "harness/testbed/sim/paced_run.hpp"

#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "harness/testbed/sim/simulator.hpp"

namespace mrc::sim {
namespace {

constexpr std::uint64_t kMaxWaitNs = 1'000'000;  // re-read the interfaces at least every 1 ms
constexpr std::uint64_t kMinYieldNs = 20'000;    // the runner's shortest wait
// The most of a gap behind the clock one fabric turn runs; the rest is a pause (paced_run.hpp).
// Above this machine's usual wake-up lateness (tens of microseconds), far below any ACK timeout
// a case runs with across the bridge (at least twice its timing budget, run/wire_fit.hpp).
constexpr std::uint64_t kMaxCatchUpNs = 100'000;

timespec to_timespec(std::uint64_t ns) {
  return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

}  // namespace

PacedRun::~PacedRun() {
  if (thread_.joinable()) {
    stop_ = true;
    if (holder_locked_) mu_.unlock();
    wake_fabric();
    thread_.join();
    holder_locked_ = false;
  } else if (holder_locked_) {
    mu_.unlock();
  }
  if (wake_fd_ >= 0) close(wake_fd_);
}

// The fabric's thread may be asleep until a time computed before the holder added work (a post,
// an injection): it recomputes its next wake-up now.
void PacedRun::wake_fabric() {
  if (wake_fd_ < 0) return;
  const std::uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof one);
}

std::string PacedRun::bind(std::uint32_t host, std::unique_ptr<harness::WireHost> wire) {
  if (!wire) return "no wire host";
  if (thread_.joinable()) return "hosts are bound before the paced fabric starts";
  if (const SimError e = sim_.attach_port(host, *wire); e != SimError::kOk) return to_string(e);
  if (!holder_locked_) {
    mu_.lock();
    holder_locked_ = true;
  }
  wire->start(clock_);
  for (int fd : wire->fds()) fds_.push_back(pollfd{fd, POLLIN, 0});
  hosts_.emplace_back(host, std::move(wire));
  return "";
}

harness::WireHost* PacedRun::host(std::uint32_t host) const {
  for (const auto& [h, w] : hosts_) {
    if (h == host) return w.get();
  }
  return nullptr;
}

std::uint64_t PacedRun::clock_now() const {
  if (!clock_started_) return sim_.now();
  // While the runner holds the fabric its time stands still (paced_run.hpp): what the runner does
  // in one hold (posts that build frames, a dozen of them) happens at one time, which a pause can
  // keep from the in-process peer's timers. The time moves on at the next hold.
  const std::uint64_t t = holder_locked_ ? std::max(held_at_, sim_.now()) : std::max(clock_.now(), sim_.now());
  std::uint64_t seen = observed_.load();
  while (seen < t && !observed_.compare_exchange_weak(seen, t)) {
  }
  return std::max(t, seen);
}

std::uint64_t PacedRun::wall_now() const {
  const std::uint64_t t = clock_now();
  return clock_started_ ? std::max(t, clock_.now()) : t;
}

void PacedRun::pause_if_behind() {
  // Behind means past an event that was due: a fabric with nothing due until later lost nothing by
  // sleeping (the frames that woke it enter at their capture times, unpaused).
  if (sim_.idle()) return;
  const std::uint64_t due = std::max(sim_.next_event_time(), sim_.now());
  const std::uint64_t wall = clock_.now();
  const std::uint64_t floor = std::max(due + kMaxCatchUpNs, observed_.load());
  if (wall <= floor) return;
  clock_.mono_minus_testbed_ns += static_cast<std::int64_t>(wall - floor);
  clock_.pauses.fetch_add(1);
  pauses_.add(wall - floor);
}

std::string PacedRun::error() const { return failed_ ? error_ : std::string(); }

void PacedRun::start() {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ >= 0) fds_.push_back(pollfd{wake_fd_, POLLIN, 0});
  thread_ = std::thread([this] { fabric_loop(); });
}

bool PacedRun::receive_all() {
  for (auto& [h, w] : hosts_) {
    const int n = w->receive();
    if (n < 0) {
      error_ = "bridge of host " + std::to_string(h) + ": " + w->error();
      failed_ = true;
      return false;
    }
    if (n > 0) sim_.notify(h);  // its next deadline moved: the fabric re-arms the host's timer
  }
  return true;
}

// True when a frame waits or the holder woke the fabric (then the wake-up is consumed).
bool PacedRun::ready(const timespec& wait) {
  for (pollfd& p : fds_) p.revents = 0;
  if (ppoll(fds_.data(), fds_.size(), &wait, nullptr) <= 0) return false;
  if (wake_fd_ >= 0 && (fds_.back().revents & POLLIN)) {
    std::uint64_t n = 0;
    (void)!read(wake_fd_, &n, sizeof n);
  }
  return true;
}

// Sleeps until `aim`, a frame or a wake-up (timer slack 1 ns: fabric_loop), the last spin_ns_ of it
// awake when asked (fabric_spin_us): a sleeping thread of a small VM wakes about 10 us late. By
// default it sleeps all the way: on the whole library over netns on 2 cores sleeping does no
// worse (162 to 167 PASS against 162 to 165 with a 40 us spin), and a spinning thread holds a core
// the DUT's agent and the kernel's packet path need on a small machine (bench/README.md).
void PacedRun::wait_for(std::uint64_t aim) {
  const std::uint64_t now = clock_.now();
  if (aim <= now) return;
  if (aim - now > spin_ns_) {
    if (ready(to_timespec(aim - now - spin_ns_)) || clock_.now() >= aim) return;
  }
  // The rest awake (fabric_spin_us): a frame or a wake-up still ends it at once.
  const timespec zero{0, 0};
  while (clock_.now() < aim) {
    if (ready(zero)) return;
  }
}

void PacedRun::fabric_loop() {
  // Sleeps end when asked, not up to 50 us later (a thread's default timer slack).
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  if (priority_ > 0) {
    sched_param sp{};
    sp.sched_priority = priority_;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
      error_ = "fabric_priority " + std::to_string(priority_) + ": the kernel refused SCHED_FIFO (" +
               std::strerror(errno) + "): run as root (CAP_SYS_NICE), or set it to 0";
      failed_ = true;  // start_clock() stops waiting for the clock; run_until() returns false
      return;
    }
  }
  {
    // The clock starts when this thread first has the fabric, continuing from where the
    // simulation stands, so starting the thread costs the fabric no time.
    const std::lock_guard<std::mutex> lock(mu_);
    clock_.mono_minus_testbed_ns =
        static_cast<std::int64_t>(harness::monotonic_ns()) - static_cast<std::int64_t>(sim_.now());
    clock_started_ = true;
  }
  std::uint64_t aim = 0;
  while (!stop_) {
    while (runner_waiting_.load() && !stop_) std::this_thread::yield();
    std::unique_lock<std::mutex> lock(mu_);
    if (stop_) break;
    if (const std::uint64_t woke = clock_.now(); aim != 0 && woke >= aim) {  // how late the wait ended
      wake_lateness_.add(woke - aim);
    }
    aim = 0;
    // Before reading the interfaces, so frames captured during a pause enter when it ends.
    pause_if_behind();
    if (!receive_all()) break;
    const std::uint64_t wall = clock_.now();
    if (wall > sim_.now()) {
      if (wall - sim_.now() > max_behind_ns_.load(std::memory_order_relaxed)) {
        max_behind_ns_.store(wall - sim_.now(), std::memory_order_relaxed);
      }
      sim_.run_until(wall);
    }
    flush_all();  // what the fabric's events handed the bridged hosts leaves in one batch each
    aim = std::min(sim_.idle() ? UINT64_MAX : sim_.next_event_time(), wall + kMaxWaitNs);
    lock.unlock();
    wait_for(aim);
  }
}

void PacedRun::start_clock() {
  if (thread_.joinable()) return;
  start();
  release();
  while (!clock_started_ && !failed_) std::this_thread::yield();
  hold();
}

bool PacedRun::run_until(std::uint64_t t_ns) {
  start_clock();
  release();
  // The runner's own actions (posts, controls) need no better than the kernel's sleep; it waits at
  // least kMinYieldNs, so a runner polling in short slices cannot take the fabric back before the
  // fabric's thread had it.
  const std::uint64_t now = clock_.now();
  t_ns = std::max(t_ns, now + kMinYieldNs);
  if (!failed_) {
    const std::int64_t abs = clock_.mono_minus_testbed_ns + static_cast<std::int64_t>(t_ns);
    const timespec ts = to_timespec(static_cast<std::uint64_t>(abs));
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  }
  hold();
  return !failed_;
}

void PacedRun::flush_all() {
  for (auto& [h, w] : hosts_) w->flush();
}

void PacedRun::release() {
  if (!holder_locked_ || !thread_.joinable()) return;
  flush_all();  // anything the holder's own actions queued for an interface
  holder_locked_ = false;
  mu_.unlock();
  wake_fabric();
}

void PacedRun::hold() {
  if (holder_locked_ || !thread_.joinable()) return;
  runner_waiting_ = true;
  mu_.lock();
  runner_waiting_ = false;
  holder_locked_ = true;
  if (!clock_started_) return;
  // Before the runner reads the clock: once read, a pause may not take that time back.
  pause_if_behind();
  // The fabric slept through a stretch with nothing due: it stands where it last ran, behind the
  // clock. Moved to the clock (running nothing), so what the runner does now (a post, an
  // injection) happens at the time it is done, not in the past, which the fabric would then have
  // to catch up on at once.
  const std::uint64_t wall = clock_.now();
  if (wall > sim_.now() && (sim_.idle() || sim_.next_event_time() > wall)) sim_.run_until(wall);
  held_at_ = wall;
}

}  // namespace mrc::sim
