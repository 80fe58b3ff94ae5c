#include "harness/verdict/diff_table.hpp"

#include <array>

#include "reference/wire/icrc.hpp"

namespace mrc::harness::diffing {
namespace {

static_assert(static_cast<int>(FieldId::kFrameLen) == 60, "slots 0..60 are the FieldIds up to frame.len");
static_assert(kPayloadSlot < static_cast<int>(kSlots));

constexpr std::uint64_t bit(int slot) { return std::uint64_t{1} << slot; }

std::uint64_t fold128(std::uint64_t hi, std::uint64_t lo) {
  std::uint64_t h = hi * 0x9E3779B97F4A7C15ull;
  h ^= (h >> 29) ^ lo;
  return h * 0xBF58476D1CE4E5B9ull ^ (h >> 31);
}

std::uint64_t be64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

// Values in order of first appearance -> 0, 1, 2, ... A fixed table: a capture with more distinct
// values than it holds keeps the rest as (marked) raw folds, which still compare exactly.
template <std::size_t N>
class Ordinals {
 public:
  std::uint64_t get(std::uint64_t hi, std::uint64_t lo) {
    for (std::size_t i = 0; i < n_; ++i) {
      if (hi_[i] == hi && lo_[i] == lo) return i;
    }
    if (n_ < N) {
      hi_[n_] = hi;
      lo_[n_] = lo;
      return n_++;
    }
    return fold128(hi, lo) | (std::uint64_t{1} << 63);
  }

 private:
  std::array<std::uint64_t, N> hi_{};
  std::array<std::uint64_t, N> lo_{};
  std::size_t n_ = 0;
};

// The first PSN of each PSN space (data / feedback, per destination QP).
class PsnBases {
 public:
  std::uint32_t base(std::uint64_t space, std::uint32_t psn) {
    for (std::size_t i = 0; i < n_; ++i) {
      if (space_[i] == space) return base_[i];
    }
    if (n_ < space_.size()) {
      space_[n_] = space;
      base_[n_++] = psn;
      return psn;
    }
    return 0;  // too many spaces: compare raw PSNs
  }

 private:
  std::array<std::uint64_t, 64> space_{};
  std::array<std::uint32_t, 64> base_{};
  std::size_t n_ = 0;
};

struct Normalizer {
  Ordinals<64> macs;
  Ordinals<64> addrs;
  Ordinals<64> qpns;
  PsnBases psns;
  bool have_va = false;
  std::uint64_t va_base = 0;
  std::uint64_t ts0 = 0;
};

}  // namespace

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

std::string parse_masks(const std::vector<std::string>& names, MaskSet& out) {
  out = {};
  for (const auto& n : names) {
    if (n == "ev") {  // every EV-carrying field (MODEL: M1, M2)
      out.ev = true;
      out.bits |= bit(slot_of(FieldId::kIpFlowLabel)) | bit(slot_of(FieldId::kUdpSport)) |
                  bit(slot_of(FieldId::kSrhSegment0));
      continue;
    }
    const auto id = field_id(n);
    if (!id) return "unknown mask field '" + n + "'";
    const int s = slot_of(*id);
    if (s >= 0) out.bits |= bit(s);
  }
  return {};
}

bool is_normalized(FieldId id, bool encapsulated) {
  switch (id) {
    case FieldId::kEthSrc: case FieldId::kEthDst: case FieldId::kIpSrc: case FieldId::kInnerSrc:
    case FieldId::kInnerDst: case FieldId::kBthDqpn: case FieldId::kBthPsn: case FieldId::kMfehTrigPsn:
    case FieldId::kRethVa: case FieldId::kEpTxTimestamp: case FieldId::kTs:
      return true;
    case FieldId::kIpDst: return !encapsulated;  // SRv6 outer DA is the EV container: raw
    default: return false;
  }
}

void build_table(const Capture& cap, const DiffOptions& opt, const MaskSet& masks, FieldTable& t) {
  const std::size_t n = cap.size();
  t.rows = n;
  t.values.assign(n * kSlots, 0);
  t.present.assign(n, 0);
  t.key.assign(n, 0);
  t.error.assign(n, 0);
  t.decode_failures = 0;
  if (n == 0) return;

  Normalizer norm;
  norm.ts0 = cap.packet(0).ts_ns;
  wire::DecodeOptions dopt;
  dopt.mrc_framing = opt.mrc_framing;  // MODEL: M3
  wire::DecodedFrame f;
  FrameMeta meta;

  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t* row = t.values.data() + i * kSlots;
    const auto bytes = cap.bytes(i);
    const auto rel_ts = cap.packet(i).ts_ns - norm.ts0;
    row[kTsSlot] = rel_ts;
    const wire::DecodeResult dr = wire::decode_frame(bytes, f, dopt);
    if (!dr.ok()) {
      // Undecodable: compared by error and raw bytes only.
      t.error[i] = static_cast<std::uint8_t>(dr.error);
      ++t.decode_failures;
      row[0] = wire::crc32(0, bytes);
      t.present[i] = bit(kTsSlot) & ~masks.bits;
      t.key[i] = ~std::uint64_t{0} ^ static_cast<std::uint64_t>(dr.error);
      continue;
    }
    meta.ts_ns = cap.packet(i).ts_ns;
    meta.caplen = static_cast<std::uint32_t>(bytes.size());
    std::uint64_t present = 0;
    const bool feedback = f.bth.opcode == wire::opcode::kRcAck || f.bth.opcode == wire::opcode::kRcAtomicAck;
    const std::uint64_t space = (std::uint64_t{feedback} << 32) | f.bth.dest_qp;
    for (int s = 0; s <= static_cast<int>(FieldId::kFrameLen); ++s) {
      if (masks.bits & bit(s)) continue;
      const FieldId id = static_cast<FieldId>(s);
      const FieldValue v = get_field(id, f, meta);
      if (!v.present()) continue;
      present |= bit(s);
      std::uint64_t u = v.u;
      const bool path_addr = id == FieldId::kSrhSegment0 || (id == FieldId::kIpDst && f.encapsulated);
      if (v.kind == FieldKind::kIpv6 || v.kind == FieldKind::kIpv4) {
        const std::uint64_t hi = v.kind == FieldKind::kIpv4 ? 0xFFFF : be64(v.a.data());
        const std::uint64_t lo = v.kind == FieldKind::kIpv4 ? v.u : be64(v.a.data() + 8);
        if (path_addr) {
          u = masks.ev ? 0 : fold128(hi, lo);
        } else {
          u = opt.normalize ? norm.addrs.get(hi, lo) : fold128(hi, lo);
        }
      } else if (v.kind == FieldKind::kMac) {
        if (opt.normalize) u = norm.macs.get(1, v.u);
      } else if (opt.normalize) {
        switch (id) {
          case FieldId::kBthDqpn: u = norm.qpns.get(0, v.u); break;
          case FieldId::kBthPsn: u = (v.u - norm.psns.base(space, f.bth.psn)) & 0xFFFFFF; break;
          case FieldId::kMfehTrigPsn: u = (v.u - norm.psns.base(space, f.bth.psn)) & 0xFFFFFF; break;
          case FieldId::kRethVa:
            if (!norm.have_va) {
              norm.have_va = true;
              norm.va_base = v.u;
            }
            u = v.u - norm.va_base;
            break;
          case FieldId::kEpTxTimestamp: u = v.u - norm.ts0; break;
          default: break;
        }
      }
      row[s] = u;
    }
    if (!(masks.bits & bit(kPayloadSlot))) {
      row[kPayloadSlot] = get_field(FieldId::kPayload, f, meta).u;
      present |= bit(kPayloadSlot);
    }
    present |= bit(kTsSlot);
    t.present[i] = present & ~masks.bits;
    // The window key: what identifies "the same packet" when spraying reorders them.
    std::uint64_t key = f.bth.opcode;
    if (!(masks.bits & bit(slot_of(FieldId::kBthPsn)))) key |= std::uint64_t{row[slot_of(FieldId::kBthPsn)]} << 8;
    if (f.has_mfeh) {  // MODEL: M5
      key |= std::uint64_t{static_cast<std::uint8_t>(f.mfeh.type)} << 32;
      if (!(masks.bits & bit(slot_of(FieldId::kMfehTrigPsn)))) key |= row[slot_of(FieldId::kMfehTrigPsn)] << 36;
    } else if (f.has_ep) {  // MODEL: M6
      key |= (std::uint64_t{f.ep.req_id} << 36) | (std::uint64_t{1} << 35);
    }
    t.key[i] = key;
  }
}

}  // namespace mrc::harness::diffing
