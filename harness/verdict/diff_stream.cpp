#include "harness/verdict/diff_stream.hpp"

#include <algorithm>
#include <bit>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "harness/verdict/diff_row_feed.hpp"
#include "harness/verdict/diff_table.hpp"
#include "harness/verdict/ev_choice.hpp"

namespace mrc::harness {
namespace {

using diffing::Row;

thread_local DiffStreamWork g_work;

constexpr std::uint64_t kNone = ~std::uint64_t{0};

std::size_t pow2_at_least(std::uint64_t n) { return std::bit_ceil(std::max<std::uint64_t>(n, 2)); }

bool judges_ev(const DiffOptions& opt) { return opt.ev_choice != nullptr && !opt.ev_choice->empty(); }

using Got = diffing::RowMaker::Got;
constexpr std::uint64_t kUnknown = diffing::RowMaker::kUnknown;

// The one pass (diff_row_maker.hpp) finishes a row this many rows after making it, and is tried
// up to this window (its rings cannot be sized by the packet counts, which it learns at the end).
constexpr std::uint32_t kLookahead = 1024;
constexpr std::uint32_t kOnePassWindow = 4096;

// One side of the diff: with two passes the first one's normalizer and counts, with one pass an
// empty normalizer and the counts the pass finds.
struct Side {
  explicit Side(PacketSource& s) : src(s) {}
  PacketSource& src;
  diffing::Normalizer norm;
  std::uint64_t packets = kUnknown;
  std::uint64_t not_roce = 0;
  std::uint64_t decode_failures = 0;
};

// The first of two passes: what normalization needs from the whole side (make_row with
// register_only: addresses, QPs, PSN spaces and VAs; no ICRC, no hash), the counts, then rewound.
std::string first_pass(Side& s, const DiffOptions& opt, const diffing::MaskSet& masks) {
  if (std::string e = s.src.rewind(); !e.empty()) return e;
  diffing::RowScratch scratch;
  diffing::Row row;
  SourcePacket p;
  std::uint64_t ts0 = kNone;
  s.packets = 0;
  // Times relative to the earliest packet (see build_table): make_row needs ts0 before the rows,
  // so the pass registers with ts0 = 0 (registering does not use it) and sets it after.
  while (s.src.next(p)) {
    ts0 = std::min(ts0, p.ts_ns);
    const auto o = diffing::make_row(p.bytes, p.ts_ns, opt, masks, s.norm, false, 0, row, scratch, true);
    s.not_roce += o == diffing::RowOutcome::kNotRoce ? 1 : 0;
    s.decode_failures += o == diffing::RowOutcome::kUndecodable ? 1 : 0;
    ++s.packets;
  }
  if (std::string e = s.src.error(); !e.empty()) return e;
  s.norm.ts0 = s.packets ? ts0 : 0;
  return s.src.rewind();
}

struct Kept {  // a difference as the hot loop records it: indices, handles, rows; nothing formatted
  DiffKind kind;
  int slot;
  diffing::PacketView a;  // bytes empty until formatting fetches them
  diffing::PacketView b;
  std::uint64_t handle_a;
  std::uint64_t handle_b;
};

class StreamDiffer {
 public:
  // `feed`: B's rows made on another thread (nullptr: made here). `lookahead`: RowMaker's.
  StreamDiffer(Side& a, Side& b, const DiffOptions& opt, const diffing::MaskSet& masks, bool judge_ev, DiffReport& r,
               diffing::RowFeed* feed, std::uint32_t lookahead)
      : a_(a), b_(b), opt_(opt), masks_(masks), r_(r), w_(std::max<std::uint32_t>(opt.window, 1)), feed_(feed),
        maker_a_(a.src, a.norm, opt, masks, false, a.packets, lookahead) {
    if (feed_ == nullptr) maker_b_.emplace(b.src, b.norm, opt, masks, judge_ev, b.packets, lookahead);
    const auto ring = [](std::uint64_t rows, std::uint64_t packets) {
      return pow2_at_least(packets == kUnknown ? rows : std::min(rows, packets + 1));
    };
    ring_a_.resize(ring(2 * w_ + 2, a.packets));
    ring_b_.resize(ring(4 * w_ + 4, b.packets));
    table_.resize(2 * ring_b_.size());
    kept_.reserve(std::min<std::size_t>(opt.max_differences, kReserveDifferences));
    extras_.reserve(std::min<std::size_t>(opt.max_differences, kReserveDifferences));
  }

  // kEnd when every packet was compared (the sides' counts and normalizers are then final);
  // kError (error_) or kMoved (the one pass is void) when a side said so.
  Got run() {
    std::uint64_t i = 0;
    for (;; ++i) {
      const Got ga = read_a(i);
      if (ga == Got::kEnd) break;
      if (ga != Got::kRow) return ga;
      while (!b_ended_ && read_b_ < i + w_) {
        if (const Got gb = read_b(true); gb != Got::kRow && gb != Got::kEnd) return gb;
      }
      if (!opt_.match_identity) match_key(i);
      while (settled_ + 2 * w_ - 2 <= i) settle();
    }
    while (settled_ < i) settle();
    while (final_b_ < read_b_) finalize(final_b_++);
    while (!b_ended_) {  // beyond every A packet's reach: extra
      const Got gb = read_b(false);
      if (gb == Got::kEnd) break;
      if (gb != Got::kRow) return gb;
      finalize(final_b_++);
    }
    a_.packets = maker_a_.packets();
    a_.not_roce = maker_a_.not_roce();
    a_.decode_failures = maker_a_.decode_failures();
    if (feed_ != nullptr) {
      feed_->snapshot(b_.norm, b_version_);
      b_.src.learn_from(feed_->source());
      b_.packets = feed_->packets();
      b_.not_roce = feed_->not_roce();
      b_.decode_failures = feed_->decode_failures();
    } else {
      b_.packets = maker_b_->packets();
      b_.not_roce = maker_b_->not_roce();
      b_.decode_failures = maker_b_->decode_failures();
    }
    return Got::kEnd;
  }

  std::string format() {
    std::vector<Kept>& all = kept_;
    for (const Kept& k : extras_) {
      if (all.size() >= opt_.max_differences) break;
      all.push_back(k);
    }
    r_.differences.reserve(all.size());
    SourcePacket p;
    for (Kept& k : all) {
      if (k.a.index >= 0) {
        if (std::string e = a_.src.fetch(k.handle_a, p); !e.empty()) return e;
        k.a.bytes = p.bytes;
      }
      if (k.b.index >= 0) {
        if (std::string e = b_.src.fetch(k.handle_b, p); !e.empty()) return e;
        k.b.bytes = p.bytes;
      }
      r_.differences.push_back(diffing::format_difference(k.kind, k.slot, k.a, k.b, opt_, masks_, a_.norm, b_.norm));
    }
    return {};
  }

 private:
  struct SlotA : diffing::MadeRow {
    std::uint64_t pair = kNone;
  };
  struct SlotB : diffing::MadeRow {
    std::uint64_t next = kNone;  // next B packet of the same key, in order
    bool used = false;
    bool queued = false;
  };
  struct Queue {  // the unused B packets of one key inside the window, oldest first
    std::uint64_t key = 0;
    std::uint64_t head = kNone;  // kNone: the table entry is free
    std::uint64_t tail = kNone;
  };

  SlotA& at_a(std::uint64_t i) { return ring_a_[i & (ring_a_.size() - 1)]; }
  SlotB& at_b(std::uint64_t j) { return ring_b_[j & (ring_b_.size() - 1)]; }

  // The next row of a side into its ring slot (written only for kRow).
  Got read_a(std::uint64_t i) {
    SlotA& s = at_a(i);
    const Got g = maker_a_.next(s);
    if (g == Got::kError) error_ = maker_a_.error();
    s.pair = kNone;
    return g;
  }

  Got read_b(bool queue) {
    SlotB& s = at_b(read_b_);
    const Got g = feed_ != nullptr ? feed_->next(s) : maker_b_->next(s);
    if (g == Got::kError) error_ = feed_ != nullptr ? feed_->error() : maker_b_->error();
    if (g == Got::kEnd) b_ended_ = true;
    if (g != Got::kRow) return g;
    s.used = false;
    s.queued = queue && !opt_.match_identity;
    s.next = kNone;
    const std::uint64_t j = read_b_++;
    if (!s.queued) return g;
    Queue& q = find(s.row.key, true);
    if (q.head == kNone) {
      q.head = q.tail = j;
    } else {
      at_b(q.tail).next = j;
      q.tail = j;
    }
    return g;
  }

  // The key's queue; with `insert`, a free entry claimed for it when there is none.
  Queue& find(std::uint64_t key, bool insert) {
    const std::size_t mask = table_.size() - 1;
    std::size_t h = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 17) & mask;
    for (;; h = (h + 1) & mask) {
      ++g_work.probes;
      Queue& q = table_[h];
      if (q.head == kNone) {
        if (insert) q.key = key;
        return q;
      }
      if (q.key == key) return q;
    }
  }

  // Removes the head of q; frees the entry (backward-shift deletion) when q becomes empty, and
  // returns false then: entries moved, so q must not be used again.
  bool pop(Queue& q) {
    const std::uint64_t next = at_b(q.head).next;
    at_b(q.head).queued = false;
    q.head = next;
    if (next != kNone) return true;
    const std::size_t mask = table_.size() - 1;
    std::size_t hole = static_cast<std::size_t>(&q - table_.data());
    table_[hole].head = kNone;
    for (std::size_t k = (hole + 1) & mask; table_[k].head != kNone; k = (k + 1) & mask) {
      const std::size_t home = static_cast<std::size_t>((table_[k].key * 0x9E3779B97F4A7C15ull) >> 17) & mask;
      // moves back when its home is not in (hole, k], cyclically
      if (((k - home) & mask) >= ((k - hole) & mask)) {
        table_[hole] = table_[k];
        table_[k].head = kNone;
        hole = k;
      }
    }
    return false;
  }

  // Step 1: the first unused B packet of A i's key in [i+1-w, i+w).
  void match_key(std::uint64_t i) {
    SlotA& s = at_a(i);
    Queue& q = find(s.row.key, false);
    const std::uint64_t lo = i + 1 >= w_ ? i + 1 - w_ : 0;
    if (q.head == kNone) return;
    while (q.head < lo || at_b(q.head).used) {
      if (!pop(q)) return;
    }
    const std::uint64_t j = q.head;
    at_b(j).used = true;
    s.pair = j;
    pop(q);
  }

  // Step 2 and the comparison for the next A packet, then the B packets no A packet can reach.
  void settle() {
    const std::uint64_t i = settled_++;
    SlotA& s = at_a(i);
    const std::uint64_t lo = i + 1 >= w_ ? i + 1 - w_ : 0;
    const std::uint64_t hi = std::min<std::uint64_t>(read_b_, i + w_);  // B is read that far, or to its end
    if (s.pair == kNone) {
      free_b_ = std::max(free_b_, lo);
      while (free_b_ < hi && at_b(free_b_).used) {
        ++free_b_;
        ++g_work.probes;
      }
      if (free_b_ < hi) {
        at_b(free_b_).used = true;
        s.pair = free_b_++;
      }
    }
    if (s.pair == kNone) {
      ++r_.missing;
      record(DiffKind::kMissing, i, kNone, -1);
    } else {
      compare(i, s.pair);
    }
    const std::uint64_t reach = i + 2 >= w_ ? i + 2 - w_ : 0;  // the lowest B index A i+1 can take
    while (final_b_ < std::min(reach, read_b_)) finalize(final_b_++);
  }

  void finalize(std::uint64_t j) {
    SlotB& s = at_b(j);
    if (s.queued) {
      Queue& q = find(s.row.key, false);
      if (q.head == j) pop(q);
    }
    if (s.used) return;
    ++r_.extra;
    if (extras_.size() < opt_.max_differences) extras_.push_back(make_kept(DiffKind::kExtra, kNone, j, -1));
  }

  Kept make_kept(DiffKind k, std::uint64_t i, std::uint64_t j, int slot) {
    Kept out{k, slot, {}, {}, 0, 0};
    if (i != kNone) {
      const SlotA& s = at_a(i);
      out.a = diffing::PacketView{s.label, static_cast<std::int64_t>(i), {}, s.ts_ns, s.row};
      out.handle_a = s.handle;
    }
    if (j != kNone) {
      const SlotB& s = at_b(j);
      out.b = diffing::PacketView{s.label, static_cast<std::int64_t>(j), {}, s.ts_ns, s.row};
      out.handle_b = s.handle;
    }
    return out;
  }

  void record(DiffKind k, std::uint64_t i, std::uint64_t j, int slot) {
    if (kept_.size() < opt_.max_differences) kept_.push_back(make_kept(k, i, j, slot));
  }

  // As diff.cpp's Differ::compare: equal rows in a few words, a differing pair decoded again.
  void compare(std::uint64_t i, std::uint64_t j) {
    ++r_.pairs;
    if (i != j) ++r_.reordered_pairs;
    const SlotA& sa = at_a(i);
    const SlotB& sb = at_b(j);
    const Row& ra = sa.row;
    const Row& rb = sb.row;
    if (ra.error != 0 || rb.error != 0) {
      if (ra.error != rb.error || ra.hash != rb.hash) {
        ++r_.differing_pairs;
        ++r_.field_differences;
        record(DiffKind::kDecode, i, j, -1);
      }
      return;
    }
    constexpr diffing::SlotBits ts_bit = diffing::kTsBit;
    const bool same =
        diffing::rows_agree(ra, rb, [&](std::uint64_t ta, std::uint64_t tb) { return diffing::ts_within(opt_, i, ta, tb); });
    if (same && rb.ev_bad == 0) return;  // the common case: no decoding, no per-field work
    diffing::SlotBits d = 0;
    if (!same) {  // read both again and decode them into full rows to name the fields
      SourcePacket pa;
      SourcePacket pb;
      const std::string ea = a_.src.fetch(sa.handle, pa);
      const std::string eb = b_.src.fetch(sb.handle, pb);
      if (!ea.empty() || !eb.empty()) {
        if (fetch_error_.empty()) fetch_error_ = ea.empty() ? eb : ea;
        return;
      }
      const diffing::SlotBits fa = diffing::full_row(pa.bytes, pa.ts_ns, ra, opt_, masks_, a_.norm, full_a_);
      if (feed_ != nullptr) feed_->snapshot(b_.norm, b_version_);  // B's ordinals, as far as the feed came
      const diffing::SlotBits fb = diffing::full_row(pb.bytes, pb.ts_ns, rb, opt_, masks_, b_.norm, full_b_);
      diffing::SlotBits neq = 0;
      for (std::size_t s = 0; s < diffing::kSlots; ++s) neq |= diffing::SlotBits{full_a_[s] != full_b_[s]} << s;
      d = (fa ^ fb) | (neq & fa & fb & ~ts_bit);
      if ((fa & fb & ts_bit) && !diffing::ts_within(opt_, i, ra.ts, rb.ts)) d |= ts_bit;
    }
    if (d == 0 && rb.ev_bad == 0) return;
    ++r_.differing_pairs;
    r_.field_differences += static_cast<std::size_t>(diffing::slot_count(d)) + rb.ev_bad;
    if (rb.ev_bad) record(DiffKind::kChoice, i, j, -1);
    while (d != 0 && kept_.size() < opt_.max_differences) {
      const int s = diffing::lowest_slot(d);
      d &= d - 1;
      record(DiffKind::kField, i, j, s);
    }
  }

 public:
  std::string error_;        // a side's, with kError
  std::string fetch_error_;  // a differing pair's packet could not be read again

 private:
  Side& a_;
  Side& b_;
  const DiffOptions& opt_;
  const diffing::MaskSet& masks_;
  DiffReport& r_;
  const std::uint64_t w_;
  diffing::RowFeed* feed_;
  diffing::RowMaker maker_a_;
  std::optional<diffing::RowMaker> maker_b_;  // B's rows on this thread, without a feed
  std::uint64_t b_version_ = 0;                // of b_.norm, as RowFeed::snapshot() counts
  bool b_ended_ = false;
  std::vector<SlotA> ring_a_;
  std::vector<SlotB> ring_b_;
  std::vector<Queue> table_;
  std::vector<Kept> kept_;    // in A order (missing, field, decode, choice)
  std::vector<Kept> extras_;  // in B order, after every A finding as diff_captures() lists them
  std::uint64_t read_b_ = 0;   // B packets read
  std::uint64_t final_b_ = 0;  // B packets below it are final
  std::uint64_t settled_ = 0;  // A packets compared
  std::uint64_t free_b_ = 0;   // step 2: every B packet in [its lo, free_b_) is used
  std::array<std::uint64_t, diffing::kSlots> full_a_{};
  std::array<std::uint64_t, diffing::kSlots> full_b_{};
};

}  // namespace

DiffStreamWork last_diff_stream_work() { return g_work; }

namespace {

// The diff of two sides whose rows RowMakers make with `lookahead` (diff_row_maker.hpp): kEnd
// with `r` filled, kError with r.error set, or kMoved (the one pass is void).
Got compare_sides(Side& sa, Side& sb, const DiffOptions& opt, const diffing::MaskSet& masks, bool judge_ev,
                  std::uint32_t lookahead, DiffReport& r) {
  // B's rows on a second thread, from a source of its own (the diff fetches differing pairs from
  // sb.src meanwhile); in turn on this one when the source cannot be opened twice.
  std::unique_ptr<diffing::RowFeed> feed;
  if (std::unique_ptr<PacketSource> b2 = sb.src.reopen()) {
    feed = std::make_unique<diffing::RowFeed>(std::move(b2), sb.norm, opt, masks, judge_ev, sb.packets, lookahead);
    if (!feed->start()) feed.reset();
  }
  StreamDiffer d(sa, sb, opt, masks, judge_ev, r, feed.get(), lookahead);
  const Got g = d.run();
  feed.reset();  // the producer stops here, whatever it was doing
  if (g == Got::kMoved) return g;
  std::string e = g == Got::kError ? d.error_ : d.fetch_error_;
  if (e.empty()) e = d.format();
  if (!e.empty()) {
    r = DiffReport{};
    r.error = std::move(e);
    return Got::kError;
  }
  r.packets_a = sa.packets;
  r.packets_b = sb.packets;
  r.decode_failures_a = sa.decode_failures;
  r.decode_failures_b = sb.decode_failures;
  r.not_roce_a = sa.not_roce;
  r.not_roce_b = sb.not_roce;
  return Got::kEnd;
}

}  // namespace

DiffReport diff_streams(PacketSource& a, PacketSource& b, const DiffOptions& opt) {
  DiffReport r;
  g_work = {};
  if (opt.match_identity) {
    r.error = "the streaming diff pairs packets inside a window; identity matching needs diff_captures()";
    return r;
  }
  diffing::MaskSet masks;
  r.error = diffing::parse_masks(opt.masks, masks, judges_ev(opt));
  if (!r.error.empty()) return r;
  const bool judge_ev = judges_ev(opt) && !masks.ev;
  // One pass over each side when its guesses hold (diff_row_maker.hpp): nearly always.
  if (std::max<std::uint32_t>(opt.window, 1) <= kOnePassWindow && a.rewind().empty() && b.rewind().empty()) {
    Side sa{a};
    Side sb{b};
    if (compare_sides(sa, sb, opt, masks, judge_ev, kLookahead, r) == Got::kEnd) {
      g_work.one_pass = true;
      return r;
    }
    // A guess failed, or a side: two passes, which also tell a side's error in their own order.
    r = DiffReport{};
    g_work = {};
  }
  // Two passes: the first passes share nothing (each side its source, normalizer and scratch), so
  // B's runs on a second thread when one can be had, which halves this pass's wall time on two cores.
  Side sa{a};
  Side sb{b};
  std::string eb;
  std::thread tb;
  try {
    tb = std::thread([&] { eb = first_pass(sb, opt, masks); });
  } catch (const std::system_error&) {  // no thread: the same pass, in turn
    eb = first_pass(sb, opt, masks);
  }
  const std::string ea = first_pass(sa, opt, masks);
  if (tb.joinable()) tb.join();
  if (!ea.empty() || !eb.empty()) {  // A's error when both are bad
    r.error = ea.empty() ? eb : ea;
    return r;
  }
  if (compare_sides(sa, sb, opt, masks, judge_ev, 0, r) == Got::kMoved) {
    r = DiffReport{};  // cannot be: the first pass found the final values
    r.error = "internal error: the diff's normalization changed in its second pass";
  }
  return r;
}

}  // namespace mrc::harness
