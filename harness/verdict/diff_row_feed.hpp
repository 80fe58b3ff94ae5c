// Internal to the streaming diff (diff_stream.cpp): one side's second-pass rows made ahead, in
// order, on a second thread. Making a row (decode, ICRC, the payload digest, the slots and their
// hash) is nearly all of the second pass's work and the two sides share nothing while making
// them, so B's rows come from here while the diff's own thread makes A's and matches: on two
// cores the pass takes about half the wall time.
//
// The producer reads its own source (PacketSource::reopen), so the diff can fetch() a differing
// pair from the original one meanwhile, and its own copy of the side's normalizer: after the
// first pass registered every address, QP and PSN space, making a row only reads values that are
// the same in both copies. A bounded ring between the threads: the producer waits while the
// ring is full, the diff while it is empty, each until a whole chunk (kChunk rows) is ready for it,
// and each side wakes the other only when that chunk is: a wait costs two context switches, so
// waiting row by row (or batch by batch) on a busy machine cost more than the rows (thousands of
// switches a second). Neither waits on anything outside this process: the producer ends when its
// source ends or fails, and stops as soon as the feed is destroyed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/verdict/diff_stream.hpp"
#include "harness/verdict/diff_table.hpp"

namespace mrc::harness::diffing {

// "packet N is gone": a source that ended before the first pass's count (the file changed).
std::string packet_gone(std::uint64_t index);

// The second-pass row of packet `index` of one side, as both threads make it.
void make_stream_row(const SourcePacket& p, std::uint64_t index, const DiffOptions& opt, const MaskSet& masks,
                     Normalizer& norm, bool judge_ev, Row& row, RowScratch& scratch);

class RowFeed {
 public:
  struct Item {
    Row row;
    std::uint64_t handle = 0;
    std::int64_t label = 0;
    std::uint64_t ts_ns = 0;
  };

  // Rows of `count` packets of `src` (rewound, read from its first packet), made as
  // StreamDiffer::read_row makes them. `judge_ev`: the EV choice judges these rows (B).
  RowFeed(std::unique_ptr<PacketSource> src, const Normalizer& norm, const DiffOptions& opt, const MaskSet& masks,
          bool judge_ev, std::uint64_t count);
  RowFeed(const RowFeed&) = delete;
  RowFeed& operator=(const RowFeed&) = delete;
  ~RowFeed();

  // Starts the producer thread; false when none can be had (the caller then makes the rows itself).
  bool start();
  // The next row in order: "" or the error that ended the producer (the source's read error, or a
  // packet missing since the first pass).
  std::string next(Item& out);

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
  const DiffOptions& opt_;
  const MaskSet& masks_;
  const bool judge_ev_;
  const std::uint64_t count_;
  std::vector<Item> ring_;
  // The counters change without the lock. A side about to wait stores what it waits for (want_*)
  // under m_ and then reads the counter; the other side stores the counter and then reads want_*
  // (all sequentially consistent), so one of the two sees the other's store: either the waiter
  // does not wait, or the other side takes m_ and wakes it. done_, stop_ and error_ live under m_.
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<std::uint64_t> made_{0};   // rows the producer published
  std::atomic<std::uint64_t> taken_{0};  // rows the consumer is done with
  std::atomic<std::uint64_t> want_made_{kNotWaiting};   // the consumer waits for made_ to reach it
  std::atomic<std::uint64_t> want_taken_{kNotWaiting};  // the producer waits for taken_ to reach it
  bool done_ = false;                    // the producer ended (error_ says why, when early)
  bool stop_ = false;                    // the consumer is gone
  std::string error_;
  std::uint64_t seen_made_ = 0;  // consumer: made_ as last read
  std::uint64_t next_ = 0;       // consumer: the next row index
  std::thread thread_;
};

}  // namespace mrc::harness::diffing
