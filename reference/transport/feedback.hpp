// The responder's feedback packets (W5-W8): the reliability SACK (0xDC, SETH + CC_STATE), the NACK
// (0xDD, NETH), and the Transport ACK / NAK (0xD1 + AETH). What triggers each is the responder's
// business (responder.hpp); here every field is filled from what it decided.
//
// Field rules, in one place:
// - Every feedback packet goes to the peer requester's QPN, on the Control class (W13), Not-ECT,
//   P_Key the QP's, BTH byte 8 zero but for a SACK's RTX, which echoes its trigger's (S1: W3).
// - SACK: BTH.PSN = cack_psn; SETH as W5/W6 (ack_psn_offset = trigger PSN - cack_psn as 16 bits,
//   or the probe_id with pr = 1); CC_STATE with the trigger's reflected timestamp.
// - NACK: BTH.PSN = nack_psn = the NACKed packet's PSN; NETH cc_type 2 (W7).
// - Transport ACK: BTH.PSN = cack_psn, AETH 0x1F and the completed-message count (W8); a
//   Transport NAK carries the refused packet's PSN (MODEL: W8) and the IBA NAK code.
// - PDC ids (MODEL: W5): the packet sender's orientation, low 16 bits of the QPNs: spdcid = the
//   responder's QPN, dpdcid = the requester's (F1, UET); with pdcid_data_direction the data
//   direction's instead (F2). Receivers never validate them.
#pragma once

#include <cstdint>

#include "reference/transport/qp_types.hpp"
#include "reference/wire/mrc_headers.hpp"

namespace mrc::transport {

// What the responder knows about the packet a SACK or NACK answers.
struct FeedbackTrigger {
  bool valid = false;
  std::uint32_t psn = 0;
  std::uint32_t entropy = 0;       // the EV echo (W2) of the packet
  std::uint8_t port = 0;           // 1-based arrival port
  bool ce = false;                 // it arrived ECN-CE marked
  bool rtx = false;                // its BTH.RTX
  bool probe = false;              // a reliability probe (W9)
  std::uint16_t probe_id = 0;
  bool has_ts = false;             // it carried a TSETH (or PETH timestamp)
  wire::Timestamp ts;
  std::uint64_t arrival_ns = 0;
};

// The feedback channel's addressing: the QPNs and P_Key every feedback packet of a QP carries.
struct FeedbackAddress {
  std::uint32_t local_qpn = 0;   // the responder's
  std::uint32_t remote_qpn = 0;  // the requester's
  std::uint16_t pkey = 0xFFFF;
  std::uint8_t dscp = wire::DscpConfig{}.control;
  bool pdcid_data_direction = false;  // W5 F2's orientation instead of the sender's
  bool pdcid_zero = false;            // defect pdcid-zero: both PDC ids 0
};

// A SACK (W5): `seth` and `cc` carry every field; the BTH is derived (PSN = cack_psn, RTX).
void build_sack(const wire::Seth& seth, const wire::CcState& cc, bool rtx, const FeedbackAddress& a,
                TxPacket& out);
// A NACK (W7) for `t` with `reason`.
void build_nack(const FeedbackTrigger& t, std::uint8_t reason, const FeedbackAddress& a, TxPacket& out);
// A Transport ACK (syndrome 0x1F) or NAK (0x61..0x63) (W8): BTH.PSN = `psn`, AETH MSN = `msn`.
void build_transport_ack(std::uint8_t syndrome, std::uint32_t psn, std::uint32_t msn, const FeedbackAddress& a,
                         TxPacket& out);

// MODEL: W5 the PDC ids of a packet its responder sends.
inline std::uint16_t pdcid_of(std::uint32_t qpn) { return static_cast<std::uint16_t>(qpn & 0xFFFFu); }

// Where the triggering packet came from, for the endpoint's choice of the feedback's path. These
// are the true arrival facts even when a defect makes the echoed entropy lie.
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
