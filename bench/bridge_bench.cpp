// The real-time bridge's added latency and jitter on veth (issue: "measure the bridge's added
// latency and jitter, p50, p99, max per frame, in a benchmark on veth").
//
// A simulated fabric (mini) runs paced to CLOCK_MONOTONIC with host 0 bound to one veth of a fresh
// network namespace; inside the namespace a reflector sends every frame straight back. Frames are
// delivered to host 0 every `gap` ns, so each crosses the bridge twice:
//   tx_lag    fabric time the frame reached host 0 -> the bridge handed it to the kernel
//   rx_entry  kernel capture time of the reflected frame -> its entry into the fabric
//   round     fabric arrival at host 0 -> the reflected frame's entry (both crossings, the veth
//             and the reflector's own wake-up)
//   wake      how late the paced loop woke for the time it waited for (pacing jitter)
// Counters are in microseconds. Needs root (network namespaces); skipped otherwise.
#include <benchmark/benchmark.h>

#include <arpa/inet.h>
#include <poll.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "harness/testbed/testbed.hpp"
#include "harness/testbed/wire/netns.hpp"
#include "harness/testbed/wire/netns_exec.hpp"
#include "harness/testbed/wire/pcap_port.hpp"

namespace {

namespace hw = mrc::harness::wire;
using mrc::harness::LatencyHistogram;

// Ethernet + IPv6 + UDP (port 4791) from host 0 to host 1, the sequence number in the payload.
std::vector<std::uint8_t> probe_frame(const mrc::harness::HostAddress& src, const mrc::harness::HostAddress& dst,
                                      std::uint32_t seq) {
  std::vector<std::uint8_t> f(14 + 40 + 8 + 64, 0);
  std::memcpy(f.data(), dst.mac.data(), 6);
  std::memcpy(f.data() + 6, src.mac.data(), 6);
  f[12] = 0x86;
  f[13] = 0xDD;
  std::uint8_t* ip = f.data() + 14;
  ip[0] = 0x60;
  const std::uint16_t plen = htons(8 + 64);
  std::memcpy(ip + 4, &plen, 2);
  ip[6] = 17;
  ip[7] = 64;
  std::memcpy(ip + 8, src.gid.data(), 16);
  std::memcpy(ip + 24, dst.gid.data(), 16);
  std::uint8_t* udp = ip + 40;
  const std::uint16_t port = htons(4791);
  std::memcpy(udp, &port, 2);
  std::memcpy(udp + 2, &port, 2);
  std::memcpy(udp + 4, &plen, 2);
  std::memcpy(udp + 8, &seq, 4);
  return f;
}

void add_us(benchmark::State& state, const char* name, const LatencyHistogram& h) {
  const std::string n(name);
  state.counters[n + "_p50_us"] = static_cast<double>(h.quantile(0.5)) / 1000.0;
  state.counters[n + "_p99_us"] = static_cast<double>(h.quantile(0.99)) / 1000.0;
  state.counters[n + "_max_us"] = static_cast<double>(h.max()) / 1000.0;
}

void BridgeOnVeth(benchmark::State& state) {
  if (std::string why = hw::netns_unavailable_reason(); !why.empty()) {
    state.SkipWithError(("needs network namespaces: " + why).c_str());
    return;
  }
  const auto frames = static_cast<std::uint32_t>(state.range(0));
  const std::uint64_t gap_ns = static_cast<std::uint64_t>(state.range(1));
  std::string why;
  auto ns = hw::Netns::create(hw::NetnsOptions{1, 9000, std::chrono::milliseconds(5000)}, &why);
  if (!ns) {
    state.SkipWithError(why.c_str());
    return;
  }
  // The reflector: a thread inside the namespace, every frame straight back.
  std::atomic<bool> stop{false};
  std::atomic<bool> ready{false};
  std::thread reflector([&] {
    if (!hw::enter_netns(ns->name()).empty()) return;
    auto port = hw::PcapPort::open(ns->planes()[0].ns_if, hw::PcapPortOptions{}, &why);
    ready = true;
    if (!port) return;
    pollfd p{port->fd(), POLLIN, 0};
    while (!stop) {
      if (poll(&p, 1, 10) <= 0) continue;
      port->receive([&](std::uint64_t, std::span<const std::uint8_t> b, std::uint32_t) { (void)port->inject(b); }, 64);
    }
  });
  while (!ready) std::this_thread::yield();

  LatencyHistogram tx;
  LatencyHistogram rx;
  LatencyHistogram round;
  LatencyHistogram wake;
  std::uint64_t lost = 0;
  for (auto _ : state) {
    auto tb = mrc::harness::make_sim_testbed(mrc::harness::TestbedRequest::named("mini"), 1, &why);
    const mrc::harness::WirePortBinding b{1, ns->planes()[0].host_if};
    auto host = mrc::harness::open_wire_host(std::span(&b, 1), {}, &why);
    if (!tb || !host || !tb->bind_wire(0, std::move(host), {}).empty()) {
      state.SkipWithError(why.c_str());
      break;
    }
    tb->add_tap("to", 0, 1, false);
    tb->add_tap("from", 0, 1, true);
    const auto src = tb->host_address(0);
    const auto dst = tb->host_address(1);
    const std::uint64_t start = tb->now() + 1'000'000;
    for (std::uint32_t i = 0; i < frames; ++i) {
      tb->inject_to(0, 1, probe_frame(src, dst, i), start + i * gap_ns);
    }
    tb->run_until(start + frames * gap_ns + 2'000'000);
    const auto* fig = tb->bridge_figures(0);
    tx.merge(fig->tx_lag);
    wake.merge(*tb->pacing_lateness());
    rx.merge(fig->rx_entry);
    lost += frames - std::min<std::uint64_t>(frames, fig->rx_frames);
    auto taps = tb->take_taps();
    const auto& to = taps[0].capture;
    const auto& from = taps[1].capture;
    for (std::size_t i = 0; i < std::min(to.size(), from.size()); ++i) {
      const std::uint64_t a = to.packet(i).ts_ns;
      const std::uint64_t c = from.packet(i).ts_ns;
      round.add(c > a ? c - a : 0);
    }
  }
  stop = true;
  reflector.join();
  add_us(state, "tx_lag", tx);
  add_us(state, "rx_entry", rx);
  add_us(state, "round", round);
  add_us(state, "wake", wake);
  state.counters["lost"] = static_cast<double>(lost);
}
BENCHMARK(BridgeOnVeth)->Args({2000, 20'000})->Args({2000, 5'000})->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
