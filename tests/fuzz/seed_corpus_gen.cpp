// Writes the fuzz seed corpus: one small, valid frame of every kind the decoder knows (MRC 1.0 data
// and control packets, plain RoCEv2 beside them), built with encode_frame(), plus the altered kinds
// the decoder must still accept (trimmed packets, W13; a corrupt ICRC; a capture cut short). The
// output is checked in as tests/fuzz/corpus/; rerun this only when the wire model changes (remove
// the old files first, names change):  fuzz_seed_corpus_gen tests/fuzz/corpus
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "reference/wire/frame.hpp"

namespace {

using namespace mrc::wire;

const std::array<std::uint8_t, 64> kPayload = [] {
  std::array<std::uint8_t, 64> p{};
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>(0xA0 + i);
  return p;
}();
const std::vector<std::uint8_t> kBigPayload(1024, 0x5A);

// EV bytes 16..31 / a second container for the SRH segment list.
constexpr std::array<std::uint8_t, 32> kSegments = {
    0xfc, 0x00, 0x00, 0x00, 0x00, 0x21, 0xe0, 0x09, 0xd0, 0x01, 0, 0, 0, 0, 0, 0,
    0xfc, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x21, 0xe0, 0x09, 0, 0, 0, 0, 0, 0};

const DscpConfig kDscp{};  // W13 default DSCPs

FrameSpec base_ipv6(std::uint8_t op) {
  FrameSpec s;
  s.eth.dst = {0x02, 0, 0, 0, 0, 0x02};
  s.eth.src = {0x02, 0, 0, 0, 0, 0x01};
  s.l3 = L3Kind::kIpv6;
  s.ip6.dscp = kDscp.trimmable;  // W13 first transmissions of data
  s.ip6.ecn = kEcnEct0;
  s.ip6.flow_label = 0x0A5C3;  // W2 STEV: EV value >> 16
  s.ip6.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  s.ip6.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  s.udp.sport = 0x7E21;  // W2 STEV: EV value & 0xFFFF
  s.bth.opcode = op;
  s.bth.dest_qp = 0x000123;
  s.bth.ack_req = true;
  s.bth.psn = 0x000456;
  return s;
}

// An MRC 1.0 data packet (W3, W4): METH [+ TSETH] + RETH naming the whole message [+ ImmDt].
FrameSpec data_frame(std::uint8_t op, std::size_t payload_len, bool tseth = true) {
  FrameSpec s = base_ipv6(op);
  s.has_meth = true;
  s.meth.msn = 3;
  s.meth.rqmsn = op == opcode::kMrcWriteLastImm || op == opcode::kMrcWriteOnlyImm ? 1 : 0;
  s.has_tseth = tseth;
  s.tseth.tx_timestamp = 0x1234;
  s.has_reth = true;
  s.reth.va = 0x7F0000001000;
  s.reth.rkey = 0x1234;
  s.reth.dma_length = 4096;
  s.payload = Bytes(kPayload.data(), payload_len);
  s.has_immdt = op == opcode::kMrcWriteLastImm || op == opcode::kMrcWriteOnlyImm;
  s.immdt = 0xC0FFEE01;
  return s;
}

// An MRC 1.0 control packet (W5-W10) in the Control class, from the responder back.
FrameSpec control_frame(std::uint8_t op) {
  FrameSpec s = base_ipv6(op);
  s.ip6.dscp = kDscp.control;
  s.ip6.ecn = kEcnNotEct;  // W13: control not ECT
  s.bth.ack_req = false;
  return s;
}

FrameSpec transport_ack() {  // 0xD1: AETH (W3)
  FrameSpec s = control_frame(opcode::kMrcAck);
  s.has_aeth = true;
  s.aeth.syndrome = syndrome::kAck;
  s.aeth.msn = 7;
  return s;
}

FrameSpec sack(bool answers_probe) {  // 0xDC: SETH + CC_STATE (W5)
  FrameSpec s = control_frame(opcode::kMrcSack);
  s.has_sack = true;
  s.seth.m = answers_probe ? MpVerdict::kNone : MpVerdict::kSkipOnce;
  s.seth.pr = answers_probe;
  s.seth.ack_psn_offset = answers_probe ? 0x0042 : 7;  // with pr = 1: the probe_id
  s.seth.entropy = 0x0A5C7E21;  // the trigger's EV (W2 echo rule)
  s.seth.spdcid = 0x0022;
  s.seth.dpdcid = 0x0011;
  s.seth.cack_psn = 0x000450;
  s.seth.mpr = 4;
  s.seth.sack_offset = 1;
  if (!answers_probe) {
    for (unsigned k : {1u, 2u, 4u, 5u, 6u}) s.seth.set_sack_bit(k);
  }
  s.bth.psn = s.seth.cack_psn;
  s.cc.tx_timestamp = 0x1234;
  s.cc.ooo_count = answers_probe ? 0 : 5;
  s.cc.rcv_cwnd_pen = 3;
  s.cc.rcvd_bytes = 0x000123;
  return s;
}

FrameSpec nack_frame(std::uint8_t reason) {  // 0xDD: NETH (W7)
  FrameSpec s = control_frame(opcode::kMrcNack);
  s.has_neth = true;
  s.neth.nack_reason = reason;
  s.neth.entropy = 0x0A5C7E21;
  s.neth.spdcid = 0x0022;
  s.neth.dpdcid = 0x0011;
  s.neth.nack_psn = 0x000457;
  s.neth.tx_timestamp = 0x1234;
  s.bth.psn = s.neth.nack_psn;
  return s;
}

FrameSpec probe() {  // 0xDE: PETH (W9), sent by the requester in the trimmable class
  FrameSpec s = base_ipv6(opcode::kMrcProbe);
  s.has_peth = true;
  s.peth.probe_id = 0x0042;
  s.peth.spdcid = 0x0011;
  s.peth.dpdcid = 0x0022;
  s.peth.ts.tx_timestamp = 0x2345;
  return s;
}

FrameSpec endpoint_request(EpOp op) {  // 0xD8: ERTH (W10), to the endpoint QPN
  FrameSpec s = base_ipv6(opcode::kMrcEndpointReq);
  s.bth.dest_qp = kEndpointQpn;
  s.bth.psn = 0;
  s.has_erth = true;
  s.erth.op = ep_op_to_wire(op);
  s.erth.vendor_info = 0x42;
  s.erth.port_status_mask = op == EpOp::kPortStatusUpdate ? port_status_mask_of(0x0F) : 0;
  s.erth.ts.tx_timestamp = 0x3456;
  return s;
}

FrameSpec endpoint_response(EpOp op) {  // 0xD9: EETH (W10), its opaque bytes zero
  FrameSpec s = control_frame(opcode::kMrcEndpointRsp);
  s.bth.dest_qp = kEndpointQpn;
  s.bth.psn = 0;
  s.has_eeth = true;
  s.eeth.op = ep_op_to_wire(op);
  s.eeth.tx_timestamp = 0x3456;
  return s;
}

// Plain RoCEv2 (IBA layouts), which shares the capture with MRC: no METH, a RETH on the first
// packet of a WRITE only, an ACK of AETH alone.
FrameSpec rc_frame(std::uint8_t op, std::size_t payload_len) {
  FrameSpec s = base_ipv6(op);
  s.has_reth = op == opcode::kRcWriteFirst || op == opcode::kRcWriteOnly;
  s.reth.va = 0x7F0000002000;
  s.reth.rkey = 0x4321;
  s.reth.dma_length = 4096;
  s.has_aeth = op == opcode::kRcAck;
  s.aeth.syndrome = syndrome::kAck;
  s.aeth.msn = 9;
  s.payload = Bytes(kPayload.data(), payload_len);
  return s;
}

FrameSpec srv6(std::uint8_t op, bool with_srh, std::size_t segments) {  // W1
  FrameSpec s = data_frame(op, 32);
  s.srv6_encap = true;
  s.inner_ip6 = s.ip6;
  s.ip6.flow_label = 0;
  s.ip6.dst = {0xfc, 0, 0, 0, 0, 0x10, 0x00, 0x21, 0xe0, 0x09, 0xd0, 0x01, 0, 0, 0, 0};
  s.udp.sport = static_cast<std::uint16_t>(kSrv6SportBase | 0x17);
  s.has_srh = with_srh;
  s.srh.segments = Bytes(kSegments.data(), 16 * segments);
  s.srh.segments_left = 1;
  s.srh.last_entry = static_cast<std::uint8_t>(segments - 1);
  return s;
}

FrameSpec udp_mode_ipv4(std::size_t payload_len, std::uint8_t ihl, bool vlan) {
  FrameSpec s = data_frame(opcode::kMrcWriteOnly, payload_len);
  s.l3 = L3Kind::kIpv4;
  s.ip4.ihl = ihl;
  s.ip4.dscp = kDscp.trimmable;
  s.ip4.ecn = kEcnEct0;
  s.ip4.id = 0x1234;
  s.ip4.src = 0x0A000001;
  s.ip4.dst = 0x0A000002;
  s.udp.sport = 0xA5C3;  // UDP mode: the 16-bit EV
  s.eth.has_vlan = vlan;
  s.eth.vlan_tci = 0x6064;
  return s;
}

// What a trimming switch does to a data packet (W13): keep `keep` bytes, rewrite the DSCP, and
// fix the IPv6 payload length or leave it (the UDP length and the ICRC always stay stale).
struct Trim {
  std::size_t keep = 0;  // 0: the frame is written whole and untouched
  std::uint8_t dscp = 0;
  bool fix_ip_length = false;
};

bool write_frame(const std::string& dir, const std::string& name, const FrameSpec& spec,
                 const Trim& trim = {}) {
  std::vector<std::uint8_t> buf(kMaxFrameLen);
  const EncodeResult r = encode_frame(spec, buf);
  if (!r.ok()) {
    std::fprintf(stderr, "%s: encode failed: %s\n", name.c_str(), to_string(r.error).data());
    return false;
  }
  buf.resize(trim.keep != 0 && trim.keep < r.length ? trim.keep : r.length);
  if (trim.keep != 0) {
    // The frame is Ethernet (no VLAN) + IPv6; its TC spans bytes 0..1 of the IPv6 header.
    const std::size_t ip = kEthLen;
    const std::uint8_t tc = static_cast<std::uint8_t>(trim.dscp << 2 | spec.ip6.ecn);
    buf[ip] = static_cast<std::uint8_t>(0x60 | tc >> 4);
    buf[ip + 1] = static_cast<std::uint8_t>((tc & 0x0F) << 4 | (buf[ip + 1] & 0x0F));
    if (trim.fix_ip_length) {
      const std::size_t plen = buf.size() - ip - kIpv6Len;
      buf[ip + 4] = static_cast<std::uint8_t>(plen >> 8);
      buf[ip + 5] = static_cast<std::uint8_t>(plen);
    }
  }
  const std::string path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::perror(path.c_str());
    return false;
  }
  const bool ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output-dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  namespace oc = opcode;
  bool ok = true;
  ok &= write_frame(dir, "stev_write_first", data_frame(oc::kMrcWriteFirst, 64));
  ok &= write_frame(dir, "stev_write_middle", data_frame(oc::kMrcWriteMiddle, 64));
  ok &= write_frame(dir, "stev_write_middle_no_tseth", data_frame(oc::kMrcWriteMiddle, 64, false));
  ok &= write_frame(dir, "stev_write_last", data_frame(oc::kMrcWriteLast, 17));
  ok &= write_frame(dir, "stev_write_last_imm", data_frame(oc::kMrcWriteLastImm, 8));
  ok &= write_frame(dir, "stev_write_only", data_frame(oc::kMrcWriteOnly, 1));
  ok &= write_frame(dir, "stev_write_only_imm", data_frame(oc::kMrcWriteOnlyImm, 0));
  FrameSpec big = data_frame(oc::kMrcWriteMiddle, 0);
  big.payload = Bytes(kBigPayload);
  ok &= write_frame(dir, "stev_write_middle_1k", big);
  ok &= write_frame(dir, "udp_ipv4_write_only_pad3", udp_mode_ipv4(13, 5, false));
  ok &= write_frame(dir, "udp_ipv4_vlan_options", udp_mode_ipv4(20, 7, true));
  ok &= write_frame(dir, "srv6_srh_write_middle", srv6(oc::kMrcWriteMiddle, true, 1));
  ok &= write_frame(dir, "srv6_srh2_write_last_imm", srv6(oc::kMrcWriteLastImm, true, 2));
  ok &= write_frame(dir, "srv6_nosrh_write_first", srv6(oc::kMrcWriteFirst, false, 1));
  // MRC 1.0 control packets (W5-W10).
  ok &= write_frame(dir, "mrc_transport_ack", transport_ack());
  ok &= write_frame(dir, "mrc_sack", sack(false));
  ok &= write_frame(dir, "mrc_sack_probe_answer", sack(true));
  ok &= write_frame(dir, "mrc_nack_trimmed", nack_frame(nack::kTrimmed));
  ok &= write_frame(dir, "mrc_nack_psn_oor_window", nack_frame(nack::kPsnOorWindow));
  ok &= write_frame(dir, "mrc_probe", probe());
  ok &= write_frame(dir, "mrc_erth_ev_probe", endpoint_request(EpOp::kEvProbe));
  ok &= write_frame(dir, "mrc_erth_port_status", endpoint_request(EpOp::kPortStatusUpdate));
  ok &= write_frame(dir, "mrc_eeth_ev_probe", endpoint_response(EpOp::kEvProbe));
  // Plain RoCEv2 beside MRC (IBA layouts).
  ok &= write_frame(dir, "rc_write_first", rc_frame(oc::kRcWriteFirst, 64));
  ok &= write_frame(dir, "rc_write_middle", rc_frame(oc::kRcWriteMiddle, 64));
  ok &= write_frame(dir, "rc_ack", rc_frame(oc::kRcAck, 0));
  // W13: a 1 KiB data packet trimmed to 256 bytes with DSCP TRIMMED, no length fixed; and trimmed
  // on the last hop to BTH + METH + TSETH with the IP length fixed (the reference switch's way).
  ok &= write_frame(dir, "stub_trimmed_256", big, Trim{kTrimLength, kDscp.trimmed, false});
  const std::size_t least = kEthLen + kIpv6Len + kUdpLen + kBthLen + kMethLen + kTsethLen;
  ok &= write_frame(dir, "trimmed_lasthop_fixed_ip_length", big,
                    Trim{least, kDscp.trimmed_lasthop, true});
  // Not trimmed: a corrupt ICRC (decodes as corrupted) and a capture cut by a snap length.
  FrameSpec corrupt = data_frame(oc::kMrcWriteMiddle, 24);
  corrupt.corrupt_icrc = true;
  ok &= write_frame(dir, "bad_icrc_write_middle", corrupt);
  // (the snap-length cut keeps the frame's own DSCP: Trim only cuts it)
  ok &= write_frame(dir, "snap_cut_rc_write_first", rc_frame(oc::kRcWriteFirst, 64),
                    Trim{kEthLen + kIpv6Len + kUdpLen + kBthLen + kRethLen + 20, kDscp.trimmable, false});
  return ok ? 0 : 1;
}
