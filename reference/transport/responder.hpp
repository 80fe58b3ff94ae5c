// The responder side of one MRC QP: places RDMA WRITE data by its per-packet RETH, tracks the
// PSN window (W12), answers with reliability SACKs and NACKs (W6, W7) and Transport ACKs / NAKs
// (W8), answers reliability probes (W9), and completes WRITE-with-IMM messages in order (W16).
// Sans-I/O: the endpoint feeds decoded frames and time, and receives feedback packets through a
// FeedbackSink and completions by polling.
//
// Receive rules, in the order they are applied to one frame:
//  1. Bad ICRC on a frame that is not a trimmed packet: dropped silently, counted (IBA). A trimmed
//     packet is an MRC data packet with a trimmed DSCP (W13; wire::DecodedFrame::trimmed).
//  2. QP in ERR: dropped, counted.
//  3. Neither an MRC data opcode nor an RC request opcode (feedback, endpoint operations, other
//     manufacturer opcodes): not for the responder; dropped, counted. Wrong BTH.DestQP or P_Key
//     (low 15 bits compared): dropped, counted (IBA silent drops).
//  4. Trimmed packet: never placed. New in-window PSN: NACK TRIMMED (TRIMMED_LASTHOP for the
//     last-hop DSCP) at once, unless the QP has qp_cap::kTrimNackDestUnsupported (then dropped;
//     the requester finds the hole by SACK or timeout). Already received: a SACK, as a duplicate.
//     Beyond the window: as rule 7.
//  5. RC requests MRC does not carry (SEND, READ, ATOMIC, RC WRITE 0x06..0x0B), a data packet
//     without METH / RETH / ImmDt where its opcode needs one, a payload over the path MTU or the
//     message length (RETH.DMALength), a FIRST or MIDDLE packet not exactly one MTU: Transport NAK
//     invalid request (0x61). Fatal: the QP goes to ERR (IBA class B/C responder errors).
//  6. Duplicates (W12): already received inside the window -> a SACK; behind ePSN (up to 2^23) ->
//     a Transport ACK again (re-ACK) and a SACK (S1: W6, W8). Never placed or completed twice.
//  7. Beyond the window [cack_psn + 1, cack_psn + mpr_dest x 128] (W12): dropped silently and
//     counted (MODEL: W12, the reference's choice of §6.3.1), or, with `oor_nack`, a NACK
//     PSN_OOR_WINDOW (Table 7-3); both are conformant.
//  8. R_Key / bounds / REMOTE_WRITE access: Transport NAK remote access error (0x62), fatal.
//  9. WRITE-with-IMM LAST/ONLY (W16): reserves one posted receive; none left, or max_wimm_dest
//     messages waiting: Transport NAK remote operational error (0x63), fatal. No RNR in MRC.
// 10. Placement, then cack_psn advances over every in-order PSN. A WRITE-with-IMM completes once,
//     when cack_psn passes its LAST PSN, so completions come in message order (W16).
//
// Feedback policy after an accepted new packet:
//  - SACK at once (W6) when the packet carries BTH.A, arrived ECN-CE (m = SKIP_ONCE names exactly
//    its EV), carries BTH.RTX, or the byte counter reaches sack_gen_threshold (each packet adds
//    max(payload, 1024); S1: W6). Any SACK resets the counter.
//  - Otherwise the SACK waits at most ack_delay_ns, triggered by the newest packet (MODEL: W6: a
//    requester that never asks still hears back).
//  - Transport ACK (W8): once cack_psn covers a packet that carried BTH.A, one ACK for the new
//    cack_psn (held while a hole is in front of it, MODEL: W8 as F2); and, so that a requester
//    which never sets A still completes, ack_delay_ns after cack_psn passed a message end that no
//    ACK covered yet (MODEL: W8).
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
  quirk::Flag wrong_ev_echo = false;         // SETH / NETH entropy carries the previous data packet's EV
  quirk::Flag no_trim_nack = false;          // trimmed packets are dropped silently
  quirk::Flag place_trimmed_stub = false;    // a trimmed packet's payload bytes are written to memory
  quirk::Flag early_completion = false;      // WIMM completes when its LAST lands, before all PSNs
  quirk::Flag double_completion = false;     // a duplicate LAST-with-IMM completes a second time
  quirk::Flag no_ce_sack = false;            // an ECN-CE packet draws no SACK of its own, m stays NONE
  quirk::Flag nack_on_ce = false;            // an ECN-CE packet also draws a NACK TRIMMED
  quirk::Flag accept_out_of_window = false;  // PSNs past the window are placed and SACKed
  quirk::Flag no_ts_reflect = false;         // CC_STATE.tx_timestamp is 0, not the trigger's TSETH
  quirk::Flag answer_read = false;           // a READ request is acknowledged as executed, no NAK 0x61
  quirk::Flag accept_bad_rkey = false;       // a WRITE failing the R_Key check is ACKed (not placed), no NAK 0x62
  quirk::Flag accept_wrong_pkey = false;     // the P_Key check is skipped
  quirk::Flag pkey_full_compare = false;     // the membership bit takes part in the P_Key match
  quirk::Flag accept_bad_icrc = false;       // full-length frames with a wrong ICRC are processed
  quirk::Flag accept_wrong_qpn = false;      // the BTH.DestQP check is skipped (the endpoint hands such
                                             // frames to this QP when no QP has that number)
  quirk::Flag accept_truncated = false;      // a frame too short for its BTH and RETH draws a re-ACK
  quirk::Flag ack_before_cack = false;       // a Transport ACK names an A packet's PSN at once, holes or not
  quirk::Flag tail_bytes_unplaced = false;   // only whole 64-byte blocks of a payload are written
  quirk::Flag region_end_off_by_one = false; // the bounds check lets a write run one byte past the region
  quirk::Flag region_end_exclusive = false;  // the bounds check refuses a write ending at the region's last byte
  quirk::Flag sack_no_wrap = false;          // SACK bits name no PSN past the 2^24 wrap while cack is below it
  quirk::Flag sack_no_last_bit = false;      // the SACK bitmap never names PSN base + 63
  quirk::Flag feedback_in_data_class = false;  // SACKs, NACKs and ACKs carry the data DSCP, not Control
  quirk::Flag trim_by_length = false;        // a trimmed packet over 512 payload bytes is taken for a corrupt one
  quirk::Flag pdcid_zero = false;            // SACK and NACK PDC ids are 0, not the QPNs' low 16 bits
  quirk::Flag qpn_low16 = false;             // DestQP matched by its low 16 bits (the endpoint looks it up so too)
};

struct ResponderConfig {
  std::uint32_t qpn = 0;         // local QPN (BTH.DestQP of arriving data)
  std::uint32_t remote_qpn = 0;  // peer requester's QPN (BTH.DestQP of feedback)
  std::uint16_t pkey = 0xFFFF;
  std::uint32_t rq_psn = 0;      // first expected PSN (cack_psn starts one below, W6)
  std::uint32_t path_mtu = 1024; // bytes; payload of one packet may not exceed it
  std::uint8_t mpr_dest = 8;     // window, units of 128 PSNs (1..255)
  std::uint16_t max_wimm_dest = 128;  // WRITE-with-IMM messages waiting for completion (>= 1)
  std::uint32_t max_recv_wr = 1024;   // receive queue depth (>= 1)
  std::uint32_t cq_depth = 0;         // completion ring; 0 = 2 x max_recv_wr
  std::uint32_t cap = 0;              // qp_cap bits (kTrimNackDestUnsupported, kDynamicMpr)
  wire::EvFmtMode ev_fmt = wire::EvFmtMode::kStev;  // how to read the EV for the entropy echo
  bool report_svc_time = true;        // device cap SVC_TIME: MODEL: W14 the reflected timestamp
                                      // is advanced by the service time
  std::uint32_t sack_gen_threshold = 4096;  // S1: W6 bytes (max(payload, 1024) per packet) per SACK
  std::uint64_t ack_delay_ns = 2000;  // MODEL: W6, W8 the longest a SACK or Transport ACK waits
  bool oor_nack = false;              // W12: NACK PSN_OOR_WINDOW instead of dropping silently
  bool sack_window_at_trigger = false;  // S1: W6 bitmap = the 64-PSN block holding the trigger
  bool pdcid_data_direction = false;    // W5: spdcid = requester, dpdcid = responder (F2)
  std::uint8_t control_dscp = wire::DscpConfig{}.control;
  std::uint8_t data_dscp = wire::DscpConfig{}.trimmable;  // only the feedback-data-class defect uses it
};

// The responder configuration a QP gets at INIT->RTR (QpAttr RTR fields plus its own QPN).
ResponderConfig responder_config(std::uint32_t qpn, const QpAttr& attr, std::uint32_t max_recv_wr,
                                 wire::EvFmtMode ev_fmt);
// "" when valid, else what is wrong.
std::string_view check_config(const ResponderConfig& cfg);

// What on_data() did with one frame.
enum class RxOutcome : std::uint8_t {
  kPlaced,             // new in-window PSN placed
  kDuplicate,          // already received: SACKed (and re-ACKed behind ePSN), not placed
  kOutOfWindow,        // beyond the window: dropped silently or NACKed PSN_OOR_WINDOW
  kPlacedOutOfWindow,  // beyond the window but placed (accept_out_of_window defect)
  kTrimNacked,         // trimmed packet: NACK TRIMMED / TRIMMED_LASTHOP sent
  kTrimDropped,        // trimmed packet dropped silently (cap or defect)
  kNakInvalidRequest,  // 0x61 sent, QP -> ERR
  kNakRemoteAccess,    // 0x62 sent, QP -> ERR
  kNakRemoteOpError,   // 0x63 sent, QP -> ERR (no receive for a WIMM, or WIMM overflow)
  kProbeAnswered,      // a reliability probe: SACK with pr = 1 sent
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
  kNoReceive,       // 0x63: a WRITE-with-IMM found no posted receive (W16)
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
  std::uint64_t probes = 0;         // reliability probes answered
  std::uint64_t acks = 0;           // Transport ACKs
  std::uint64_t sacks = 0;
  std::uint64_t nacks = 0;          // every reason
  std::uint64_t trim_nacks = 0;     // TRIMMED and TRIMMED_LASTHOP among them
  std::uint64_t error_naks = 0;     // Transport NAKs
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
  // A reliability probe (opcode 0xDE) for this QP: answered with a SACK, pr = 1 (W9).
  RxOutcome on_probe(const wire::DecodedFrame& f, std::uint8_t port, std::uint64_t now,
                     FeedbackSink& sink);
  // A frame arrived on `port` that is too short to hold its headers through the RETH (the
  // endpoint could not decode it, so it names no QP). It is dropped and counted; nothing is placed
  // and no feedback is sent, unless the accept_truncated quirk answers it with a re-ACK.
  void on_truncated(std::uint8_t port, std::uint64_t now, FeedbackSink& sink);
  // Runs the timers due at `now`: the waiting SACK and Transport ACK.
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

  // Dynamic MPR (W12): a new advertised mpr_dest (1..255). False unless the QP has
  // qp_cap::kDynamicMpr. Shrinking keeps PSNs already held.
  bool set_mpr_dest(std::uint8_t mpr_dest);

  const ResponderConfig& config() const { return cfg_; }
  const ResponderQuirks& quirks() const { return quirks_; }
  const SackTracker& window() const { return window_; }
  std::uint32_t msn() const { return msn_; }
  std::uint64_t rcvd_bytes() const { return rcvd_bytes_; }
  std::size_t posted_receives() const { return recv_.size(); }
  const ResponderStats& stats() const { return stats_; }

 private:
  struct PendingImm {
    std::uint32_t last_psn = 0;
    std::uint32_t imm = 0;
  };

  bool well_formed_write(const wire::DecodedFrame& f) const;
  bool pkey_matches(std::uint16_t pkey) const;
  FeedbackTrigger trigger_of(const wire::DecodedFrame& f, std::uint8_t port, std::uint64_t now) const;
  RxOutcome on_stub(const wire::DecodedFrame& f, const FeedbackTrigger& t, std::uint64_t now,
                    FeedbackSink& sink);
  RxOutcome on_duplicate(const wire::DecodedFrame& f, const FeedbackTrigger& t, std::uint64_t now,
                         FeedbackSink& sink);
  RxOutcome on_new(const wire::DecodedFrame& f, const FeedbackTrigger& t, std::uint64_t now,
                   FeedbackSink& sink);
  RxOutcome on_beyond_window(const wire::DecodedFrame& f, const FeedbackTrigger& t,
                             std::uint64_t now, FeedbackSink& sink);
  RxOutcome fatal(std::uint8_t syndrome, FatalReason reason, const FeedbackTrigger& t,
                  std::uint64_t now, FeedbackSink& sink);
  void drain_in_order(std::uint32_t& advanced, bool& message_ended);
  RxOutcome accept_unplaced(const FeedbackTrigger& t, std::uint64_t now, FeedbackSink& sink);
  void complete_imm(std::uint32_t last_psn);
  void push_completion(const Completion& c);
  void enter_error(FatalReason reason);
  // After an accepted packet: the SACK now or later, the Transport ACK when cack covers an A.
  void after_accept(const wire::DecodedFrame& f, const FeedbackTrigger& t, bool message_ended,
                    std::uint64_t now, FeedbackSink& sink);
  void send_sack(const FeedbackTrigger& t, std::uint64_t now, FeedbackSink& sink);
  void send_nack(const FeedbackTrigger& t, std::uint8_t reason, FeedbackSink& sink);
  void send_ack(std::uint8_t syndrome, std::uint32_t psn, const FeedbackTrigger& t, FeedbackSink& sink);
  // The SACK's 64-bit window (W6): its offset from cack_psn and its bits.
  void sack_window(std::uint32_t trigger, bool has_trigger, std::int16_t& offset, std::uint64_t& bitmap);
  FeedbackAddress address() const;

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
  std::uint32_t msn_ = 0;        // completed messages (Transport ACK MSN)
  std::uint64_t rcvd_bytes_ = 0; // MODEL: W5 nominal bytes (UDP length + 40) of new packets
  std::uint32_t msg_bytes_ = 0;  // payload bytes of the message cack_psn is inside

  // SACK pacing.
  std::uint32_t sack_bytes_ = 0;           // S1: W6 sack_trigger_cnt
  std::uint64_t sack_deadline_ = kNever;   // a waiting SACK for last_trigger_
  FeedbackTrigger last_trigger_;
  std::uint32_t next_sack_base_ = 0;       // W6 lowest_unsacked_psn: the walking window's next base
  // Transport ACK pacing.
  bool ack_wanted_ = false;                // a packet with BTH.A is not covered by an ACK yet
  std::uint32_t ack_wanted_psn_ = 0;       // the highest such PSN
  std::uint64_t ack_deadline_ = kNever;    // a message end cack passed, no ACK since
  std::uint32_t last_acked_cack_ = 0;      // cack_psn of the last Transport ACK

  // wrong_ev_echo defect: the EV of the previous data packet.
  std::uint32_t prev_entropy_ = 0;

  ResponderStats stats_;
};

}  // namespace mrc::transport
