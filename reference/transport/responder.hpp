// The responder side of one MRC QP: places RDMA WRITE data by its per-packet RETH, tracks the
// PSN window, acknowledges (ACK/SACK with coalescing, NACK-loss, TRIM NACK, out-of-range), and
// completes WRITE-with-IMM messages in order. Sans-I/O: the endpoint feeds decoded frames and
// time, and receives feedback packets through a FeedbackSink and completions by polling.
//
// Receive rules, in the order they are applied to one frame:
//  1. Bad ICRC on a frame that is not a trimmed packet: dropped silently, counted (IBA: ICRC
//     errors are silent drops). A trimmed packet is an MRC data packet carrying a trimmed DSCP
//     (W13; wire's DecodedFrame::trimmed). Decode frames with DecodeOptions::verify_icrc = true.
//  2. QP in ERR: dropped, counted.
//  3. Not an RC request opcode (ACKs, read responses, UC/UD, CNP, endpoint ops): not for the
//     responder; dropped, counted. Wrong BTH.DestQP or P_Key (low 15 bits compared): dropped,
//     counted (IBA: P_Key and QP mismatches are silent drops; the endpoint normally demuxes by
//     QPN before calling).
//  4. Trimmed packet (W13: an MRC data packet with a trimmed DSCP): never placed. New in-window PSN: immediate TRIM NACK (0x65,
//     MFEH type 3, trig_psn, ev_echo, ce = 1), and the PSN is remembered as trimmed so the loss
//     timer does not also report it; silently dropped instead when the QP has
//     qp_cap::kTrimNackDestUnsupported (then the loss timer covers it). Already received: re-ACK.
//     Beyond the window: type 4.
//  5. SEND/READ/ATOMIC and other RC request opcodes MRC forbids (§1.2; the RC WRITE opcodes
//     0x06..0x0B too, W3), a data packet without METH or RETH, WITH-IMM without ImmDt, a payload
//     over the path MTU or over RETH.DMALength (the message's length, W4): NAK invalid request
//     (0x61). Fatal: the QP goes to ERR (IBA class B/C responder errors).
//  6. PSN window (MODEL: M9) [ePSN, ePSN + mpr_dest x 128 - 1]: beyond -> dropped, immediate
//     MFEH type 4 feedback. Already received (in the window, or up to 2^23 behind ePSN) ->
//     immediate re-ACK, no second placement and no second completion.
//  7. R_Key/bounds/REMOTE_WRITE access (MemoryTable::check_remote_write): NAK remote access
//     error (0x62), nothing placed, fatal (QP -> ERR).
//  8. WRITE-with-IMM LAST/ONLY (MODEL: M10): reserves one posted receive. None left, or
//     max_wimm_dest messages already waiting for completion: NAK remote operational error
//     (0x63), nothing placed, fatal (QP -> ERR). There is no RNR in MRC.
//  9. Placement, then ePSN advances over every in-order PSN. A WRITE-with-IMM completes exactly
//     once, when ePSN passes its LAST PSN: that is after all of its PSNs (FIRST..LAST) and every
//     earlier message's PSNs are placed, so completions come in message order. byte_len = the
//     message's payload bytes. MSN counts messages whose LAST PSN ePSN has passed.
//
// ACK policy (MODEL: M5), one feedback per event:
//  - Immediate ACK/SACK when the packet arrived out of order (PSN != ePSN), left or filled a hole
//    (the responder holds PSNs beyond ePSN after it, or ePSN jumped by more than one), carried
//    ECN-CE (so MFEH.ce names exactly its trigger), is a LAST/ONLY with BTH.A (unless
//    ack_last_at_once is off, the ack-coalesce-max variant), or is the
//    `ack_every`-th (default 4) unacknowledged packet.
//  - Otherwise coalesced: one ACK at most `ack_delay_ns` (default 2 us) after the first
//    unacknowledged packet arrived, triggered by the newest one.
//  - Any feedback packet carries the cumulative ACK, so each one restarts coalescing.
//  - Type ACK (0) when nothing is held beyond ePSN, SACK (1) with the bitmap otherwise.
//  - svc_time = emission time - trigger arrival (0 for immediate feedback), in 8 ns units.
// Loss detection (MODEL: M5): when ePSN is a hole (a higher PSN has arrived) and stays missing
// for `ooo_tolerance_ns` (default 10 us, well above the path skew of the built-in fabric and far
// below the 262 us ACK timeout of timeout = 8), one NACK-loss (0x60, MFEH type 2, trig_psn = the
// missing PSN, ev_valid = 0, SACK bitmap) is sent for that PSN. The timer restarts whenever ePSN
// moves to a new hole; a PSN answered by a TRIM NACK is not reported again as lost. A lost
// retransmission is left to the requester's ACK timeout (as IBA sends one NAK-sequence per ePSN).
//
// Nothing here allocates after construction.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "reference/quirk/quirk_flag.hpp"
#include "reference/transport/bounded_ring.hpp"
#include "reference/transport/feedback.hpp"
#include "reference/transport/memory.hpp"
#include "reference/transport/qp_types.hpp"
#include "reference/transport/sack_tracker.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::transport {

// Responder-side defects (reference/defects.hpp names them; the endpoint facade maps a DefectSet
// onto this struct, because the transport layer does not depend on the facade).
struct ResponderQuirks {
  quirk::Flag sack_off_by_one = false;       // SACK bitmap bits name PSN + 1 of what arrived
  quirk::Flag wrong_ev_echo = false;         // MFEH.ev_echo carries the previous data packet's EV
  quirk::Flag no_trim_nack = false;          // trimmed stubs are dropped silently
  quirk::Flag place_trimmed_stub = false;    // a trimmed stub's payload bytes are written to memory
  quirk::Flag early_completion = false;      // WIMM completes when its LAST lands, before all PSNs
  quirk::Flag double_completion = false;     // a duplicate LAST-with-IMM completes a second time
  quirk::Flag no_nack_loss = false;          // the loss timer never sends a NACK-loss
  quirk::Flag accept_out_of_window = false;  // PSNs past the window are placed and ACKed, no type 4
  quirk::Flag no_service_time = false;       // svc_valid = 0, svc_time = 0 in every feedback
  quirk::Flag answer_read = false;           // a READ request is acknowledged as executed, no NAK 0x61
  quirk::Flag accept_bad_rkey = false;       // a WRITE failing the R_Key check is ACKed (not placed), no NAK 0x62
  quirk::Flag accept_wrong_pkey = false;     // the P_Key check is skipped
  quirk::Flag accept_bad_icrc = false;       // full-length frames with a wrong ICRC are processed
  quirk::Flag accept_wrong_qpn = false;      // the BTH.DestQP check is skipped (the endpoint hands such
                                      // frames to this QP when no QP has that number)
  quirk::Flag accept_truncated = false;      // a frame too short for its BTH and RETH draws a re-ACK
  quirk::Flag nack_without_hole = false;     // the loss timer also runs when nothing is missing
  quirk::Flag tail_bytes_unplaced = false;   // only whole 64-byte blocks of a payload are written
  quirk::Flag region_end_off_by_one = false; // the bounds check lets a write run one byte past the region
  quirk::Flag region_end_exclusive = false;  // the bounds check refuses a write ending at the region's last byte
  quirk::Flag sack_no_wrap = false;          // SACK bits name no PSN past the 2^24 wrap while ePSN is below it
  quirk::Flag sack_no_last_bit = false;      // the SACK bitmap never names PSN base + 63
};

struct ResponderConfig {
  std::uint32_t qpn = 0;         // local QPN (BTH.DestQP of arriving data)
  std::uint32_t remote_qpn = 0;  // peer requester's QPN (BTH.DestQP of feedback)
  std::uint16_t pkey = 0xFFFF;
  std::uint32_t rq_psn = 0;      // first expected PSN
  std::uint32_t path_mtu = 1024; // bytes; payload of one packet may not exceed it
  std::uint8_t mpr_dest = 8;     // window, units of 128 PSNs (1..255)
  std::uint16_t max_wimm_dest = 128;  // WRITE-with-IMM messages waiting for completion (>= 1)
  std::uint32_t max_recv_wr = 1024;   // receive queue depth (>= 1)
  std::uint32_t cq_depth = 0;         // completion ring; 0 = 2 x max_recv_wr
  std::uint32_t cap = 0;              // qp_cap bits (kTrimNackDestUnsupported, kDynamicMpr)
  wire::EvFmtMode ev_fmt = wire::EvFmtMode::kStev;  // how to read the EV for ev_echo
  bool report_svc_time = true;        // device cap SVC_TIME (on by default)
  std::uint32_t ack_every = 4;        // coalescing: ACK at the latest every N packets
  std::uint64_t ack_delay_ns = 2000;  // coalescing: ... or this long after the first
  std::uint64_t ooo_tolerance_ns = 10000;  // NACK-loss after a hole stays this long
  bool ack_last_at_once = true;       // LAST/ONLY with BTH.A is acknowledged at once (M5 allows coalescing it)
};

// The responder configuration a QP gets at INIT->RTR (QpAttr RTR fields plus its own QPN).
ResponderConfig responder_config(std::uint32_t qpn, const QpAttr& attr, std::uint32_t max_recv_wr,
                                 wire::EvFmtMode ev_fmt);
// "" when valid, else what is wrong.
std::string_view check_config(const ResponderConfig& cfg);

// What on_data() did with one frame.
enum class RxOutcome : std::uint8_t {
  kPlaced,             // new in-window PSN placed
  kDuplicate,          // already received: re-ACKed, not placed
  kOutOfWindow,        // beyond the window: dropped, type 4 sent
  kPlacedOutOfWindow,  // beyond the window but placed (accept_out_of_window defect)
  kTrimNacked,         // trimmed stub: TRIM NACK sent
  kTrimDropped,        // trimmed stub dropped silently (cap or defect)
  kNakInvalidRequest,  // 0x61 sent, QP -> ERR
  kNakRemoteAccess,    // 0x62 sent, QP -> ERR
  kNakRemoteOpError,   // 0x63 sent, QP -> ERR (no receive for a WIMM, or WIMM overflow)
  kDroppedBadIcrc,
  kDroppedQpError,
  kDroppedNotRequest,
  kDroppedWrongQp,
  kDroppedBadPkey,
};
std::string_view to_string(RxOutcome o);

enum class FatalReason : std::uint8_t {
  kNone,
  kInvalidRequest,  // 0x61
  kRemoteAccess,    // 0x62
  kNoReceive,       // 0x63: a WRITE-with-IMM found no posted receive (M10)
  kWimmOverflow,    // 0x63: more than max_wimm_dest WIMMs waiting for completion
  kLocal,           // the endpoint moved the QP to ERR
};
std::string_view to_string(FatalReason r);

struct ResponderStats {
  std::uint64_t rx_frames = 0;
  std::uint64_t placed = 0;
  std::uint64_t placed_bytes = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t out_of_window = 0;
  std::uint64_t trimmed_stubs = 0;
  std::uint64_t trimmed_dropped = 0;
  std::uint64_t stub_bytes_placed = 0;  // place_trimmed_stub defect only
  std::uint64_t bad_icrc = 0;
  std::uint64_t dropped_in_error = 0;
  std::uint64_t not_request = 0;
  std::uint64_t wrong_qp = 0;
  std::uint64_t bad_pkey = 0;
  std::uint64_t truncated = 0;      // frames too short for their headers (on_truncated)
  std::uint64_t acks = 0;
  std::uint64_t sacks = 0;
  std::uint64_t nack_loss = 0;
  std::uint64_t trim_nacks = 0;
  std::uint64_t out_of_range = 0;
  std::uint64_t error_naks = 0;
  std::uint64_t completions = 0;
  std::uint64_t cq_overflow = 0;  // completions lost because the completion ring was full
};

class Responder {
 public:
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

  // Precondition: check_config(cfg) is empty (values are clamped into range otherwise).
  // `memory` must outlive the responder.
  Responder(const ResponderConfig& cfg, MemoryTable& memory, const ResponderQuirks& quirks = {});

  // One frame addressed to this QP, arrived on 1-based `port` at `now` (ns).
  RxOutcome on_data(const wire::DecodedFrame& f, std::uint8_t port, std::uint64_t now,
                    FeedbackSink& sink);
  // A frame arrived on `port` that is too short to hold its headers through the RETH (the
  // endpoint could not decode it, so it names no QP). It is dropped and counted; nothing is placed
  // and no feedback is sent, unless the accept_truncated quirk answers it with a re-ACK.
  void on_truncated(std::uint8_t port, std::uint64_t now, FeedbackSink& sink);
  // Runs the timers due at `now`: coalesced ACK, NACK-loss.
  void advance(std::uint64_t now, FeedbackSink& sink);
  // Earliest time advance() has work, or kNever.
  std::uint64_t next_deadline() const;

  // Posts a receive for a WRITE-with-IMM. 0, or ENOMEM when the receive queue is full. In ERR the
  // receive completes at once with IBV_WC_WR_FLUSH_ERR (verbs behaviour).
  int post_recv(std::uint64_t wr_id);
  // Receive completions (IBV_WC_RECV_RDMA_WITH_IMM, or flushes), oldest first.
  bool poll_completion(Completion& out);

  // The endpoint moved the QP to ERR: posted receives are flushed.
  void set_error();
  bool in_error() const { return error_; }
  FatalReason fatal_reason() const { return fatal_; }

  // Dynamic MPR (M9): a new advertised mpr_dest (1..255). False unless the QP has
  // qp_cap::kDynamicMpr. Shrinking keeps PSNs already held.
  bool set_mpr_dest(std::uint8_t mpr_dest);

  const ResponderConfig& config() const { return cfg_; }
  const ResponderQuirks& quirks() const { return quirks_; }
  const SackTracker& window() const { return window_; }
  std::uint32_t msn() const { return msn_; }
  std::uint32_t rcvd_bytes() const { return rcvd_bytes_; }
  std::size_t posted_receives() const { return recv_.size(); }
  const ResponderStats& stats() const { return stats_; }

 private:
  struct PendingImm {
    std::uint32_t last_psn = 0;
    std::uint32_t imm = 0;
  };

  bool well_formed_write(const wire::DecodedFrame& f) const;
  FeedbackTrigger trigger_of(const wire::DecodedFrame& f, std::uint8_t port, std::uint64_t now) const;
  RxOutcome on_stub(const wire::DecodedFrame& f, const FeedbackTrigger& t, std::uint64_t now,
                    FeedbackSink& sink);
  RxOutcome on_duplicate(const wire::DecodedFrame& f, const FeedbackTrigger& t, std::uint64_t now,
                         FeedbackSink& sink);
  RxOutcome on_new(const wire::DecodedFrame& f, const FeedbackTrigger& t, std::uint64_t now,
                   FeedbackSink& sink);
  RxOutcome on_beyond_window(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                             std::uint64_t now, FeedbackSink& sink);
  RxOutcome fatal(FeedbackKind kind, FatalReason reason, const FeedbackTrigger& t,
                  std::uint64_t now, FeedbackSink& sink);
  void drain_in_order(std::uint64_t now, std::uint32_t& advanced);
  RxOutcome accept_unplaced(const FeedbackTrigger& t, std::uint64_t now, FeedbackSink& sink);
  void complete_imm(std::uint32_t last_psn);
  void push_completion(const Completion& c);
  void enter_error(FatalReason reason);
  // Sends one feedback packet. `trig_psn` names the trigger when `t` is not valid (NACK-loss).
  void emit(FeedbackKind kind, const FeedbackTrigger& t, std::uint32_t trig_psn, bool force_ce,
            std::uint64_t now, FeedbackSink& sink);
  std::uint64_t loss_deadline() const;

  ResponderConfig cfg_;
  MemoryTable& memory_;
  ResponderQuirks quirks_;
  SackTracker window_;
  BoundedRing<std::uint64_t> recv_;   // posted receive wr_ids
  BoundedRing<Completion> cq_;
  std::vector<PendingImm> pending_;   // capacity max_wimm_dest, reserved at construction
  std::uint8_t mpr_dest_;

  bool error_ = false;
  FatalReason fatal_ = FatalReason::kNone;
  std::uint32_t msn_ = 0;
  std::uint32_t rcvd_bytes_ = 0;
  std::uint32_t msg_bytes_ = 0;  // payload bytes of the message ePSN is inside

  // Coalescing.
  std::uint32_t unacked_ = 0;
  std::uint64_t ack_deadline_ = kNever;
  FeedbackTrigger last_trigger_;

  // Loss timer for the hole at ePSN.
  bool hole_armed_ = false;
  bool nack_sent_ = false;
  std::uint64_t hole_since_ = 0;

  // wrong_ev_echo defect: the EV of the previous data packet.
  std::uint32_t prev_ev_echo_ = 0;

  ResponderStats stats_;
};

}  // namespace mrc::transport
