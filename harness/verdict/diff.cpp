#include "harness/verdict/diff.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>

#include "harness/verdict/check_support.hpp"
#include "harness/verdict/diff_table.hpp"
#include "harness/verdict/ev_choice.hpp"
#include "harness/verdict/field_class.hpp"

namespace mrc::harness {
namespace {

using diffing::FieldTable;
using diffing::kSlots;

// A difference as the hot loop records it: indices and a slot, nothing formatted.
struct DiffRecord {
  DiffKind kind;
  std::int64_t ia;
  std::int64_t ib;
  int slot;
};

class Differ {
 public:
  Differ(const Capture& ca, const Capture& cb, FieldTable& a, FieldTable& b, const DiffOptions& opt, DiffReport& r)
      : ca_(ca), cb_(cb), a_(a), b_(b), opt_(opt), r_(r) {
    kept_.reserve(std::min<std::size_t>(opt.max_differences, kReserveDifferences));
  }

  void run() {
    const std::size_t na = a_.rows.size();
    const std::size_t nb = b_.rows.size();
    const std::size_t w = std::max<std::uint32_t>(opt_.window, 1);
    diffing::RowArray<std::uint8_t> used_b;  // one allocation per diff, not per pair
    used_b.reset(nb);
    std::fill(used_b.begin(), used_b.end(), std::uint8_t{0});
    diffing::RowArray<std::int64_t> pair_of_a;
    pair_of_a.reset(na);
    std::fill(pair_of_a.begin(), pair_of_a.end(), std::int64_t{-1});
    std::size_t first_free = 0;  // every B index below it is used
    if (opt_.match_identity) match_identities(used_b, pair_of_a);
    // Pass 1: key matches inside the window, nearest-first from the low end (by identity instead).
    for (std::size_t i = 0; i < na && !opt_.match_identity; ++i) {
      while (first_free < nb && used_b[first_free]) ++first_free;
      const std::size_t lo = std::max(first_free, i + 1 >= w ? i + 1 - w : 0);
      const std::size_t hi = std::min(nb, i + w);
      const std::uint64_t k = a_.rows[i].key;
      for (std::size_t j = lo; j < hi; ++j) {
        if (!used_b[j] && b_.rows[j].key == k) {
          used_b[j] = 1;
          pair_of_a[i] = static_cast<std::int64_t>(j);
          break;
        }
      }
    }
    // Pass 2: leftovers pair with the nearest unused B packet inside the window, positionally.
    first_free = 0;
    for (std::size_t i = 0; i < na; ++i) {
      if (pair_of_a[i] >= 0) continue;
      while (first_free < nb && used_b[first_free]) ++first_free;
      const std::size_t lo = std::max(first_free, i + 1 >= w ? i + 1 - w : 0);
      const std::size_t hi = std::min(nb, i + w);
      for (std::size_t j = lo; j < hi; ++j) {
        if (!used_b[j]) {
          used_b[j] = 1;
          pair_of_a[i] = static_cast<std::int64_t>(j);
          break;
        }
      }
    }
    // Compare in A order so the first differences reported are the earliest.
    for (std::size_t i = 0; i < na; ++i) {
      if (pair_of_a[i] < 0) {
        ++r_.missing;
        record(DiffKind::kMissing, static_cast<std::int64_t>(i), -1, -1);
        continue;
      }
      compare(i, static_cast<std::size_t>(pair_of_a[i]));
    }
    for (std::size_t j = 0; j < nb; ++j) {
      if (used_b[j]) continue;
      ++r_.extra;
      record(DiffKind::kExtra, -1, static_cast<std::int64_t>(j), -1);
    }
  }

  const std::vector<DiffRecord>& kept() const { return kept_; }

 private:
  // The n-th packet of an identity in A pairs with the n-th of the same identity in B (the
  // retransmission ordinal), wherever either sits: both sides sorted by (identity, position) and
  // merged. One allocation per side per diff.
  void match_identities(diffing::RowArray<std::uint8_t>& used_b, diffing::RowArray<std::int64_t>& pair_of_a) {
    struct Ref {
      std::uint64_t id;
      std::uint64_t index;
      bool operator<(const Ref& o) const { return id != o.id ? id < o.id : index < o.index; }
    };
    auto sorted = [](const FieldTable& t, diffing::RowArray<Ref>& out) {
      out.reset(t.rows.size());
      for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const diffing::Row& r = t.rows[i];
        std::uint64_t id = (r.key ^ (std::uint64_t{r.who} * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
        id ^= id >> 29;
        out[i] = Ref{id, i};
      }
      std::sort(out.begin(), out.end());
    };
    diffing::RowArray<Ref> ra;
    diffing::RowArray<Ref> rb;
    sorted(a_, ra);
    sorted(b_, rb);
    std::size_t x = 0;
    std::size_t y = 0;
    while (x < ra.size() && y < rb.size()) {
      if (ra[x].id < rb[y].id) {
        ++x;
      } else if (rb[y].id < ra[x].id) {
        ++y;
      } else {
        used_b[rb[y].index] = 1;
        pair_of_a[ra[x].index] = static_cast<std::int64_t>(rb[y].index);
        ++x;
        ++y;
      }
    }
  }

  void record(DiffKind k, std::int64_t ia, std::int64_t ib, int slot) {
    if (kept_.size() < opt_.max_differences) kept_.push_back(DiffRecord{k, ia, ib, slot});
  }

  void compare(std::size_t i, std::size_t j) {
    ++r_.pairs;
    if (i != j) ++r_.reordered_pairs;
    const diffing::Row& ra = a_.rows[i];
    const diffing::Row& rb = b_.rows[j];
    if (ra.error != 0 || rb.error != 0) {
      if (ra.error != rb.error || ra.hash != rb.hash) {
        ++r_.differing_pairs;
        ++r_.field_differences;
        record(DiffKind::kDecode, static_cast<std::int64_t>(i), static_cast<std::int64_t>(j), -1);
      }
      return;
    }
    constexpr diffing::SlotBits ts_bit = diffing::kTsBit;
    const bool same =
        diffing::rows_agree(ra, rb, [&](std::uint64_t ta, std::uint64_t tb) { return diffing::ts_within(opt_, i, ta, tb); });
    if (same && rb.ev_bad == 0) return;  // the common case: no decoding, no per-field work
    diffing::SlotBits d = 0;
    if (!same) {  // decode both again into full rows to name the fields
      const diffing::SlotBits pa = diffing::full_row(ca_, i, opt_, a_, sa_);
      const diffing::SlotBits pb = diffing::full_row(cb_, j, opt_, b_, sb_);
      diffing::SlotBits neq = 0;
      for (std::size_t s = 0; s < diffing::kSlots; ++s) neq |= diffing::SlotBits{sa_[s] != sb_[s]} << s;
      d = (pa ^ pb) | (neq & pa & pb & ~ts_bit);
      if ((pa & pb & ts_bit) && !diffing::ts_within(opt_, i, ra.ts, rb.ts)) d |= ts_bit;
    }
    if (d == 0 && rb.ev_bad == 0) return;
    ++r_.differing_pairs;
    r_.field_differences += static_cast<std::size_t>(diffing::slot_count(d)) + rb.ev_bad;
    if (rb.ev_bad) record(DiffKind::kChoice, static_cast<std::int64_t>(i), static_cast<std::int64_t>(j), -1);
    while (d != 0 && kept_.size() < opt_.max_differences) {
      const int s = diffing::lowest_slot(d);
      d &= d - 1;
      record(DiffKind::kField, static_cast<std::int64_t>(i), static_cast<std::int64_t>(j), s);
    }
  }

  const Capture& ca_;
  const Capture& cb_;
  FieldTable& a_;
  FieldTable& b_;
  const DiffOptions& opt_;
  DiffReport& r_;
  std::vector<DiffRecord> kept_;
  std::array<std::uint64_t, diffing::kSlots> sa_{};
  std::array<std::uint64_t, diffing::kSlots> sb_{};
};

// Raw (wire) value of a field in one packet, re-decoded for the report.
struct RawView {
  bool decoded = false;
  wire::DecodedFrame f;
  FrameMeta meta;
  wire::WireError error = wire::WireError::kOk;
};

RawView raw_view(const diffing::PacketView& p, const DiffOptions& opt) {
  RawView v;
  if (p.index < 0) return v;
  const wire::DecodeOptions o = diff_decode_options(opt);
  const auto r = wire::decode_frame(p.bytes, v.f, o);
  v.decoded = r.ok();
  v.error = r.error;
  v.meta.ts_ns = p.ts_ns;
  v.meta.caplen = static_cast<std::uint32_t>(p.bytes.size());
  return v;
}

std::string filter_for(const RawView& v, std::int64_t index) {
  if (index < 0) return {};
  const auto i = static_cast<std::size_t>(index);
  return v.decoded ? frame_filter(i, "mrc.bth.psn", std::to_string(v.f.bth.psn)) : frame_filter(i);
}

std::string describe_value(const RawView& v, const diffing::PacketView& p, int slot, const DiffOptions& opt,
                           const diffing::MaskSet& masks, diffing::Normalizer& norm) {
  if (!v.decoded) return "undecodable (" + std::string(wire::to_string(v.error)) + ")";
  const FieldId id = diffing::field_of_slot(slot);
  if (id == FieldId::kTs) return std::to_string(p.row.ts) + " ns after the first packet";
  const FieldValue fv = get_field(id, v.f, v.meta);
  std::string s = format_value(id, fv);
  if (opt.normalize && fv.present() && diffing::is_normalized(id, v.f.encapsulated)) {
    std::array<std::uint64_t, diffing::kSlots> slots{};
    diffing::full_row(p.bytes, p.ts_ns, p.row, opt, masks, norm, slots);
    const bool addr = fv.kind == FieldKind::kIpv6 || fv.kind == FieldKind::kIpv4 || fv.kind == FieldKind::kMac ||
                      id == FieldId::kBthDqpn;
    const std::uint64_t n = slots[static_cast<std::size_t>(slot)];
    s += addr ? " [#" + std::to_string(n) + " in order of appearance]" : " [offset " + std::to_string(n) + "]";
  }
  return s;
}

std::string summarize_packet(const RawView& v) {
  if (!v.decoded) return "undecodable (" + std::string(wire::to_string(v.error)) + ")";
  return "opcode " + hex(v.f.bth.opcode) + " psn " + std::to_string(v.f.bth.psn);
}

}  // namespace

wire::DecodeOptions diff_decode_options(const DiffOptions& opt) {
  wire::DecodeOptions o;
  o.trimmed_dscps = opt.dscp.trimmed_mask();
  o.trimmed_lasthop_dscp = opt.dscp.trimmed_lasthop;
  return o;
}

namespace diffing {

Difference format_difference(DiffKind kind, int slot, const PacketView& pa, const PacketView& pb, const DiffOptions& opt,
                             const MaskSet& masks, Normalizer& norm_a, Normalizer& norm_b) {
  Difference out;
  out.kind = kind;
  out.index_a = pa.index;
  out.index_b = pb.index;
  const RawView va = raw_view(pa, opt);
  const RawView vb = raw_view(pb, opt);
  if (pa.index >= 0) out.ts_a = pa.row.ts;
  if (pb.index >= 0) out.ts_b = pb.row.ts;
  out.filter_a = filter_for(va, pa.index);
  out.filter_b = filter_for(vb, pb.index);
  switch (kind) {
    case DiffKind::kField: {
      const FieldId id = diffing::field_of_slot(slot);
      // A choice-class field reaches here only when no eligible EV set judges it: it was
      // compared with A's, exactly, and is reported so.
      FieldClass cls = field_class(id, va.decoded && va.f.encapsulated);
      if (cls == FieldClass::kChoice) cls = FieldClass::kExact;
      if (cls == FieldClass::kBounded && !opt.early_ns_a.empty()) cls = FieldClass::kBridged;  // paced A times
      out.field = std::string(field_name(id));
      out.field_class = std::string(to_string(cls));
      out.expected = describe_value(va, pa, slot, opt, masks, norm_a);
      out.observed = describe_value(vb, pb, slot, opt, masks, norm_b);
      out.message = cls == FieldClass::kBounded || cls == FieldClass::kBridged
                        ? out.field + " " + out.observed + " is outside the tolerance of the expected " + out.expected +
                              " (" + out.field_class + ")"
                        : out.field + " differs (" + out.field_class + "): expected " + out.expected + ", observed " +
                              out.observed;
      break;
    }
    case DiffKind::kChoice: {  // judged again on the one packet, to name the field and the EVs
      const int port = pb.local >= 0 && static_cast<std::size_t>(pb.local) < opt.ports_b.size()
                           ? opt.ports_b[static_cast<std::size_t>(pb.local)]
                           : 0;
      const EvJudgement j = opt.ev_choice->judge(vb.f, port);
      out.field = opt.ev_choice->field_name(j);
      out.field_class = std::string(to_string(FieldClass::kChoice));
      out.expected = "the expansion of an eligible EV (" + std::to_string(opt.ev_choice->size()) + " eligible)";
      out.observed = opt.ev_choice->describe(j, vb.f, port);
      out.message = out.observed + " (choice)";
      break;
    }
    case DiffKind::kMissing:
      out.field = "frame";
      out.expected = summarize_packet(va);
      out.observed = "no matching packet in " + opt.name_b;
      out.message = "frame " + out.expected + " is missing";
      break;
    case DiffKind::kExtra:
      out.field = "frame";
      out.expected = "no such packet in " + opt.name_a;
      out.observed = summarize_packet(vb);
      out.message = "frame " + out.observed + " is extra";
      break;
    case DiffKind::kDecode:
      out.field = "frame";
      out.expected = va.decoded ? summarize_packet(va) : "undecodable (" + std::string(wire::to_string(va.error)) + ")";
      out.observed = vb.decoded ? summarize_packet(vb) : "undecodable (" + std::string(wire::to_string(vb.error)) + ")";
      if (!va.decoded && !vb.decoded && va.error == vb.error) out.observed += ", different bytes";
      out.message = "frame differs: expected " + out.expected + ", observed " + out.observed;
      break;
  }
  return out;
}

}  // namespace diffing

DiffReport diff_captures(const Capture& a, const Capture& b, const DiffOptions& opt) {
  DiffReport r;
  r.packets_a = a.size();
  r.packets_b = b.size();
  diffing::MaskSet masks;
  const bool judge_ev = opt.ev_choice != nullptr && !opt.ev_choice->empty();
  r.error = diffing::parse_masks(opt.masks, masks, judge_ev);
  if (!r.error.empty()) return r;
  FieldTable ta;
  FieldTable tb;
  diffing::build_table(a, opt, masks, ta);
  diffing::build_table(b, opt, masks, tb, judge_ev && !masks.ev);
  r.decode_failures_a = ta.decode_failures;
  r.decode_failures_b = tb.decode_failures;
  r.not_roce_a = ta.not_roce;
  r.not_roce_b = tb.not_roce;
  Differ d(a, b, ta, tb, opt, r);
  d.run();

  // Format only what is kept: re-decode those packets to show raw wire values.
  r.differences.reserve(d.kept().size());
  const auto view = [](const Capture& c, const FieldTable& t, std::int64_t i) {
    diffing::PacketView v;
    if (i < 0) return v;
    const auto k = static_cast<std::size_t>(i);
    v.index = i;
    v.local = i;
    v.bytes = c.bytes(k);
    v.ts_ns = c.packet(k).ts_ns;
    v.row = t.rows[k];
    return v;
  };
  for (const DiffRecord& k : d.kept()) {
    r.differences.push_back(diffing::format_difference(k.kind, k.slot, view(a, ta, k.ia), view(b, tb, k.ib), opt,
                                                       ta.masks, ta.norm, tb.norm));
  }
  return r;
}

std::string render_diff(const DiffReport& r, const DiffOptions& opt, std::size_t max_lines) {
  std::string s;
  if (!r.ok()) return "diff: " + r.error + "\n";
  s += opt.name_a + ": " + std::to_string(r.packets_a) + " packets; " + opt.name_b + ": " +
       std::to_string(r.packets_b) + " packets\n";
  s += "compared " + std::to_string(r.pairs) + " pairs (" + std::to_string(r.reordered_pairs) +
       " matched out of position inside a window of " + std::to_string(std::max<std::uint32_t>(opt.window, 1)) +
       "): " + std::to_string(r.differing_pairs) + " differing pairs, " + std::to_string(r.field_differences) +
       " field differences, " + std::to_string(r.missing) + " missing, " + std::to_string(r.extra) + " extra";
  if (r.decode_failures_a || r.decode_failures_b) {
    s += "; undecodable RoCEv2: " + std::to_string(r.decode_failures_a) + " in " + opt.name_a + ", " +
         std::to_string(r.decode_failures_b) + " in " + opt.name_b;
  }
  if (r.not_roce_a || r.not_roce_b) {  // ARP, TCP, ... beside the RoCEv2 traffic of a real capture
    s += "; not RoCEv2 (compared as raw bytes): " + std::to_string(r.not_roce_a) + " in " + opt.name_a + ", " +
         std::to_string(r.not_roce_b) + " in " + opt.name_b;
  }
  s += r.identical() ? "\nIDENTICAL (after normalization and masks)\n" : "\n";
  std::size_t n = 0;
  for (const Difference& d : r.differences) {
    if (n++ >= max_lines) break;
    s += "#" + std::to_string(n) + " " + d.field + (d.field_class.empty() ? "" : " (" + d.field_class + ")") + ": ";
    s += opt.name_a + (d.index_a >= 0 ? "[" + std::to_string(d.index_a) + "]" : "[-]") + " expected " + d.expected;
    s += "; " + opt.name_b + (d.index_b >= 0 ? "[" + std::to_string(d.index_b) + "]" : "[-]") + " observed " + d.observed + "\n";
    s += "    filters: " + (d.filter_a.empty() ? std::string("-") : d.filter_a) + " | " +
         (d.filter_b.empty() ? std::string("-") : d.filter_b) + "\n";
  }
  if (r.total_differences() > n) {
    s += "... " + std::to_string(r.total_differences() - std::min(n, r.total_differences())) + " more\n";
  }
  return s;
}

}  // namespace mrc::harness
