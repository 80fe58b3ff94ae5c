#include "harness/verdict/diff_row_feed.hpp"

#include <algorithm>
#include <system_error>
#include <utility>

namespace mrc::harness::diffing {

RowFeed::RowFeed(std::unique_ptr<PacketSource> src, const Normalizer& norm, const DiffOptions& opt,
                 const MaskSet& masks, bool judge_ev, std::uint64_t packets, std::uint32_t lookahead)
    : src_(std::move(src)), norm_(norm), maker_(*src_, norm_, opt, masks, judge_ev, packets, lookahead), ring_(kRing),
      shared_(norm) {}

RowFeed::~RowFeed() {
  {
    std::lock_guard<std::mutex> l(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool RowFeed::start() {
  try {
    thread_ = std::thread([this] { produce(); });
  } catch (const std::system_error&) {
    return false;
  }
  return true;
}

void RowFeed::publish(std::uint64_t made) {
  // New ordinals (and the first time, ts0) first: a row the consumer can take is covered by the
  // copy it can take.
  if (norm_.ordinals() != shared_ordinals_) {
    std::lock_guard<std::mutex> l(m_);
    shared_ = norm_;
    ++shared_version_;
    shared_ordinals_ = norm_.ordinals();
  }
  made_.store(made);
  if (const std::uint64_t want = want_made_.load(); want != kNotWaiting && made >= want) {
    std::lock_guard<std::mutex> l(m_);
    cv_.notify_all();
  }
}

void RowFeed::give_back() {
  taken_.store(next_);
  if (const std::uint64_t want = want_taken_.load(); want != kNotWaiting && next_ >= want) {
    std::lock_guard<std::mutex> l(m_);
    cv_.notify_all();
  }
}

void RowFeed::produce() {
  Got end = Got::kEnd;
  std::uint64_t made = 0;
  for (;; ++made) {
    if (made - taken_.load(std::memory_order_acquire) >= kRing) {  // full: hand over, then wait for a chunk of room
      publish(made);
      std::unique_lock<std::mutex> l(m_);
      const std::uint64_t want = made - kRing + kChunk;
      want_taken_.store(want);
      cv_.wait(l, [&] { return stop_ || taken_.load() >= want; });
      want_taken_.store(kNotWaiting);
      if (stop_) break;
    }
    end = maker_.next(ring_[made & (kRing - 1)]);
    if (end != Got::kRow) break;
    if ((made + 1) % kBatch == 0) publish(made + 1);
  }
  {
    std::lock_guard<std::mutex> l(m_);
    end_ = end == Got::kRow ? Got::kEnd : end;  // kRow: stopped (nobody reads on)
    error_ = maker_.error();
    shared_ = norm_;
    ++shared_version_;
    packets_ = maker_.packets();
    not_roce_ = maker_.not_roce();
    decode_failures_ = maker_.decode_failures();
    made_.store(made, std::memory_order_release);
    done_ = true;
  }
  cv_.notify_all();
}

RowFeed::Got RowFeed::next(MadeRow& out) {
  if (next_ == seen_made_) seen_made_ = made_.load(std::memory_order_acquire);
  if (next_ == seen_made_) {
    give_back();  // the producer may be waiting for room: every row before this one is done with
    std::unique_lock<std::mutex> l(m_);
    const std::uint64_t want = next_ + kChunk;
    want_made_.store(want);
    cv_.wait(l, [&] { return done_ || made_.load() >= want; });
    want_made_.store(kNotWaiting);
    seen_made_ = made_.load();
    if (next_ == seen_made_) return end_;
  }
  out = ring_[next_ & (kRing - 1)];
  ++next_;
  if (next_ % kBatch == 0) give_back();
  return Got::kRow;
}

void RowFeed::snapshot(Normalizer& out, std::uint64_t& version) {
  std::lock_guard<std::mutex> l(m_);
  if (version == shared_version_) return;
  out = shared_;
  version = shared_version_;
}

}  // namespace mrc::harness::diffing
