// Internal to the streaming diff (diff_stream.cpp): one side's rows (diff_row_maker.hpp) made
// ahead, in order, on a second thread. Making a row (decode, ICRC, the payload digest, the slots
// and their hash) is nearly all of the diff's work and the two sides share nothing while making
// them, so B's rows come from here while the diff's own thread makes A's and matches: on two
// cores the pass takes about half the wall time.
//
// The producer reads its own source (PacketSource::reopen), so the diff can fetch() a differing
// pair from the original one meanwhile, and keeps its own normalizer. The diff's thread needs B's
// ordinals to decode a differing B packet again (full_row): the producer hands over a copy of its
// normalizer (snapshot()) whenever rows that registered a new ordinal are published, so a copy
// taken after a row arrived knows every ordinal of it. Ordinals are only ever added, so a copy
// that knows more is as good.
// A bounded ring between the threads: the producer waits while the ring is full, the diff while
// it is empty, each until a whole chunk (kChunk rows) is ready for it, and each side wakes the
// other only when that chunk is: a wait costs two context switches, so waiting row by row (or
// batch by batch) on a busy machine cost more than the rows (thousands of switches a second).
// Neither waits on anything outside this process: the producer ends when its source ends or
// fails, and stops as soon as the feed is destroyed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/verdict/diff_row_maker.hpp"

namespace mrc::harness::diffing {

class RowFeed {
 public:
  using Got = RowMaker::Got;

  // The rows of `src` (rewound, read from its first packet) as a RowMaker over `norm` (copied)
  // with these arguments makes them.
  RowFeed(std::unique_ptr<PacketSource> src, const Normalizer& norm, const DiffOptions& opt, const MaskSet& masks,
          bool judge_ev, std::uint64_t packets, std::uint32_t lookahead);
  RowFeed(const RowFeed&) = delete;
  RowFeed& operator=(const RowFeed&) = delete;
  ~RowFeed();

  // Starts the producer thread; false when none can be had (the caller then makes the rows itself).
  bool start();
  // The next row in order, as RowMaker::next says it; error() after kError.
  Got next(MadeRow& out);
  const std::string& error() const { return error_; }
  // The producer's normalizer into `out` when it changed since `version` (which is updated): it
  // knows the ordinals of every row next() returned. After kEnd: the side's final normalizer.
  void snapshot(Normalizer& out, std::uint64_t& version);
  // After kEnd: the reader the rows came from, and the side's counts (RowMaker's).
  const PacketSource& source() const { return *src_; }
  std::uint64_t packets() const { return packets_; }
  std::uint64_t not_roce() const { return not_roce_; }
  std::uint64_t decode_failures() const { return decode_failures_; }

 private:
  static constexpr std::uint64_t kRing = 4096;   // rows in flight, about 400 KiB
  static constexpr std::uint64_t kBatch = 64;    // rows published (and consumed) at a time
  static constexpr std::uint64_t kChunk = 1024;  // rows a waiting side waits for
  static constexpr std::uint64_t kNotWaiting = ~std::uint64_t{0};

  void produce();
  void publish(std::uint64_t made);
  void give_back();

  std::unique_ptr<PacketSource> src_;
  Normalizer norm_;
  RowMaker maker_;
  std::vector<MadeRow> ring_;
  // The counters change without the lock. A side about to wait stores what it waits for (want_*)
  // under m_ and then reads the counter; the other side stores the counter and then reads want_*
  // (all sequentially consistent), so one of the two sees the other's store: either the waiter
  // does not wait, or the other side takes m_ and wakes it. Everything below m_ lives under it.
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<std::uint64_t> made_{0};   // rows the producer published
  std::atomic<std::uint64_t> taken_{0};  // rows the consumer is done with
  std::atomic<std::uint64_t> want_made_{kNotWaiting};   // the consumer waits for made_ to reach it
  std::atomic<std::uint64_t> want_taken_{kNotWaiting};  // the producer waits for taken_ to reach it
  bool done_ = false;  // the producer ended: with end_ (kEnd, kError, kMoved)
  bool stop_ = false;  // the consumer is gone
  Got end_ = Got::kEnd;
  std::string error_;
  Normalizer shared_;  // the producer's normalizer as last handed over
  std::uint64_t shared_version_ = 0;
  std::uint64_t packets_ = 0;
  std::uint64_t not_roce_ = 0;
  std::uint64_t decode_failures_ = 0;

  std::size_t shared_ordinals_ = ~std::size_t{0};  // producer: ordinals in shared_ (none handed over yet)
  std::uint64_t seen_made_ = 0;      // consumer: made_ as last read
  std::uint64_t next_ = 0;           // consumer: the next row index
  std::thread thread_;
};

}  // namespace mrc::harness::diffing
