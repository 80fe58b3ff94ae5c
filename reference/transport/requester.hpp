// The requester side of one MRC QP: turns posted RDMA WRITE / WRITE WITH IMMEDIATE work requests
// into data packets, sprays them over EVs, and keeps every PSN until the responder acknowledges it.
//
//   segmentation   one packet per path-MTU chunk; each carries a RETH naming its own first byte
//                  and the whole message's length (W4); PSNs mod 2^24 from sq_psn
//   spraying       per packet, ev::EvSelector over the QP's ev::EvHealth (W11)
//   window         never more than min(mpr, peer mpr_dest) x 128 un-ACKed PSNs; the peer's MPR
//                  from feedback only when both sides enabled dynamic MPR (W12)
//   WIMM           at most min(max_wimm, peer max_wimm_dest) WRITE-with-IMM messages between
//                  their first packet and the ACK of their LAST PSN (W16)
//   loss recovery  per-PSN ACK timers with the W15 schedule, each retransmission on a different
//                  GOOD EV; selective retransmission guided by the SETH bitmap (W6, W11); a NACK
//                  TRIMMED retransmits the named PSN at once (W7; schedule W15)
//   EV health      timeouts / NACK-loss / ECN / trims drive EvHealth (W11); probing is done by
//                  the endpoint through health()
//   congestion     cc::Nscc gates new data by cwnd and is fed RTT, ECN, trims, losses (W14)
//
// Sans-I/O: every call takes the time it should act at. Storage (per-PSN ring of the window size,
// send queue, retransmit queue, completion ring) is allocated at construction; the per-packet path
// allocates nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "reference/cc/nscc.hpp"
#include "reference/ev/health.hpp"
#include "reference/ev/selector.hpp"
#include "reference/quirk/quirk_flag.hpp"
#include "reference/transport/qp_types.hpp"
#include "reference/transport/retry_schedule.hpp"

namespace mrc::transport {

// Behaviour switches the endpoint fills from its defect set (reference/defects.hpp).
struct RequesterQuirks {
  quirk::Flag exceed_mpr_window = false;   // window of 2 x the MPR window
  quirk::Flag ignore_wimm = false;         // no WRITE-with-IMM outstanding limit
  quirk::Flag retransmit_same_ev = false;  // retransmit on the EV that timed out
  quirk::Flag go_back_n = false;           // on a loss, resend everything from the hole, SACKed or not
  quirk::Flag no_reth_middle = false;      // RETH only on FIRST/ONLY (classic RC framing)
  quirk::Flag last_reth_len_mtu = false;   // the LAST packet's RETH length is packets x MTU, not the message's
  quirk::Flag msn_per_packet = false;      // METH msn is the packet's PSN offset, not its message index
  quirk::Flag wrong_icrc = false;          // data packets carry a corrupted ICRC
  quirk::Flag slow_timeout = false;        // every ACK timeout is 2T
  quirk::Flag honour_ghost_ack = false;    // an ACK past the last PSN sent acknowledges everything outstanding
  quirk::Flag ghost_ack_boundary = false;  // ... when it runs exactly one PSN past the last sent
  RetryQuirks retry;                // defects of the ACK timeout and retry schedule
  quirk::Flag always_dynamic_mpr = false;  // follows MPR advertisements without both dynamic caps
  quirk::Flag ignore_trim_nack = false;    // a NACK TRIMMED changes nothing: the PSN waits for its timer
  quirk::Flag trim_marks_bad = false;      // a NACK TRIMMED moves its EV to ASSUMED_BAD, not SKIP
  quirk::Flag data_not_ect = false;        // data packets are sent Not-ECT: no switch can mark them
  quirk::Flag rtt_any_sack = false;        // every SACK's reflected timestamp is an RTT sample (no UET rule)
};

struct RequesterConfig {
  std::uint32_t qpn = 0;
  std::uint32_t dest_qpn = 0;
  std::uint32_t sq_psn = 0;
  std::uint32_t mtu = 1024;             // path MTU in bytes (256..4096)
  std::uint8_t mpr = 8;                 // units of 128 PSNs
  std::uint8_t peer_mpr_dest = 0;       // 0 = unknown (own mpr applies)
  std::uint16_t max_wimm = 128;
  std::uint16_t peer_max_wimm_dest = 0; // 0 = unknown (own max_wimm applies)
  bool dynamic_mpr = false;             // both peers set qp_cap::kDynamicMpr
  bool peer_svc_time = true;            // the remote responder reports service time
  std::uint8_t timeout = 8;
  RetryAttr retry;
  std::uint32_t max_send_wr = 1024;
  RequesterQuirks quirks;
  // Conformant variant timers-fast / timers-slow (reference/variants.hpp): ACK timeouts move by
  // this many sixteenths of each wait. 0 = exactly the W15 schedule.
  std::int8_t timer_skew_16ths = 0;
  // W4: a TSETH with the send time on every data packet (BTH.TS = 1). A requester may instead keep
  // the send times itself (S1: W4); the tseth-off variant does.
  bool tseth = true;
  // W13 data must be ECN-capable; which codepoint is the sender's (the ect1 variant sends ECT(1)).
  bool data_ect1 = false;
  // W13 the Data class's DSCPs, as the endpoint was configured (they are configuration, not
  // fixed): first transmissions carry data_dscp, retransmissions retx_dscp (W13 lets them carry
  // DSCP_TRIMMABLE again or DSCP_TRIMMABLE_RETX; the endpoint chooses, endpoint_qp.cpp).
  std::uint8_t data_dscp = wire::DscpConfig{}.trimmable;
  std::uint8_t retx_dscp = wire::DscpConfig{}.trimmable;
};

struct RequesterStats {
  std::uint64_t posted_wrs = 0;
  std::uint64_t data_packets = 0;       // every data packet emitted (new + retransmitted)
  std::uint64_t data_bytes = 0;         // payload bytes emitted
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t feedback = 0;
  std::uint64_t sacks = 0;
  std::uint64_t nacks = 0;              // every reason
  std::uint64_t acks = 0;               // Transport ACKs and NAKs
  std::uint64_t inferred_losses = 0;    // PSNs declared lost from SACK holes (MODEL: W6)
  std::uint64_t trim_nacks = 0;
  std::uint64_t out_of_range = 0;
  std::uint64_t ecn_marks = 0;
  std::uint64_t sacked_psns = 0;
  std::uint64_t completions = 0;
  std::uint64_t blocked_window = 0;     // next_packet found new data held back by the MPR window
  std::uint64_t blocked_wimm = 0;
  std::uint64_t blocked_cwnd = 0;
  std::uint64_t blocked_no_ev = 0;
  std::uint32_t max_outstanding_psns = 0;
  std::uint32_t max_outstanding_wimm = 0;
};

class Requester {
 public:
  // `evs` is the QP's EV list (from its EV profile). `nscc` null = no congestion control.
  Requester(const RequesterConfig& cfg, std::span<const ev::EvSlotInit> evs,
            const ev::HealthParams& health_params, ev::HealthQuirks health_quirks,
            ev::SelectorQuirks selector_quirks, const cc::NsccParams* nscc,
            cc::NsccQuirks nscc_quirks);

  // Queues a WRITE / WRITE WITH IMM whose payload is `payload` (a view into endpoint-owned
  // memory that stays valid until the WR completes). 0, or ENOMEM when the send queue is full,
  // EINVAL for an opcode other than WRITE / WRITE_WITH_IMM or a length/payload mismatch.
  int post(const SendWr& wr, wire::Bytes payload);

  // The next data packet to send at `now`: a queued retransmission first, then new data. False
  // when nothing may go out now (window, WIMM, cwnd, no eligible EV, nothing queued, error).
  bool next_packet(std::uint64_t now, TxPacket& out);

  // One decoded SACK, NACK or Transport ACK / NAK (W5-W8).
  void on_feedback(const FeedbackInfo& fb, std::uint64_t now);
  // The probe-loss variant (W9 use 3: probes speed up loss detection): the answer to a reliability
  // probe sent on `ev` at `probe_sent_ns`, already applied as a SACK, is evidence that every PSN
  // last sent on that EV before the probe and still not acknowledged was lost. One EV is one
  // path, and a path keeps its order. A PSN already resent after a timeout or an inference waits
  // for its timer; one resent after a NACK TRIMMED does not.
  void on_probe_evidence(std::uint16_t ev, std::uint64_t probe_sent_ns, std::uint64_t now);

  // Earliest ACK timeout; UINT64_MAX when no PSN is waiting. (EvHealth's deadlines are the
  // endpoint's, through health().)
  std::uint64_t next_deadline() const;
  // Runs every ACK timeout due at or before `now`.
  void advance(std::uint64_t now);

  bool poll_completion(Completion& out);

  // QP moved to ERR (by retries exhausted, a fatal NAK, or flush()). Every WR not yet completed is
  // completed with IBV_WC_WR_FLUSH_ERR (the one that failed with its own status).
  bool in_error() const { return error_; }
  void flush();

  // ---- EV health and introspection ---------------------------------------------------------
  ev::EvHealth& health() { return *health_; }
  const ev::EvHealth& health() const { return *health_; }
  const cc::Nscc* nscc() const { return nscc_ ? &*nscc_ : nullptr; }
  const RequesterStats& stats() const { return stats_; }
  const RequesterConfig& config() const { return cfg_; }
  const RetrySchedule& schedule() const { return schedule_; }
  std::uint32_t window_psns() const;  // current un-ACKed PSN limit (introspection: reads the defect's switch)
  // Room under that limit, the switch read only at the W12 limit (the send path's test).
  bool window_open() const;
  std::uint32_t outstanding_psns() const { return outstanding_; }
  std::uint32_t outstanding_wimm() const { return wimm_outstanding_; }
  std::uint32_t wimm_limit() const;
  std::uint64_t inflight_bytes() const { return inflight_bytes_; }
  std::uint32_t next_psn() const { return next_psn_; }
  std::uint32_t una_psn() const { return una_psn_; }
  std::size_t queued_wrs() const { return sq_count_; }
  // The round trip last measured: sending to acknowledging the newest-sent packet acknowledged so
  // far (0 before the first acknowledgement).
  std::uint64_t recent_rtt_ns() const { return rack_rtt_ns_; }
  // EV used by the last transmission of `psn`, if the PSN is still tracked.
  std::optional<std::uint16_t> ev_of(std::uint32_t psn) const;

 private:
  static constexpr std::uint32_t kNil = 0xFFFFFFFFu;
  static constexpr std::uint8_t kNoLevel = 0xFF;

  // Per-PSN state, one slot per PSN of the window (ring indexed by psn & (capacity - 1)).
  struct PsnSlot {
    std::uint64_t send_ts = 0;   // last transmission
    std::uint64_t deadline = 0;  // ACK timeout of the last transmission
    std::uint32_t prev = kNil;   // timer list links (slot indices)
    std::uint32_t next = kNil;
    std::uint32_t wr = 0;        // send-queue slot of the WR this PSN belongs to
    std::uint32_t offset = 0;    // byte offset of this packet inside the message
    std::uint16_t len = 0;       // payload bytes
    std::uint16_t ev = 0;        // EV of the last transmission
    std::uint16_t blame_ev = 0;  // EV that timed out, reported once retransmitted elsewhere
    std::uint32_t tx_seq = 0;    // transmission number of the last copy (loss inference, W6)
    std::uint64_t inferred_deadline = 0;  // ACK timeout that copy had (EvHealth::on_loss)
    std::uint16_t inferred_ev = 0;  // EV of a copy inferred lost, judged when the PSN is acknowledged
    bool inferred = false;          // inferred_ev is waiting for that judgement
    std::uint8_t retries = 0;    // transmissions - 1
    std::uint8_t level = kNoLevel;
    std::uint8_t flags = 0;
  };
  enum SlotFlag : std::uint8_t {
    kLive = 1u << 0,     // between next_psn assignment and the cumulative ACK
    kSacked = 1u << 1,   // reported received in a SACK bitmap
    kLost = 1u << 2,     // declared lost: not counted in flight until resent
    kQueued = 1u << 3,   // waiting in the retransmit queue
    kBlame = 1u << 4,    // blame_ev timed out; tell EvHealth after the retransmission
    kFirst = 1u << 5,
    kLast = 1u << 6,
    kHole = 1u << 7,     // a SACK bitmap showed it missing since its last transmission (W6)
  };

  struct WrSlot {
    SendWr wr;
    wire::Bytes payload;
    std::uint32_t first_psn = 0;
    std::uint32_t npkts = 0;
    std::uint32_t sent_pkts = 0;  // packets generated so far (first transmissions)
    bool imm = false;
    wire::Meth meth;  // W4: this message's msn (and rqmsn for WRITE_WITH_IMM)
  };

  // Segmentation and packet building.
  bool emit_new(std::uint64_t now, TxPacket& out);
  bool emit_retransmit(std::uint64_t now, TxPacket& out);
  // W8 recovery of a lost Transport ACK: see requester_tack.cpp.
  void arm_tack_timer(std::uint64_t now);
  void on_tack_timeout(std::uint64_t now);
  bool emit_tack_probe(std::uint64_t now, TxPacket& out);
  bool believes_ghost(std::uint32_t ahead) const;
  void build(const PsnSlot& s, std::uint32_t psn, std::uint16_t ev, bool retransmission,
             std::uint64_t now, TxPacket& out) const;
  std::optional<std::uint16_t> pick_ev(std::uint64_t now, std::optional<std::uint16_t> exclude,
                                       bool retransmission = false);
  bool cwnd_allows(std::uint32_t bytes) const;
  void count_tx(std::uint32_t len);

  // PSN bookkeeping.
  PsnSlot& slot(std::uint32_t psn) { return ring_[psn & ring_mask_]; }
  const PsnSlot& slot(std::uint32_t psn) const { return ring_[psn & ring_mask_]; }
  bool tracked(std::uint32_t psn) const;  // in [una, next)
  void on_sack(const FeedbackInfo& fb, std::uint64_t now);
  void on_nack(const FeedbackInfo& fb, std::uint64_t now);
  void on_transport_ack(const FeedbackInfo& fb, std::uint64_t now);
  void ack_through(std::uint32_t cum_psn, std::uint32_t& acked_bytes);
  void apply_sack(const wire::Seth& s, std::uint32_t& acked_bytes);
  void sack_one(std::uint32_t psn, std::uint32_t& acked_bytes);
  void note_acked_tx(const PsnSlot& s);
  void infer_losses(std::uint64_t now);
  void infer_lost(std::uint32_t psn, std::uint64_t now);  // one PSN inferred lost: resent, NSCC told
  std::uint32_t wr_of(std::uint32_t psn) const;
  void declare_lost(std::uint32_t psn, bool front);
  void queue_retx(std::uint32_t psn, bool front);
  void go_back_from(std::uint32_t psn);
  void complete_wrs();

  // Timer lists (one FIFO per wait level; deadlines are monotonic inside a list).
  void timer_insert(std::uint32_t psn, std::uint8_t level, std::uint64_t deadline);
  void timer_remove(std::uint32_t psn);
  void on_timeout(std::uint32_t psn, std::uint64_t now);

  void fail(std::uint32_t wr_slot, enum ibv_wc_status status);
  void push_completion(const Completion& c);

  RequesterConfig cfg_;
  RetrySchedule schedule_;
  std::unique_ptr<ev::EvHealth> health_;
  std::unique_ptr<ev::EvSelector> selector_;
  std::optional<cc::Nscc> nscc_;

  // Window.
  std::vector<PsnSlot> ring_;
  std::uint32_t ring_mask_ = 0;
  std::uint32_t una_psn_ = 0;       // oldest PSN not reliability-acknowledged (SACK / ACK)
  std::uint32_t tacked_psn_ = 0;    // one past the highest PSN a Transport ACK covered (W8)
  std::uint64_t tack_deadline_ = UINT64_MAX;  // a SACKed message still waits for its Transport ACK
  std::uint8_t tack_retries_ = 0;
  bool tack_probe_due_ = false;
  std::uint32_t next_psn_ = 0;      // next new PSN
  std::uint32_t outstanding_ = 0;   // next - una
  std::uint32_t mpr_units_ = 8;     // min(mpr, peer mpr_dest), updated by dynamic MPR
  std::uint64_t inflight_bytes_ = 0;

  // Send queue ring: [sq_head_, sq_head_ + sq_count_) posted and not yet completed;
  // sq_cursor_ is the WR whose packets are being generated.
  std::vector<WrSlot> sq_;
  std::uint16_t next_msn_ = 0;    // W4 METH.msn of the next message posted (mod 2^16)
  std::uint16_t next_rqmsn_ = 0;  // W4 METH.rqmsn of the next WRITE_WITH_IMM posted (mod 2^16)
  std::uint32_t sq_head_ = 0;
  std::uint32_t sq_count_ = 0;
  std::uint32_t sq_cursor_ = 0;     // offset from sq_head_
  std::uint32_t wimm_outstanding_ = 0;

  // Retransmit queue: ring of PSNs (each at most once, guarded by kQueued).
  std::vector<std::uint32_t> rq_;
  std::uint32_t rq_head_ = 0;
  std::uint32_t rq_count_ = 0;

  // Timer lists.
  struct TimerList {
    std::uint32_t head = kNil;
    std::uint32_t tail = kNil;
  };
  std::array<TimerList, RetrySchedule::kLevels> timers_{};

  // Completions.
  std::vector<Completion> cq_;
  std::uint32_t cq_head_ = 0;
  std::uint32_t cq_count_ = 0;

  std::uint64_t min_rtt_ns_ = UINT64_MAX;  // smallest RTT sample seen (loss inference guard)
  // RACK (loss inference guard): the time from sending to acknowledging the newest-sent packet
  // acknowledged so far, and its transmission number.
  std::uint64_t rack_rtt_ns_ = 0;
  std::uint32_t rack_tx_seq_ = 0;
  std::uint64_t fb_now_ = 0;  // the time of the feedback being handled
  // MODEL: W6 loss inference: transmissions numbered in send order, the highest
  // kReorderTolerance of them acknowledged so far (descending), the mark last scanned for.
  static constexpr std::size_t kReorderTolerance = 3;
  std::uint32_t tx_seq_ = 0;
  std::array<std::uint32_t, kReorderTolerance> acked_tx_top_{};
  std::uint32_t loss_mark_ = 0;
  bool loss_deferred_ = false;  // a hole below loss_mark_ was too young to call: look again
  // W14 the ACK clock: rcvd_bytes of the last SACK (256-byte units) and the running total.
  std::uint32_t last_rcvd_units_ = 0;
  bool have_rcvd_units_ = false;
  std::uint64_t rcvd_total_ = 0;
  bool error_ = false;
  RequesterStats stats_;
};

}  // namespace mrc::transport
