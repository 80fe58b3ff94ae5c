// Semantic capture diff throughput (issue 11): packet pairs per second of diff_captures() on two
// captures of 100k MRC data frames each. Target: >= 2 M pairs/s on one core.
//
// The frames are what a STEV requester sprays: IPv6 (flow label = EV hi), UDP (sport = EV lo),
// BTH WRITE FIRST/MIDDLE/LAST with the per-packet RETH of MRC framing (MODEL: M3), 1024 payload
// bytes, over 8 EVs. The observed run has its own QPN, first PSN, VA, addresses and start time
// (normalization must hide them) and, in the windowed case, every pair of packets swapped inside
// an 8-packet spray window. The time covers everything `mrc-conform diff` does after reading the
// files: decoding both captures (with ICRC checks), normalization, window matching and the
// field-by-field comparison.
//
// A counting operator new (plain and aligned) checks the "no allocation per packet pair" rule: the allocations of
// one diff must not grow with the number of packets (1k versus 100k frames).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "harness/observe/capture.hpp"
#include "harness/verdict/diff.hpp"
#include "reference/wire/frame.hpp"

namespace {
std::atomic<std::size_t> g_allocations{0};
}  // namespace

// Out of line, so GCC does not pair an inlined malloc with free and warn (-Wmismatched-new-delete).
[[gnu::noinline]] void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new(std::size_t n, std::align_val_t a) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t al = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(al, (n + al - 1) / al * al)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace mrc::harness {
namespace {

constexpr std::size_t kFrames = 100'000;
constexpr std::size_t kPayload = 1024;

struct RunShape {
  std::uint32_t qpn;
  std::uint32_t psn0;
  std::uint64_t va0;
  std::uint8_t host;
  std::uint64_t t0;
  bool swap_pairs;  // spray reordering: packets 2i and 2i+1 exchanged
};

Capture make_capture(const RunShape& r, std::size_t n) {
  Capture c("bench");
  c.reserve(n, n * (kPayload + 128));
  std::vector<std::uint8_t> payload(kPayload);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i * 31 + 7);
  std::vector<std::uint8_t> buf(wire::kMaxFrameLen);
  wire::FrameSpec s;
  s.eth.src = {0x02, 0, 0, 0, 0, r.host};
  s.eth.dst = {0x02, 0, 0, 0, 0, static_cast<std::uint8_t>(r.host + 1)};
  s.ip6.dscp = wire::kDscpTrimmable;  // MODEL: M11
  s.ip6.ecn = wire::kEcnEct0;
  s.ip6.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, r.host};
  s.ip6.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<std::uint8_t>(r.host + 1)};
  s.bth.dest_qp = r.qpn;
  s.bth.ack_req = true;  // MODEL: M3
  s.has_reth = true;     // MODEL: M3
  s.reth.rkey = 0x1234;
  s.reth.dma_length = kPayload;
  s.payload = wire::Bytes(payload);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = r.swap_pairs ? (k ^ 1) : k;  // which logical packet goes out k-th
    const std::uint32_t ev = 0x10000000u + static_cast<std::uint32_t>(i % 8) * 0x00010001u;
    s.ip6.flow_label = ev >> 16;  // MODEL: M2
    s.udp.sport = static_cast<std::uint16_t>(ev & 0xFFFF);
    s.bth.opcode = i % 16 == 0 ? wire::opcode::kRcWriteFirst
                               : (i % 16 == 15 ? wire::opcode::kRcWriteLast : wire::opcode::kRcWriteMiddle);
    s.bth.psn = (r.psn0 + static_cast<std::uint32_t>(i)) & 0xFFFFFF;
    s.reth.va = r.va0 + i * kPayload;
    const auto e = wire::encode_frame(s, buf);
    if (!e.ok()) std::abort();
    c.add(r.t0 + k * 1000, {buf.data(), e.length});
  }
  c.integrity().offered = c.integrity().captured;
  return c;
}

const Capture& golden() {
  static const Capture c = make_capture({0x222, 1000, 0x10000, 1, 5000, false}, kFrames);
  return c;
}

const Capture& observed(bool reordered) {
  static const Capture same = make_capture({0x777, 0xFFFF00, 0x7F0000000, 9, 9'000'000, false}, kFrames);
  static const Capture swapped = make_capture({0x777, 0xFFFF00, 0x7F0000000, 9, 9'000'000, true}, kFrames);
  return reordered ? swapped : same;
}

void run_diff(benchmark::State& state, bool reordered) {
  DiffOptions opt;
  opt.window = reordered ? 8 : 1;
  opt.tolerance_ns = reordered ? 1000 : 0;  // a swapped pair is one packet gap apart
  const Capture& a = golden();
  const Capture& b = observed(reordered);
  {
    const DiffReport check = diff_captures(a, b, opt);  // the number must come from a correct diff
    if (!check.identical() || check.pairs != kFrames) {
      state.SkipWithError("diff of equivalent captures is not identical");
      return;
    }
  }
  // Allocations per diff must not depend on the number of packets.
  {
    const Capture small_a = make_capture({0x222, 1000, 0x10000, 1, 5000, false}, 1000);
    const Capture small_b = make_capture({0x777, 0xFFFF00, 0x7F0000000, 9, 9'000'000, reordered}, 1000);
    std::size_t before = g_allocations.load();
    benchmark::DoNotOptimize(diff_captures(small_a, small_b, opt));
    const std::size_t small_allocs = g_allocations.load() - before;
    before = g_allocations.load();
    benchmark::DoNotOptimize(diff_captures(a, b, opt));
    const std::size_t big_allocs = g_allocations.load() - before;
    state.counters["allocs_per_diff"] = static_cast<double>(big_allocs);
    if (big_allocs != small_allocs) {
      state.SkipWithError("allocations grow with the number of packets");
      return;
    }
  }
  std::size_t pairs = 0;
  for (auto _ : state) {
    const DiffReport r = diff_captures(a, b, opt);
    benchmark::DoNotOptimize(r.pairs);
    pairs += r.pairs;
  }
  state.counters["pairs_per_s"] = benchmark::Counter(static_cast<double>(pairs), benchmark::Counter::kIsRate);
  state.counters["frames"] = static_cast<double>(kFrames);
}

void BM_DiffIdentical(benchmark::State& state) { run_diff(state, false); }
void BM_DiffReorderedWindow8(benchmark::State& state) { run_diff(state, true); }

BENCHMARK(BM_DiffIdentical)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_DiffReorderedWindow8)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace mrc::harness

BENCHMARK_MAIN();
