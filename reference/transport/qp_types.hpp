// Types the requester, the responder and the Endpoint facade share, shaped like the MRC host API
// (mrc.h: mrc_qp_init_attr, mrc_qp_attr and its attr mask, QP caps) and rdma-core verbs (work
// requests, completions, memory regions). Re-declared from mrc-wire-model.md §1.2–§1.3; nothing is
// copied from the MRC headers. <infiniband/verbs.h> is included for its enum values only: opcodes,
// completion statuses and access flags keep the numbers applications already use.
#pragma once

#include <infiniband/verbs.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::transport {

// ---- QP state machine (RESET -> INIT -> RTR -> RTS; any -> ERR / RESET) ----------------------
enum class QpState : std::uint8_t { kReset = 0, kInit = 1, kRtr = 2, kRts = 3, kErr = 4 };

// ---- Limits from the host API (mrc-wire-model.md §1.3) --------------------------------------
inline constexpr std::uint8_t kMaxTimeout = 24;        // ACK timeout exponent, 1.024 us x 2^24
inline constexpr std::uint8_t kMaxLinearRetry = 7;     // retry.linear_cnt
inline constexpr std::uint8_t kMaxExpRetry = 25;       // retry.exp_cnt
inline constexpr std::uint8_t kExpRetryInfinite = 25;  // exp_cnt == 25 never gives up
inline constexpr std::uint32_t kMprUnitPsns = 128;     // mpr / mpr_dest unit
inline constexpr std::uint32_t kPsnMask = 0xFFFFFF;    // PSNs are 24-bit (IBA)

// QP capability bits (mrc_qp_attr.cap).
namespace qp_cap {
// Responder side: do not generate TRIM NACKs, the remote requester lacks support.
inline constexpr std::uint32_t kTrimNackDestUnsupported = 1u << 0;
// Dynamic MPR: honoured only when both peers set it.
inline constexpr std::uint32_t kDynamicMpr = 1u << 1;
// Requester side: the remote responder does not report service time.
inline constexpr std::uint32_t kSvcTimeDestUnsupported = 1u << 2;
inline constexpr std::uint32_t kAll = kTrimNackDestUnsupported | kDynamicMpr | kSvcTimeDestUnsupported;
}  // namespace qp_cap

// Wire protocol version (mrc_protocol_version): 0 = provider default, 1<<0 = v1 (W18).
inline constexpr std::uint8_t kProtocolVersionDefault = 0;
inline constexpr std::uint8_t kProtocolVersion1 = 1u << 0;  // MODEL: W18 negotiated out of band

// Resource hints (no wire effect).
struct QpHint {
  std::uint32_t num_qps_per_peer = 0;
  std::uint32_t num_send_peers = 0;
  std::uint32_t num_remote_recv_peers = 0;
};

struct QpInitAttr {
  std::uint32_t ev_profile_id = 0;
  std::uint32_t cc_profile_id = 0;
  std::uint8_t protocol_version = kProtocolVersionDefault;  // exactly one bit, or 0
  QpHint hint;
  std::uint32_t max_send_wr = 1024;  // send queue depth (posted, not yet completed)
  std::uint32_t max_recv_wr = 1024;  // receive queue depth (for WRITE-with-IMM)
};

// Retry counters (mrc_qp_attr.retry): linear_cnt fixed-interval retries, then exp_cnt doubling.
struct RetryAttr {
  std::uint8_t linear_cnt = 7;   // <= 7
  std::uint8_t exp_cnt = 25;     // <= 25; 25 = infinite
};

// Address vector: RoCEv2 GID-based addressing of the peer (IBV_QP_AV). The SGID is the
// endpoint's own GID. An IPv4 peer uses an IPv4-mapped GID (::ffff:a.b.c.d).
struct AddressVector {
  wire::Ipv6Addr dgid{};
  wire::MacAddr dmac{};
};

// What the requester knows about the remote responder, learned out of band with the GID/QPN
// exchange (W16: the peer's max_wimm_dest is learned out of band; W12 uses the peer's mpr_dest).
struct PeerAttr {
  std::uint8_t mpr_dest = 0;          // units of 128 PSNs; 0 = not known (own mpr applies)
  std::uint16_t max_wimm_dest = 0;    // 0 = not known (own max_wimm applies)
  std::uint32_t cap = 0;              // the peer's qp_cap bits (kDynamicMpr matters)
};

// Modify/query attributes. Which fields a transition reads is fixed by the attr mask.
struct QpAttr {
  QpState qp_state = QpState::kReset;
  QpState cur_qp_state = QpState::kReset;  // query only
  // INIT
  std::uint32_t ev_profile_id = 0;
  std::uint32_t cc_profile_id = 0;
  QpHint hint;
  // RTR (responder side, plus the path the QP talks over)
  AddressVector ah;
  std::uint32_t dest_qp_num = 0;
  std::uint32_t rq_psn = 0;
  enum ibv_mtu path_mtu = IBV_MTU_1024;  // 256..4096
  std::uint8_t mpr_dest = 8;             // units of 128 PSNs
  std::uint16_t max_wimm_dest = 128;
  std::uint32_t cap = 0;                 // qp_cap bits
  // RTS (requester side)
  std::uint32_t sq_psn = 0;
  std::uint8_t mpr = 8;                  // units of 128 PSNs
  std::uint16_t max_wimm = 128;
  RetryAttr retry;
  std::uint8_t timeout = 8;              // 1.024 us x 2^timeout, <= 24
  PeerAttr peer;
};

// Attribute mask bits for modify_qp / query_qp. The comment says at which transition each is
// accepted; anything else is EINVAL.
namespace qp_attr {
inline constexpr std::uint32_t kState = 1u << 0;         // every transition
inline constexpr std::uint32_t kEvProfile = 1u << 1;     // RESET->INIT (else QpInitAttr's)
inline constexpr std::uint32_t kCcProfile = 1u << 2;     // RESET->INIT (else QpInitAttr's)
inline constexpr std::uint32_t kHint = 1u << 3;          // RESET->INIT (optional)
inline constexpr std::uint32_t kAv = 1u << 4;            // INIT->RTR (required)
inline constexpr std::uint32_t kDestQpn = 1u << 5;       // INIT->RTR (required)
inline constexpr std::uint32_t kRqPsn = 1u << 6;         // INIT->RTR (required)
inline constexpr std::uint32_t kPathMtu = 1u << 7;       // INIT->RTR (required)
inline constexpr std::uint32_t kMprDest = 1u << 8;       // INIT->RTR (optional)
inline constexpr std::uint32_t kMaxWimmDest = 1u << 9;   // INIT->RTR (optional)
inline constexpr std::uint32_t kCap = 1u << 10;          // INIT->RTR (optional)
inline constexpr std::uint32_t kSqPsn = 1u << 11;        // RTR->RTS (required)
inline constexpr std::uint32_t kMpr = 1u << 12;          // RTR->RTS (optional)
inline constexpr std::uint32_t kMaxWimm = 1u << 13;      // RTR->RTS (optional)
inline constexpr std::uint32_t kRetry = 1u << 14;        // RTR->RTS (optional)
inline constexpr std::uint32_t kTimeout = 1u << 15;      // RTR->RTS (optional)
inline constexpr std::uint32_t kPeer = 1u << 16;         // RTR->RTS (optional)
inline constexpr std::uint32_t kInitRequired = kState;
inline constexpr std::uint32_t kInitAllowed = kInitRequired | kEvProfile | kCcProfile | kHint;
inline constexpr std::uint32_t kRtrRequired = kState | kAv | kDestQpn | kRqPsn | kPathMtu;
inline constexpr std::uint32_t kRtrAllowed = kRtrRequired | kMprDest | kMaxWimmDest | kCap;
inline constexpr std::uint32_t kRtsRequired = kState | kSqPsn;
inline constexpr std::uint32_t kRtsAllowed = kRtsRequired | kMpr | kMaxWimm | kRetry | kTimeout | kPeer;
inline constexpr std::uint32_t kAll = kInitAllowed | kRtrAllowed | kRtsAllowed;
}  // namespace qp_attr

// Path MTU in bytes for an ibv_mtu value; 0 when the value is not one of 256..4096.
constexpr std::uint32_t mtu_bytes(enum ibv_mtu m) {
  const int v = static_cast<int>(m);
  return (v >= IBV_MTU_256 && v <= IBV_MTU_4096) ? (128u << v) : 0u;
}

// ---- Memory regions ---------------------------------------------------------------------------
// A region the endpoint registered and owns the bytes of. `addr` is the virtual address the peer
// names in RETH.VA; `access` holds IBV_ACCESS_* bits (IBV_ACCESS_REMOTE_WRITE for a write target).
struct MemoryRegion {
  std::uint64_t addr = 0;
  std::size_t length = 0;
  std::uint32_t lkey = 0;
  std::uint32_t rkey = 0;
  int access = 0;
};

// ---- Work requests and completions --------------------------------------------------------------
// One RDMA WRITE (IBV_WR_RDMA_WRITE) or WRITE WITH IMMEDIATE (IBV_WR_RDMA_WRITE_WITH_IMM), single
// SGE. Every other opcode is refused at post time and puts no packet on the wire (§1.2).
struct SendWr {
  std::uint64_t wr_id = 0;
  enum ibv_wr_opcode opcode = IBV_WR_RDMA_WRITE;
  std::uint64_t local_addr = 0;  // inside a region registered with this endpoint
  std::uint32_t length = 0;
  std::uint32_t lkey = 0;
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
  std::uint32_t imm_data = 0;    // host order; carried big-endian in ImmDt
  unsigned send_flags = IBV_SEND_SIGNALED;  // IBV_SEND_SIGNALED: a completion on success
};

// A work completion (ibv_wc shape). Send completions: IBV_WC_RDMA_WRITE. Receive completions of
// a WRITE-with-IMM: IBV_WC_RECV_RDMA_WITH_IMM with the receive WR's wr_id.
struct Completion {
  std::uint64_t wr_id = 0;
  enum ibv_wc_status status = IBV_WC_SUCCESS;
  enum ibv_wc_opcode opcode = IBV_WC_RDMA_WRITE;
  std::uint32_t byte_len = 0;
  std::uint32_t imm_data = 0;  // host order
  std::uint32_t qp_num = 0;
  bool is_send = true;
};

// ---- Frames leaving the endpoint ------------------------------------------------------------------
struct TxFrame {
  std::uint8_t port = 0;  // 1-based egress port (= plane)
  std::uint16_t len = 0;
  std::array<std::uint8_t, wire::kMaxFrameLen> bytes{};
  wire::Bytes view() const { return {bytes.data(), len}; }
};

// Which path a packet a transport side emits should take; the endpoint turns it into an egress
// port and the EV-carrying header fields (ev_placement, W1/W2).
struct TxPath {
  enum class Kind : std::uint8_t {
    kQpEv,        // ev_index into the sending QP's EV profile array
    kAnyQpEv,     // the endpoint picks one of the QP's EVs (e.g. for feedback); a non-zero
                  // `port` asks for an EV on that port when it is up
    kExplicitEv,  // raw EV bytes + port + format (endpoint requests and responses)
  };
  Kind kind = Kind::kAnyQpEv;
  std::uint32_t ev_index = 0;                    // kQpEv
  wire::EvFmtMode fmt = wire::EvFmtMode::kStev;  // kExplicitEv
  std::uint8_t port = 0;                         // kExplicitEv: 1-based egress; kAnyQpEv: preferred
  wire::EvBytes ev{};                            // kExplicitEv: expanded (on-wire) EV bytes
  std::uint8_t srv6_ev_index = 0;                // kExplicitEv in SRv6 mode: sport low byte
};

// A packet a transport side wants on the wire: everything from the BTH on (opcode, PSN, extension
// headers, payload view) plus DSCP/ECN. The endpoint adds Ethernet/IP/UDP for the path, encodes
// and computes the ICRC. `qpn` = 0 means no QP: `dgid`/`dmac` address the frame (EP responses).
struct TxPacket {
  std::uint32_t qpn = 0;
  TxPath path;
  wire::Ipv6Addr dgid{};  // when qpn == 0
  wire::MacAddr dmac{};   // when qpn == 0
  std::uint8_t dscp = wire::DscpConfig{}.trimmable;  // W13: every sender sets its class's configured value
  std::uint8_t ecn = wire::kEcnEct0;
  wire::Bth bth;
  bool has_meth = false;
  wire::Meth meth;
  bool has_tseth = false;
  wire::Tseth tseth;
  bool has_reth = false;
  wire::Reth reth;
  bool has_immdt = false;
  std::uint32_t immdt = 0;
  bool has_aeth = false;
  wire::Aeth aeth;
  bool has_sack = false;   // SETH + CC_STATE (W5)
  wire::Seth seth;
  wire::CcState cc;
  bool has_neth = false;   // W7
  wire::Neth neth;
  bool has_peth = false;   // W9
  wire::Peth peth;
  bool has_erth = false;   // W10 endpoint request
  wire::Erth erth;
  bool has_eeth = false;   // W10 endpoint response
  wire::Eeth eeth;
  wire::Bytes payload;     // view into endpoint-owned memory, valid until the next call
  bool corrupt_icrc = false;
};

// ---- Feedback as the requester consumes it (W5-W8) -------------------------------------------
// One decoded SACK (0xDC), NACK (0xDD) or Transport ACK / NAK (0xD1).
struct FeedbackInfo {
  enum class Kind : std::uint8_t { kSack, kNack, kAck };
  Kind kind = Kind::kAck;
  std::uint8_t rx_port = 0;      // port the feedback frame arrived on
  bool rtx = false;              // BTH.RTX (a SACK echoes its trigger's, S1: W3)
  std::uint32_t psn = 0;         // BTH.PSN: cack_psn (SACK, ACK), nack_psn (NACK), the NAKed PSN
  wire::Seth seth;               // kSack
  wire::CcState cc;              // kSack
  wire::Neth neth;               // kNack
  std::uint8_t syndrome = wire::syndrome::kAck;  // kAck: 0x1F, or a NAK code
  std::uint32_t msn = 0;                          // kAck: completed messages
};

// The feedback in a decoded frame, or false when the frame is no MRC feedback.
inline bool feedback_from(const wire::DecodedFrame& f, std::uint8_t rx_port, FeedbackInfo& fb) {
  fb = FeedbackInfo{};
  fb.rx_port = rx_port;
  fb.rtx = f.bth.rtx;
  fb.psn = f.bth.psn & kPsnMask;
  if (f.has_sack) {
    fb.kind = FeedbackInfo::Kind::kSack;
    fb.seth = f.seth;
    fb.cc = f.cc;
    return true;
  }
  if (f.has_neth) {
    fb.kind = FeedbackInfo::Kind::kNack;
    fb.neth = f.neth;
    return true;
  }
  if (f.has_aeth && f.bth.opcode == wire::opcode::kMrcAck) {
    fb.kind = FeedbackInfo::Kind::kAck;
    fb.syndrome = f.aeth.syndrome;
    fb.msn = f.aeth.msn;
    return true;
  }
  return false;
}

// PSN arithmetic modulo 2^24 (IBA: "ahead" means within 2^23).
constexpr std::uint32_t psn_add(std::uint32_t psn, std::uint32_t n) { return (psn + n) & kPsnMask; }
constexpr std::uint32_t psn_diff(std::uint32_t a, std::uint32_t b) { return (a - b) & kPsnMask; }
// psn at or after ref, mod 2^24: no more than half the PSN space ahead of it.
constexpr bool psn_reached(std::uint32_t psn, std::uint32_t ref) { return psn_diff(psn, ref) < (1u << 23); }
constexpr bool psn_before(std::uint32_t a, std::uint32_t b) {  // a strictly before b
  const std::uint32_t d = psn_diff(b, a);
  return d != 0 && d < (1u << 23);
}

}  // namespace mrc::transport
