// Semantic capture diff throughput (issue 11): packet pairs per second of diff_captures() on two
// captures of 100k MRC data frames each. Target: >= 2 M pairs/s on one core.
//
// The frames are what a STEV requester sprays: IPv6 (flow label = EV hi), UDP (sport = EV lo),
// MRC WRITE FIRST/MIDDLE/LAST (0xC6-0xC8) with a METH and a RETH on every packet (W4), 1024 payload
// bytes, over 8 EVs. The observed run has its own QPN, first PSN, VA, addresses and start time
// (normalization must hide them) and, in the windowed case, every pair of packets swapped inside
// an 8-packet spray window. The time covers everything `mrc-conform diff` does after reading the
// files: decoding both captures (with ICRC checks), normalization, window matching and the
// field-by-field comparison.
//
// A counting operator new (plain and aligned) checks the "no allocation per packet pair" rule: the allocations of
// one diff must not grow with the number of packets (1k versus 100k frames).
//
// BM_DiffProcess (issue 15) runs the whole `mrc-conform diff A B` process on two pcapng files it
// writes to a temporary folder ($TMPDIR; the 2M-frame case needs 4.3 GB there, set
// MRC_DIFF_BENCH_SKIP_2M=1 to leave it out): 200k frames of 1 KiB, 200k of 4 KiB, 2M of 1 KiB. It
// reports pairs/s, GB/s of each capture (wall and CPU time of the child) and the child's peak
// RSS (wait4 ru_maxrss), checks that the diff said IDENTICAL with pairs == frames and fails
// loudly otherwise (the error, and exit status 1). mrc-conform is the one beside this binary, or
// $MRC_CONFORM; $MRC_CONFORM_OLD runs a second binary on the same files (old vs new).
// BM_PcapMemcmpLoop is the floor: libpcap reads both files and memcmp()s each pair.
#include <benchmark/benchmark.h>
#include <pcap/pcap.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <regex>
#include <string>
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
  s.ip6.dscp = wire::DscpConfig{}.trimmable;  // W13 the Data class
  s.ip6.ecn = wire::kEcnEct0;
  s.ip6.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, r.host};
  s.ip6.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<std::uint8_t>(r.host + 1)};
  s.bth.dest_qp = r.qpn;
  s.bth.ack_req = true;
  s.has_meth = true;  // W4: every MRC data packet carries a METH and a RETH
  s.has_reth = true;
  s.reth.rkey = 0x1234;
  s.reth.dma_length = kPayload;
  s.payload = wire::Bytes(payload);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = r.swap_pairs ? (k ^ 1) : k;  // which logical packet goes out k-th
    const std::uint32_t ev = 0x10000000u + static_cast<std::uint32_t>(i % 8) * 0x00010001u;
    s.ip6.flow_label = ev >> 16;  // W2
    s.udp.sport = static_cast<std::uint16_t>(ev & 0xFFFF);
    s.bth.opcode = i % 16 == 0 ? wire::opcode::kMrcWriteFirst
                               : (i % 16 == 15 ? wire::opcode::kMrcWriteLast : wire::opcode::kMrcWriteMiddle);
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

// ---- the whole process on files ------------------------------------------------------------

bool g_failed = false;  // a benchmark whose result is wrong: main() exits 1

void fail(benchmark::State& state, const std::string& why) {
  g_failed = true;
  std::fprintf(stderr, "diff_bench: FAILED: %s\n", why.c_str());
  state.SkipWithError(why.c_str());
}

std::filesystem::path temp_dir() {
  static const std::filesystem::path dir = [] {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/mrc-diff-bench-XXXXXX";
    if (!::mkdtemp(tmpl.data())) std::abort();
    return std::filesystem::path(tmpl);
  }();
  return dir;
}

// A pcapng file of one Ethernet interface (ns timestamps) holding the frames of make_capture's
// run shape, written frame by frame so that a 2 GB capture never sits in memory.
void put32(std::string& b, std::uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }

std::string write_run(const RunShape& r, std::size_t n, std::size_t frame_bytes, const std::string& name) {
  const auto path = temp_dir() / name;
  std::ofstream out(path, std::ios::binary);
  std::string b;
  put32(b, 0x0A0D0D0A); put32(b, 28); put32(b, 0x1A2B3C4D); put32(b, 1); put32(b, 0xFFFFFFFF); put32(b, 0xFFFFFFFF);
  put32(b, 28);
  put32(b, 1); put32(b, 32); put32(b, 1); put32(b, 262144);
  put32(b, 0x00010009); put32(b, 9); put32(b, 0); put32(b, 32);  // if_tsresol = 9 (ns), end of options
  const std::size_t payload_len = frame_bytes > 130 ? frame_bytes - 130 : 64;
  std::vector<std::uint8_t> payload(payload_len);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i * 31 + 7);
  std::vector<std::uint8_t> buf(wire::kMaxFrameLen);
  wire::FrameSpec s;
  s.eth.src = {0x02, 0, 0, 0, 0, r.host};
  s.eth.dst = {0x02, 0, 0, 0, 0, static_cast<std::uint8_t>(r.host + 1)};
  s.ip6.dscp = wire::DscpConfig{}.trimmable;  // W13 the Data class
  s.ip6.ecn = wire::kEcnEct0;
  s.ip6.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, r.host};
  s.ip6.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<std::uint8_t>(r.host + 1)};
  s.bth.dest_qp = r.qpn;
  s.bth.ack_req = true;
  s.has_meth = true;  // W4: every MRC data packet carries a METH and a RETH
  s.has_reth = true;
  s.reth.rkey = 0x1234;
  s.reth.dma_length = static_cast<std::uint32_t>(payload_len);
  s.payload = wire::Bytes(payload);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t ev = 0x10000000u + static_cast<std::uint32_t>(i % 8) * 0x00010001u;
    s.ip6.flow_label = ev >> 16;  // W2
    s.udp.sport = static_cast<std::uint16_t>(ev & 0xFFFF);
    s.bth.opcode = i % 16 == 0 ? wire::opcode::kMrcWriteFirst
                               : (i % 16 == 15 ? wire::opcode::kMrcWriteLast : wire::opcode::kMrcWriteMiddle);
    s.bth.psn = (r.psn0 + static_cast<std::uint32_t>(i)) & 0xFFFFFF;
    s.reth.va = r.va0 + i * payload_len;
    const auto e = wire::encode_frame(s, buf);
    if (!e.ok()) std::abort();
    const auto len = static_cast<std::uint32_t>(e.length);
    const std::uint32_t padded = (len + 3u) & ~3u;
    const std::uint64_t ts = r.t0 + i * 1000;
    put32(b, 6); put32(b, 32 + padded); put32(b, 0);
    put32(b, static_cast<std::uint32_t>(ts >> 32)); put32(b, static_cast<std::uint32_t>(ts));
    put32(b, len); put32(b, len);
    b.append(reinterpret_cast<const char*>(buf.data()), len);
    b.append(padded - len, '\0');
    put32(b, 32 + padded);
    if (b.size() > (std::size_t{4} << 20)) {
      out.write(b.data(), static_cast<std::streamsize>(b.size()));
      b.clear();
    }
  }
  out.write(b.data(), static_cast<std::streamsize>(b.size()));
  return out ? path.string() : std::string();
}

struct Files {
  std::string a, b;
  std::uint64_t bytes = 0;  // of A
};

// The pair of files of one shape, written once per process.
bool g_made = false;

const Files& files(std::size_t frames, std::size_t frame_bytes) {
  g_made = true;
  static std::vector<std::pair<std::pair<std::size_t, std::size_t>, Files>> made;
  for (auto& [k, f] : made) {
    if (k == std::pair{frames, frame_bytes}) return f;
  }
  Files f;
  const std::string tag = std::to_string(frames) + "x" + std::to_string(frame_bytes);
  f.a = write_run({0x222, 1000, 0x10000, 1, 5000, false}, frames, frame_bytes, "a-" + tag + ".pcapng");
  f.b = write_run({0x777, 0xFFFF00, 0x7F0000000, 9, 9'000'000, false}, frames, frame_bytes, "b-" + tag + ".pcapng");
  std::error_code ec;
  f.bytes = f.a.empty() ? 0 : std::filesystem::file_size(f.a, ec);
  made.emplace_back(std::pair{frames, frame_bytes}, f);
  return made.back().second;
}

void remove_files(bool made) {
  if (!made) return;
  if (std::getenv("MRC_DIFF_BENCH_KEEP")) {  // to profile `mrc-conform diff` on them by hand
    std::fprintf(stderr, "diff_bench: captures kept in %s\n", temp_dir().c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(temp_dir(), ec);
}

// pairs per CPU second of the memcmp loop, per shape, for the ratios BM_DiffProcess prints
std::vector<std::pair<std::pair<std::size_t, std::size_t>, double>> g_floor;

struct Child {
  int status = -1;
  std::string out;
  double wall_s = 0;
  double cpu_s = 0;
  long maxrss_kib = 0;
};

Child run_child(const std::string& bin, const std::vector<std::string>& args) {
  Child c;
  int fd[2];
  if (::pipe(fd) != 0) return c;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fd[1], 1);
    ::dup2(fd[1], 2);
    ::close(fd[0]);
    ::close(fd[1]);
    std::vector<char*> argv{const_cast<char*>(bin.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    std::_Exit(127);
  }
  ::close(fd[1]);
  char buf[4096];
  for (ssize_t n; (n = ::read(fd[0], buf, sizeof buf)) > 0;) c.out.append(buf, static_cast<std::size_t>(n));
  ::close(fd[0]);
  rusage ru{};
  ::wait4(pid, &c.status, 0, &ru);
  c.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  c.maxrss_kib = ru.ru_maxrss;
  return c;
}

std::string conform_binary(const char* env) {
  if (const char* e = std::getenv(env); e && *e) return e;
  if (std::string(env) != "MRC_CONFORM") return {};
  char self[4096] = {0};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  return n > 0 ? (std::filesystem::path(std::string(self, static_cast<std::size_t>(n))).parent_path() / "mrc-conform").string()
               : std::string();
}

void run_process(benchmark::State& state, const char* env) {
  const auto frames = static_cast<std::size_t>(state.range(0));
  const auto frame_bytes = static_cast<std::size_t>(state.range(1));
  if (frames >= 2'000'000 && std::getenv("MRC_DIFF_BENCH_SKIP_2M")) {
    state.SkipWithError("MRC_DIFF_BENCH_SKIP_2M is set");
    return;
  }
  const std::string bin = conform_binary(env);
  if (bin.empty()) {
    state.SkipWithError("$MRC_CONFORM_OLD is not set (old versus new)");
    return;
  }
  if (!std::filesystem::exists(bin)) return fail(state, bin + " does not exist");
  const Files& f = files(frames, frame_bytes);
  if (f.a.empty() || f.b.empty()) return fail(state, "cannot write the captures in " + temp_dir().string());
  Child c;
  for (auto _ : state) {
    c = run_child(bin, {"diff", f.a, f.b});
    state.SetIterationTime(c.wall_s);
  }
  // The numbers count only when the diff is right: IDENTICAL, every frame paired.
  static const std::regex pairs_re("compared ([0-9]+) pairs");
  std::smatch m;
  const bool identical = c.out.find("\nIDENTICAL") != std::string::npos;
  const std::size_t pairs = std::regex_search(c.out, m, pairs_re) ? std::stoull(m[1].str()) : 0;
  if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 || !identical || pairs != frames) {
    return fail(state, bin + " diff did not say IDENTICAL with " + std::to_string(frames) + " pairs (status " +
                           std::to_string(c.status) + "): " + c.out.substr(0, 400));
  }
  const double gb = static_cast<double>(f.bytes) / 1e9;
  state.counters["pairs_per_s"] = static_cast<double>(frames) / c.wall_s;
  state.counters["pairs_per_cpu_s"] = static_cast<double>(frames) / c.cpu_s;
  state.counters["GB_per_s"] = gb / c.wall_s;  // of each capture
  state.counters["cpu_s"] = c.cpu_s;
  state.counters["peak_rss_MiB"] = static_cast<double>(c.maxrss_kib) / 1024.0;
  state.counters["capture_GB"] = gb;
  for (const auto& [k, v] : g_floor) {
    if (k == std::pair{frames, frame_bytes}) state.counters["cpu_vs_memcmp"] = (static_cast<double>(frames) / c.cpu_s) / v;
  }
}

void BM_DiffProcess(benchmark::State& state) { run_process(state, "MRC_CONFORM"); }
void BM_DiffProcessOld(benchmark::State& state) { run_process(state, "MRC_CONFORM_OLD"); }

// The floor: libpcap reads both files and compares each pair of frames byte for byte.
void BM_PcapMemcmpLoop(benchmark::State& state) {
  const auto frames = static_cast<std::size_t>(state.range(0));
  const Files& f = files(frames, static_cast<std::size_t>(state.range(1)));
  std::size_t pairs = 0;
  std::size_t equal = 0;
  double cpu_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    char err[PCAP_ERRBUF_SIZE];
    pcap_t* a = pcap_open_offline(f.a.c_str(), err);
    pcap_t* b = a ? pcap_open_offline(f.b.c_str(), err) : nullptr;
    if (!a || !b) return fail(state, std::string("libpcap: ") + err);
    pairs = 0;
    equal = 0;
    pcap_pkthdr* ha = nullptr;
    pcap_pkthdr* hb = nullptr;
    const u_char* da = nullptr;
    const u_char* db = nullptr;
    while (pcap_next_ex(a, &ha, &da) == 1 && pcap_next_ex(b, &hb, &db) == 1) {
      ++pairs;
      equal += ha->caplen == hb->caplen && std::memcmp(da, db, ha->caplen) == 0;
    }
    pcap_close(a);
    pcap_close(b);
    cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  benchmark::DoNotOptimize(equal);
  if (pairs != frames) return fail(state, "the memcmp loop read " + std::to_string(pairs) + " pairs");
  state.counters["pairs_per_s"] = benchmark::Counter(static_cast<double>(pairs), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["pairs_per_cpu_s"] = static_cast<double>(pairs) / cpu_s;
  g_floor.emplace_back(std::pair{frames, static_cast<std::size_t>(state.range(1))}, static_cast<double>(pairs) / cpu_s);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->Args({200'000, 1024})->Args({200'000, 4096})->Args({2'000'000, 1024});
  b->ArgNames({"frames", "frame_bytes"})->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
}
BENCHMARK(BM_PcapMemcmpLoop)->Apply(shapes);
BENCHMARK(BM_DiffProcess)->Apply(shapes);
BENCHMARK(BM_DiffProcessOld)->Apply(shapes);

}  // namespace
}  // namespace mrc::harness

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  mrc::harness::remove_files(mrc::harness::g_made);
  if (mrc::harness::g_failed) std::fprintf(stderr, "diff_bench: a benchmark's result was wrong (above)\n");
  return mrc::harness::g_failed ? 1 : 0;
}
