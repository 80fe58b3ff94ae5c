// The streaming diff (diff_stream.hpp) finds what the in-memory diff finds: the same counts and
// the same first max_differences, in order, on captures with reordering, missing, extra,
// undecodable and foreign frames and field differences, for many windows; from memory and from
// files (pcapng of one and of several interfaces, classic pcap). A window of 100000 on 200k
// frames costs work linear in the frames (a bound on lookups, not on time).
#include "harness/verdict/diff_stream.hpp"

#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "harness/capture/pcapng.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Feedback;
using testing::encode;
using testing::ev_value;

struct RunSpec {
  std::uint32_t qpn = 0x222;
  std::uint32_t psn0 = 1000;
  std::uint64_t va0 = 0x10000;
  std::uint8_t src = 1;
  std::uint8_t dst = 2;
  std::uint64_t t0 = 5000;
  std::uint32_t len = 64;
};

// n WRITE packets over 4 EVs and a feedback frame after every 4th.
Capture make_run(const RunSpec& r, std::size_t n) {
  Capture c("run");
  for (std::size_t k = 0; k < n; ++k) {
    Data d;
    d.opcode = k % 4 == 0 ? wire::opcode::kMrcWriteFirst : (k % 4 == 3 ? wire::opcode::kMrcWriteLast : wire::opcode::kMrcWriteMiddle);
    d.psn = (r.psn0 + static_cast<std::uint32_t>(k)) & 0xFFFFFF;
    d.dqpn = r.qpn;
    d.va = r.va0 + k * r.len;
    d.len = r.len;
    d.ev = ev_value(static_cast<std::uint32_t>(k % 4));
    d.src_host = r.src;
    d.dst_host = r.dst;
    d.fill = static_cast<std::uint8_t>(k);
    c.add(r.t0 + k * 1000, encode(d));
    if (k % 4 == 3) {
      Feedback f;
      f.psn = 70000 + static_cast<std::uint32_t>(k);
      f.trig_psn = f.psn;
      f.dqpn = r.qpn + 1;
      f.src_host = r.dst;
      f.dst_host = r.src;
      c.add(r.t0 + k * 1000 + 500, encode(f));
    }
  }
  return c;
}

// A damaged copy: nearby packets swapped, some dropped, some sent twice, bytes flipped (a field
// or the ICRC), foreign frames (ARP) inserted, clocks shifted.
Capture mutate(const Capture& in, std::mt19937& rng, int strength) {
  std::vector<std::size_t> order(in.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::uniform_int_distribution<int> pct(0, 99);
  for (std::size_t i = 0; i + 1 < order.size(); ++i) {
    if (pct(rng) < 3 * strength) std::swap(order[i], order[std::min(order.size() - 1, i + 1 + static_cast<std::size_t>(pct(rng) % 6))]);
  }
  Capture out("mutated");
  std::uint64_t t = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    t = in.packet(k).ts_ns + static_cast<std::uint64_t>(pct(rng) < 10 ? pct(rng) * 7 : 0);
    if (pct(rng) < strength) continue;  // missing
    std::vector<std::uint8_t> bytes(in.bytes(i).begin(), in.bytes(i).end());
    if (pct(rng) < strength && bytes.size() > 60) bytes[14 + static_cast<std::size_t>(pct(rng)) % (bytes.size() - 14)] ^= 0x10;
    out.add(t, bytes);
    if (pct(rng) < strength) out.add(t + 1, in.bytes(i));  // extra copy
    if (pct(rng) < strength) {
      std::vector<std::uint8_t> arp(42, 0);
      arp[12] = 0x08;
      arp[13] = 0x06;
      arp[20] = static_cast<std::uint8_t>(k);
      out.add(t + 2, arp);
    }
  }
  return out;
}

void expect_same(const DiffReport& old_r, const DiffReport& new_r, const std::string& what) {
  ASSERT_EQ(old_r.error, new_r.error) << what;
  if (!old_r.ok()) return;  // bad options: nothing was read or compared (the streaming diff counts no packets)
  EXPECT_EQ(old_r.packets_a, new_r.packets_a) << what;
  EXPECT_EQ(old_r.packets_b, new_r.packets_b) << what;
  EXPECT_EQ(old_r.pairs, new_r.pairs) << what;
  EXPECT_EQ(old_r.reordered_pairs, new_r.reordered_pairs) << what;
  EXPECT_EQ(old_r.differing_pairs, new_r.differing_pairs) << what;
  EXPECT_EQ(old_r.field_differences, new_r.field_differences) << what;
  EXPECT_EQ(old_r.missing, new_r.missing) << what;
  EXPECT_EQ(old_r.extra, new_r.extra) << what;
  EXPECT_EQ(old_r.decode_failures_a, new_r.decode_failures_a) << what;
  EXPECT_EQ(old_r.decode_failures_b, new_r.decode_failures_b) << what;
  EXPECT_EQ(old_r.not_roce_a, new_r.not_roce_a) << what;
  EXPECT_EQ(old_r.not_roce_b, new_r.not_roce_b) << what;
  ASSERT_EQ(old_r.differences.size(), new_r.differences.size()) << what;
  for (std::size_t k = 0; k < old_r.differences.size(); ++k) {
    const Difference& x = old_r.differences[k];
    const Difference& y = new_r.differences[k];
    const std::string at = what + ", difference #" + std::to_string(k);
    EXPECT_EQ(x.kind, y.kind) << at;
    EXPECT_EQ(x.index_a, y.index_a) << at;
    EXPECT_EQ(x.index_b, y.index_b) << at;
    EXPECT_EQ(x.ts_a, y.ts_a) << at;
    EXPECT_EQ(x.ts_b, y.ts_b) << at;
    EXPECT_EQ(x.field, y.field) << at;
    EXPECT_EQ(x.field_class, y.field_class) << at;
    EXPECT_EQ(x.message, y.message) << at;
    EXPECT_EQ(x.expected, y.expected) << at;
    EXPECT_EQ(x.observed, y.observed) << at;
    EXPECT_EQ(x.filter_a, y.filter_a) << at;
    EXPECT_EQ(x.filter_b, y.filter_b) << at;
  }
}

DiffReport streamed(const Capture& a, const Capture& b, const DiffOptions& opt) {
  CaptureSource sa(a);
  CaptureSource sb(b);
  return diff_streams(sa, sb, opt);
}

TEST(DiffStream, SameFindingsAsTheInMemoryDiffOnDamagedCaptures) {
  std::mt19937 rng(15);
  int differing_reports = 0;
  for (int round = 0; round < 60; ++round) {
    const std::size_t n = 40 + static_cast<std::size_t>(round) * 3;
    const Capture base = make_run(RunSpec{}, n);
    const Capture other = make_run(RunSpec{0x999, 0xFFFFF0, 0x7F000000, 9, 7, 1'000'000, 64}, n);
    const Capture a = round % 3 == 0 ? mutate(base, rng, 2) : base;
    const Capture b = mutate(other, rng, 1 + round % 5);
    for (const std::uint32_t w : {1u, 2u, 3u, 5u, 8u, 17u, 64u, 1000u}) {
      DiffOptions opt;
      opt.window = w;
      opt.max_differences = round % 2 ? 7 : 200;
      opt.tolerance_ns = round % 4 == 1 ? 400 : 0;
      if (round % 5 == 2) opt.masks = {"ts"};
      const DiffReport old_r = diff_captures(a, b, opt);
      differing_reports += old_r.identical() ? 0 : 1;
      expect_same(old_r, streamed(a, b, opt), "round " + std::to_string(round) + " window " + std::to_string(w));
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(differing_reports, 200);  // the damage shows: the comparison is not of empty reports
}

TEST(DiffStream, SameFindingsOnTheDiffTestShapes) {
  const Capture a = make_run(RunSpec{}, 24);
  // reversed blocks of 5, one packet gone, one foreign frame, identical
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < a.size(); ++i) order.push_back(i - i % 5 + (4 - i % 5) < a.size() ? i - i % 5 + (4 - i % 5) : i);
  Capture rev("rev");
  for (std::size_t i = 0; i < order.size(); ++i) rev.add(a.packet(i).ts_ns, a.bytes(order[i]));
  for (const std::uint32_t w : {1u, 4u, 5u, 9u}) {
    DiffOptions opt;
    opt.window = w;
    opt.tolerance_ns = 5000;
    expect_same(diff_captures(a, rev, opt), streamed(a, rev, opt), "reversed blocks, window " + std::to_string(w));
    expect_same(diff_captures(rev, a, opt), streamed(rev, a, opt), "reversed blocks swapped, window " + std::to_string(w));
    expect_same(diff_captures(a, a, opt), streamed(a, a, opt), "identical, window " + std::to_string(w));
  }
  const Capture empty("empty");
  expect_same(diff_captures(a, empty, DiffOptions{}), streamed(a, empty, DiffOptions{}), "B empty");
  expect_same(diff_captures(empty, a, DiffOptions{}), streamed(empty, a, DiffOptions{}), "A empty");
  DiffOptions bad;
  bad.masks = {"no.such.field"};
  expect_same(diff_captures(a, a, bad), streamed(a, a, bad), "unknown mask");
}

// The files of one test, removed with it.
class Scratch {
 public:
  Scratch() : dir_(std::filesystem::temp_directory_path() / ("mrc-diff-stream-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path operator()(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
};

std::string write_classic(const std::filesystem::path& path, const Capture& c) {
  pcap_t* p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
  pcap_dumper_t* d = pcap_dump_open(p, path.c_str());
  if (!d) return pcap_geterr(p);
  for (std::size_t i = 0; i < c.size(); ++i) {
    pcap_pkthdr h{};
    h.ts.tv_sec = static_cast<time_t>(c.packet(i).ts_ns / 1'000'000'000);
    h.ts.tv_usec = static_cast<suseconds_t>(c.packet(i).ts_ns % 1'000'000'000);
    h.caplen = h.len = static_cast<bpf_u_int32>(c.bytes(i).size());
    pcap_dump(reinterpret_cast<u_char*>(d), &h, c.bytes(i).data());
  }
  pcap_dump_close(d);
  pcap_close(p);
  return {};
}

TEST(DiffStream, FromFilesSameFindingsAsFromMemory) {
  const Scratch scratch;
  std::mt19937 rng(7);
  const Capture a = make_run(RunSpec{}, 300);
  const Capture b = mutate(make_run(RunSpec{0x31, 77, 0x5000, 5, 6, 99, 64}, 300), rng, 3);
  for (const bool classic : {false, true}) {
    const auto pa = scratch(classic ? "a.pcap" : "a.pcapng");
    const auto pb = scratch(classic ? "b.pcap" : "b.pcapng");
    ASSERT_EQ(classic ? write_classic(pa, a) : write_pcapng(pa, a), "");
    ASSERT_EQ(classic ? write_classic(pb, b) : write_pcapng(pb, b), "");
    for (const std::uint32_t w : {1u, 8u, 100u}) {
      DiffOptions opt;
      opt.window = w;
      opt.max_differences = 30;
      FileInterfaceSource fa(pa, 0);
      FileInterfaceSource fb(pb, 0);
      ASSERT_EQ(fa.open_error(), "");
      ASSERT_EQ(fb.open_error(), "");
      const DiffReport r = diff_streams(fa, fb, opt);
      EXPECT_FALSE(r.identical());
      expect_same(diff_captures(a, b, opt), r, std::string(classic ? "pcap" : "pcapng") + " window " + std::to_string(w));
    }
  }
}

// One tap of an evidence file of two: indices and filters are the file's, as `mrc-conform diff
// --iface` has always reported them (diff_captures on the tap, positions mapped to the file).
TEST(DiffStream, OneInterfaceOfAnEvidenceFileReportsFilePositions) {
  const Scratch scratch;
  std::mt19937 rng(3);
  const Capture tx = make_run(RunSpec{}, 50);
  const Capture rx = make_run(RunSpec{0x40, 9, 0x1000, 3, 4, 5200, 64}, 50);
  const Capture tx2 = mutate(tx, rng, 4);
  const PcapngInterface ia[] = {{&tx, "dut.tx", "", true}, {&rx, "dut.rx", "", false}};
  const PcapngInterface ib[] = {{&tx2, "dut.tx", "", true}, {&rx, "dut.rx", "", false}};
  const auto pa = scratch("ev-a.pcapng");
  const auto pb = scratch("ev-b.pcapng");
  ASSERT_EQ(write_multi_pcapng(pa, ia, kFullSnaplen), "");
  ASSERT_EQ(write_multi_pcapng(pb, ib, kFullSnaplen), "");
  std::vector<ReadInterface> ra;
  std::vector<ReadInterface> rb;
  ASSERT_EQ(read_capture_file(pa, ra), "");
  ASSERT_EQ(read_capture_file(pb, rb), "");
  DiffOptions opt;
  opt.window = 4;
  DiffReport old_r = diff_captures(ra[0].capture, rb[0].capture, opt);
  for (Difference& d : old_r.differences) {
    if (d.index_a >= 0) d.index_a = ra[0].file_index[static_cast<std::size_t>(d.index_a)];
    if (d.index_b >= 0) d.index_b = rb[0].file_index[static_cast<std::size_t>(d.index_b)];
    if (d.index_a >= 0) d.filter_a = retarget_frame_filter(d.filter_a, d.index_a);
    if (d.index_b >= 0) d.filter_b = retarget_frame_filter(d.filter_b, d.index_b);
  }
  FileInterfaceSource fa(pa, 0);
  FileInterfaceSource fb(pb, 0);
  const DiffReport r = diff_streams(fa, fb, opt);
  ASSERT_FALSE(old_r.identical());
  expect_same(old_r, r, "interface dut.tx");
}

// A window of 100000 on 200k frames: each A packet finds its key's B packet by a hash lookup, so
// the work is linear in the frames (the in-memory diff scans the window: 2e10 steps).
TEST(DiffStream, AHugeWindowCostsWorkLinearInTheFrames) {
  constexpr std::size_t kFrames = 200'000;
  Capture a("a");
  a.reserve(kFrames, kFrames * 100);
  Capture b("b");
  b.reserve(kFrames, kFrames * 100);
  RunSpec spec;
  spec.len = 8;
  const Capture base = make_run(spec, kFrames * 4 / 5);  // 160k data + 40k feedback frames
  ASSERT_EQ(base.size(), kFrames);
  for (std::size_t i = 0; i < base.size(); ++i) a.add(base.packet(i).ts_ns, base.bytes(i));
  // B: the two halves of every 100k block exchanged (50k positions apart), inside the window.
  for (std::size_t i = 0; i < base.size(); ++i) {
    const std::size_t k = i - i % 100'000 + (i % 100'000 + 50'000) % 100'000;
    b.add(base.packet(i).ts_ns, base.bytes(k));
  }
  DiffOptions opt;
  opt.window = 100'000;
  opt.tolerance_ns = 100'000'000;  // the exchanged halves are 50 ms apart
  const DiffReport r = streamed(a, b, opt);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.identical()) << render_diff(r, opt);
  EXPECT_EQ(r.pairs, kFrames);
  EXPECT_EQ(r.reordered_pairs, kFrames);
  const std::uint64_t probes = last_diff_stream_work().probes;
  EXPECT_LT(probes, 8 * kFrames) << "hash lookups and positional steps of one diff";
}

// A capture as a source whose readers can be told to fail: each reader stops after `limit`
// packets, with `error` (or silently, as a file that lost its tail); `reopen` says whether a
// second reader can be had, and how the second reader behaves.
struct ScriptedSource : PacketSource {
  ScriptedSource(const Capture& c, std::size_t limit, std::string error, int reopens, std::size_t reopen_limit)
      : inner(c), cap(c), limit(limit), error_text(std::move(error)), reopens(reopens), reopen_limit(reopen_limit) {}
  std::string rewind() override {
    read = 0;
    return inner.rewind();
  }
  bool next(SourcePacket& p) override {
    if (read >= limit) return false;
    ++read;
    return inner.next(p);
  }
  std::string error() const override { return read >= limit ? error_text : std::string(); }
  std::string fetch(std::uint64_t h, SourcePacket& p) override { return inner.fetch(h, p); }
  std::unique_ptr<PacketSource> reopen() const override {
    ++reopened;
    if (reopens == 0) return nullptr;
    return std::make_unique<ScriptedSource>(cap, reopen_limit, error_text, reopens - 1, reopen_limit);
  }
  CaptureSource inner;
  const Capture& cap;
  std::size_t limit;
  std::string error_text;
  int reopens;
  std::size_t reopen_limit;
  std::size_t read = 0;
  mutable int reopened = 0;
};

constexpr std::size_t kAll = ~std::size_t{0};

TEST(DiffStream, BsRowsOnASecondThreadGiveTheSameFindingsAsOnOne) {
  // B's second pass from a second reader on another thread (reopen) or on the diff's own thread
  // (no second reader): the same report, on damaged captures longer than the feed's ring.
  std::mt19937 rng(77);
  int differing = 0;
  for (int round = 0; round < 6; ++round) {
    const std::size_t n = round < 3 ? 50 + static_cast<std::size_t>(round) * 7 : 6000 + static_cast<std::size_t>(round);
    const Capture a = make_run(RunSpec{}, n);
    const Capture b = mutate(make_run(RunSpec{0x999, 0xFFFFF0, 0x7F000000, 9, 7, 1'000'000, 64}, n), rng, 1 + round % 4);
    for (const std::uint32_t w : {1u, 8u, 300u}) {
      DiffOptions opt;
      opt.window = w;
      opt.max_differences = 50;
      ScriptedSource a1(a, kAll, "", 0, kAll);
      ScriptedSource b1(b, kAll, "", 0, kAll);
      const DiffReport serial = diff_streams(a1, b1, opt);
      ScriptedSource a2(a, kAll, "", 1, kAll);
      ScriptedSource b2(b, kAll, "", 1, kAll);
      const DiffReport threaded = diff_streams(a2, b2, opt);
      ASSERT_GE(b2.reopened, 1) << "B's rows came from a reader of their own";
      differing += serial.identical() ? 0 : 1;
      expect_same(serial, threaded, "round " + std::to_string(round) + " window " + std::to_string(w));
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(differing, 10);
}

TEST(DiffStream, AReadErrorOfBsSecondReaderIsTheDiffsError) {
  const Capture a = make_run(RunSpec{}, 9000);
  // The second reader fails part way (past one ring of rows), or ends early with no error (the
  // file lost packets between the passes): the diff fails with that reason, whichever thread read it.
  ScriptedSource sa(a, kAll, "", 0, kAll);
  ScriptedSource sb(a, kAll, "b.pcapng: packet 7000: block cut short", 1, 7000);
  const DiffReport r = diff_streams(sa, sb, DiffOptions{});
  EXPECT_EQ(r.error, "b.pcapng: packet 7000: block cut short");
  // A second reader that ends early is only noticed against a first pass's count: a window above
  // kOnePassWindow makes the diff read in two passes (a one pass has no count to hold it to).
  ScriptedSource sa2(a, kAll, "", 0, kAll);
  ScriptedSource sb2(a, kAll, "", 1, 5000);
  DiffOptions two_passes;
  two_passes.window = 5000;
  const DiffReport gone = diff_streams(sa2, sb2, two_passes);
  EXPECT_FALSE(last_diff_stream_work().one_pass);
  EXPECT_NE(gone.error.find("changed between the two passes"), std::string::npos) << gone.error;
  EXPECT_NE(gone.error.find("packet 5000 is gone"), std::string::npos) << gone.error;
}

TEST(DiffStream, AnErrorOnAStopsBsReaderThatWaitsForRoom) {
  // A fails early while B's reader is far ahead and waiting for the diff to take rows: the diff
  // returns A's error and the reader stops (a hang here is a ctest timeout).
  const Capture a = make_run(RunSpec{}, 20000);
  ScriptedSource sa(a, 30, "a.pcapng: read error", 0, kAll);
  ScriptedSource sb(a, kAll, "", 1, kAll);
  const DiffReport r = diff_streams(sa, sb, DiffOptions{});
  EXPECT_EQ(r.error, "a.pcapng: read error");
}

TEST(DiffStream, EachSideIsReadOnceWhenItsFirstPacketsHoldItsLowestValues) {
  // The usual capture (the lowest PSN of a space among its first packets, the earliest time
  // first): one read of each source, the findings of the in-memory diff.
  // B: another QP's run with PSNs that wrap, neighbours exchanged, every 50th packet lost (no
  // flipped bits, which could make any packet the lowest).
  const Capture a = make_run(RunSpec{}, 3000);
  const Capture other = make_run(RunSpec{0x999, 0xFFFFF0, 0x7F000000, 9, 7, 1'000'000, 64}, 3000);
  Capture b("b");
  for (std::size_t i = 0; i < other.size(); ++i) {
    const std::size_t k = i % 10 == 3 && i + 1 < other.size() ? i + 1 : (i % 10 == 4 ? i - 1 : i);
    if (i % 50 != 7) b.add(other.packet(i).ts_ns, other.bytes(k));
  }
  for (const int reopens : {0, 1}) {
    ScriptedSource sa(a, kAll, "", reopens, kAll);
    ScriptedSource sb(b, kAll, "", reopens, kAll);
    DiffOptions opt;
    opt.window = 8;
    opt.max_differences = 100;
    const DiffReport r = diff_streams(sa, sb, opt);
    EXPECT_TRUE(last_diff_stream_work().one_pass) << "reopens " << reopens;
    EXPECT_FALSE(r.identical());
    expect_same(diff_captures(a, b, opt), r, "reopens " + std::to_string(reopens));
  }
}

TEST(DiffStream, AValueMetTooLateForOneReadMakesTwoWithTheSameFindings) {
  // A's lowest PSN, lowest VA or earliest time comes more than the one pass's lookahead after
  // rows were normalized without it: those rows are void, and the diff reads both sides again in
  // two passes. B has the same packet early, so a diff that kept the void rows would differ.
  const RunSpec spec;
  const Capture run = make_run(spec, 2400);  // 3000 frames: the late packet lands past 1024 of its space
  Data low;
  low.opcode = wire::opcode::kMrcWriteOnly;
  low.dqpn = spec.qpn;
  low.len = spec.len;
  low.ev = ev_value(0);
  low.src_host = spec.src;
  low.dst_host = spec.dst;
  struct Late {
    std::string what;
    std::uint32_t psn;
    std::uint64_t va;
    std::uint64_t ts;
  };
  for (const Late& late : {Late{"psn", spec.psn0 - 5, spec.va0, spec.t0},
                           Late{"va", spec.psn0, spec.va0 - 4096, spec.t0},
                           Late{"ts", spec.psn0, spec.va0, spec.t0 - 700}}) {
    low.psn = late.psn;
    low.va = late.va;
    const auto frame = encode(low);
    Capture a("a");
    Capture b("b");
    b.add(late.ts, frame);
    for (std::size_t i = 0; i < run.size(); ++i) {
      a.add(run.packet(i).ts_ns, run.bytes(i));
      b.add(run.packet(i).ts_ns, run.bytes(i));
    }
    a.add(late.ts, frame);
    DiffOptions opt;
    opt.window = 4;
    opt.max_differences = 20;
    ScriptedSource sa(a, kAll, "", 1, kAll);
    ScriptedSource sb(b, kAll, "", 1, kAll);
    const DiffReport r = diff_streams(sa, sb, opt);
    EXPECT_FALSE(last_diff_stream_work().one_pass) << late.what;
    expect_same(diff_captures(a, b, opt), r, "late " + late.what);
    // The same packet early on both sides: one pass.
    ScriptedSource sb2(b, kAll, "", 1, kAll);
    ScriptedSource sb3(b, kAll, "", 1, kAll);
    const DiffReport same = diff_streams(sb2, sb3, opt);
    EXPECT_TRUE(last_diff_stream_work().one_pass) << late.what;
    EXPECT_TRUE(same.identical()) << late.what;
  }
}

TEST(DiffStream, IdentityMatchingStaysWithTheInMemoryDiff) {
  const Capture a = make_run(RunSpec{}, 8);
  DiffOptions opt;
  opt.match_identity = true;
  const DiffReport r = streamed(a, a, opt);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("identity"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace mrc::harness
