// Test helpers for the responder: data frames built with wire::encode_frame and decoded back with
// wire::decode_frame (so the responder sees exactly what it would see from the wire), a sink that
// records feedback, and a fixture with one registered region.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "reference/transport/feedback.hpp"
#include "reference/transport/memory.hpp"
#include "reference/transport/responder.hpp"
#include "reference/wire/codec.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::transport::test {

inline constexpr std::uint32_t kLocalQpn = 0x000123;
inline constexpr std::uint32_t kRemoteQpn = 0x000456;

// One frame on the wire and its decoded view (the view points into `bytes`).
struct WireFrame {
  std::vector<std::uint8_t> bytes;
  wire::DecodedFrame f;
  wire::DecodeResult r;
};

struct DataPacket {
  std::uint8_t opcode = wire::opcode::kMrcWriteOnly;
  std::uint32_t psn = 0;
  std::uint32_t dest_qp = kLocalQpn;
  std::uint16_t pkey = 0xFFFF;
  bool ack_req = false;
  std::uint64_t va = 0;
  std::uint32_t rkey = 0;
  std::int64_t dma_length = -1;  // -1: the payload size
  std::uint32_t imm = 0;
  std::vector<std::uint8_t> payload;
  std::uint32_t flow_label = 0x1;  // STEV: EV = (flow_label << 16) | sport
  std::uint16_t sport = 0xC000;
  std::uint8_t dscp = wire::kDscpTrimmable;
  std::uint8_t ecn = wire::kEcnEct0;
  bool corrupt_icrc = false;
  std::size_t truncate_to = 0;  // > 0: keep only this many bytes (a trimming switch: with DSCP 11
                                // or 13 the IP and UDP lengths are fixed to match, W13)
  std::uint16_t msn = 0;        // METH msn (W4)
  bool rtx = false;
  bool tseth = false;           // a TSETH with `ts` (W4)
  std::uint16_t ts = 0;
  bool with_reth = true;        // for opcodes that carry one
};

inline std::uint32_t stev_ev(const DataPacket& p) { return ((p.flow_label & 0xFFFF) << 16) | p.sport; }

inline WireFrame encode(const DataPacket& p) {
  wire::FrameSpec s;
  s.eth.src = {0x02, 0, 0, 0, 0, 0x01};
  s.eth.dst = {0x02, 0, 0, 0, 0, 0x02};
  s.l3 = wire::L3Kind::kIpv6;
  s.ip6.src[0] = 0xfd;
  s.ip6.src[15] = 1;
  s.ip6.dst[0] = 0xfd;
  s.ip6.dst[15] = 2;
  s.ip6.dscp = p.dscp;
  s.ip6.ecn = p.ecn;
  s.ip6.flow_label = p.flow_label;
  s.udp.sport = p.sport;
  s.bth.opcode = p.opcode;
  s.bth.psn = p.psn;
  s.bth.dest_qp = p.dest_qp;
  s.bth.pkey = p.pkey;
  s.bth.ack_req = p.ack_req;
  const wire::ExtLayout l = wire::ext_layout(p.opcode);
  s.bth.rtx = p.rtx;
  s.has_meth = l.meth;
  s.meth.msn = p.msn;
  s.has_tseth = l.meth && p.tseth;
  s.tseth.tx_timestamp = p.ts;
  s.has_reth = l.reth && p.with_reth;
  s.reth.va = p.va;
  s.reth.rkey = p.rkey;
  s.reth.dma_length = p.dma_length >= 0 ? static_cast<std::uint32_t>(p.dma_length)
                                        : static_cast<std::uint32_t>(p.payload.size());
  s.has_immdt = l.immdt;
  s.has_aeth = l.aeth;
  s.immdt = p.imm;
  s.payload = wire::Bytes(p.payload.data(), p.payload.size());
  s.corrupt_icrc = p.corrupt_icrc;
  WireFrame w;
  w.bytes.resize(wire::kMaxFrameLen);
  const wire::EncodeResult e = wire::encode_frame(s, w.bytes);
  EXPECT_TRUE(e.ok()) << wire::to_string(e.error);
  w.bytes.resize(e.length);
  if (p.truncate_to != 0 && p.truncate_to < w.bytes.size()) {
    w.bytes.resize(p.truncate_to);
    if (((wire::DscpConfig{}.trimmed_mask() >> p.dscp) & 1u) != 0) {  // IPv6 at 14, UDP at 54
      wire::store_be16(w.bytes.data() + 18, static_cast<std::uint16_t>(p.truncate_to - 14 - wire::kIpv6Len));
      wire::store_be16(w.bytes.data() + 58, static_cast<std::uint16_t>(p.truncate_to - 54));
    }
  }
  w.r = wire::decode_frame(w.bytes, w.f);
  EXPECT_TRUE(w.r.ok()) << wire::to_string(w.r.error) << " at " << w.r.offset;
  return w;
}

struct SentFeedback {
  TxPacket pkt;
  FeedbackEgress egress;
  bool is_sack() const { return pkt.has_sack; }
  bool is_nack() const { return pkt.has_neth; }
  bool is_ack() const { return pkt.has_aeth && pkt.bth.opcode == wire::opcode::kMrcAck; }  // Transport ACK / NAK
  const wire::Seth& seth() const { return pkt.seth; }
  const wire::CcState& cc() const { return pkt.cc; }
  const wire::Neth& neth() const { return pkt.neth; }
  std::uint8_t syndrome() const { return pkt.aeth.syndrome; }
  std::uint32_t cum() const { return pkt.bth.psn; }  // cack_psn of a SACK or ACK, the PSN of a NACK
};

class RecordingSink : public FeedbackSink {
 public:
  void send_feedback(const TxPacket& pkt, const FeedbackEgress& egress) override {
    sent.push_back({pkt, egress});
  }
  std::size_t size() const { return sent.size(); }
  const SentFeedback& last() const { return sent.back(); }
  std::size_t count(bool (SentFeedback::*kind)() const) const {
    std::size_t n = 0;
    for (const auto& f : sent) n += (f.*kind)();
    return n;
  }
  // The newest feedback of one kind (the sink must hold one).
  const SentFeedback& last_of(bool (SentFeedback::*kind)() const) const {
    for (auto it = sent.rbegin(); it != sent.rend(); ++it) {
      if (((*it).*kind)()) return *it;
    }
    ADD_FAILURE() << "no feedback of that kind";
    return sent.back();
  }
  void clear() { sent.clear(); }
  std::vector<SentFeedback> sent;
};

// A responder over one 64 KiB remotely writable region.
class ResponderTest : public ::testing::Test {
 protected:
  void make(ResponderConfig cfg = {}, ResponderQuirks q = {}) {
    cfg.qpn = kLocalQpn;
    cfg.remote_qpn = kRemoteQpn;
    cfg_ = cfg;
    const auto reg = mem_.register_region(64 * 1024, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    ASSERT_EQ(reg.status, MemStatus::kOk);
    mr_ = reg.mr;
    rsp_ = std::make_unique<Responder>(cfg, mem_, q);
  }

  // A data packet writing `len` bytes of `fill` at region offset `off`.
  DataPacket data(std::uint8_t opcode, std::uint32_t psn, std::size_t off = 0, std::size_t len = 64,
                  std::uint8_t fill = 0xAB) const {
    DataPacket p;
    p.opcode = opcode;
    p.psn = psn & 0xFFFFFF;
    p.va = mr_.addr + off;
    p.rkey = mr_.rkey;
    p.payload.assign(len, fill);
    return p;
  }

  RxOutcome deliver(const DataPacket& p, std::uint64_t now, std::uint8_t port = 1) {
    WireFrame w = encode(p);
    return rsp_->on_data(w.f, port, now, sink_);
  }

  // The region bytes [off, off + len).
  std::vector<std::uint8_t> memory(std::size_t off, std::size_t len) const {
    wire::Bytes v;
    EXPECT_EQ(mem_.local_view(mr_.lkey, mr_.addr + off, len, v), MemStatus::kOk);
    return {v.begin(), v.end()};
  }
  static std::vector<std::uint8_t> filled(std::size_t len, std::uint8_t b) {
    return std::vector<std::uint8_t>(len, b);
  }

  std::vector<Completion> completions() {
    std::vector<Completion> out;
    Completion c;
    while (rsp_->poll_completion(c)) out.push_back(c);
    return out;
  }

  ResponderConfig cfg_;
  MemoryTable mem_;
  MemoryRegion mr_;
  std::unique_ptr<Responder> rsp_;
  RecordingSink sink_;
};

}  // namespace mrc::transport::test
