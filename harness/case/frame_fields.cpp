#include "harness/case/frame_fields.hpp"

#include <array>
#include <utility>

namespace mrc::harness {
namespace {

using K = FieldValueKind;
constexpr std::uint64_t k24 = 0xFFFFFF;
constexpr std::uint64_t k32 = 0xFFFFFFFF;
constexpr std::uint64_t k64 = ~std::uint64_t{0};

constexpr std::array kFields{
    FrameField{"eth.src", K::kAddress, 0, "Ethernet source MAC"},
    FrameField{"eth.dst", K::kAddress, 0, "Ethernet destination MAC"},
    FrameField{"eth.vlan", K::kUInt, 0xFFFF, "VLAN TCI (absent = no tag)"},
    FrameField{"ip.version", K::kUInt, 6, "4 or 6 (outer header)"},
    FrameField{"ip.dscp", K::kUInt, 63, "outer DSCP"},
    FrameField{"ip.ecn", K::kUInt, 3, "outer ECN (2 = ECT(0), 3 = CE)"},
    FrameField{"ip.flow_label", K::kUInt, 0xFFFFF, "outer IPv6 flow label"},
    FrameField{"ip.hop_limit", K::kUInt, 255, "outer hop limit / TTL"},
    FrameField{"ip.src", K::kAddress, 0, "outer source address"},
    FrameField{"ip.dst", K::kAddress, 0, "outer destination address (SRv6: the uSID container)"},
    FrameField{"ip.length", K::kUInt, 0xFFFF, "outer IP payload/total length"},
    FrameField{"srh.present", K::kBool, 0, "an SRH follows the outer IPv6 header"},
    FrameField{"srh.segments_left", K::kUInt, 255, "SRH Segments Left"},
    FrameField{"srh.last_entry", K::kUInt, 255, "SRH Last Entry"},
    FrameField{"srh.segment0", K::kAddress, 0, "SRH Segment List[0]"},
    FrameField{"inner.src", K::kAddress, 0, "inner IPv6 source (SRv6 encapsulation)"},
    FrameField{"inner.dst", K::kAddress, 0, "inner IPv6 destination (SRv6 encapsulation)"},
    FrameField{"udp.sport", K::kUInt, 0xFFFF, "UDP source port"},
    FrameField{"udp.dport", K::kUInt, 0xFFFF, "UDP destination port"},
    FrameField{"bth.opcode", K::kOpcode, 255, "BTH opcode"},
    FrameField{"bth.se", K::kBool, 0, "BTH solicited event"},
    FrameField{"bth.migreq", K::kBool, 0, "BTH MigReq"},
    FrameField{"bth.pad", K::kUInt, 3, "BTH pad count"},
    FrameField{"bth.tver", K::kUInt, 15, "BTH transport version"},
    FrameField{"bth.pkey", K::kUInt, 0xFFFF, "BTH P_Key"},
    FrameField{"bth.fecn", K::kBool, 0, "BTH FECN"},
    FrameField{"bth.becn", K::kBool, 0, "BTH BECN"},
    FrameField{"bth.dqpn", K::kUInt, k24, "BTH destination QP"},
    FrameField{"bth.ack_req", K::kBool, 0, "BTH A (AckReq): asks for an immediate SACK / ACK"},
    FrameField{"bth.r", K::kBool, 0, "BTH byte 8 R bit (meaning not given, W3)"},
    FrameField{"bth.rtx", K::kBool, 0, "BTH RTX: the data packet is a retransmission (W3)"},
    FrameField{"bth.ts", K::kBool, 0, "BTH TS: a TSETH follows the METH (W3)"},
    FrameField{"bth.psn", K::kUInt, k24, "BTH PSN"},
    FrameField{"reth.va", K::kUInt, k64, "RETH virtual address"},
    FrameField{"reth.rkey", K::kUInt, k32, "RETH R_Key"},
    FrameField{"reth.len", K::kUInt, k32, "RETH DMA length"},
    FrameField{"imm", K::kUInt, k32, "immediate data"},
    FrameField{"meth.msn", K::kUInt, 0xFFFF, "METH msn: 0-based message index (W4)"},
    FrameField{"meth.rqmsn", K::kUInt, 0xFFFF, "METH rqmsn: WRITE_WITH_IMM message count (W4)"},
    FrameField{"tseth.ts", K::kUInt, 0xFFFF, "TSETH tx_timestamp, 128 ns units (W4)"},
    FrameField{"tseth.tsr", K::kBool, 0, "TSETH tsr (0 = 128 ns units)"},
    FrameField{"tseth.ftype", K::kUInt, 15, "TSETH ftype (1 = timestamp)"},
    FrameField{"aeth.syndrome", K::kUInt, 255, "AETH syndrome (0x1F ACK, 0x60-0x64 NAK; W8)"},
    FrameField{"aeth.msn", K::kUInt, k24, "AETH MSN"},
    // W5: the SACK (opcode 0xDC), SETH + CC_STATE.
    FrameField{"seth.m", K::kUInt, 3, "multipath verdict: 0 NONE, 1 SKIP_ONCE, 2 ALWAYS_SKIP"},
    FrameField{"seth.pr", K::kBool, 0, "the SACK answers a reliability probe"},
    FrameField{"seth.ack_psn_offset", K::kUInt, 0xFFFF, "trigger PSN - cack_psn (16-bit two's complement)"},
    FrameField{"seth.ack_psn", K::kUInt, k24, "PSN of the triggering packet (pr = 0)"},
    FrameField{"seth.entropy", K::kUInt, k32, "EV of the triggering packet"},
    FrameField{"seth.spdcid", K::kUInt, 0xFFFF, "SETH spdcid"},
    FrameField{"seth.dpdcid", K::kUInt, 0xFFFF, "SETH dpdcid"},
    FrameField{"seth.cack_psn", K::kUInt, k24, "cumulative ACK PSN"},
    FrameField{"seth.cc_type", K::kUInt, 15, "SETH cc_type"},
    FrameField{"seth.cc_flags", K::kUInt, 15, "SETH cc_flags"},
    FrameField{"seth.mpr", K::kUInt, 255, "advertised max PSN range, 128-PSN units (0: Dynamic MPR off)"},
    FrameField{"seth.sack_offset", K::kUInt, 0xFFFF, "bitmap base - cack_psn (16-bit two's complement)"},
    FrameField{"seth.sack_bitmap", K::kUInt, k64, "bit k = PSN base + k received"},
    FrameField{"cc.tx_timestamp", K::kUInt, 0xFFFF, "reflected TSETH / PETH timestamp"},
    FrameField{"cc.ooo_count", K::kUInt, 0x7FFF, "PSNs held above cack_psn"},
    FrameField{"cc.restore_cwnd", K::kBool, 0, "CC_STATE restore_cwnd"},
    FrameField{"cc.rcv_cwnd_pen", K::kUInt, 127, "receiver cwnd penalty"},
    FrameField{"cc.rcvd_bytes", K::kUInt, k24, "bytes received, 256-byte units mod 2^24"},
    // W7: the NACK (opcode 0xDD).
    FrameField{"neth.reason", K::kUInt, 255, "NACK reason (0x01 TRIMMED ... 0x0B PSN_OOR_WINDOW, 0x19 UNEXP_EVENT)"},
    FrameField{"neth.vendor_info", K::kUInt, 255, "NETH vendor_info"},
    FrameField{"neth.entropy", K::kUInt, k32, "EV of the NACKed packet"},
    FrameField{"neth.spdcid", K::kUInt, 0xFFFF, "NETH spdcid"},
    FrameField{"neth.dpdcid", K::kUInt, 0xFFFF, "NETH dpdcid"},
    FrameField{"neth.nack_psn", K::kUInt, k24, "PSN of the NACKed packet"},
    FrameField{"neth.cc_type", K::kUInt, 15, "NETH cc_type"},
    FrameField{"neth.cc_flags", K::kUInt, 15, "NETH cc_flags"},
    FrameField{"neth.tx_timestamp", K::kUInt, 0xFFFF, "reflected TSETH of the NACKed packet"},
    // W9: the reliability probe (opcode 0xDE).
    FrameField{"peth.probe_id", K::kUInt, 0xFFFF, "probe id, echoed in the pr = 1 SACK"},
    FrameField{"peth.vendor_info", K::kUInt, 255, "PETH vendor_info"},
    FrameField{"peth.spdcid", K::kUInt, 0xFFFF, "PETH spdcid"},
    FrameField{"peth.dpdcid", K::kUInt, 0xFFFF, "PETH dpdcid"},
    FrameField{"peth.ts", K::kUInt, 0xFFFF, "PETH tx_timestamp"},
    FrameField{"peth.tsr", K::kBool, 0, "PETH tsr"},
    FrameField{"peth.ftype", K::kUInt, 15, "PETH ftype (1 = timestamp present)"},
    // W10: endpoint request (0xD8, ERTH) and response (0xD9, EETH).
    FrameField{"erth.op", K::kUInt, 3, "ERTH op: 0 PORT_STATUS_UPDATE, 1 EV_PROBE (wire values)"},
    FrameField{"erth.vendor_info", K::kUInt, 255, "ERTH vendor_info"},
    FrameField{"erth.port_status_mask", K::kUInt, k32, "one bit per port, 1 = usable"},
    FrameField{"erth.ts", K::kUInt, 0xFFFF, "ERTH tx_timestamp"},
    FrameField{"erth.tsr", K::kBool, 0, "ERTH tsr"},
    FrameField{"erth.ftype", K::kUInt, 15, "ERTH ftype"},
    FrameField{"eeth.op", K::kUInt, 3, "EETH op (echo of the request's)"},
    FrameField{"eeth.tx_timestamp", K::kUInt, 0xFFFF, "EETH tx_timestamp (reflection of ERTH's)"},
    FrameField{"icrc", K::kIcrc, 0, "ICRC verdict: good / bad"},
    FrameField{"trimmed", K::kBool, 0, "an MRC data packet with a trimmed DSCP (W13)"},
    FrameField{"payload.len", K::kUInt, 0xFFFF, "payload bytes"},
    FrameField{"frame.len", K::kUInt, 0xFFFF, "captured frame bytes"},
    FrameField{"ep.id", K::kUInt, 0xFFFF, "endpoint request id: BTH.PSN[15:0] of 0xD8 / 0xD9 (W10)"},
    FrameField{"seth.sack_base", K::kUInt, k24, "bitmap base PSN = cack_psn + sack_offset"},
    FrameField{"seth.probe_id", K::kUInt, 0xFFFF, "probe id a pr = 1 SACK echoes"},
    FrameField{"feedback", K::kBool, 0, "a Transport ACK / NAK (0xD1), SACK (0xDC), NACK (0xDD) or RC ACK (0x11)"},
    FrameField{"path_probe", K::kBool, 0, "a probe of one path: reliability probe (0xDE) or endpoint EV probe"},
    FrameField{"ev", K::kUInt, k32, "EV identity as placed on the wire: (flow label << 16) | UDP source port (W2)"},
    FrameField{"ev_index", K::kUInt, k32, "index of the EV in the case's EV array"},
    FrameField{"port", K::kUInt, 32, "1-based NIC port the frame left or arrived on"},
    FrameField{"plane", K::kUInt, 32, "1-based plane of the link it was captured on"},
    FrameField{"direction", K::kDirection, 0, "to_dut / from_dut"},
    // Derived, for golden masks above all: leaving timing or payload bytes out of a diff.
    FrameField{"ts", K::kUInt, k64, "capture timestamp, ns"},
    FrameField{"payload", K::kUInt, k64, "64-bit digest of the payload bytes"},
};

constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kAliases{{
    {"opcode", "bth.opcode"},
    {"psn", "bth.psn"},
    {"dqpn", "bth.dqpn"},
    {"pkey", "bth.pkey"},
    {"ack_req", "bth.ack_req"},
    {"dscp", "ip.dscp"},
    {"ecn", "ip.ecn"},
    {"flow_label", "ip.flow_label"},
    {"sport", "udp.sport"},
}};

constexpr auto make_spellings() {
  std::array<std::string_view, kFields.size() + kAliases.size()> out{};
  std::size_t i = 0;
  for (const auto& f : kFields) out[i++] = f.name;
  for (const auto& a : kAliases) out[i++] = a.first;
  return out;
}
constexpr auto kSpellings = make_spellings();

}  // namespace

std::span<const FrameField> frame_fields() { return kFields; }

const FrameField* find_frame_field(std::string_view name) {
  for (const auto& a : kAliases) {
    if (a.first == name) name = a.second;
  }
  for (const auto& f : kFields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::span<const std::string_view> frame_field_spellings() { return kSpellings; }

std::span<const OpcodeName> opcode_names() { return kOpcodeNames; }

std::optional<std::uint8_t> opcode_by_name(std::string_view name) {
  for (const auto& o : kOpcodeNames) {
    if (o.name == name) return o.value;
  }
  return std::nullopt;
}

std::span<const std::string_view> opcode_spellings() { return kOpcodeSpellings; }

}  // namespace mrc::harness
