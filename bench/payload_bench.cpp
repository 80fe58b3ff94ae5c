// The write-data pattern (harness/stimulus/payload.hpp): every byte of every write a case posts is
// made by fill_write_data() and checked by check_write_data() when its completion comes back, so
// their speed is a floor under `run` and `campaign`. Reports GB/s of pattern made or checked.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "harness/stimulus/payload.hpp"

namespace {

using mrc::harness::stim::check_write_data;
using mrc::harness::stim::fill_write_data;

void BM_PayloadFill(benchmark::State& state) {
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(state.range(0)));
  std::uint64_t index = 0;
  for (auto _ : state) {
    fill_write_data(42, 1, index++, buf);
    benchmark::DoNotOptimize(buf.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_PayloadFill)->Arg(4096)->Arg(65536);

void BM_PayloadCheck(benchmark::State& state) {
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(state.range(0)));
  fill_write_data(42, 1, 7, buf);
  for (auto _ : state) {
    const bool ok = check_write_data(42, 1, 7, buf);
    if (!ok) {
      state.SkipWithError("the pattern did not check against itself");
      break;
    }
    benchmark::DoNotOptimize(ok);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_PayloadCheck)->Arg(4096)->Arg(65536);

}  // namespace

BENCHMARK_MAIN();
