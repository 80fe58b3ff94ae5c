// Internal to the capture diff (diff.hpp): compact, normalized per-packet rows.
//
// A frame has 63 comparable fields (the vocabulary's header fields through frame.len, then ts
// and a payload digest). Storing them all would cost 512 bytes a packet; instead each row keeps
// what matching and the fast comparison need (about 64 bytes): a 64-bit hash of every unmasked
// field except the few normalized after the whole capture is seen (PSN, trigger PSN, VA), those
// raw values, the relative timestamp, the mask of fields present and the window key. Two rows
// with equal hashes, presence and normalized values are the same packet. Only for a pair that
// differs are both frames decoded again into full 64-slot rows (full_row) to name the fields.
//
// Normalization (diff.hpp): addresses and QPs become ordinals in order of first appearance
// (pass 1); PSNs become offsets from the lowest PSN of their space (data / feedback, per
// destination QP) and VAs offsets from the lowest VA (pass 2, once every packet was seen), so a
// capture whose first packets were sprayed out of order still normalizes the same way. A QP is
// its destination address (the inner one when encapsulated) with its number: QP numbers are
// per host, and two hosts that both number their QP 0x11 (soft-RoCE does) are two QPs with two
// PSN spaces, not one.
#pragma once

#include <array>
#include <bit>
#include <new>
#include <span>
#include <sys/mman.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/observe/capture.hpp"
#include "harness/verdict/diff.hpp"
#include "harness/verdict/field_access.hpp"

namespace mrc::harness::diffing {

// One slot per field the diff compares: the FieldIds up to frame.len, then ts and payload. A set of
// slots is one 128-bit word (GCC and clang's unsigned __int128): the same shifts and masks as one
// machine word, for more fields than 64.
using SlotBits = unsigned __int128;
inline constexpr std::size_t kSlots = 128;
inline constexpr int kTsSlot = static_cast<int>(FieldId::kFrameLen) + 1;
inline constexpr int kPayloadSlot = static_cast<int>(FieldId::kFrameLen) + 2;
static_assert(kPayloadSlot < static_cast<int>(kSlots));
constexpr SlotBits slot_bit(int slot) { return SlotBits{1} << slot; }
inline int lowest_slot(SlotBits b) {  // b != 0
  const auto lo = static_cast<std::uint64_t>(b);
  return lo != 0 ? std::countr_zero(lo) : 64 + std::countr_zero(static_cast<std::uint64_t>(b >> 64));
}
inline int slot_count(SlotBits b) {
  return std::popcount(static_cast<std::uint64_t>(b)) + std::popcount(static_cast<std::uint64_t>(b >> 64));
}
inline constexpr std::uint8_t kNoSpace = 0xFF;

// The table slot of a field, or -1 when the diff does not compare it (tap-level fields).
int slot_of(FieldId id);
FieldId field_of_slot(int slot);

struct MaskSet {
  SlotBits bits = 0;       // masked slots
  bool ev = false;         // `ev`: also the SRv6 outer DA (a path, not an address)
  bool choice = false;     // the choice-class fields are left out of the comparison because
                           // DiffOptions::ev_choice judges them on B (same slots as `ev`)
};
// Resolves option mask names; returns "" or an error naming the unknown mask. With ev_choice
// (and no `ev` mask) the choice-class fields (field_class.hpp) are left out of the comparison.
std::string parse_masks(const std::vector<std::string>& names, MaskSet& out, bool ev_choice = false);

// Fields whose table value is a normalization of the wire value (for evidence text).
bool is_normalized(FieldId id, bool encapsulated);

struct Row {
  std::uint64_t hash = 0;     // every unmasked present slot except PSN, trigger PSN, VA and ts
  SlotBits present = 0;       // unmasked slots present
  std::uint64_t ts = 0;       // raw in pass 1, ns after the capture's earliest packet after pass 2
  std::uint64_t va = 0;       // raw in pass 1, offset from the lowest VA after pass 2
  std::uint64_t key = 0;      // window-matching key (pass 2)
  std::uint32_t psn = 0;      // raw in pass 1, offset in its space after pass 2
  std::uint32_t trig = 0;     // the PSN a SACK answers (W5 ack_psn), same space as psn
  std::uint8_t space = kNoSpace;
  std::uint8_t error = 0;     // wire::WireError (0 = decoded); undecodable rows hash their bytes
  std::uint8_t ev_bad = 0;    // B with ev_choice: its EV fields are not one eligible EV's (ev_choice.hpp)
  std::uint32_t who = 0;      // source address and destination QP (normalized): the identity's direction and QP
};

// Bits of Row::present for the fields a row keeps apart from its hash.
inline constexpr SlotBits kPsnBit = slot_bit(static_cast<int>(FieldId::kBthPsn));
// The trigger PSN: the PSN a SACK answers (W5 ack_psn).
inline constexpr SlotBits kTrigBit = slot_bit(static_cast<int>(FieldId::kSethAckPsn));
inline constexpr SlotBits kVaBit = slot_bit(static_cast<int>(FieldId::kRethVa));
inline constexpr SlotBits kTsBit = slot_bit(kTsSlot);

// Whether B's time `tb` of a pair is within the diff's tolerance of A's `ta` (packet `ia` of A):
// |tb - ta| <= tolerance_ns + tolerance_pct% of ta, and B may come earlier by early_ns_a[ia] more
// (the golden's own time, before the bridge's pacing moved it: DiffOptions::early_ns_a).
inline bool ts_within(const DiffOptions& o, std::uint64_t ia, std::uint64_t ta, std::uint64_t tb) {
  const double allowed = static_cast<double>(o.tolerance_ns) + o.tolerance_pct / 100.0 * static_cast<double>(ta);
  if (tb >= ta) return static_cast<double>(tb - ta) <= allowed;
  const double early = ia < o.early_ns_a.size() ? static_cast<double>(o.early_ns_a[ia]) : 0.0;
  return static_cast<double>(ta - tb) <= allowed + early;
}

// The quick test both diff paths (diff.cpp, diff_stream.cpp) run on a matched pair before
// decoding it again: the same fields present, the same hash, the same kept values, and the
// timestamps within `ts_ok` (the diff's tolerance).
template <typename TsOk>
bool rows_agree(const Row& ra, const Row& rb, TsOk&& ts_ok) {
  const SlotBits p = ra.present;
  return p == rb.present && ra.hash == rb.hash && (!(p & kPsnBit) || ra.psn == rb.psn) &&
         (!(p & kTrigBit) || ra.trig == rb.trig) && (!(p & kVaBit) || ra.va == rb.va) &&
         (!(p & kTsBit) || ts_ok(ra.ts, rb.ts));
}

// Storage for one row per packet. Fresh memory costs a page fault per 4 KiB page on first touch,
// which on virtual machines dominates a diff of 100k packets; large arrays are therefore backed by
// transparent huge pages where the kernel offers them (madvise), a fault per 2 MiB instead.
// Elements are not initialized: every user writes each element before reading it.
template <typename T>
class RowArray {
 public:
  RowArray() = default;
  RowArray(const RowArray&) = delete;
  RowArray& operator=(const RowArray&) = delete;
  ~RowArray() { release(); }

  void reset(std::size_t n);  // discards the contents; n elements, uninitialized
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }

 private:
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  void release();

  T* p_ = nullptr;
  std::size_t n_ = 0;
  bool huge_ = false;
};

template <typename T>
void RowArray<T>::release() {
  if (p_ && huge_) {
    ::operator delete(p_, std::align_val_t{kHuge});
  } else if (p_) {
    ::operator delete(p_);
  }
  p_ = nullptr;
  n_ = 0;
}

template <typename T>
void RowArray<T>::reset(std::size_t n) {
  static_assert(std::is_trivially_copyable_v<T>);
  release();
  if (n == 0) return;
  const std::size_t bytes = n * sizeof(T);
  huge_ = bytes >= kHuge / 2;
  if (huge_) {
    const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    p_ = static_cast<T*>(::operator new(rounded, std::align_val_t{kHuge}));
    ::madvise(p_, rounded, MADV_HUGEPAGE);  // advisory: plain pages when the kernel refuses
  } else {
    p_ = static_cast<T*>(::operator new(bytes));
  }
  n_ = n;
}

template <std::size_t N>
class Ordinals {  // values in order of first appearance -> 0, 1, 2, ...
 public:
  std::uint64_t get(std::uint64_t hi, std::uint64_t lo);
  std::size_t size() const { return n_; }

 private:
  static_assert(N < 255 && (N & (N - 1)) == 0);
  std::array<std::uint64_t, N> hi_{};
  std::array<std::uint64_t, N> lo_{};
  // Open addressing over four times N slots (1 + ordinal, 0 = free): a lookup costs a probe or
  // two, not a scan of every value (a capture of many hosts asks per address field of every
  // packet, and once the table is full every new value probes to a free slot: at a quarter full a
  // probe and a half on average, against two and a half at half full).
  std::array<std::uint8_t, 4 * N> index_{};
  std::size_t n_ = 0;
};

struct Normalizer {
  Ordinals<64> macs;
  Ordinals<64> addrs;
  Ordinals<64> qpns;                            // (destination address key, QPN): see qp_ordinal
  Ordinals<64> space_ids;                       // (QP ordinal << 1) | feedback -> space
  std::array<std::uint32_t, 64> space_first{};  // first PSN seen in the space
  std::array<std::int32_t, 64> space_min{};     // lowest PSN as an offset from the first
  std::size_t spaces = 0;
  bool have_va = false;
  std::uint64_t va_min = 0;
  std::uint64_t ts0 = 0;
  // The one-pass diff (diff_row_maker.hpp) learns the values above while it uses them: the PSN
  // spaces, the VA and ts0 a row was normalized by, and whether one of them moved after that use,
  // which voids the pass.
  std::uint64_t used_spaces = 0;  // bit per space
  bool va_used = false;
  bool ts0_used = false;
  bool moved = false;

  std::size_t ordinals() const { return macs.size() + addrs.size() + qpns.size(); }

  // The ordinal of the frame's destination QP: its destination address (inner when
  // encapsulated) and its QPN, registered on first sight.
  std::uint64_t qp_ordinal(const wire::DecodedFrame& f);
  std::uint8_t space_of(std::uint64_t id, std::uint32_t psn);  // registers; kNoSpace when full
  std::uint32_t base(std::uint8_t space) const;
};

struct FieldTable {
  RowArray<Row> rows;
  Normalizer norm;
  MaskSet masks;
  std::size_t decode_failures = 0;  // RoCEv2 frames that do not decode
  std::size_t not_roce = 0;         // frames that are not RoCEv2 at all (not IP, not UDP, not 4791)
};

enum class RowOutcome : std::uint8_t { kDecoded, kNotRoce, kUndecodable };

struct RowScratch {  // make_row's working space, reused from packet to packet
  wire::DecodedFrame frame;
  std::array<std::uint64_t, kSlots> slots{};
};

// One packet's row as build_table's first pass makes it (pass-1 values: raw PSN, trigger, VA and
// time; the key without them), registering its addresses, QP, PSN space and VA in `norm`, whose
// ts0 the endpoint timestamp is hashed relative to (Normalizer::ts0_used). `judge_ev`:
// this is B and opt.ev_choice judges its EV fields (with `port`, 1-based, 0 = not judged).
// `register_only`: only `norm` and the outcome count (the streaming diff's first pass): no hash,
// and the ICRC is checked only where it changes whether the frame decodes.
RowOutcome make_row(std::span<const std::uint8_t> bytes, std::uint64_t ts_ns, const DiffOptions& opt,
                    const MaskSet& masks, Normalizer& norm, bool judge_ev, int port, Row& r, RowScratch& scratch,
                    bool register_only = false);
// The second pass on one row, once every packet was seen: PSN / trigger / VA / time as offsets,
// the key.
void finish_row(Row& r, const Normalizer& norm, const MaskSet& masks, const DiffOptions& opt);

// `judge_ev`: this is B and opt.ev_choice judges its EV fields (Row::ev_bad).
void build_table(const Capture& cap, const DiffOptions& opt, const MaskSet& masks, FieldTable& out,
                 bool judge_ev = false);

// Every slot of packet i, normalized as in the table, into `slots`; returns the present mask
// (unmasked). For undecodable packets returns 0 and sets *error. Used only for differing pairs.
SlotBits full_row(std::span<const std::uint8_t> bytes, std::uint64_t ts_ns, const Row& late, const DiffOptions& opt,
                       const MaskSet& masks, Normalizer& norm, std::array<std::uint64_t, kSlots>& slots,
                       std::uint8_t* error = nullptr);
SlotBits full_row(const Capture& cap, std::size_t i, const DiffOptions& opt, FieldTable& t,
                       std::array<std::uint64_t, kSlots>& slots, std::uint8_t* error = nullptr);

// One side of a kept difference, for the report (index -1: no packet on this side).
struct PacketView {
  std::int64_t index = -1;  // as reported: the capture's, or the file's for a file source
  std::int64_t local = -1;  // position in the capture (DiffOptions::ports_b)
  std::span<const std::uint8_t> bytes;
  std::uint64_t ts_ns = 0;  // raw
  Row row;                  // normalized late values and relative time
};

// The Difference the report shows for one kept record: the packets decoded again, raw values
// with their normalized ones, Wireshark filters.
Difference format_difference(DiffKind kind, int slot, const PacketView& a, const PacketView& b, const DiffOptions& opt,
                             const MaskSet& masks, Normalizer& norm_a, Normalizer& norm_b);

}  // namespace mrc::harness::diffing
