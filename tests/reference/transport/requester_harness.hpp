// Test support for the requester alone: a Requester over N EVs spread on P ports, a payload
// buffer, and builders for the feedback a responder would send (W5-W8).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <vector>

#include "reference/transport/requester.hpp"

namespace mrc::transport::testing {

inline RequesterConfig default_config() {
  RequesterConfig c;
  c.qpn = 0x111;
  c.dest_qpn = 0x222;
  c.sq_psn = 0x1000;
  c.mtu = 1024;
  c.mpr = 8;
  c.max_wimm = 128;
  c.timeout = 8;  // T = 262,144 ns
  c.retry = {7, 25};
  c.max_send_wr = 256;
  return c;
}

struct Harness {
  explicit Harness(RequesterConfig cfg = default_config(), std::uint32_t n_evs = 16,
                   std::uint8_t ports = 8, ev::HealthParams hp = {}, ev::HealthQuirks hq = {},
                   ev::SelectorQuirks sq = {}, const cc::NsccParams* nscc = nullptr,
                   bool never_decrease = false)
      : buf(1 << 20) {
    std::iota(buf.begin(), buf.end(), std::uint8_t{0});
    for (std::uint32_t i = 0; i < n_evs; ++i) {
      evs.push_back(ev::EvSlotInit{static_cast<std::uint8_t>(1 + i % ports), false});
    }
    r = std::make_unique<Requester>(cfg, evs, hp, hq, sq, nscc, never_decrease);
  }

  // Posts a write of `len` bytes from buf[src_off..] to remote `remote`.
  int write(std::uint64_t id, std::uint32_t len, bool imm = false, std::uint64_t remote = 0x10000000,
            std::uint32_t src_off = 0, unsigned flags = IBV_SEND_SIGNALED) {
    SendWr wr;
    wr.wr_id = id;
    wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
    wr.local_addr = src_off;
    wr.length = len;
    wr.remote_addr = remote;
    wr.rkey = 0x77;
    wr.imm_data = static_cast<std::uint32_t>(id * 3 + 1);
    wr.send_flags = flags;
    return r->post(wr, wire::Bytes(buf.data() + src_off, len));
  }

  // Every packet the requester lets out at `now` (bounded).
  std::vector<TxPacket> drain(std::uint64_t now, std::size_t max = 1 << 20) {
    std::vector<TxPacket> out;
    TxPacket p;
    while (out.size() < max && r->next_packet(now, p)) out.push_back(p);
    return out;
  }
  std::vector<Completion> completions() {
    std::vector<Completion> out;
    Completion c;
    while (r->poll_completion(c)) out.push_back(c);
    return out;
  }

  std::vector<std::uint8_t> buf;
  std::vector<ev::EvSlotInit> evs;
  std::unique_ptr<Requester> r;
};

inline std::uint32_t psn(std::uint32_t base, std::uint32_t i) { return (base + i) & kPsnMask; }

// ---- feedback builders (W5-W8) ---------------------------------------------------------------
// A SACK with cack_psn `cum_psn` answering `trig`, bitmap bits for the given received PSNs (all
// within 64 of `base`; default base cack_psn + 1). It acknowledges for reliability only: WRs
// complete on a Transport ACK (tack).
inline FeedbackInfo sack(std::uint32_t cum_psn, std::uint32_t trig, std::uint32_t base,
                         const std::vector<std::uint32_t>& received) {
  FeedbackInfo f;
  f.kind = FeedbackInfo::Kind::kSack;
  f.psn = cum_psn & kPsnMask;
  f.seth.cack_psn = f.psn;
  f.seth.ack_psn_offset = static_cast<std::int16_t>(static_cast<std::int32_t>(psn_diff(trig, cum_psn) << 8) >> 8);
  f.seth.sack_offset = static_cast<std::int16_t>(static_cast<std::int32_t>(psn_diff(base, cum_psn) << 8) >> 8);
  for (std::uint32_t p : received) {
    const std::uint32_t i = psn_diff(p, base);
    if (i < 64) f.seth.set_sack_bit(i);
  }
  return f;
}
inline FeedbackInfo ack(std::uint32_t cum_psn, std::uint32_t trig) { return sack(cum_psn, trig, psn(cum_psn, 1), {}); }

// A Transport ACK (or NAK with `syndrome`) with BTH.PSN `cum_psn`.
inline FeedbackInfo tack(std::uint32_t cum_psn, std::uint8_t syndrome = wire::syndrome::kAck) {
  FeedbackInfo f;
  f.kind = FeedbackInfo::Kind::kAck;
  f.psn = cum_psn & kPsnMask;
  f.syndrome = syndrome;
  return f;
}

// A NACK naming `psn` with `reason` (W7).
inline FeedbackInfo nack(std::uint32_t nacked, std::uint8_t reason = wire::nack::kTrimmed) {
  FeedbackInfo f;
  f.kind = FeedbackInfo::Kind::kNack;
  f.psn = nacked & kPsnMask;
  f.neth.nack_reason = reason;
  f.neth.nack_psn = f.psn;
  return f;
}
inline FeedbackInfo trim_nack(std::uint32_t trimmed) { return nack(trimmed, wire::nack::kTrimmed); }

}  // namespace mrc::transport::testing
