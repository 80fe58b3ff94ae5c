// The MRC 1.0 transport headers after the BTH, as ../shared/mrc-wire-model.md §5 (W3-W10) lays
// them out from the spec-derived sources: METH and TSETH on data packets, SETH + CC_STATE
// (SACK), NETH (NACK), PETH (reliability probe), ERTH / EETH (endpoint operations), plus the MRC
// opcodes and the BTH byte-8 flags.
//
// Provenance. Fields two independent spec-derived sources agree on are plain facts here. A field
// or codepoint only one source gives is marked `// S1: W<n>`, one that is still the project's
// own choice `// MODEL: W<n>`, each in exactly one place (this file, or the one function that
// applies the rule), so the OCP PDF, once public, is a change in one place.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "reference/wire/headers.hpp"

namespace mrc::wire {

// ---- MRC opcodes (W3): IBA's first manufacturer range, opcode[7:5] = 110 --------------------
namespace opcode {
inline constexpr std::uint8_t kMrcWriteFirst = 0xC6;     // RC WRITE FIRST | 0xC0
inline constexpr std::uint8_t kMrcWriteMiddle = 0xC7;
inline constexpr std::uint8_t kMrcWriteLast = 0xC8;
inline constexpr std::uint8_t kMrcWriteLastImm = 0xC9;
inline constexpr std::uint8_t kMrcWriteOnly = 0xCA;
inline constexpr std::uint8_t kMrcWriteOnlyImm = 0xCB;
inline constexpr std::uint8_t kMrcAck = 0xD1;            // S1: W3 Transport ACK (0x11 | 0xC0)
inline constexpr std::uint8_t kMrcEndpointReq = 0xD8;    // S1: W3
inline constexpr std::uint8_t kMrcEndpointRsp = 0xD9;    // S1: W3
inline constexpr std::uint8_t kMrcSack = 0xDC;           // S1: W3
inline constexpr std::uint8_t kMrcNack = 0xDD;           // S1: W3
inline constexpr std::uint8_t kMrcProbe = 0xDE;          // S1: W3
}  // namespace opcode

// The MRC data opcodes are the RC WRITE opcodes OR 0xC0 (W3).
inline constexpr bool is_mrc_data(std::uint8_t op) { return op >= 0xC6 && op <= 0xCB; }
inline constexpr bool is_mrc_opcode(std::uint8_t op) {
  return is_mrc_data(op) || op == opcode::kMrcAck || op == opcode::kMrcEndpointReq ||
         op == opcode::kMrcEndpointRsp || op == opcode::kMrcSack || op == opcode::kMrcNack ||
         op == opcode::kMrcProbe;
}
// Opcodes MRC does not define but that sit in the manufacturer range MRC uses.
inline constexpr bool in_mrc_range(std::uint8_t op) { return op >= 0xC0; }

inline constexpr std::uint32_t kEndpointQpn = 0x2;  // W10, W18: endpoint operations' DestQP

// ---- METH: Message Extended Transport Header, 4 bytes, every data packet (W4) ---------------
inline constexpr std::size_t kMethLen = 4;
struct Meth {
  std::uint16_t rqmsn = 0;  // receive-queue MSN: counts WRITE_WITH_IMM messages; 0 on plain WRITEs
  std::uint16_t msn = 0;    // 0-based message index, the same in every packet of the message
};

// ---- The 4-byte timestamp (W4): TSETH, and the tail of PETH and ERTH -------------------------
// tx_timestamp:16 | tsr:1 | reserved:11 | ftype:4.
inline constexpr std::size_t kTimestampLen = 4;
inline constexpr std::size_t kTsethLen = kTimestampLen;
inline constexpr std::uint8_t kFtypeNone = 0;
inline constexpr std::uint8_t kFtypeTimestamp = 1;
inline constexpr std::uint64_t kTimestampUnitNs = 128;  // tsr = 0
struct Timestamp {
  std::uint16_t tx_timestamp = 0;  // low 16 bits of the sender's free-running counter
  bool tsr = false;                // 0 = units of 128 ns; 1 = open (W4): reflected, never sampled
  std::uint8_t ftype = kFtypeTimestamp;  // 4 bits
};
using Tseth = Timestamp;

// ---- Common prologue of SETH, NETH, PETH, ERTH, EETH (W5) -----------------------------------
// byte 0 bits 7..4 type, byte 0 bits 3..0 + byte 1 bit 7 nh. MODEL: W5 both are sent as 0 and
// ignored on receipt (no source gives their meaning).
struct Prologue {
  std::uint8_t type = 0;  // 4 bits
  std::uint8_t nh = 0;    // 5 bits
};

// ---- SETH + CC_STATE: the SACK (opcode 0xDC), 28 + 8 = 36 bytes (W5) -------------------------
inline constexpr std::size_t kSethLen = 28;
inline constexpr std::size_t kCcStateLen = 8;
inline constexpr std::size_t kSackHdrLen = kSethLen + kCcStateLen;

// SETH.m: the responder's multipath verdict on the echoed EV.
enum class MpVerdict : std::uint8_t { kNone = 0, kSkipOnce = 1, kAlwaysSkip = 2, kReserved = 3 };

struct Seth {
  Prologue pro;
  MpVerdict m = MpVerdict::kNone;
  bool pr = false;                 // answers a reliability probe
  std::int16_t ack_psn_offset = 0; // trigger PSN - cack_psn; with pr = 1 the probe_id (as bits)
  std::uint32_t entropy = 0;       // the trigger's EV (W2 echo rule)
  std::uint16_t spdcid = 0;
  std::uint16_t dpdcid = 0;
  std::uint32_t cack_psn = 0;      // 24 bits: every PSN <= it has been received
  std::uint8_t cc_type = 0;        // 4 bits (0: NSCC)
  std::uint8_t cc_flags = 0;       // 4 bits, MODEL: W5 sent 0, ignored
  std::uint8_t mpr = 0;            // units of 128 PSNs; 0 when Dynamic MPR is off
  std::int16_t sack_offset = 1;    // bitmap base PSN = cack_psn + sack_offset (mod 2^24)
  std::uint64_t sack_bitmap = 0;   // see sack_bit(): bit k = PSN base + k

  // S1: W5 bit order: bit k (weight 2^k of the big-endian u64) is PSN base + k, so byte 27 bit 0
  // is the base PSN (F1, UET). The one place the order lives.
  static constexpr std::uint64_t sack_mask(unsigned k) { return std::uint64_t{1} << k; }
  bool sack_bit(unsigned k) const { return (sack_bitmap & sack_mask(k)) != 0; }
  // Calls f(psn) for every PSN the bitmap reports, lowest bit first (the order of sack_mask).
  template <typename F>
  void for_each_sacked_psn(F&& f) const {
    for (std::uint64_t bits = sack_bitmap; bits != 0; bits &= bits - 1) {
      f((sack_base() + static_cast<std::uint32_t>(std::countr_zero(bits))) & 0xFFFFFFu);
    }
  }
  // Calls f(psn) for every PSN the bitmap reports missing: a clear bit below its highest set one.
  template <typename F>
  void for_each_hole_psn(F&& f) const {
    if (sack_bitmap == 0) return;
    for (std::uint64_t holes = ~sack_bitmap & (~std::uint64_t{0} >> std::countl_zero(sack_bitmap)); holes != 0;
         holes &= holes - 1) {
      f((sack_base() + static_cast<std::uint32_t>(std::countr_zero(holes))) & 0xFFFFFFu);
    }
  }
  void set_sack_bit(unsigned k) { sack_bitmap |= sack_mask(k); }
  std::uint32_t sack_base() const {
    return (cack_psn + static_cast<std::uint32_t>(static_cast<std::int32_t>(sack_offset))) & 0xFFFFFFu;
  }
  std::uint32_t ack_psn() const {
    return (cack_psn + static_cast<std::uint32_t>(static_cast<std::int32_t>(ack_psn_offset))) & 0xFFFFFFu;
  }
  std::uint16_t probe_id() const { return static_cast<std::uint16_t>(ack_psn_offset); }
};

inline constexpr std::uint16_t kOooCountMax = 0x7FFF;
// S1: W5 rcvd_bytes counts 256-byte units (rounded up, mod 2^24).
inline constexpr std::uint32_t kRcvdBytesUnit = 256;

struct CcState {
  std::uint16_t tx_timestamp = 0;  // the trigger's TSETH (PETH's for pr = 1); 0 if it had none
  std::uint16_t ooo_count = 0;     // 15 bits: PSNs held above cack_psn, saturating
  bool restore_cwnd = false;
  std::uint8_t rcv_cwnd_pen = 0;   // 7 bits
  std::uint32_t rcvd_bytes = 0;    // 24 bits, units of kRcvdBytesUnit
};

// ---- NETH: the NACK (opcode 0xDD), 20 bytes (W7) ---------------------------------------------
inline constexpr std::size_t kNethLen = 20;

// Reason codes (spec Table 7-3, the UET PDS NACK code space).
namespace nack {
inline constexpr std::uint8_t kTrimmed = 0x01;          // S1: W7 value
inline constexpr std::uint8_t kTrimmedLastHop = 0x02;   // S1: W7 value
inline constexpr std::uint8_t kNoBitmap = 0x06;         // S1: W7 value
inline constexpr std::uint8_t kNoPktBuffer = 0x07;      // S1: W7 value
inline constexpr std::uint8_t kNoResource = 0x0A;       // S1: W7 value
inline constexpr std::uint8_t kPsnOorWindow = 0x0B;
inline constexpr std::uint8_t kUnexpEvent = 0x19;       // S1: W7 value
}  // namespace nack
// One of the seven codes above.
bool nack_reason_known(std::uint8_t reason);
std::string_view nack_reason_name(std::uint8_t reason);  // "" when unknown

struct Neth {
  Prologue pro;
  std::uint8_t nack_reason = 0;
  std::uint8_t vendor_info = 0;
  std::uint32_t entropy = 0;   // the NACKed packet's EV
  std::uint16_t spdcid = 0;
  std::uint16_t dpdcid = 0;
  std::uint32_t nack_psn = 0;  // 24 bits = BTH.PSN
  std::uint8_t cc_type = 2;    // 4 bits
  std::uint8_t cc_flags = 0;   // 4 bits, MODEL: W7 sent 0
  std::uint16_t tx_timestamp = 0;  // the NACKed packet's TSETH
};

// ---- PETH: the reliability probe (opcode 0xDE), 16 bytes (W9) -------------------------------
inline constexpr std::size_t kPethLen = 16;
struct Peth {
  Prologue pro;
  std::uint8_t vendor_info = 0;
  std::uint16_t probe_id = 0;
  std::uint16_t spdcid = 0;
  std::uint16_t dpdcid = 0;
  Timestamp ts;  // ftype 1 with a timestamp, 0 without
};

// ---- ERTH / EETH: endpoint request (0xD8) and response (0xD9) (W10) --------------------------
inline constexpr std::size_t kErthLen = 16;
inline constexpr std::size_t kEethLen = 36;

// The endpoint operation as the host API numbers it (MRC_EP_OP_EV_PROBE = 0, [A]).
enum class EpOp : std::uint8_t { kEvProbe = 0, kPortStatusUpdate = 1 };

// ERTH.op wire values. S1: W10 (F1 only), and the reverse of the API enum's order: every
// translation goes through ep_op_to_wire() / ep_op_from_wire(), so a PDF that says otherwise
// changes this table alone.
enum class EpWireOp : std::uint8_t { kPortStatusUpdate = 0, kEvProbe = 1 };
inline constexpr std::uint8_t ep_op_to_wire(EpOp op) {
  return static_cast<std::uint8_t>(op == EpOp::kEvProbe ? EpWireOp::kEvProbe : EpWireOp::kPortStatusUpdate);
}
// The two-bit op field: 2 and 3 are no operation the sources name.
inline constexpr bool ep_op_from_wire(std::uint8_t v, EpOp& out) {
  if (v == static_cast<std::uint8_t>(EpWireOp::kEvProbe)) {
    out = EpOp::kEvProbe;
  } else if (v == static_cast<std::uint8_t>(EpWireOp::kPortStatusUpdate)) {
    out = EpOp::kPortStatusUpdate;
  } else {
    return false;
  }
  return true;
}

// ERTH.port_status_mask numbering. MODEL: W10 the API's 1-based mask copied unchanged: bit N =
// port N, bit 0 unused (the alternative reading is bit N-1 = port N). The reference keeps its up
// ports as bit N-1 = port N and converts here only; `from_bit0` takes the other reading (the
// port-mask-bit0 variant).
inline constexpr std::uint32_t port_status_mask_of(std::uint32_t up_ports, bool from_bit0 = false) {
  return from_bit0 ? up_ports : up_ports << 1;
}
inline constexpr std::uint32_t up_ports_of_mask(std::uint32_t mask, bool from_bit0 = false) {
  return from_bit0 ? mask : mask >> 1;
}

struct Erth {
  Prologue pro;
  std::uint8_t op = 1;             // 2 bits (EpWireOp)
  std::uint8_t vendor_info = 0;
  std::uint32_t port_status_mask = 0;  // PORT_STATUS_UPDATE: one bit per port, 1 = usable
  Timestamp ts;
};

struct Eeth {
  Prologue pro;
  std::uint8_t op = 1;        // 2 bits; MODEL: W10 at byte 1 bits 3..2 (F2), F1 has bits 5..4
  Bytes opaque;               // bytes 2..27, decoded by no source: a view on decode, zeros on encode
  std::uint16_t tx_timestamp = 0;  // MODEL: W10 the reflection of ERTH.tx_timestamp
};
inline constexpr std::size_t kEethOpaqueOffset = 2;
inline constexpr std::size_t kEethOpaqueLen = 26;

// ---- Traffic classes and their DSCP values (W13): configuration, not fixed ------------------
// MODEL: W13 defaults for the reference and the simulated switches.
struct DscpConfig {
  std::uint8_t no_trim = 8;
  std::uint8_t trimmable = 10;
  std::uint8_t trimmable_retx = 12;
  std::uint8_t trimmed = 11;
  std::uint8_t trimmed_lasthop = 13;
  std::uint8_t control = 46;
  // The DSCPs a switch writes when it trims: how a receiver recognises a trimmed packet.
  std::uint64_t trimmed_mask() const {
    return (std::uint64_t{1} << (trimmed & 63)) | (std::uint64_t{1} << (trimmed_lasthop & 63));
  }
};

}  // namespace mrc::wire
