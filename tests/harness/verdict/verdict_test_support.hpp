// Building CheckContexts for the verdict tests: frames encoded with wire::encode_frame into
// harness::Capture taps, as a DUT on a multi-port testbed would have sent and received them.
//
// EV i of a scenario has the STEV value ev_value(i) and leaves on port (i % ports) + 1. Taps are
// "dut.pN.tx" (from the DUT, port N) and "dut.pN.rx" (to the DUT), with evidence files of the
// same name plus ".pcapng". finish() marks every capture complete (offered = captured), so a
// test breaks integrity on purpose when it wants the gate to fire.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/verdict/check_context.hpp"
#include "reference/wire/codec.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"
#include "reference/wire/ev_placement.hpp"

namespace mrc::harness::testing {

inline constexpr std::uint32_t kDutQpn = 0x000111;
inline constexpr std::uint32_t kPeerQpn = 0x000222;

// W2 STEV value V of EV i: flow label = V >> 16, UDP sport = V & 0xFFFF.
inline std::uint32_t ev_value(std::uint32_t i) { return ((0x1000u + i) << 16) | (0xC100u + i); }

struct Data {
  std::uint8_t opcode = wire::opcode::kMrcWriteOnly;
  std::uint32_t psn = 0;
  std::uint32_t ev = 0;  // STEV value V
  std::uint32_t dqpn = kPeerQpn;
  std::uint64_t va = 0x10000;
  std::uint32_t len = 256;
  std::uint32_t dma_len = 0xFFFFFFFF;  // default: len
  bool reth = true;
  bool imm = false;
  std::uint32_t immdt = 0;
  std::uint8_t dscp = wire::kDscpTrimmable;
  std::uint8_t ecn = wire::kEcnEct0;
  bool corrupt_icrc = false;
  std::size_t trim_to = 0;  // > 0: a trimmed packet (DSCP 11, or 13 when `dscp` says so, cut to
                            // this many bytes, IP and UDP lengths fixed as the simulated switch does; W13)
  std::uint16_t msn = 0;    // METH msn (W4)
  std::uint16_t rqmsn = 0;
  bool rtx = false;
  bool ack_req = true;      // BTH.A
  bool tseth = false;       // a TSETH with tx_timestamp `ts` (W4)
  std::uint16_t ts = 0;
  std::uint8_t fill = 0x5A;
  std::uint8_t src_host = 1;  // last byte of the source MAC and GID
  std::uint8_t dst_host = 2;
  std::uint32_t flow_label = 0xFFFFFFFF;  // default: ev >> 16
};

// Feedback (W5-W8): a Transport ACK (0xD1 + AETH), a SACK (0xDC + SETH + CC_STATE) or a NACK
// (0xDD + NETH). `psn` is the cumulative ACK: a Transport ACK's BTH.PSN, a SACK's cack_psn. A
// SACK's ack_psn and a NACK's nack_psn (= its BTH.PSN) are `trig_psn`.
enum class Fb : std::uint8_t { kAck, kSack, kNack };
struct Feedback {
  Fb kind = Fb::kAck;
  std::uint32_t psn = 0;
  std::uint32_t dqpn = kDutQpn;
  std::uint8_t syndrome = wire::syndrome::kAck;  // Transport ACK / NAK
  std::uint32_t trig_psn = 0;
  std::uint32_t ev_echo = 0;           // SETH / NETH entropy
  bool ce = false;                     // SACK: m = SKIP_ONCE
  bool pr = false;                     // SACK: answers the reliability probe `probe_id`
  std::uint16_t probe_id = 0;
  std::uint16_t ts = 0;                // the reflected tx_timestamp (CC_STATE / NETH)
  std::int16_t sack_offset = 1;        // bitmap base = psn + sack_offset
  std::uint64_t sack_bitmap = 0;       // bit wire::Seth::sack_mask(k) = PSN base + k
  std::uint32_t rcvd_units = 0;        // CC_STATE rcvd_bytes
  std::uint16_t spdcid = kDutQpn & 0xFFFF;   // SETH / NETH PDC ids (W5): the sender's orientation
  std::uint16_t dpdcid = kPeerQpn & 0xFFFF;
  std::uint8_t reason = wire::nack::kTrimmed;  // NACK
  std::uint8_t dscp = wire::kDscpControl;
  std::uint32_t ev = 0;  // EV the feedback itself travels on
  std::uint8_t src_host = 2;
  std::uint8_t dst_host = 1;
};

// A reliability probe (0xDE + PETH, W9).
struct RelProbe {
  std::uint32_t ev = 0;
  std::uint16_t probe_id = 0;
  bool has_ts = true;
  std::uint16_t ts = 0;
  std::uint32_t dqpn = kDutQpn;
  std::uint8_t dscp = wire::kDscpControl;
};

struct Probe {
  std::uint32_t ev = 0;
  std::uint16_t req_id = 0;
  wire::EpOp op = wire::EpOp::kEvProbe;
  std::uint8_t dscp = wire::kDscpControl;
  std::uint32_t port_status_mask = 0;  // a port-status update's ERTH mask (W10)
};

namespace detail {
inline wire::FrameSpec base_spec(std::uint32_t ev, std::uint8_t dscp, std::uint8_t ecn, std::uint8_t src = 1,
                                 std::uint8_t dst = 2) {
  wire::FrameSpec s;
  s.eth.src = {0x02, 0, 0, 0, 0, src};
  s.eth.dst = {0x02, 0, 0, 0, 0, dst};
  s.l3 = wire::L3Kind::kIpv6;
  s.ip6.dscp = dscp;
  s.ip6.ecn = ecn;
  s.ip6.flow_label = ev >> 16;  // W2
  s.ip6.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, src};
  s.ip6.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, dst};
  s.udp.sport = static_cast<std::uint16_t>(ev & 0xFFFF);  // W2
  return s;
}

inline std::vector<std::uint8_t> finish(const wire::FrameSpec& s) {
  std::vector<std::uint8_t> buf(wire::kMaxFrameLen);
  const auto r = wire::encode_frame(s, buf);
  EXPECT_TRUE(r.ok()) << wire::to_string(r.error);
  buf.resize(r.length);
  return buf;
}
}  // namespace detail

inline std::vector<std::uint8_t> encode(const Data& d) {
  wire::FrameSpec s = detail::base_spec(d.ev, d.trim_to && d.dscp != wire::DscpConfig{}.trimmed_lasthop ? wire::kDscpTrimmed : d.dscp,
                                         d.ecn, d.src_host, d.dst_host);
  std::vector<std::uint8_t> payload(d.len, d.fill);
  s.bth.opcode = d.opcode;
  s.bth.dest_qp = d.dqpn;
  s.bth.psn = d.psn & 0xFFFFFF;
  s.bth.ack_req = d.ack_req;
  s.bth.rtx = d.rtx;
  s.has_tseth = d.tseth && wire::is_mrc_data(d.opcode);
  s.tseth = wire::Tseth{d.ts, false, wire::kFtypeTimestamp};
  s.has_meth = wire::is_mrc_data(d.opcode);
  s.meth = wire::Meth{d.rqmsn, d.msn};
  s.has_reth = d.reth;
  s.reth.va = d.va;
  s.reth.rkey = 0x1234;
  s.reth.dma_length = d.dma_len == 0xFFFFFFFF ? d.len : d.dma_len;
  if (d.flow_label != 0xFFFFFFFF) s.ip6.flow_label = d.flow_label;
  s.has_immdt = d.imm;
  s.immdt = d.immdt;
  s.payload = wire::Bytes(payload);
  s.corrupt_icrc = d.corrupt_icrc;
  auto out = detail::finish(s);
  if (d.trim_to && d.trim_to < out.size()) {  // IPv6 at 14, UDP at 54 (base_spec's layout)
    out.resize(d.trim_to);
    wire::store_be16(out.data() + 14 + 4, static_cast<std::uint16_t>(d.trim_to - 14 - wire::kIpv6Len));
    wire::store_be16(out.data() + 54 + 4, static_cast<std::uint16_t>(d.trim_to - 54));
  }
  return out;
}

// An SRv6 data frame (W1): outer DA = uSID container, single-segment SRH with
// `segments_left`, inner IPv6, sport = 0xC000 | ev_index (the W2 SRv6 tag).
// `sport` >= 0 replaces the reference's EV tag (0xC000 | index) in the inner UDP source port.
inline std::vector<std::uint8_t> encode_srv6(std::uint32_t ev_index, std::uint32_t psn, std::uint8_t segments_left = 1,
                                             int sport = -1) {
  wire::FrameSpec s = detail::base_spec(0, wire::kDscpTrimmable, wire::kEcnEct0);
  std::vector<std::uint8_t> payload(128, 0x33);
  s.bth.opcode = wire::opcode::kMrcWriteOnly;
  s.bth.dest_qp = kPeerQpn;
  s.bth.psn = psn;
  s.has_meth = true;
  s.has_reth = true;
  s.reth.va = 0x1000;
  s.reth.dma_length = 128;
  s.payload = wire::Bytes(payload);
  wire::EvBytes ev{};
  ev[0] = 0xfc;
  ev[1] = static_cast<std::uint8_t>(ev_index);
  ev[16] = 0xfc;
  ev[17] = 0x01;
  std::array<std::uint8_t, 16> seg{};
  wire::place_ev(s, wire::EvFmtMode::kSrv6, ev, static_cast<std::uint8_t>(ev_index), seg);
  s.srh.segments_left = segments_left;
  if (sport >= 0) s.udp.sport = static_cast<std::uint16_t>(sport);
  return detail::finish(s);
}

inline std::vector<std::uint8_t> encode(const Feedback& f) {
  wire::FrameSpec s = detail::base_spec(f.ev, f.dscp, wire::kEcnEct0, f.src_host, f.dst_host);
  s.bth.dest_qp = f.dqpn;
  s.bth.psn = (f.kind == Fb::kNack ? f.trig_psn : f.psn) & 0xFFFFFF;
  switch (f.kind) {
    case Fb::kAck:
      s.bth.opcode = wire::opcode::kMrcAck;
      s.has_aeth = true;
      s.aeth.syndrome = f.syndrome;
      s.aeth.msn = 1;
      break;
    case Fb::kSack:
      s.bth.opcode = wire::opcode::kMrcSack;
      s.has_sack = true;
      s.seth.m = f.ce ? wire::MpVerdict::kSkipOnce : wire::MpVerdict::kNone;
      s.seth.pr = f.pr;
      s.seth.ack_psn_offset = f.pr ? static_cast<std::int16_t>(f.probe_id)
                                   : static_cast<std::int16_t>((f.trig_psn - f.psn) & 0xFFFF);
      s.seth.entropy = f.ev_echo;
      s.seth.cack_psn = f.psn & 0xFFFFFF;
      s.seth.sack_offset = f.sack_offset;
      s.seth.sack_bitmap = f.sack_bitmap;
      s.cc.tx_timestamp = f.ts;
      s.cc.rcvd_bytes = f.rcvd_units;
      s.seth.spdcid = f.spdcid;
      s.seth.dpdcid = f.dpdcid;
      break;
    case Fb::kNack:
      s.bth.opcode = wire::opcode::kMrcNack;
      s.has_neth = true;
      s.neth.nack_reason = f.reason;
      s.neth.entropy = f.ev_echo;
      s.neth.nack_psn = f.trig_psn & 0xFFFFFF;
      s.neth.tx_timestamp = f.ts;
      s.neth.spdcid = f.spdcid;
      s.neth.dpdcid = f.dpdcid;
      break;
  }
  return detail::finish(s);
}

inline std::vector<std::uint8_t> encode(const RelProbe& p) {
  wire::FrameSpec s = detail::base_spec(p.ev, p.dscp, wire::kEcnEct0, 1, 2);
  s.bth.opcode = wire::opcode::kMrcProbe;
  s.bth.dest_qp = p.dqpn;
  s.has_peth = true;
  s.peth.probe_id = p.probe_id;
  s.peth.ts = p.has_ts ? wire::Timestamp{p.ts, false, wire::kFtypeTimestamp} : wire::Timestamp{0, false, 0};
  return detail::finish(s);
}

// SACK shorthands: cumulative ACK `cum`, answering `trig` (its EV echoed by ev_value(trig % 8)).
inline Feedback sack(std::uint32_t cum, std::uint64_t bitmap, std::uint32_t trig) {
  Feedback f;
  f.kind = Fb::kSack;
  f.psn = cum;
  f.sack_bitmap = bitmap;
  f.trig_psn = trig;
  f.ev_echo = ev_value(trig % 8);
  return f;
}
// A NACK naming `psn` with `reason` (echoing ev_value(psn % 8)).
inline Feedback nack(std::uint32_t psn, std::uint8_t reason = wire::nack::kTrimmed) {
  Feedback f;
  f.kind = Fb::kNack;
  f.trig_psn = psn;
  f.reason = reason;
  f.ev_echo = ev_value(psn % 8);
  return f;
}

inline std::vector<std::uint8_t> encode(const Probe& p) {
  wire::FrameSpec s = detail::base_spec(p.ev, p.dscp, wire::kEcnEct0);
  s.bth.opcode = wire::opcode::kMrcEndpointReq;  // W10: DestQP 0x2, the id in PSN[15:0]
  s.bth.dest_qp = wire::kEndpointQpn;
  s.bth.psn = p.req_id;
  s.has_erth = true;
  s.erth.op = wire::ep_op_to_wire(p.op);
  s.erth.port_status_mask = p.port_status_mask;
  return detail::finish(s);
}

// A failure of the links EVs `evs` (STEV values) cross, as the runner records it.
inline FaultEvent link_down(std::uint64_t at_ns, std::vector<std::uint32_t> evs, std::string target = "plane2/leaf0-spine0") {
  FaultEvent f;
  f.at_ns = at_ns;
  f.kind = "link_down";
  f.target = std::move(target);
  f.plane = 2;
  f.affected_evs = std::move(evs);
  return f;
}

class Scenario {
 public:
  // `ports` DUT ports, `evs` EVs in the DUT's profile (GOOD, not denied).
  explicit Scenario(int ports = 4, int evs = 8) : ports_(ports) {
    for (int p = 1; p <= ports; ++p) {
      for (bool from : {true, false}) {
        TapCapture t;
        t.name = "dut.p" + std::to_string(p) + (from ? ".tx" : ".rx");
        t.pcap = t.name + ".pcapng";
        t.host = 0;
        t.port = p;
        t.from_dut = from;
        t.capture.set_tap(t.name);
        ctx.taps.push_back(std::move(t));
      }
    }
    for (int i = 0; i < evs; ++i) {
      EvRecord e;
      e.index = static_cast<std::uint32_t>(i);
      e.port = static_cast<std::uint8_t>(port_of_ev(static_cast<std::uint32_t>(i)));
      e.echo = ev_value(static_cast<std::uint32_t>(i));
      ctx.dut.evs.push_back(e);
    }
    ctx.case_id = "test-v-001";
    ctx.dut.ev_fmt_mode = 1;  // STEV
    ctx.dut.dut_qpn = kDutQpn;
    ctx.dut.peer_qpn = kPeerQpn;
  }

  CheckContext ctx;

  TapCapture& tx(int port) { return ctx.taps[static_cast<std::size_t>(2 * (port - 1))]; }      // from the DUT
  TapCapture& rx(int port) { return ctx.taps[static_cast<std::size_t>(2 * (port - 1) + 1)]; }  // to the DUT
  int port_of_ev(std::uint32_t i) const { return static_cast<int>(i % static_cast<std::uint32_t>(ports_)) + 1; }

  // Frames the DUT sends, on the port of EV `ev_index` unless `port` is given.
  void dut_sends(std::uint64_t ts, Data d, std::uint32_t ev_index, int port = 0) {
    d.ev = ev_value(ev_index);
    tx(port ? port : port_of_ev(ev_index)).capture.add(ts, encode(d));
  }
  void dut_sends(std::uint64_t ts, const Feedback& f, int port = 1) {
    Feedback g = f;
    if (g.dqpn == kDutQpn) g.dqpn = kPeerQpn;  // the DUT's feedback goes to the peer's QP
    tx(port).capture.add(ts, encode(g));
  }
  void dut_sends(std::uint64_t ts, const Probe& p, int port) { tx(port).capture.add(ts, encode(p)); }
  // Frames that reach the DUT.
  void dut_receives(std::uint64_t ts, Data d, std::uint32_t ev_index, int port = 0) {
    d.ev = ev_value(ev_index);
    if (d.dqpn == kPeerQpn) d.dqpn = kDutQpn;
    rx(port ? port : port_of_ev(ev_index)).capture.add(ts, encode(d));
  }
  void dut_receives(std::uint64_t ts, const Feedback& f, int port = 1) { rx(port).capture.add(ts, encode(f)); }
  void dut_receives(std::uint64_t ts, const Probe& p, int port) { rx(port).capture.add(ts, encode(p)); }
  void dut_receives(std::uint64_t ts, RelProbe p, std::uint32_t ev_index, int port = 0) {
    p.ev = ev_value(ev_index);
    rx(port ? port : port_of_ev(ev_index)).capture.add(ts, encode(p));
  }
  void raw(std::uint64_t ts, bool from_dut, int port, const std::vector<std::uint8_t>& bytes) {
    (from_dut ? tx(port) : rx(port)).capture.add(ts, bytes);
  }

  // Round-robin WRITE ONLY packets from the DUT: PSN first_psn + k on EV (k % evs), one per `gap` ns.
  void spray(std::uint64_t t0, std::uint32_t first_psn, std::size_t n, std::uint64_t gap = 100) {
    const auto evs = static_cast<std::uint32_t>(ctx.dut.evs.size());
    for (std::size_t k = 0; k < n; ++k) {
      Data d;
      d.psn = first_psn + static_cast<std::uint32_t>(k);
      d.va = 0x10000 + k * d.len;
      dut_sends(t0 + k * gap, d, static_cast<std::uint32_t>(k) % evs);
    }
  }

  // Marks every capture complete; call before running a check.
  CheckContext& finish() {
    std::uint64_t end = 0;
    for (auto& t : ctx.taps) {
      t.capture.integrity().offered = t.capture.integrity().captured;
      if (!t.capture.empty()) end = std::max(end, t.capture.packets().back().ts_ns);
    }
    ctx.end_ns = std::max(ctx.end_ns, end + 1);
    return ctx;
  }

 private:
  int ports_;
};

}  // namespace mrc::harness::testing
