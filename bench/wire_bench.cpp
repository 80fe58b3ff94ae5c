// Wire-layer throughput: encoding and decoding one MRC data frame, the ICRC, and every CRC-32
// engine this machine can run. Targets (issue 2): encode + ICRC >= 4 M frames/s, decode + ICRC
// check >= 20 M frames/s.
//
// The frame is what a STEV requester sends most: IPv6 (flow label = EV hi), UDP (sport = EV lo),
// BTH MRC WRITE MIDDLE (0xC7) with METH, TSETH and the per-packet RETH (W3, W4), 1024 payload
// bytes.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "reference/wire/frame.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::wire {
namespace {

constexpr std::size_t kPayloadLen = 1024;

// Payload bytes that outlive every FrameSpec pointing at them.
const std::vector<std::uint8_t>& payload_bytes() {
  static const std::vector<std::uint8_t> p = [] {
    std::vector<std::uint8_t> v(kPayloadLen);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(i * 31 + 7);
    return v;
  }();
  return p;
}

FrameSpec stev_data_frame_spec() {
  FrameSpec s;
  s.eth.dst = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  s.eth.src = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  s.l3 = L3Kind::kIpv6;
  s.ip6.dscp = kDscpTrimmable;   // W13 trimmable data
  s.ip6.ecn = kEcnEct0;
  s.ip6.flow_label = 0x0A5C3;    // W2 STEV: EV value >> 16
  s.ip6.hop_limit = 64;
  s.ip6.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  s.ip6.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  s.udp.sport = 0x7E21;          // W2 STEV: EV value & 0xFFFF
  s.udp.dport = kRoceV2Port;
  s.bth.opcode = opcode::kMrcWriteMiddle;
  s.bth.pkey = 0xFFFF;
  s.bth.dest_qp = 0x000123;
  s.bth.ack_req = false;         // W3: A only at a message end or a full window
  s.bth.psn = 0x000456;
  s.has_meth = true;             // W4: every MRC data packet carries a METH
  s.meth.msn = 7;
  s.has_tseth = true;            // W4: and, as the reference sends it, a TSETH
  s.tseth.tx_timestamp = 0x1234;
  s.has_reth = true;             // W4: every data packet carries its address
  s.reth.va = 0x7F00'0000'1000;
  s.reth.rkey = 0x1234;
  s.reth.dma_length = kPayloadLen;
  s.payload = Bytes(payload_bytes());
  return s;
}

// One encoded copy of the frame, checked once so a broken codec cannot produce a fast number.
struct EncodedFrame {
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  std::size_t len = 0;
  std::size_t roce_ip = 0;
  std::size_t icrc_off = 0;
  Bytes bytes() const { return Bytes(buf.data(), len); }
};

const EncodedFrame& encoded_frame() {
  static const EncodedFrame f = [] {
    EncodedFrame e;
    const EncodeResult r = encode_frame(stev_data_frame_spec(), e.buf);
    DecodedFrame d;
    const DecodeResult dr =
        r.ok() ? decode_frame(Bytes(e.buf.data(), r.length), d) : DecodeResult{};
    if (!r.ok() || !dr.ok() || !d.icrc_ok || d.payload.size() != kPayloadLen || d.trimmed) {
      std::fprintf(stderr, "wire_bench: the benchmark frame does not round-trip (%s / %s)\n",
                   to_string(r.error).data(), to_string(dr.error).data());
      std::abort();
    }
    e.len = r.length;
    e.roce_ip = d.roce_ip_offset;
    e.icrc_off = e.len - kIcrcLen;
    return e;
  }();
  return f;
}

void report(benchmark::State& state, std::size_t bytes_per_item) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes_per_item));
  state.SetLabel(crc32_engine());
}

void BM_EncodeStevDataFrame(benchmark::State& state) {
  const FrameSpec spec = stev_data_frame_spec();
  std::array<std::uint8_t, kMaxFrameLen> buf{};
  std::size_t len = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(spec);
    const EncodeResult r = encode_frame(spec, buf);
    len = r.length;
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  if (len != encoded_frame().len) state.SkipWithError("encode_frame length changed");
  report(state, len);
}
BENCHMARK(BM_EncodeStevDataFrame);

void decode_bench(benchmark::State& state, bool verify_icrc) {
  const EncodedFrame& f = encoded_frame();
  const DecodeOptions opt{.verify_icrc = verify_icrc};
  DecodedFrame out;
  bool all_ok = true;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.buf.data());
    const DecodeResult r = decode_frame(f.bytes(), out, opt);
    all_ok &= r.ok() && !out.trimmed;
    benchmark::DoNotOptimize(out);
  }
  if (!all_ok) state.SkipWithError("decode_frame failed");
  report(state, f.len);
}

void BM_DecodeStevDataFrame(benchmark::State& state) { decode_bench(state, true); }
BENCHMARK(BM_DecodeStevDataFrame);

void BM_DecodeStevDataFrameNoIcrc(benchmark::State& state) { decode_bench(state, false); }
BENCHMARK(BM_DecodeStevDataFrameNoIcrc);

void BM_IcrcStevDataFrame(benchmark::State& state) {
  const EncodedFrame& f = encoded_frame();
  const Bytes covered(f.buf.data() + f.roce_ip, f.icrc_off - f.roce_ip);
  const std::uint32_t want = icrc_read(f.buf.data() + f.icrc_off);
  std::uint32_t got = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(covered.data());
    got = icrc_compute(covered);
    benchmark::DoNotOptimize(got);
  }
  if (got != want) state.SkipWithError("ICRC mismatch");
  report(state, covered.size());
}
BENCHMARK(BM_IcrcStevDataFrame);

// CRC-32 of `state.range(0)` bytes through `crc` (the dispatched crc32() or one engine's).
void crc_bench(benchmark::State& state, std::uint32_t (*crc_fn)(std::uint32_t, Bytes),
               const char* engine) {
  std::vector<std::uint8_t> data(static_cast<std::size_t>(state.range(0)));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + 1);
  std::uint32_t crc = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(data.data());
    crc = crc_fn(0, data);
    benchmark::DoNotOptimize(crc);
  }
  if (crc != crc32_portable(0, data)) state.SkipWithError("engines disagree");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size()));
  state.SetLabel(engine);
}

// crc32() is whatever engine the CPU allows (the label says which).
void BM_Crc32Dispatched(benchmark::State& state) { crc_bench(state, &crc32, crc32_engine()); }
BENCHMARK(BM_Crc32Dispatched)->Arg(1024)->Arg(4096);

// The benchmark frame's ICRC through one engine.
void icrc_engine_bench(benchmark::State& state, const CrcEngine& engine) {
  const EncodedFrame& f = encoded_frame();
  const Bytes covered(f.buf.data() + f.roce_ip, f.icrc_off - f.roce_ip);
  const std::uint32_t want = icrc_read(f.buf.data() + f.icrc_off);
  std::uint32_t got = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(covered.data());
    got = engine.icrc(covered);
    benchmark::DoNotOptimize(got);
  }
  if (got != want) state.SkipWithError("ICRC mismatch");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * covered.size()));
  state.SetLabel(engine.name);
}

// Every engine this machine can run, by name: BM_Crc32Engine/<name>/<bytes>, BM_IcrcEngine/<name>.
void register_engine_benchmarks() {
  for (const CrcEngine& e : crc32_engines()) {
    const std::string crc_name = std::string("BM_Crc32Engine/") + e.name;
    benchmark::RegisterBenchmark(crc_name.c_str(), [&e](benchmark::State& state) {
      crc_bench(state, e.crc32, e.name);
    })->Arg(1024)->Arg(4096);
    const std::string icrc_name = std::string("BM_IcrcEngine/") + e.name;
    benchmark::RegisterBenchmark(icrc_name.c_str(), [&e](benchmark::State& state) {
      icrc_engine_bench(state, e);
    });
  }
}

}  // namespace
}  // namespace mrc::wire

int main(int argc, char** argv) {
  mrc::wire::register_engine_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
