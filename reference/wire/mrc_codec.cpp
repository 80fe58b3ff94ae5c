// Byte layouts of MRC's own headers (mrc_headers.hpp; ../shared/mrc-wire-model.md §5 W4-W10).
// This file, mrc_headers.hpp and the METH / timestamp codecs in codec.hpp (inline: every data
// packet carries them) are the only places that know them. Reserved bits and bytes are written as
// zero and ignored on decode; a receiver is lenient about what it does not interpret.
#include <array>
#include <cstring>

#include "reference/wire/codec.hpp"

namespace mrc::wire {

namespace {

void decode_prologue(const std::uint8_t* p, Prologue& out) {
  out.type = p[0] >> 4;
  out.nh = static_cast<std::uint8_t>(((p[0] & 0x0F) << 1) | (p[1] >> 7));
}

// Writes type and nh; the caller ORs its own 7 bits into byte 1 afterwards.
void encode_prologue(const Prologue& h, std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>(((h.type & 0x0F) << 4) | ((h.nh >> 1) & 0x0F));
  out[1] = static_cast<std::uint8_t>((h.nh & 1) << 7);
}

constexpr std::array<std::pair<std::uint8_t, std::string_view>, 7> kNackReasons{{
    {nack::kTrimmed, "TRIMMED"},
    {nack::kTrimmedLastHop, "TRIMMED_LASTHOP"},
    {nack::kNoBitmap, "NO_BITMAP"},
    {nack::kNoPktBuffer, "NO_PKT_BUFFER"},
    {nack::kNoResource, "NO_RESOURCE"},
    {nack::kPsnOorWindow, "PSN_OOR_WINDOW"},
    {nack::kUnexpEvent, "UNEXP_EVENT"},
}};

}  // namespace

bool nack_reason_known(std::uint8_t reason) { return !nack_reason_name(reason).empty(); }

std::string_view nack_reason_name(std::uint8_t reason) {
  for (const auto& [code, name] : kNackReasons) {
    if (code == reason) return name;
  }
  return {};
}

// ---- SETH + CC_STATE (W5) ---------------------------------------------------------------------
// 0 type:4 nh:5 m:2 rsvd:3 pr:1 rsvd:1 | 2 ack_psn_offset:16 | 4 entropy:32 | 8 spdcid:16 |
// 10 dpdcid:16 | 12 rsvd:8 | 13 cack_psn:24 | 16 cc_type:4 cc_flags:4 | 17 mpr:8 |
// 18 sack_offset:16 | 20 sack_bitmap:64 | CC_STATE: 28 tx_timestamp:16 | 30 rsvd:1 ooo_count:15 |
// 32 restore_cwnd:1 rcv_cwnd_pen:7 | 33 rcvd_bytes:24
WireError decode_sack(Bytes in, Seth& seth, CcState& cc) {
  if (in.size() < kSackHdrLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  decode_prologue(p, seth.pro);
  seth.m = static_cast<MpVerdict>((p[1] >> 5) & 0x03);
  seth.pr = (p[1] & 0x02) != 0;
  seth.ack_psn_offset = static_cast<std::int16_t>(load_be16(p + 2));
  seth.entropy = load_be32(p + 4);
  seth.spdcid = load_be16(p + 8);
  seth.dpdcid = load_be16(p + 10);
  seth.cack_psn = load_be24(p + 13);
  seth.cc_type = p[16] >> 4;
  seth.cc_flags = p[16] & 0x0F;
  seth.mpr = p[17];
  seth.sack_offset = static_cast<std::int16_t>(load_be16(p + 18));
  seth.sack_bitmap = load_be64(p + 20);
  cc.tx_timestamp = load_be16(p + 28);
  cc.ooo_count = load_be16(p + 30) & kOooCountMax;
  cc.restore_cwnd = (p[32] & 0x80) != 0;
  cc.rcv_cwnd_pen = p[32] & 0x7F;
  cc.rcvd_bytes = load_be24(p + 33);
  return WireError::kOk;
}

void encode_sack(const Seth& seth, const CcState& cc, std::uint8_t* out) {
  encode_prologue(seth.pro, out);
  out[1] = static_cast<std::uint8_t>(out[1] | ((static_cast<std::uint8_t>(seth.m) & 0x03) << 5) |
                                     (seth.pr ? 0x02 : 0));
  store_be16(out + 2, static_cast<std::uint16_t>(seth.ack_psn_offset));
  store_be32(out + 4, seth.entropy);
  store_be16(out + 8, seth.spdcid);
  store_be16(out + 10, seth.dpdcid);
  out[12] = 0;
  store_be24(out + 13, seth.cack_psn & 0xFFFFFFu);
  out[16] = static_cast<std::uint8_t>(((seth.cc_type & 0x0F) << 4) | (seth.cc_flags & 0x0F));
  out[17] = seth.mpr;
  store_be16(out + 18, static_cast<std::uint16_t>(seth.sack_offset));
  store_be64(out + 20, seth.sack_bitmap);
  store_be16(out + 28, cc.tx_timestamp);
  store_be16(out + 30, cc.ooo_count & kOooCountMax);
  out[32] = static_cast<std::uint8_t>((cc.restore_cwnd ? 0x80 : 0) | (cc.rcv_cwnd_pen & 0x7F));
  store_be24(out + 33, cc.rcvd_bytes & 0xFFFFFFu);
}

// ---- NETH (W7) --------------------------------------------------------------------------------
// 0 prologue:16 | 2 nack_reason | 3 vendor_info | 4 entropy:32 | 8 spdcid | 10 dpdcid |
// 12 rsvd:8 | 13 nack_psn:24 | 16 cc_type:4 cc_flags:4 | 17 rsvd | 18 tx_timestamp:16
WireError decode_neth(Bytes in, Neth& out) {
  if (in.size() < kNethLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  decode_prologue(p, out.pro);
  out.nack_reason = p[2];
  out.vendor_info = p[3];
  out.entropy = load_be32(p + 4);
  out.spdcid = load_be16(p + 8);
  out.dpdcid = load_be16(p + 10);
  out.nack_psn = load_be24(p + 13);
  out.cc_type = p[16] >> 4;
  out.cc_flags = p[16] & 0x0F;
  out.tx_timestamp = load_be16(p + 18);
  return WireError::kOk;
}

void encode_neth(const Neth& h, std::uint8_t* out) {
  encode_prologue(h.pro, out);
  out[2] = h.nack_reason;
  out[3] = h.vendor_info;
  store_be32(out + 4, h.entropy);
  store_be16(out + 8, h.spdcid);
  store_be16(out + 10, h.dpdcid);
  out[12] = 0;
  store_be24(out + 13, h.nack_psn & 0xFFFFFFu);
  out[16] = static_cast<std::uint8_t>(((h.cc_type & 0x0F) << 4) | (h.cc_flags & 0x0F));
  out[17] = 0;
  store_be16(out + 18, h.tx_timestamp);
}

// ---- PETH (W9) --------------------------------------------------------------------------------
// 0 prologue:16 | 2 rsvd | 3 vendor_info | 4 probe_id:16 | 6 rsvd:16 | 8 spdcid | 10 dpdcid |
// 12 timestamp (4)
WireError decode_peth(Bytes in, Peth& out) {
  if (in.size() < kPethLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  decode_prologue(p, out.pro);
  out.vendor_info = p[3];
  out.probe_id = load_be16(p + 4);
  out.spdcid = load_be16(p + 8);
  out.dpdcid = load_be16(p + 10);
  read_timestamp(p + 12, out.ts);
  return WireError::kOk;
}

void encode_peth(const Peth& h, std::uint8_t* out) {
  encode_prologue(h.pro, out);
  out[2] = 0;
  out[3] = h.vendor_info;
  store_be16(out + 4, h.probe_id);
  store_be16(out + 6, 0);
  store_be16(out + 8, h.spdcid);
  store_be16(out + 10, h.dpdcid);
  write_timestamp(h.ts, out + 12);
}

// ---- ERTH, EETH (W10) -------------------------------------------------------------------------
// ERTH: 0 prologue (op = byte 1 bits 1..0) | 2 rsvd | 3 vendor_info | 4 port_status_mask:32 |
// 8 rsvd:32 | 12 timestamp (4)
WireError decode_erth(Bytes in, Erth& out) {
  if (in.size() < kErthLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  decode_prologue(p, out.pro);
  out.op = p[1] & 0x03;
  out.vendor_info = p[3];
  out.port_status_mask = load_be32(p + 4);
  read_timestamp(p + 12, out.ts);
  return WireError::kOk;
}

void encode_erth(const Erth& h, std::uint8_t* out) {
  encode_prologue(h.pro, out);
  out[1] = static_cast<std::uint8_t>(out[1] | (h.op & 0x03));
  out[2] = 0;
  out[3] = h.vendor_info;
  store_be32(out + 4, h.port_status_mask);
  store_be32(out + 8, 0);
  write_timestamp(h.ts, out + 12);
}

// EETH: 0 prologue (op, MODEL: W10, at byte 1 bits 3..2) | 2..27 opaque | 28 tx_timestamp:16 |
// 30 rsvd:48
namespace {
constexpr unsigned kEethOpShift = 2;  // MODEL: W10 F2's position; F1 puts op at bits 5..4
}  // namespace

WireError decode_eeth(Bytes in, Eeth& out) {
  if (in.size() < kEethLen) return WireError::kTruncated;
  const std::uint8_t* p = in.data();
  decode_prologue(p, out.pro);
  out.op = (p[1] >> kEethOpShift) & 0x03;
  out.opaque = in.subspan(kEethOpaqueOffset, kEethOpaqueLen);
  out.tx_timestamp = load_be16(p + 28);
  return WireError::kOk;
}

void encode_eeth(const Eeth& h, std::uint8_t* out) {
  encode_prologue(h.pro, out);
  out[1] = static_cast<std::uint8_t>(out[1] | ((h.op & 0x03) << kEethOpShift));
  std::memset(out + kEethOpaqueOffset, 0, kEethOpaqueLen);
  if (h.opaque.size() == kEethOpaqueLen) {
    std::memcpy(out + kEethOpaqueOffset, h.opaque.data(), kEethOpaqueLen);
  }
  store_be16(out + 28, h.tx_timestamp);
  std::memset(out + 30, 0, kEethLen - 30);
}

}  // namespace mrc::wire
