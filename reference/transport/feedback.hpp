// Builds the responder's feedback packets (MODEL: M5): ACK, SACK, NACK-loss, TRIM NACK,
// PSN-out-of-range (MODEL: M9) and the IBA error NAKs, all as RC ACKNOWLEDGE (0x11) packets with
// BTH + AETH + MFEH.
//
// Field rules, in one place:
// - BTH: opcode 0x11, DestQP = the peer requester's QPN, PSN = cumulative ACK PSN (ePSN - 1) for
//   every kind, including NAKs (M5); A = 0; P_Key = the QP's.
// - AETH: 0x1F ACK/SACK and PSN-out-of-range (type 4 is informational: the cumulative ACK in it
//   is valid, and a NAK-sequence syndrome would make an IBA requester go back N); 0x60 NACK-loss;
//   0x65 TRIM NACK (MODEL: M5); 0x61 invalid request; 0x62 remote access error; 0x63 remote
//   operational error. MSN = messages completed (IBA).
// - MFEH: always present (the MRC framing has no AETH-only ACKNOWLEDGE). For the IBA error NAKs
//   (0x61..0x63) MFEH.type is 0 and only trig_psn/ev/svc are meaningful: the AETH syndrome is
//   authoritative. mpr_valid is always set with the responder's current mpr_dest.
//   trig_psn = the data packet that triggered the feedback; for NACK-loss (no triggering packet)
//   it is the missing PSN and ev_valid = 0, ev_port = 0.
// - SACK window (sack_valid only while the responder holds PSNs beyond a hole): base =
//   ePSN + sack_base_off with sack_base_off = 64 x floor(d / 64), d = trig_psn - ePSN, when the
//   trigger is ahead of ePSN; 0 otherwise. So the bitmap always shows the 64-PSN-aligned block
//   (relative to ePSN) holding the trigger, and the block right after ePSN whenever the trigger
//   is there or behind.
// - svc_time: (emission time - trigger arrival) in 8 ns units, saturating at 0xFFFF (~524 us).
#pragma once

#include <cstdint>

#include "reference/transport/qp_types.hpp"
#include "reference/transport/sack_tracker.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::transport {

enum class FeedbackKind : std::uint8_t {
  kAck,               // 0x1F, MFEH type 0
  kSack,              // 0x1F, MFEH type 1
  kNackLoss,          // 0x60, MFEH type 2
  kTrimNack,          // 0x65, MFEH type 3  (MODEL: M5)
  kPsnOutOfRange,     // 0x1F, MFEH type 4  (MODEL: M9)
  kNakInvalidRequest, // 0x61, MFEH type 0
  kNakRemoteAccess,   // 0x62, MFEH type 0
  kNakRemoteOpError,  // 0x63, MFEH type 0
};
std::uint8_t syndrome_of(FeedbackKind k);
wire::FeedbackType mfeh_type_of(FeedbackKind k);

// What the responder knows about the data packet that caused this feedback.
struct FeedbackTrigger {
  bool valid = false;      // false for timer feedback with no triggering packet (NACK-loss)
  std::uint32_t psn = 0;
  bool ev_valid = false;
  std::uint32_t ev_echo = 0;  // wire::ev_echo_value() of the trigger (M5)
  std::uint8_t port = 0;      // 1-based arrival port
  bool ce = false;            // the trigger carried ECN-CE
  std::uint64_t arrival_ns = 0;
};

// Every field a feedback packet carries, already decided.
struct FeedbackFields {
  FeedbackKind kind = FeedbackKind::kAck;
  std::uint32_t cum_psn = 0;
  std::uint32_t msn = 0;
  std::uint32_t trig_psn = 0;
  bool ev_valid = false;
  std::uint32_t ev_echo = 0;
  std::uint8_t ev_port = 0;
  bool ce = false;
  bool svc_valid = false;
  std::uint16_t svc_time = 0;  // 8 ns units
  bool mpr_valid = false;      // W12: advertised only while Dynamic MPR is on
  std::uint8_t mpr = 0;        // units of 128 PSNs
  bool sack_valid = false;
  std::uint16_t sack_base_off = 0;
  std::uint64_t sack_bitmap = 0;
  std::uint32_t rcvd_bytes = 0;
};

// Service time in MFEH units (8 ns), saturating.                                    MODEL: M5
std::uint16_t svc_time_units(std::uint64_t ns);

// The SACK block for a trigger (rules in the file comment).                          MODEL: M5
struct SackBlock {
  bool valid = false;
  std::uint16_t base_off = 0;
  std::uint64_t bitmap = 0;
};
// `no_wrap` is the sack-no-wrap defect (reference/defects.hpp).
SackBlock sack_block(const SackTracker& t, std::uint32_t trig_psn, bool no_wrap = false);

// Fills `out` (every field; previous content is overwritten) with a feedback packet: DSCP 46,
// Not-ECT, path = any of the QP's EVs (the endpoint may mirror the arrival EV instead, see
// FeedbackEgress).                                                          MODEL: M5, M11
void build_feedback(const FeedbackFields& f, std::uint32_t local_qpn, std::uint32_t remote_qpn,
                    std::uint16_t pkey, TxPacket& out);

// Where the triggering packet came from, for the endpoint's choice of the feedback's path. These
// are the true arrival facts even when a defect makes MFEH.ev_echo lie.
struct FeedbackEgress {
  bool has_trigger = false;
  std::uint8_t arrival_port = 0;
  std::uint32_t arrival_ev_echo = 0;
};

// Receives feedback packets as the responder decides them. Called synchronously from
// Responder::on_data()/advance(); `pkt` is valid only during the call.
class FeedbackSink {
 public:
  virtual ~FeedbackSink() = default;
  virtual void send_feedback(const TxPacket& pkt, const FeedbackEgress& egress) = 0;
};

}  // namespace mrc::transport
