// Writes the fuzz seed corpus: one small, valid frame of every kind the decoder knows, built with
// encode_frame(), plus the two deliberately broken kinds the decoder must still accept (a trimmed
// stub and a corrupt ICRC). The output is checked in as tests/fuzz/corpus/; rerun this only when
// the wire model changes:  fuzz_seed_corpus_gen tests/fuzz/corpus
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

FrameSpec base_ipv6(std::uint8_t op) {
  FrameSpec s;
  s.eth.dst = {0x02, 0, 0, 0, 0, 0x02};
  s.eth.src = {0x02, 0, 0, 0, 0, 0x01};
  s.l3 = L3Kind::kIpv6;
  s.ip6.dscp = kDscpTrimmable;  // MODEL: M11
  s.ip6.ecn = kEcnEct0;
  s.ip6.flow_label = 0x0A5C3;  // MODEL: M2 STEV EV hi
  s.ip6.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  s.ip6.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  s.udp.sport = 0x7E21;  // MODEL: M2 STEV EV lo
  s.bth.opcode = op;
  s.bth.dest_qp = 0x000123;
  s.bth.ack_req = true;  // MODEL: M3
  s.bth.psn = 0x000456;
  return s;
}

FrameSpec data_frame(std::uint8_t op, std::size_t payload_len) {
  FrameSpec s = base_ipv6(op);
  s.has_reth = true;  // MODEL: M3 every MRC data packet carries its address
  s.reth.va = 0x7F0000001000;
  s.reth.rkey = 0x1234;
  s.reth.dma_length = static_cast<std::uint32_t>(payload_len);
  s.payload = Bytes(kPayload.data(), payload_len);
  s.has_immdt = op == opcode::kMrcWriteLastImm || op == opcode::kMrcWriteOnlyImm;
  s.immdt = 0xC0FFEE01;
  return s;
}

FrameSpec feedback(FeedbackType type, std::uint8_t syndrome) {  // MODEL: M5
  FrameSpec s = base_ipv6(opcode::kRcAck);
  s.ip6.dscp = kDscpControl;
  s.has_aeth = true;
  s.aeth.syndrome = syndrome;
  s.aeth.msn = 7;
  s.has_mfeh = true;
  s.mfeh.type = type;
  s.mfeh.ce = type == FeedbackType::kTrimNack;
  s.mfeh.svc_valid = s.mfeh.ev_valid = true;
  s.mfeh.svc_time = 125;
  s.mfeh.trig_psn = 0x000457;
  s.mfeh.ev_echo = 0x0A5C7E21;
  s.mfeh.ev_port = 3;
  if (type == FeedbackType::kSack) {
    s.mfeh.sack_valid = s.mfeh.mpr_valid = true;
    s.mfeh.mpr = 4;
    s.mfeh.sack_base_off = 1;
    s.mfeh.sack_bitmap = 0xF0F0'0000'0000'0001;
  }
  s.mfeh.rcvd_bytes = 65536;
  return s;
}

FrameSpec endpoint_op(std::uint8_t op, EpOp what, std::uint8_t rsp_ev_len) {  // MODEL: M6
  FrameSpec s = base_ipv6(op);
  s.ip6.dscp = kDscpControl;
  s.bth.dest_qp = kEpDestQp;
  s.bth.psn = 0;
  s.has_ep = true;
  s.ep.op = what;
  s.ep.svc_valid = op == opcode::kMrcEpRsp;
  s.ep.req_id = 0x4242;
  s.ep.port_status = 0xFF;
  s.ep.tx_timestamp = 123456789;
  s.ep.svc_time_ns = op == opcode::kMrcEpRsp ? 800 : 0;
  s.ep.rsp_fmt_mode = static_cast<std::uint8_t>(EvFmtMode::kSrv6);
  s.ep.rsp_port = 2;
  s.ep.rsp_ev_len = rsp_ev_len;
  for (std::size_t i = 0; i < rsp_ev_len; ++i) s.ep.rsp_ev[i] = kSegments[i];
  return s;
}

FrameSpec srv6(std::uint8_t op, bool with_srh, std::size_t segments) {  // MODEL: M1
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
  s.ip4.dscp = kDscpTrimmable;
  s.ip4.ecn = kEcnEct0;
  s.ip4.id = 0x1234;
  s.ip4.src = 0x0A000001;
  s.ip4.dst = 0x0A000002;
  s.udp.sport = 0xA5C3;  // UDP mode: the 16-bit EV
  s.eth.has_vlan = vlan;
  s.eth.vlan_tci = 0x6064;
  return s;
}

bool write_frame(const std::string& dir, const std::string& name, const FrameSpec& spec,
                 std::size_t keep = 0, std::uint8_t trimmed_dscp_byte_off = 0) {
  std::vector<std::uint8_t> buf(kMaxFrameLen);
  const EncodeResult r = encode_frame(spec, buf);
  if (!r.ok()) {
    std::fprintf(stderr, "%s: encode failed: %s\n", name.c_str(), to_string(r.error).data());
    return false;
  }
  buf.resize(keep != 0 && keep < r.length ? keep : r.length);
  if (trimmed_dscp_byte_off != 0) {
    // MODEL: M11 a trimming switch rewrites DSCP 10 -> 11 (IPv6: TC spans bytes 0..1).
    const std::uint8_t tc = static_cast<std::uint8_t>(kDscpTrimmed << 2 | kEcnEct0);
    buf[trimmed_dscp_byte_off] = static_cast<std::uint8_t>(0x60 | tc >> 4);
    buf[trimmed_dscp_byte_off + 1] =
        static_cast<std::uint8_t>((tc & 0x0F) << 4 | (buf[trimmed_dscp_byte_off + 1] & 0x0F));
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
  ok &= write_frame(dir, "stev_write_last", data_frame(oc::kMrcWriteLast, 17));
  ok &= write_frame(dir, "stev_write_last_imm", data_frame(oc::kMrcWriteLastImm, 8));
  ok &= write_frame(dir, "stev_write_only", data_frame(oc::kMrcWriteOnly, 1));
  ok &= write_frame(dir, "stev_write_only_imm", data_frame(oc::kMrcWriteOnlyImm, 0));
  FrameSpec big = data_frame(oc::kMrcWriteMiddle, 0);
  big.payload = Bytes(kBigPayload);
  big.reth.dma_length = static_cast<std::uint32_t>(kBigPayload.size());
  ok &= write_frame(dir, "stev_write_middle_1k", big);
  ok &= write_frame(dir, "udp_ipv4_write_only_pad3", udp_mode_ipv4(13, 5, false));
  ok &= write_frame(dir, "udp_ipv4_vlan_options", udp_mode_ipv4(20, 7, true));
  ok &= write_frame(dir, "srv6_srh_write_middle", srv6(oc::kMrcWriteMiddle, true, 1));
  ok &= write_frame(dir, "srv6_srh2_write_last_imm", srv6(oc::kMrcWriteLastImm, true, 2));
  ok &= write_frame(dir, "srv6_nosrh_write_first", srv6(oc::kMrcWriteFirst, false, 1));
  ok &= write_frame(dir, "fb_ack", feedback(FeedbackType::kAck, syndrome::kAck));
  ok &= write_frame(dir, "fb_sack", feedback(FeedbackType::kSack, syndrome::kAck));
  ok &= write_frame(dir, "fb_nack_loss", feedback(FeedbackType::kNackLoss, syndrome::kNakPsnSeqError));
  ok &= write_frame(dir, "fb_trim_nack", feedback(FeedbackType::kTrimNack, syndrome::kNakTrim));
  ok &= write_frame(dir, "fb_psn_out_of_range",
                    feedback(FeedbackType::kPsnOutOfRange, syndrome::kNakPsnSeqError));
  ok &= write_frame(dir, "ep_probe_req_ev32", endpoint_op(oc::kMrcEpReq, EpOp::kEvProbe, 32));
  ok &= write_frame(dir, "ep_probe_rsp_ev4", endpoint_op(oc::kMrcEpRsp, EpOp::kEvProbe, 4));
  ok &= write_frame(dir, "ep_port_status_ev0",
                    endpoint_op(oc::kMrcEpReq, EpOp::kPortStatusUpdate, 0));
  // MODEL: M11 a 1 KiB data frame trimmed to 256 bytes with DSCP 11, lengths not fixed up.
  ok &= write_frame(dir, "stub_trimmed_256", big, kTrimLength, kEthLen);
  FrameSpec corrupt = data_frame(oc::kMrcWriteMiddle, 24);
  corrupt.corrupt_icrc = true;
  ok &= write_frame(dir, "bad_icrc_write_middle", corrupt);
  return ok ? 0 : 1;
}
