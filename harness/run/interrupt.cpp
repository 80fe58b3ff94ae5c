#include "harness/run/interrupt.hpp"

#include <csignal>
#include <ctime>
#include <mutex>

namespace mrc::run {
namespace {

std::atomic<int> g_signal{0};
// Steady-clock nanoseconds at which the grace ends; 0 = not yet known.
std::atomic<std::int64_t> g_grace_end_ns{0};
std::mutex g_reason_mu;
std::string g_reason;  // guarded by g_reason_mu; the first request_stop()'s

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr std::int64_t kGraceNs = std::chrono::duration_cast<std::chrono::nanoseconds>(kInterruptGrace).count();

}  // namespace

std::atomic<bool>& interrupt_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

std::atomic<bool>& interrupt_grace_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

bool note_stop_signal(int sig) noexcept {
  if (interrupt_flag().load()) return true;
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  // clock_gettime is async-signal-safe; libstdc++'s steady_clock is CLOCK_MONOTONIC.
  timespec ts{};
  if (::clock_gettime(CLOCK_MONOTONIC, &ts) == 0) {
    std::int64_t unset = 0;
    g_grace_end_ns.compare_exchange_strong(unset, ts.tv_sec * 1'000'000'000LL + ts.tv_nsec + kGraceNs);
  }
  return interrupt_flag().exchange(true);
}

void request_stop(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(g_reason_mu);
    if (g_reason.empty() && g_signal.load() == 0 && !interrupt_flag().load()) g_reason = reason;
  }
  std::int64_t unset = 0;
  g_grace_end_ns.compare_exchange_strong(unset, now_ns() + kGraceNs);
  interrupt_flag().store(true);
}

std::string stop_reason() {
  if (!interrupt_flag().load()) return "";
  switch (g_signal.load()) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case 0: break;
    default: return "signal " + std::to_string(g_signal.load());
  }
  std::lock_guard<std::mutex> lock(g_reason_mu);
  return g_reason.empty() ? "interrupted" : g_reason;
}

bool interrupt_grace_over() {
  if (!interrupt_flag().load()) {
    // A test (several runs in one process) may have cleared the flag by hand: forget the old grace.
    interrupt_grace_flag().store(false);
    g_grace_end_ns.store(0);
    return false;
  }
  if (interrupt_grace_flag().load()) return true;
  const std::int64_t now = now_ns();
  std::int64_t end = g_grace_end_ns.load();
  if (end == 0) {
    g_grace_end_ns.compare_exchange_strong(end, now + kGraceNs);
    end = g_grace_end_ns.load();
  }
  if (now < end) return false;
  interrupt_grace_flag().store(true);
  return true;
}

std::string interrupted_case_message() {
  return "interrupted: still running " + std::to_string(kInterruptGrace.count()) + " s (kInterruptGrace) after the run was stopped (" +
         stop_reason() + ")";
}

void reset_interrupt() {
  interrupt_flag().store(false);
  interrupt_grace_flag().store(false);
  g_signal.store(0);
  g_grace_end_ns.store(0);
  std::lock_guard<std::mutex> lock(g_reason_mu);
  g_reason.clear();
}

}  // namespace mrc::run
