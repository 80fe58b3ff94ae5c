// Profile::kRoce: plain RoCEv2 frames over Ethernet + IPv4, of the kinds RDMA stacks send (IBA
// opcodes and headers; nothing MRC-specific). Field values are seeded random; the expectations
// come from the spec, as in cross_frames.cpp. Kinds, rotating with the frame index:
//   0..2   RDMA CM ConnectRequest / ConnectReply / ReadyToUse: UD SEND ONLY to QP 1, DETH + MAD
//   3      RC RDMA WRITE ONLY (RETH)        4  RC ACKNOWLEDGE (BTH + AETH + ICRC: 62 bytes)
//   5      RC RDMA READ REQUEST (RETH)      6..9  READ RESPONSE FIRST / MIDDLE / LAST / ONLY
//   10..12 RC SEND FIRST / SEND LAST WITH IMMEDIATE / SEND ONLY WITH IMMEDIATE, UDP source port 69
//   13     RC ACKNOWLEDGE from UDP source port 69
//   14..15 RDMA CM DisconnectRequest / DisconnectReply
// UDP source port 69 (TFTP's) is below 4791, as some NICs pick it: Wireshark then tries TFTP
// unless a heuristic dissector (mrc.lua's, with udp.try_heuristic_first) claims the frame.
#include <array>
#include <string>

#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"
#include "tests/cross/cross_frames.hpp"
#include "tests/cross/frame_finish.hpp"

namespace mrc::cross {
namespace {

using namespace mrc::wire;
using nlohmann::json;

inline constexpr std::size_t kDethLen = 8;
inline constexpr std::size_t kMadLen = 256;
inline constexpr std::uint32_t kCmQkey = 0x80010000u;  // the well-known GSI Q_Key (IBA 13.5.1)
inline constexpr std::uint8_t kMadClassCm = 0x07;      // Communication Management (IBA 12.6)
inline constexpr std::uint8_t kMadMethodSend = 0x03;
inline constexpr std::size_t kPmtu = 1024;
inline constexpr std::uint16_t kLowSport = 69;

struct Kind {
  std::uint8_t opcode;
  std::uint16_t cm_attr;  // non-zero: a CM MAD with this attribute ID
  bool low_sport;
  bool reverse;  // sent by the responder (responses, ACKs, CM replies)
  const char* name;
};

constexpr std::array<Kind, kRoceKinds> kKinds = {{
    {opcode::kUdSendOnly, 0x0010, false, false, "cm_connect_request"},
    {opcode::kUdSendOnly, 0x0013, false, true, "cm_connect_reply"},
    {opcode::kUdSendOnly, 0x0014, false, false, "cm_ready_to_use"},
    {opcode::kRcWriteOnly, 0, false, false, "rc_write_only"},
    {opcode::kRcAck, 0, false, true, "rc_ack"},
    {opcode::kRcReadRequest, 0, false, false, "rc_read_request"},
    {opcode::kRcReadRespFirst, 0, false, true, "rc_read_response_first"},
    {opcode::kRcReadRespMiddle, 0, false, true, "rc_read_response_middle"},
    {opcode::kRcReadRespLast, 0, false, true, "rc_read_response_last"},
    {opcode::kRcReadRespOnly, 0, false, true, "rc_read_response_only"},
    {opcode::kRcSendFirst, 0, true, false, "rc_send_first"},
    {opcode::kRcSendLastImm, 0, true, false, "rc_send_last_imm"},
    {opcode::kRcSendOnlyImm, 0, true, false, "rc_send_only_imm"},
    {opcode::kRcAck, 0, true, true, "rc_ack_low_sport"},
    {opcode::kUdSendOnly, 0x0015, false, false, "cm_disconnect_request"},
    {opcode::kUdSendOnly, 0x0016, false, true, "cm_disconnect_reply"},
}};

// The extension headers IBA gives the opcodes above (IBA 9.2; CM MADs keep DETH + MAD in the
// payload, as the wire decoder does for UD SEND ONLY).
struct IbaHeaders {
  bool reth = false, immdt = false, aeth = false;
};
IbaHeaders iba_headers(std::uint8_t op) {
  IbaHeaders h;
  h.reth = op == opcode::kRcWriteOnly || op == opcode::kRcReadRequest;
  h.immdt = op == opcode::kRcSendLastImm || op == opcode::kRcSendOnlyImm;
  h.aeth = op == opcode::kRcAck || op == opcode::kRcReadRespFirst ||
           op == opcode::kRcReadRespLast || op == opcode::kRcReadRespOnly;
  return h;
}

void put_be(std::uint8_t* p, std::uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * (bytes - 1 - i)));
}

}  // namespace

GeneratedFrame FrameFactory::make_roce(std::uint32_t index) {
  const Kind& k = kKinds[index % kRoceKinds];
  FrameSpec s;
  json e;
  e["_index"] = index;
  e["_kind"] = k.name;
  e["_l3"] = "ipv4";

  // Two hosts; the responder's frames go the other way.
  static constexpr std::array<std::uint8_t, 6> kMacA = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01};
  static constexpr std::array<std::uint8_t, 6> kMacB = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x02};
  const std::uint32_t ip_a = 0x0A140001u, ip_b = 0x0A140002u;  // 10.20.0.1, 10.20.0.2
  for (std::size_t i = 0; i < 6; ++i) {
    s.eth.dst[i] = k.reverse ? kMacA[i] : kMacB[i];
    s.eth.src[i] = k.reverse ? kMacB[i] : kMacA[i];
  }
  s.eth.ethertype = kEthTypeIpv4;
  s.l3 = L3Kind::kIpv4;
  s.ip4.src = k.reverse ? ip_b : ip_a;
  s.ip4.dst = k.reverse ? ip_a : ip_b;
  s.ip4.dscp = bits(1) ? 26 : 0;
  s.ip4.ecn = bits(1) ? kEcnEct0 : 0;
  s.ip4.id = static_cast<std::uint16_t>(bits(16));
  s.udp.sport = k.low_sport ? kLowSport : static_cast<std::uint16_t>(0xC000 | bits(14));
  s.udp.dport = kRoceV2Port;
  e["udp.sport"] = s.udp.sport;

  s.bth.opcode = k.opcode;
  s.bth.pkey = 0xFFFF;
  s.bth.mig_req = true;
  s.bth.dest_qp = k.cm_attr != 0 ? 1u : static_cast<std::uint32_t>(0x11 + bits(23));
  s.bth.psn = static_cast<std::uint32_t>(bits(24));
  const bool last = k.opcode != opcode::kRcSendFirst && k.opcode != opcode::kRcReadRespFirst &&
                    k.opcode != opcode::kRcReadRespMiddle;
  s.bth.ack_req = !k.reverse && last && k.cm_attr == 0;
  s.bth.se = k.opcode == opcode::kRcSendLastImm || k.opcode == opcode::kRcSendOnlyImm;
  expect_bth(s.bth, e);

  std::vector<std::uint8_t> payload;
  if (k.cm_attr != 0) {
    payload.assign(kDethLen + kMadLen, 0);
    put_be(payload.data(), kCmQkey, 4);
    put_be(payload.data() + 5, 1, 3);  // source QP 1
    std::uint8_t* mad = payload.data() + kDethLen;
    mad[0] = 1;  // base version
    mad[1] = kMadClassCm;
    mad[2] = 2;  // class version
    mad[3] = kMadMethodSend;
    put_be(mad + 8, bits(64), 8);  // transaction ID
    put_be(mad + 16, k.cm_attr, 2);
    put_be(mad + 24, bits(32), 4);  // local communication ID
    e["deth.qkey"] = kCmQkey;
    e["deth.srcqp"] = 1;
    e["mad.mgmt_class"] = kMadClassCm;
    e["mad.attr_id"] = k.cm_attr;
  } else if (k.opcode != opcode::kRcAck && k.opcode != opcode::kRcReadRequest) {
    const bool full = !last;  // FIRST / MIDDLE packets carry a whole PMTU
    payload.resize(full ? kPmtu : 1 + bits(10));
    for (auto& b : payload) b = static_cast<std::uint8_t>(bits(8));
  }
  s.payload = Bytes(payload.data(), payload.size());

  const IbaHeaders lay = iba_headers(k.opcode);
  if (lay.reth) {
    s.has_reth = true;
    s.reth.va = 0x00007f0000000000u | (bits(32) << 12);
    s.reth.rkey = static_cast<std::uint32_t>(bits(32));
    s.reth.dma_length = k.opcode == opcode::kRcWriteOnly
                            ? static_cast<std::uint32_t>(payload.size())
                            : static_cast<std::uint32_t>(1 + bits(20));
    e["reth.va"] = s.reth.va;
    e["reth.rkey"] = s.reth.rkey;
    e["reth.len"] = s.reth.dma_length;
  }
  if (lay.immdt) {
    s.has_immdt = true;
    s.immdt = static_cast<std::uint32_t>(bits(32));
    e["immdt"] = s.immdt;
  }
  if (lay.aeth) {
    s.has_aeth = true;
    s.aeth.syndrome = static_cast<std::uint8_t>(bits(5));  // ACK with a credit count (0..31)
    s.aeth.msn = static_cast<std::uint32_t>(bits(24));
    e["aeth.syndrome"] = s.aeth.syndrome;
    e["aeth.msn"] = s.aeth.msn;
  }
  return finish(s, std::move(e));
}

}  // namespace mrc::cross
