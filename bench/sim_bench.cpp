// Fabric simulator benchmarks (harness/testbed/sim):
//   BM_SimHops        raw fabric speed: 4 KiB SRv6 frames from external hosts over `mini`,
//                     reported as simulated packet-hop events per wall second; the frames go in
//                     batches under the packet pool, and a refused one is an error, not a figure
//   BM_SimWrite1GiB   one 1 GiB RDMA WRITE between the two hosts of `mini`, 4 KiB path MTU,
//                     sprayed over all 8 planes x 2 spines by two reference endpoints; the wall
//                     time is the figure of merit (target <= 1 s on one core)
//   BM_SimBuildPod    building the 1,024-host `pod`: heap bytes allocated (mallinfo2, true on
//                     repetitions too), RSS delta and the simulator's own accounting
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "harness/testbed/sim/host_setup.hpp"
#include "harness/testbed/sim/path_query.hpp"
#include "harness/testbed/sim/sim_write.hpp"
#include "harness/testbed/sim/simulator.hpp"

namespace {

using namespace mrc::sim;

std::size_t rss_bytes() {
  std::ifstream f("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * 4096;
}

void BM_SimHops(benchmark::State& state) {
  const std::uint32_t frames = static_cast<std::uint32_t>(state.range(0));
  // The simulator holds at most TopologyConfig::max_packets frames at once (inject() refuses more),
  // so the frames go in batches well under it, each run through before the next.
  constexpr std::uint32_t kBatch = 65'536;
  std::uint64_t hops = 0;
  std::uint64_t injected = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Simulator sim(*preset("mini"));
    sim.set_external(0, [](const RxFrame&) {});
    sim.set_external(1, [](const RxFrame&) {});
    const auto evs = srv6_evs(sim.topology(), 0, 1);
    std::array<std::uint8_t, mrc::wire::kMaxFrameLen> buf{};
    std::vector<std::vector<std::uint8_t>> f;
    for (const EvSpec& e : evs) {
      const std::size_t n = ev_frame(0, 1, e, false, buf, 4096);  // a full 4 KiB data frame
      f.emplace_back(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    }
    // Paced at the 8 x 100 Gb/s of the host's ports, so queues stay short.
    for (std::uint32_t first = 0; first < frames; first += kBatch) {
      const std::uint32_t end = std::min(frames, first + kBatch);
      for (std::uint32_t i = first; i < end; ++i) {
        const EvSpec& e = evs[i % evs.size()];
        const SimError err = sim.inject(0, e.port, f[i % f.size()], sim.now() + std::uint64_t{i - first} * 43);
        if (err != SimError::kOk) {
          const std::string why = "inject refused frame " + std::to_string(i) + " of " + std::to_string(frames) +
                                  ": error " + std::to_string(static_cast<int>(err));
          state.SkipWithError(why.c_str());
          return;
        }
        ++injected;
      }
      state.ResumeTiming();
      sim.run_until_idle(UINT64_MAX);
      state.PauseTiming();
    }
    hops += sim.stats().hops;
    state.ResumeTiming();
  }
  // Correctness of the figure: every frame asked for went in, and each crossed at least its 3 hops
  // (host -> leaf -> spine -> leaf -> host).
  state.counters["frames_asked"] = static_cast<double>(frames) * static_cast<double>(state.iterations());
  state.counters["frames_injected"] = static_cast<double>(injected);
  if (hops < injected * 3) state.SkipWithError("fewer hops than the frames injected must have taken");
  state.counters["hops_per_s"] = benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimHops)->Arg(200'000)->Arg(800'000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_SimWrite1GiB(benchmark::State& state) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(state.range(0)) << 20;
  for (auto _ : state) {
    state.PauseTiming();
    Simulator sim(*preset("mini"));
    ConnectOptions o;
    o.mode = mrc::wire::EvFmtMode::kSrv6;
    o.mtu = IBV_MTU_4096;
    Connection c;
    const std::string err = connect_hosts(sim, 0, 1, o, c);
    if (!err.empty()) {
      state.SkipWithError(err.c_str());
      return;
    }
    WriteTransfer xfer;
    WriteJob job;
    job.bytes = bytes;
    job.slice_ns = 10'000;
    if (const std::string e = xfer.start(sim, c, job); !e.empty()) {
      state.SkipWithError(e.c_str());
      return;
    }
    const std::uint64_t t0 = sim.now();
    state.ResumeTiming();
    while (!xfer.poll() && sim.now() < 10'000'000'000ull) sim.run_until(sim.now() + job.slice_ns);
    state.PauseTiming();
    const bool ok = xfer.done() && xfer.failure().empty() && xfer.verify();
    const SimStats s = sim.stats();
    const double virt_s = static_cast<double>(sim.now() - t0) * 1e-9;
    state.counters["ok"] = ok ? 1 : 0;
    state.counters["virtual_ms"] = virt_s * 1e3;
    state.counters["goodput_gbps"] = static_cast<double>(bytes) * 8 / virt_s / 1e9;
    state.counters["hops"] = static_cast<double>(s.hops);
    state.counters["events"] = static_cast<double>(s.events);
    state.counters["hops_per_s"] = benchmark::Counter(static_cast<double>(s.hops), benchmark::Counter::kIsRate);
    state.counters["pool_high_water"] = static_cast<double>(s.pool_high_water);
    state.counters["retransmits"] = static_cast<double>(c.a->requester(c.qpn_a)->stats().retransmits);
    if (!ok) state.SkipWithError("the write did not complete byte-exact");
    state.ResumeTiming();
  }
}
// Rates are per CPU second (the machine is shared); the Time column is the wall clock.
BENCHMARK(BM_SimWrite1GiB)->Arg(1024)->Unit(benchmark::kMillisecond)->Iterations(1);

// Bytes the allocator has handed out and not taken back (heap and mmap'd chunks). Unlike the RSS,
// it does not read 0 when a repetition reuses the pages a previous one freed.
std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

void BM_SimBuildPod(benchmark::State& state) {
  for (auto _ : state) {
    const std::size_t rss_before = rss_bytes();
    const std::size_t heap_before = heap_in_use();
    auto sim = Simulator::create(*preset("pod"), nullptr);
    const std::size_t heap = heap_in_use() - heap_before;
    const std::size_t rss = rss_bytes() - rss_before;
    state.counters["heap_MiB"] = static_cast<double>(heap) / (1 << 20);
    state.counters["rss_delta_MiB"] = static_cast<double>(rss) / (1 << 20);  // 0 when pages are reused
    state.counters["accounted_MiB"] = static_cast<double>(sim->memory_bytes()) / (1 << 20);
    state.counters["links"] = sim->topology().link_count();
    // The simulator's own accounting must be within reach of what the allocator saw, else one of
    // the two figures means nothing.
    if (heap == 0 || sim->memory_bytes() == 0 || sim->memory_bytes() > 2 * heap) {
      state.SkipWithError("the simulator's memory accounting disagrees with the allocator's");
    }
    benchmark::DoNotOptimize(sim);
  }
}
BENCHMARK(BM_SimBuildPod)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
