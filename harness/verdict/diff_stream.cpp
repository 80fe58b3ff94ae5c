#include "harness/verdict/diff_stream.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
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

// What pass 1 learns of one side.
struct Side {
  PacketSource& src;
  diffing::Normalizer norm;
  std::size_t packets = 0;
  std::size_t not_roce = 0;
  std::size_t decode_failures = 0;
};

}  // namespace

struct FirstPass::State {
  // What the pass depends on besides the packets: a first pass is used only with the same.
  diffing::MaskSet masks;
  std::string mask_error;
  bool normalize = true;
  bool mrc_framing = true;
  bool detect_framing = false;
  DiffOptions opt;  // the flags above, for make_row
  diffing::Normalizer norm;
  std::uint64_t ts0 = kNone;
  std::size_t packets = 0;
  std::size_t not_roce = 0;
  std::size_t decode_failures = 0;
  diffing::RowScratch scratch;
  Row row;

  bool same_as(const State& o) const {
    return masks.bits == o.masks.bits && masks.ev == o.masks.ev && masks.choice == o.masks.choice &&
           normalize == o.normalize && mrc_framing == o.mrc_framing && detect_framing == o.detect_framing;
  }
  // Into a side of the second pass: times relative to the earliest packet (see build_table).
  void to(Side& s) const {
    s.norm = norm;
    s.norm.ts0 = packets ? ts0 : 0;
    s.packets = packets;
    s.not_roce = not_roce;
    s.decode_failures = decode_failures;
  }
};

FirstPass::FirstPass(const DiffOptions& opt) : s_(std::make_unique<State>()) {
  s_->mask_error = diffing::parse_masks(opt.masks, s_->masks, judges_ev(opt));
  s_->normalize = s_->opt.normalize = opt.normalize;
  s_->mrc_framing = s_->opt.mrc_framing = opt.mrc_framing;
  s_->detect_framing = s_->opt.detect_framing = opt.detect_framing;
}
FirstPass::FirstPass(FirstPass&&) noexcept = default;
FirstPass& FirstPass::operator=(FirstPass&&) noexcept = default;
FirstPass::~FirstPass() = default;

std::size_t FirstPass::packets() const { return s_->packets; }

void FirstPass::add(std::span<const std::uint8_t> bytes, std::uint64_t ts_ns) {
  State& s = *s_;
  s.ts0 = std::min(s.ts0, ts_ns);
  // register_only: addresses, QPs, PSN spaces and VAs; no ICRC, no hash (the rows are dropped)
  const auto o = diffing::make_row(bytes, ts_ns, s.opt, s.masks, s.norm, false, 0, s.row, s.scratch, true);
  if (o == diffing::RowOutcome::kNotRoce) ++s.not_roce;
  if (o == diffing::RowOutcome::kUndecodable) ++s.decode_failures;
  ++s.packets;
}

namespace {

std::string first_pass(Side& s, const DiffOptions& opt) {
  if (std::string e = s.src.rewind(); !e.empty()) return e;
  FirstPass fp(opt);
  SourcePacket p;
  while (s.src.next(p)) fp.add(p.bytes, p.ts_ns);
  if (std::string e = s.src.error(); !e.empty()) return e;
  fp.state().to(s);
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
  // `feed`: B's rows made on another thread (nullptr: read_row makes them here).
  StreamDiffer(Side& a, Side& b, const DiffOptions& opt, const diffing::MaskSet& masks, bool judge_ev, DiffReport& r,
               diffing::RowFeed* feed)
      : a_(a), b_(b), opt_(opt), masks_(masks), judge_ev_(judge_ev), r_(r), w_(std::max<std::uint32_t>(opt.window, 1)),
        feed_(feed) {
    ring_a_.resize(pow2_at_least(std::min<std::uint64_t>(2 * w_ + 2, a.packets + 1)));
    ring_b_.resize(pow2_at_least(std::min<std::uint64_t>(4 * w_ + 4, b.packets + 1)));
    table_.resize(2 * ring_b_.size());
    kept_.reserve(opt.max_differences);
    extras_.reserve(opt.max_differences);
  }

  std::string run() {
    const std::uint64_t na = a_.packets;
    const std::uint64_t nb = b_.packets;
    for (std::uint64_t i = 0; i < na; ++i) {
      if (std::string e = read_a(i); !e.empty()) return e;
      const std::uint64_t hi = std::min(nb, i + w_);
      while (read_b_ < hi) {
        if (std::string e = read_b(true); !e.empty()) return e;
      }
      if (!opt_.match_identity) match_key(i);
      while (settled_ + 2 * w_ - 2 <= i) settle();
    }
    while (settled_ < na) settle();
    while (final_b_ < read_b_) finalize(final_b_++);
    while (read_b_ < nb) {  // beyond every A packet's reach: extra
      if (std::string e = read_b(false); !e.empty()) return e;
      finalize(final_b_++);
    }
    return {};
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
  using Made = diffing::RowFeed::Item;  // a row with where its packet is
  struct SlotA : Made {
    std::uint64_t pair = kNone;
  };
  struct SlotB : Made {
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

  std::string read_row(Side& s, std::uint64_t index, Made& out, bool judge_ev) {
    SourcePacket p;
    if (!s.src.next(p)) {
      const std::string e = s.src.error();
      return e.empty() ? diffing::packet_gone(index) : e;
    }
    diffing::make_stream_row(p, index, opt_, masks_, s.norm, judge_ev, out.row, scratch_);
    out.handle = p.handle;
    out.label = p.label;
    out.ts_ns = p.ts_ns;
    return {};
  }

  std::string read_a(std::uint64_t i) {
    SlotA& s = at_a(i);
    s.pair = kNone;
    return read_row(a_, i, s, false);
  }

  std::string read_b(bool queue) {
    const std::uint64_t j = read_b_++;
    SlotB& s = at_b(j);
    s.used = false;
    s.queued = queue && !opt_.match_identity;
    s.next = kNone;
    const std::string e = feed_ != nullptr ? feed_->next(s) : read_row(b_, j, s, judge_ev_);
    if (!e.empty()) return e;
    if (!s.queued) return {};
    Queue& q = find(s.row.key, true);
    if (q.head == kNone) {
      q.head = q.tail = j;
    } else {
      at_b(q.tail).next = j;
      q.tail = j;
    }
    return {};
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
    const std::uint64_t hi = std::min<std::uint64_t>(b_.packets, i + w_);
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
    constexpr std::uint64_t ts_bit = diffing::kTsBit;
    const bool same =
        diffing::rows_agree(ra, rb, [this](std::uint64_t ta, std::uint64_t tb) { return ts_within(ta, tb); });
    if (same && rb.ev_bad == 0) return;  // the common case: no decoding, no per-field work
    std::uint64_t d = 0;
    if (!same) {  // read both again and decode them into full rows to name the fields
      SourcePacket pa;
      SourcePacket pb;
      const std::string ea = a_.src.fetch(sa.handle, pa);
      const std::string eb = b_.src.fetch(sb.handle, pb);
      if (!ea.empty() || !eb.empty()) {
        if (fetch_error_.empty()) fetch_error_ = ea.empty() ? eb : ea;
        return;
      }
      const std::uint64_t fa = diffing::full_row(pa.bytes, pa.ts_ns, ra, opt_, masks_, a_.norm, full_a_);
      const std::uint64_t fb = diffing::full_row(pb.bytes, pb.ts_ns, rb, opt_, masks_, b_.norm, full_b_);
      std::uint64_t neq = 0;
      for (std::size_t s = 0; s < diffing::kSlots; ++s) neq |= std::uint64_t{full_a_[s] != full_b_[s]} << s;
      d = (fa ^ fb) | (neq & fa & fb & ~ts_bit);
      if ((fa & fb & ts_bit) && !ts_within(ra.ts, rb.ts)) d |= ts_bit;
    }
    if (d == 0 && rb.ev_bad == 0) return;
    ++r_.differing_pairs;
    r_.field_differences += static_cast<std::size_t>(std::popcount(d)) + rb.ev_bad;
    if (rb.ev_bad) record(DiffKind::kChoice, i, j, -1);
    while (d != 0 && kept_.size() < opt_.max_differences) {
      const int s = std::countr_zero(d);
      d &= d - 1;
      record(DiffKind::kField, i, j, s);
    }
  }

  bool ts_within(std::uint64_t ta, std::uint64_t tb) const {
    const double delta = std::fabs(static_cast<double>(tb) - static_cast<double>(ta));
    const double allowed = static_cast<double>(opt_.tolerance_ns) + opt_.tolerance_pct / 100.0 * static_cast<double>(ta);
    return delta <= allowed;
  }

 public:
  std::string fetch_error_;

 private:
  Side& a_;
  Side& b_;
  const DiffOptions& opt_;
  const diffing::MaskSet& masks_;
  bool judge_ev_;
  DiffReport& r_;
  const std::uint64_t w_;
  diffing::RowFeed* feed_;
  std::vector<SlotA> ring_a_;
  std::vector<SlotB> ring_b_;
  std::vector<Queue> table_;
  std::vector<Kept> kept_;    // in A order (missing, field, decode, choice)
  std::vector<Kept> extras_;  // in B order, after every A finding as diff_captures() lists them
  std::uint64_t read_b_ = 0;   // B packets read
  std::uint64_t final_b_ = 0;  // B packets below it are final
  std::uint64_t settled_ = 0;  // A packets compared
  std::uint64_t free_b_ = 0;   // step 2: every B packet in [its lo, free_b_) is used
  diffing::RowScratch scratch_;
  std::array<std::uint64_t, diffing::kSlots> full_a_{};
  std::array<std::uint64_t, diffing::kSlots> full_b_{};
};

}  // namespace

std::string CaptureSource::rewind() {
  i_ = 0;
  return {};
}

bool CaptureSource::next(SourcePacket& p) {
  if (i_ >= c_.size()) return false;
  p.ts_ns = c_.packet(i_).ts_ns;
  p.bytes = c_.bytes(i_);
  p.handle = i_;
  p.label = static_cast<std::int64_t>(i_);
  ++i_;
  return true;
}

std::string CaptureSource::fetch(std::uint64_t handle, SourcePacket& p) {
  if (handle >= c_.size()) return "packet " + std::to_string(handle) + " is not in the capture";
  p.ts_ns = c_.packet(handle).ts_ns;
  p.bytes = c_.bytes(handle);
  p.handle = handle;
  p.label = static_cast<std::int64_t>(handle);
  return {};
}

FileInterfaceSource::FileInterfaceSource(const std::filesystem::path& path, std::uint32_t iface)
    : path_(path), iface_(iface) {
  open_error_ = s_.open(path);
}

bool FileInterfaceSource::next(SourcePacket& p) {
  while (s_.next(sp_)) {
    if (sp_.iface != iface_) continue;
    p.ts_ns = sp_.ts_ns;
    p.bytes = sp_.bytes;
    p.handle = sp_.offset;
    p.label = static_cast<std::int64_t>(sp_.file_index);
    return true;
  }
  return false;
}

std::unique_ptr<PacketSource> CaptureSource::reopen() const { return std::make_unique<CaptureSource>(c_); }

std::unique_ptr<PacketSource> FileInterfaceSource::reopen() const {
  auto s = std::make_unique<FileInterfaceSource>(path_, iface_);
  if (!s->open_error().empty()) return nullptr;
  s->adopt_interfaces(s_);
  return s;
}

std::string FileInterfaceSource::fetch(std::uint64_t handle, SourcePacket& p) {
  // file_index is only for messages here; the offset finds the record
  if (std::string e = s_.fetch(handle, 0, sp_); !e.empty()) return e;
  p.ts_ns = sp_.ts_ns;
  p.bytes = sp_.bytes;
  p.handle = handle;
  p.label = static_cast<std::int64_t>(sp_.file_index);
  return {};
}

DiffStreamWork last_diff_stream_work() { return g_work; }

DiffReport diff_streams(PacketSource& a, PacketSource& b, const DiffOptions& opt, const FirstPass* first_a,
                        const FirstPass* first_b) {
  DiffReport r;
  g_work = {};
  if (opt.match_identity) {
    r.error = "the streaming diff pairs packets inside a window; identity matching needs diff_captures()";
    return r;
  }
  const FirstPass mine(opt);
  const diffing::MaskSet& masks = mine.state().masks;
  const bool judge_ev = judges_ev(opt);
  r.error = mine.state().mask_error;
  if (!r.error.empty()) return r;
  Side sa{a, {}, 0, 0, 0};
  Side sb{b, {}, 0, 0, 0};
  const auto failed = [](std::string e) {
    DiffReport out;
    out.error = std::move(e);
    return out;
  };
  // A first pass the caller made is used as it is (its source is only rewound);
  // otherwise the two first passes share nothing (each side its source, normalizer and scratch):
  // B's runs on a second thread when one can be had, which halves this pass's wall time on two cores.
  const auto given = [&](const FirstPass* f, Side& s) {
    if (f == nullptr || !f->state().same_as(mine.state())) return false;
    f->state().to(s);
    return true;
  };
  const bool have_a = given(first_a, sa);
  const bool have_b = given(first_b, sb);
  std::string ea = have_a ? a.rewind() : std::string();
  std::string eb = have_b ? b.rewind() : std::string();
  if (!have_a && !have_b) {
    std::thread tb;
    try {
      tb = std::thread([&] { eb = first_pass(sb, opt); });
    } catch (const std::system_error&) {  // no thread: the same pass, in turn
      eb = first_pass(sb, opt);
    }
    ea = first_pass(sa, opt);
    if (tb.joinable()) tb.join();
  } else if (!have_a) {
    ea = first_pass(sa, opt);
  } else if (!have_b) {
    eb = first_pass(sb, opt);
  }
  if (!ea.empty()) return failed(ea);
  if (!eb.empty()) return failed(eb);
  r.packets_a = sa.packets;
  r.packets_b = sb.packets;
  r.decode_failures_a = sa.decode_failures;
  r.decode_failures_b = sb.decode_failures;
  r.not_roce_a = sa.not_roce;
  r.not_roce_b = sb.not_roce;
  // B's second pass on a second thread, from a source of its own (the diff fetches differing
  // pairs from `b` meanwhile); in turn on this one when the source cannot be opened twice.
  std::unique_ptr<diffing::RowFeed> feed;
  if (std::unique_ptr<PacketSource> b2 = b.reopen()) {
    feed = std::make_unique<diffing::RowFeed>(std::move(b2), sb.norm, opt, masks, judge_ev && !masks.ev, sb.packets);
    if (!feed->start()) feed.reset();
  }
  StreamDiffer d(sa, sb, opt, masks, judge_ev && !masks.ev, r, feed.get());
  std::string e = d.run();
  if (e.empty()) e = d.fetch_error_;
  if (e.empty()) e = d.format();
  if (!e.empty()) return failed(e);
  return r;
}

}  // namespace mrc::harness
