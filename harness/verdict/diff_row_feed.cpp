#include "harness/verdict/diff_row_feed.hpp"

#include <algorithm>
#include <system_error>
#include <utility>

namespace mrc::harness::diffing {

std::string packet_gone(std::uint64_t index) {
  return "a capture changed between the two passes of the diff (packet " + std::to_string(index) + " is gone)";
}

void make_stream_row(const SourcePacket& p, std::uint64_t index, const DiffOptions& opt, const MaskSet& masks,
                     Normalizer& norm, bool judge_ev, Row& row, RowScratch& scratch) {
  const int port = judge_ev && index < opt.ports_b.size() ? opt.ports_b[index] : 0;
  make_row(p.bytes, p.ts_ns, opt, masks, norm, judge_ev, port, row, scratch);
  finish_row(row, norm, masks, opt);
}

RowFeed::RowFeed(std::unique_ptr<PacketSource> src, const Normalizer& norm, const DiffOptions& opt,
                 const MaskSet& masks, bool judge_ev, std::uint64_t count)
    : src_(std::move(src)), norm_(norm), opt_(opt), masks_(masks), judge_ev_(judge_ev), count_(count), ring_(kRing) {}

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
  SourcePacket p;
  RowScratch scratch;
  std::string error;
  std::uint64_t made = 0;
  for (; made < count_; ++made) {
    if (made - taken_.load(std::memory_order_acquire) >= kRing) {  // full: hand over, then wait for a chunk of room
      publish(made);
      std::unique_lock<std::mutex> l(m_);
      const std::uint64_t want = made - kRing + kChunk;
      want_taken_.store(want);
      cv_.wait(l, [&] { return stop_ || taken_.load() >= want; });
      want_taken_.store(kNotWaiting);
      if (stop_) break;
    }
    if (!src_->next(p)) {
      error = src_->error();
      if (error.empty()) error = packet_gone(made);
      break;
    }
    Item& it = ring_[made & (kRing - 1)];
    make_stream_row(p, made, opt_, masks_, norm_, judge_ev_, it.row, scratch);
    it.handle = p.handle;
    it.label = p.label;
    it.ts_ns = p.ts_ns;
    if ((made + 1) % kBatch == 0) publish(made + 1);
  }
  {
    std::lock_guard<std::mutex> l(m_);
    error_ = std::move(error);
    made_.store(made, std::memory_order_release);
    done_ = true;
  }
  cv_.notify_all();
}

std::string RowFeed::next(Item& out) {
  if (next_ == seen_made_) seen_made_ = made_.load(std::memory_order_acquire);
  if (next_ == seen_made_) {
    give_back();  // the producer may be waiting for room: every row before this one is done with
    std::unique_lock<std::mutex> l(m_);
    const std::uint64_t want = std::min(next_ + kChunk, count_);
    want_made_.store(want);
    cv_.wait(l, [&] { return done_ || made_.load() >= want; });
    want_made_.store(kNotWaiting);
    seen_made_ = made_.load();
    if (next_ == seen_made_) return error_.empty() ? packet_gone(next_) : error_;
  }
  out = ring_[next_ & (kRing - 1)];
  ++next_;
  if (next_ % kBatch == 0) give_back();
  return {};
}

}  // namespace mrc::harness::diffing
