// How late mrc-dut-agent's loop (harness/agent/server.cpp) serves a backend timer: a deadline
// `range(0)` us ahead is armed on a timer-only backend, the server steps until it is served, and
// the lateness (service time - deadline, on the server's clock) is collected. Reported as
// counters: median, p99 and max lateness in ns (target: median well under 50 us with the 1 ns
// timer slack; a whole-millisecond poll() gave ~1 ms - range(0) us). Run it on an idle machine and
// again under load to see the spread.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "harness/agent/server.hpp"
#include "tests/harness/agent/timer_backend.hpp"

namespace {

using mrc::agent::testing::TimerBackend;

void BM_AgentTimerLateness(benchmark::State& state) {
  const std::uint64_t ahead_ns = static_cast<std::uint64_t>(state.range(0)) * 1000;
  if (!mrc::agent::tighten_timer_slack().empty()) state.SkipWithError("prctl(PR_SET_TIMERSLACK) failed");
  TimerBackend backend;
  std::string err;
  const int fd = mrc::agent::open_listener("127.0.0.1:0", &err);
  if (fd < 0) {
    state.SkipWithError(err.c_str());
    return;
  }
  mrc::agent::Server server(mrc::agent::ServerConfig{}, backend, fd);
  std::vector<double> late;
  for (auto _ : state) {
    backend.arm(server.now_ns() + ahead_ns);
    while (!backend.served()) (void)server.step(std::chrono::milliseconds(100));
    late.push_back(static_cast<double>(backend.lateness_ns()));
  }
  std::sort(late.begin(), late.end());
  const auto at = [&](double q) { return late[std::min(late.size() - 1, static_cast<std::size_t>(q * late.size()))]; };
  state.counters["late_median_ns"] = at(0.5);
  state.counters["late_p99_ns"] = at(0.99);
  state.counters["late_max_ns"] = late.back();
}
BENCHMARK(BM_AgentTimerLateness)->Arg(5)->Arg(200)->Iterations(500)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
