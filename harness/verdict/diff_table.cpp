#include "harness/verdict/diff_table.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <utility>

#include "harness/verdict/ev_choice.hpp"
#include "harness/verdict/field_class.hpp"
#include "reference/wire/icrc.hpp"

namespace mrc::harness::diffing {
namespace {

constexpr SlotBits bit(int slot) { return slot_bit(slot); }
constexpr int kPsnSlot = static_cast<int>(FieldId::kBthPsn);
constexpr int kAckPsnSlot = static_cast<int>(FieldId::kSethAckPsn);     // W5: the PSN a SACK answers
constexpr int kVaSlot = static_cast<int>(FieldId::kRethVa);
// Compared outside the hash: normalized once the whole capture is seen, or with a tolerance.
constexpr SlotBits kLate = bit(kPsnSlot) | kTrigBit | bit(kVaSlot) | bit(kTsSlot);

std::uint64_t fold128(std::uint64_t hi, std::uint64_t lo) {
  std::uint64_t h = hi * 0x9E3779B97F4A7C15ull;
  h ^= (h >> 29) ^ lo;
  return h * 0xBF58476D1CE4E5B9ull ^ (h >> 31);
}

std::uint64_t be64(const std::uint8_t* p) {  // one load and a byte swap: 4 per IPv6 packet
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

// Feedback PSNs (cumulative ACKs, NACKed PSNs) get their own space per QP.
bool is_feedback(std::uint8_t op) {
  namespace oc = wire::opcode;
  return op == oc::kRcAck || op == oc::kRcAtomicAck || op == oc::kMrcAck || op == oc::kMrcSack || op == oc::kMrcNack;
}

// The destination address of a frame folded to 64 bits: the inner IPv6 destination when
// encapsulated (the outer one is the EV's path), else the IPv4 or IPv6 destination. A fold, not
// the 128 bits, so that it and the QPN fit one ordinal entry; two addresses of one capture that
// fold alike (odds 2^-64) would share their QPs' ordinals.
std::uint64_t dest_key(const wire::DecodedFrame& f) {
  if (f.encapsulated) return fold128(be64(f.inner_ip6.dst.data()), be64(f.inner_ip6.dst.data() + 8));
  if (f.l3 == wire::L3Kind::kIpv4) return fold128(0xFFFF, f.ip4.dst);
  return fold128(be64(f.ip6.dst.data()), be64(f.ip6.dst.data() + 8));
}

// Pass-1 value of one slot: ordinals for addresses and QPNs, raw PSN / trigger / VA.
[[gnu::always_inline]] inline std::uint64_t slot_value(FieldId id, const FieldValue& v, const wire::DecodedFrame& f, const DiffOptions& opt,
                         const MaskSet& masks, Normalizer& n) {
  if (v.kind == FieldKind::kIpv6 || v.kind == FieldKind::kIpv4) {
    const std::uint64_t hi = v.kind == FieldKind::kIpv4 ? 0xFFFF : be64(v.a.data());
    const std::uint64_t lo = v.kind == FieldKind::kIpv4 ? v.u : be64(v.a.data() + 8);
    // An EV's path (SRH segment, SRv6 outer DA; W1), not an address: raw, or left out.
    const bool path = field_class(id, f.encapsulated) == FieldClass::kChoice;
    if (path) return masks.ev || masks.choice ? 0 : fold128(hi, lo);
    return opt.normalize ? n.addrs.get(hi, lo) : fold128(hi, lo);
  }
  if (v.kind == FieldKind::kMac) return opt.normalize ? n.macs.get(1, v.u) : v.u;
  // W4: whether a data packet carries a TSETH is the sender's configuration (a choice): with
  // choices masked, lengths compare as if it had none.
  if ((id == FieldId::kIpLength || id == FieldId::kFrameLen) && f.has_tseth && (masks.choice || masks.ev)) {
    return v.u - wire::kTsethLen;
  }
  if (!opt.normalize) return v.u;
  if (id == FieldId::kBthDqpn) return n.qp_ordinal(f);
  // W5, W7: PSNs that repeat BTH.PSN compare as their distance from it (0 when they agree).
  if (id == FieldId::kSethCackPsn || id == FieldId::kNethNackPsn) return (v.u - f.bth.psn) & 0xFFFFFFu;
  return v.u;
}

// The slots whose value registers an ordinal (slot_value: MACs, IPv4/IPv6 addresses, the QP).
constexpr bool registers_ordinal(int s) {
  using I = FieldId;
  const auto id = static_cast<I>(s);
  return id == I::kEthSrc || id == I::kEthDst || id == I::kIpSrc || id == I::kIpDst || id == I::kSrhSegment0 ||
         id == I::kInnerSrc || id == I::kInnerDst || id == I::kBthDqpn;
}

// One slot, with its id known at compile time so get_field's switch folds away. A masked slot
// that registers nothing is filled anyway and dropped from `present` by the caller: one mask
// test per row instead of one per slot. A masked slot that registers is skipped, so masking an
// address leaves the other addresses' ordinals as they were.
template <int S>
[[gnu::always_inline]] inline void fill_one(const wire::DecodedFrame& f, const FrameMeta& meta, const DiffOptions& opt, const MaskSet& masks,
                     Normalizer& n, std::array<std::uint64_t, kSlots>& slots, SlotBits& present) {
  if constexpr (registers_ordinal(S)) {
    if (masks.bits & bit(S)) return;
  }
  const FieldValue v = get_field(static_cast<FieldId>(S), f, meta);
  if (!v.present()) return;
  present |= bit(S);
  slots[S] = slot_value(static_cast<FieldId>(S), v, f, opt, masks, n);
}

template <int... S>
inline SlotBits fill_header_slots(const wire::DecodedFrame& f, const FrameMeta& meta, const DiffOptions& opt,
                                  const MaskSet& masks, Normalizer& n, std::array<std::uint64_t, kSlots>& slots,
                                  std::integer_sequence<int, S...>) {
  SlotBits present = 0;
  (fill_one<S>(f, meta, opt, masks, n, slots, present), ...);
  return present & ~masks.bits;
}

template <int First, int... S>
constexpr auto offset_sequence(std::integer_sequence<int, S...>) {
  return std::integer_sequence<int, (First + S)...>{};
}
// The slots of FieldIds First..Last, in order.
template <FieldId First, FieldId Last>
constexpr auto slot_range() {
  return offset_sequence<static_cast<int>(First)>(
      std::make_integer_sequence<int, static_cast<int>(Last) - static_cast<int>(First) + 1>{});
}

// fill_slots' ranges cover every FieldId up to frame.len once.
constexpr bool follows(FieldId a, FieldId b) { return static_cast<int>(a) + 1 == static_cast<int>(b); }
static_assert(follows(FieldId::kImm, FieldId::kMethMsn) && follows(FieldId::kTsethFtype, FieldId::kAethSyndrome) &&
              follows(FieldId::kAethMsn, FieldId::kSethM) && follows(FieldId::kCcRcvdBytes, FieldId::kNethReason) &&
              follows(FieldId::kNethTxTimestamp, FieldId::kPethProbeId) && follows(FieldId::kPethFtype, FieldId::kErthOp) &&
              follows(FieldId::kErthFtype, FieldId::kEethOp) && follows(FieldId::kEethTxTimestamp, FieldId::kIcrc));

// Fills every unmasked present slot of a decoded frame (pass-1 values); returns the mask. The
// headers a frame may lack are filled only when it has them: a data packet pays nothing for the
// fields of the control headers.
SlotBits fill_slots(const wire::DecodedFrame& f, const FrameMeta& meta, const DiffOptions& opt,
                    const MaskSet& masks, Normalizer& n, std::array<std::uint64_t, kSlots>& slots) {
  using I = FieldId;
  SlotBits present = fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kEthSrc, I::kImm>());
  if (f.has_meth) present |= fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kMethMsn, I::kTsethFtype>());
  if (f.has_aeth) present |= fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kAethSyndrome, I::kAethMsn>());
  if (f.has_sack) present |= fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kSethM, I::kCcRcvdBytes>());
  if (f.has_neth) present |= fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kNethReason, I::kNethTxTimestamp>());
  if (f.has_peth) present |= fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kPethProbeId, I::kPethFtype>());
  if (f.has_erth) present |= fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kErthOp, I::kErthFtype>());
  if (f.has_eeth) present |= fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kEethOp, I::kEethTxTimestamp>());
  present |= fill_header_slots(f, meta, opt, masks, n, slots, slot_range<I::kIcrc, I::kFrameLen>());
  if (!(masks.bits & bit(kPayloadSlot))) {
    slots[kPayloadSlot] = get_field(FieldId::kPayload, f, meta).u;
    present |= bit(kPayloadSlot);
  }
  if (!(masks.bits & bit(kTsSlot))) {
    slots[kTsSlot] = meta.ts_ns - n.ts0;
    present |= bit(kTsSlot);
  }
  return present;
}

// Only the slots that register an ordinal (registers_ordinal), in slot order as fill_slots meets
// them, so the ordinals come out the same: the first pass of the streaming diff, which needs the
// normalizer and not the row.
SlotBits fill_registering_slots(const wire::DecodedFrame& f, const FrameMeta& meta, const DiffOptions& opt,
                                     const MaskSet& masks, Normalizer& n, std::array<std::uint64_t, kSlots>& slots) {
  using I = FieldId;
  static_assert(I::kEthSrc < I::kEthDst && I::kEthDst < I::kIpSrc && I::kIpSrc < I::kIpDst && I::kIpDst < I::kSrhSegment0 &&
                I::kSrhSegment0 < I::kInnerSrc && I::kInnerSrc < I::kInnerDst && I::kInnerDst < I::kBthDqpn);
  static_assert(registers_ordinal(static_cast<int>(I::kEthSrc)) && registers_ordinal(static_cast<int>(I::kBthDqpn)) &&
                !registers_ordinal(static_cast<int>(I::kBthPsn)));
  return fill_header_slots(f, meta, opt, masks, n, slots,
                           std::integer_sequence<int, static_cast<int>(I::kEthSrc), static_cast<int>(I::kEthDst),
                                                 static_cast<int>(I::kIpSrc), static_cast<int>(I::kIpDst),
                                                 static_cast<int>(I::kSrhSegment0), static_cast<int>(I::kInnerSrc),
                                                 static_cast<int>(I::kInnerDst), static_cast<int>(I::kBthDqpn)>{});
}

// Order-independent sum of per-slot mixes: no serial dependency between fields, and a change in
// any one field changes the sum.
// Only the present slots are mixed (about half of them in a data packet).
std::uint64_t hash_slots(const std::array<std::uint64_t, kSlots>& slots, SlotBits present) {
  std::uint64_t h = 0;
  for (; present != 0; present &= present - 1) {
    const auto s = static_cast<std::size_t>(lowest_slot(present));
    std::uint64_t x = (slots[s] ^ (0x9E3779B97F4A7C15ull * (s + 1))) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    h += x;
  }
  return h;
}

}  // namespace

template <std::size_t N>
std::uint64_t Ordinals<N>::get(std::uint64_t hi, std::uint64_t lo) {
  if (n_ <= 8) {  // the usual capture (a few hosts): a short scan beats hashing
    for (std::size_t i = 0; i < n_; ++i) {
      if (hi_[i] == hi && lo_[i] == lo) return i;
    }
  }
  const std::uint64_t folded = fold128(hi, lo);
  constexpr std::size_t kMask = 4 * N - 1;
  std::size_t h = static_cast<std::size_t>(folded >> 32) & kMask;
  for (; index_[h] != 0; h = (h + 1) & kMask) {  // at most N used: a free slot ends every probe
    const std::size_t i = index_[h] - 1u;
    if (hi_[i] == hi && lo_[i] == lo) return i;
  }
  if (n_ < N) {
    hi_[n_] = hi;
    lo_[n_] = lo;
    index_[h] = static_cast<std::uint8_t>(n_ + 1);
    return n_++;
  }
  return folded | (std::uint64_t{1} << 63);  // table full: a marked raw fold, still exact
}

std::uint64_t Normalizer::qp_ordinal(const wire::DecodedFrame& f) { return qpns.get(dest_key(f), f.bth.dest_qp); }

std::uint8_t Normalizer::space_of(std::uint64_t id, std::uint32_t psn) {
  const std::uint64_t i = space_ids.get(0, id);
  if (i >= space_first.size()) return kNoSpace;  // too many: those PSNs compare raw
  if (i == spaces) {  // first seen
    space_first[i] = psn;
    space_min[i] = 0;
    ++spaces;
    return static_cast<std::uint8_t>(i);
  }
  const std::int32_t d = static_cast<std::int32_t>((psn - space_first[i]) & 0xFFFFFF);
  const std::int32_t off = d >= (1 << 23) ? d - (1 << 24) : d;
  if (off < space_min[i]) {
    space_min[i] = off;
    if (used_spaces & (std::uint64_t{1} << i)) moved = true;
  }
  return static_cast<std::uint8_t>(i);
}

std::uint32_t Normalizer::base(std::uint8_t space) const {
  if (space == kNoSpace) return 0;
  return static_cast<std::uint32_t>(static_cast<std::int64_t>(space_first[space]) + space_min[space]) & 0xFFFFFF;
}

int slot_of(FieldId id) {
  const int i = static_cast<int>(id);
  if (i <= static_cast<int>(FieldId::kFrameLen)) return i;
  if (id == FieldId::kTs) return kTsSlot;
  if (id == FieldId::kPayload) return kPayloadSlot;
  return -1;
}

FieldId field_of_slot(int slot) {
  if (slot == kTsSlot) return FieldId::kTs;
  if (slot == kPayloadSlot) return FieldId::kPayload;
  return static_cast<FieldId>(slot);
}

std::string parse_masks(const std::vector<std::string>& names, MaskSet& out, bool ev_choice) {
  out = {};
  // Every EV-carrying field (W1, W2) as the class table says; the SRv6 outer DA shares
  // ip.dst's slot with a plain address, so slot_value() leaves it out frame by frame.
  SlotBits choice_bits = 0;
  for (int s = 0; s <= static_cast<int>(FieldId::kFrameLen); ++s) {
    if (field_class(static_cast<FieldId>(s), false) == FieldClass::kChoice) choice_bits |= bit(s);
  }
  for (const auto& n : names) {
    if (n == "ev") {
      out.ev = true;
      out.bits |= choice_bits;
      continue;
    }
    const auto id = field_id(n);
    if (!id) return "unknown mask field '" + n + "'";
    const int s = slot_of(*id);
    if (s >= 0) out.bits |= bit(s);
  }
  if (ev_choice && !out.ev) {
    out.choice = true;
    out.bits |= choice_bits;
  }
  return {};
}

bool is_normalized(FieldId id, bool encapsulated) {
  switch (id) {
    case FieldId::kEthSrc: case FieldId::kEthDst: case FieldId::kIpSrc: case FieldId::kInnerSrc:
    case FieldId::kInnerDst: case FieldId::kBthDqpn: case FieldId::kBthPsn:
    case FieldId::kSethAckPsn: case FieldId::kSethCackPsn: case FieldId::kNethNackPsn:
    case FieldId::kRethVa: case FieldId::kTs:
      return true;
    case FieldId::kIpDst: return !encapsulated;  // SRv6 outer DA is the EV container: raw
    default: return false;
  }
}

RowOutcome make_row(std::span<const std::uint8_t> bytes, std::uint64_t ts_ns, const DiffOptions& opt,
                    const MaskSet& masks, Normalizer& norm, bool judge_ev, int port, Row& r, RowScratch& scratch,
                    bool register_only) {
  wire::DecodeOptions dopt = diff_decode_options(opt);
  wire::DecodedFrame& f = scratch.frame;
  std::array<std::uint64_t, kSlots>& slots = scratch.slots;
  FrameMeta meta;
  r = Row{};
  r.ts = ts_ns;  // relative to ts0 once finished (finish_row)
  // Registering needs no ICRC: a bad ICRC only makes the decoder lenient about the pad count
  // (wire::decode_frame), so without it a frame decodes alike or fails with kBadPadCount, and
  // only then is it decoded again with the ICRC checked.
  dopt.verify_icrc = !register_only;
  // The payload digest slot (get_field) reads the CRC the ICRC pass made on the way.
  dopt.payload_crc = !register_only && !(masks.bits & bit(kPayloadSlot));
  wire::DecodeResult dr = wire::decode_frame(bytes, f, dopt);
  if (register_only && dr.error == wire::WireError::kBadPadCount) {
    dopt.verify_icrc = true;
    dr = wire::decode_frame(bytes, f, dopt);
  }
  if (!dr.ok()) {  // undecodable: compared by error and raw bytes only
    r.error = static_cast<std::uint8_t>(dr.error);
    r.hash = wire::crc32(0, bytes);
    r.present = bit(kTsSlot) & ~masks.bits;
    const bool foreign = dr.error == wire::WireError::kBadEthertype || dr.error == wire::WireError::kNotUdp ||
                         dr.error == wire::WireError::kNotRoce;
    return foreign ? RowOutcome::kNotRoce : RowOutcome::kUndecodable;
  }
  meta.ts_ns = ts_ns;
  meta.caplen = static_cast<std::uint32_t>(bytes.size());
  r.present = register_only ? fill_registering_slots(f, meta, opt, masks, norm, slots)
                            : fill_slots(f, meta, opt, masks, norm, slots);
  if (!register_only) r.hash = hash_slots(slots, r.present & ~kLate);
  constexpr int kDqpnSlot = static_cast<int>(FieldId::kBthDqpn);
  constexpr int kSrcSlot = static_cast<int>(FieldId::kIpSrc);
  r.who = static_cast<std::uint32_t>(fold128((r.present & bit(kDqpnSlot)) ? slots[kDqpnSlot] : ~std::uint64_t{0},
                                             (r.present & bit(kSrcSlot)) ? slots[kSrcSlot] : ~std::uint64_t{0}));
  if (judge_ev) r.ev_bad = opt.ev_choice->judge(f, port).ok() ? 0 : 1;
  r.psn = f.bth.psn;
  r.trig = f.has_sack && !f.seth.pr ? f.seth.ack_psn() : 0;
  r.va = f.has_reth ? f.reth.va : 0;
  if (opt.normalize) {
    // The QP's ordinal is already in its slot unless bth.dqpn is masked (same value either way).
    const std::uint64_t qp = (r.present & bit(kDqpnSlot)) ? slots[kDqpnSlot] : norm.qp_ordinal(f);
    r.space = norm.space_of((qp << 1) | std::uint64_t{is_feedback(f.bth.opcode)}, f.bth.psn);
    if (f.has_reth && (!norm.have_va || f.reth.va < norm.va_min)) {
      norm.moved = norm.moved || norm.va_used;
      norm.have_va = true;
      norm.va_min = f.reth.va;
    }
  }
  // The window key's parts that need no normalization: opcode, endpoint request id, NACK reason.
  std::uint64_t key = f.bth.opcode;
  if (f.has_erth || f.has_eeth) key |= (std::uint64_t{f.bth.psn & 0xFFFFu} << 36) | (std::uint64_t{1} << 35);  // W10
  if (f.has_neth) key |= std::uint64_t{f.neth.nack_reason} << 24;                       // W7
  if (f.has_sack && f.seth.pr) key |= (std::uint64_t{f.seth.probe_id()} << 36) | (std::uint64_t{1} << 34);
  r.key = key;
  return RowOutcome::kDecoded;
}

void finish_row(Row& r, const Normalizer& norm, const MaskSet& masks, const DiffOptions& opt) {
  r.ts -= norm.ts0;
  if (r.error) {
    r.key = ~std::uint64_t{0} ^ r.error;
    return;
  }
  if (opt.normalize) {
    const std::uint32_t base = norm.base(r.space);
    r.psn = (r.psn - base) & 0xFFFFFF;
    r.trig = (r.trig - base) & 0xFFFFFF;
    r.va -= norm.va_min;
  }
  if (!(masks.bits & bit(kPsnSlot))) r.key |= std::uint64_t{r.psn} << 8;
  if (!(masks.bits & kTrigBit) && (r.present & kTrigBit)) r.key |= std::uint64_t{r.trig} << 36;
}

void build_table(const Capture& cap, const DiffOptions& opt, const MaskSet& masks, FieldTable& t, bool judge_ev) {
  const std::size_t n = cap.size();
  t.rows.reset(n);
  t.norm = Normalizer{};
  t.masks = masks;
  t.decode_failures = 0;
  t.not_roce = 0;
  if (n == 0) return;
  // Times are relative to the capture's earliest packet, not its first: a capture whose clock
  // stepped back (merged taps, a NIC's timestamp wrap) must not wrap the offsets to 2^64 - x.
  t.norm.ts0 = cap.packet(0).ts_ns;
  for (const CapturedPacket& p : cap.packets()) t.norm.ts0 = std::min(t.norm.ts0, p.ts_ns);
  // Pass 1: decode, hash the fields, keep the values normalized later.
  RowScratch scratch;
  for (std::size_t i = 0; i < n; ++i) {
    const int port = judge_ev && i < opt.ports_b.size() ? opt.ports_b[i] : 0;
    const RowOutcome o = make_row(cap.bytes(i), cap.packet(i).ts_ns, opt, masks, t.norm, judge_ev, port, t.rows[i], scratch);
    if (o == RowOutcome::kNotRoce) ++t.not_roce;
    if (o == RowOutcome::kUndecodable) ++t.decode_failures;
  }
  // Pass 2: PSNs from the lowest of their space, VAs from the lowest, and the rest of the key.
  for (Row& r : t.rows) finish_row(r, t.norm, masks, opt);
}

SlotBits full_row(std::span<const std::uint8_t> bytes, std::uint64_t ts_ns, const Row& late, const DiffOptions& opt,
                       const MaskSet& masks, Normalizer& norm, std::array<std::uint64_t, kSlots>& slots,
                       std::uint8_t* error) {
  slots.fill(0);
  const wire::DecodeOptions dopt = diff_decode_options(opt);
  wire::DecodedFrame f;
  const wire::DecodeResult dr = wire::decode_frame(bytes, f, dopt);
  if (error) *error = static_cast<std::uint8_t>(dr.error);
  if (!dr.ok()) return 0;
  FrameMeta meta;
  meta.ts_ns = ts_ns;
  meta.caplen = static_cast<std::uint32_t>(bytes.size());
  const SlotBits present = fill_slots(f, meta, opt, masks, norm, slots);
  slots[kPsnSlot] = late.psn;  // the normalized late values
  slots[kAckPsnSlot] = (present & bit(kAckPsnSlot)) ? late.trig : 0;
  slots[kVaSlot] = late.va;
  return present;
}

SlotBits full_row(const Capture& cap, std::size_t i, const DiffOptions& opt, FieldTable& t,
                       std::array<std::uint64_t, kSlots>& slots, std::uint8_t* error) {
  return full_row(cap.bytes(i), cap.packet(i).ts_ns, t.rows[i], opt, t.masks, t.norm, slots, error);
}

}  // namespace mrc::harness::diffing
