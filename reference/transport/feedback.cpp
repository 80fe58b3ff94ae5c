#include "reference/transport/feedback.hpp"

namespace mrc::transport {
namespace {

// Addressing and class shared by every feedback packet (file comment of feedback.hpp).
void feedback_base(std::uint8_t opcode, std::uint32_t psn, const FeedbackAddress& a, TxPacket& out) {
  out = TxPacket{};
  out.qpn = a.local_qpn;
  out.path.kind = TxPath::Kind::kAnyQpEv;
  out.dscp = a.dscp;  // W13: the Control class
  out.ecn = wire::kEcnNotEct;
  out.bth.opcode = opcode;
  out.bth.pkey = a.pkey;
  out.bth.dest_qp = a.remote_qpn & 0xFFFFFFu;
  out.bth.psn = psn & 0xFFFFFFu;
}

// W5 PDC ids, the low 16 bits of the QPNs in the orientation `a` names (feedback.hpp).
std::uint16_t spdcid_of(const FeedbackAddress& a) {
  if (a.pdcid_zero) return 0;
  return pdcid_of(a.pdcid_data_direction ? a.remote_qpn : a.local_qpn);
}
std::uint16_t dpdcid_of(const FeedbackAddress& a) {
  if (a.pdcid_zero) return 0;
  return pdcid_of(a.pdcid_data_direction ? a.local_qpn : a.remote_qpn);
}

}  // namespace

void build_sack(const wire::Seth& seth, const wire::CcState& cc, bool rtx, const FeedbackAddress& a,
                TxPacket& out) {
  feedback_base(wire::opcode::kMrcSack, seth.cack_psn, a, out);
  out.bth.rtx = rtx;  // S1: W3 the SACK echoes its trigger's RTX
  out.has_sack = true;
  out.seth = seth;
  out.seth.spdcid = spdcid_of(a);
  out.seth.dpdcid = dpdcid_of(a);
  out.cc = cc;
}

void build_nack(const FeedbackTrigger& t, std::uint8_t reason, const FeedbackAddress& a, TxPacket& out) {
  feedback_base(wire::opcode::kMrcNack, t.psn, a, out);
  out.has_neth = true;
  wire::Neth& n = out.neth;
  n.nack_reason = reason;
  n.vendor_info = 0;
  n.entropy = t.entropy;
  n.spdcid = spdcid_of(a);
  n.dpdcid = dpdcid_of(a);
  n.nack_psn = t.psn & 0xFFFFFFu;
  n.cc_type = 2;   // W7
  n.cc_flags = 0;  // MODEL: W7
  n.tx_timestamp = t.has_ts ? t.ts.tx_timestamp : 0;  // S1: W7 a trimmed packet keeps its TSETH
}

void build_transport_ack(std::uint8_t syndrome, std::uint32_t psn, std::uint32_t msn, const FeedbackAddress& a,
                         TxPacket& out) {
  feedback_base(wire::opcode::kMrcAck, psn, a, out);
  out.has_aeth = true;
  out.aeth.syndrome = syndrome;
  out.aeth.msn = msn & 0xFFFFFFu;
}

}  // namespace mrc::transport
