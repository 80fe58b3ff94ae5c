// Test support: what a capture of the Pair's links shows, decoded, plus simple traffic helpers
// for the defect-symptom tests (every symptom is judged from the frames on the wire).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <tuple>
#include <vector>

#include "tests/reference/endpoint/endpoint_pair.hpp"

namespace mrc::ref::testing {

struct WireFrame {
  const TapRecord* tap = nullptr;
  wire::DecodedFrame f;
  bool ok = false;
  int from() const { return tap->from; }
  std::uint64_t t() const { return tap->t; }
  std::uint8_t port() const { return tap->port; }
};

// An endpoint request to `to` with id `id`, out of `port` on a UDP-mode EV of its own.
inline EpRequest request_to(const Endpoint& to, std::uint16_t id, std::uint8_t port) {
  EpRequest r;
  r.req_id = id;
  r.dgid = to.config().gid;
  r.dmac = to.config().mac;
  r.ev_fmt_mode = wire::EvFmtMode::kUdp;
  r.req_ev[0] = 0xC1;
  r.req_ev[1] = static_cast<std::uint8_t>(id);
  r.req_port = port;
  return r;
}

// Decodes every tapped frame (MRC framing unless told otherwise, ICRC verified).
inline std::vector<WireFrame> decode_taps(const Fabric& fab) {
  std::vector<WireFrame> out;
  out.reserve(fab.taps.size());
  for (const TapRecord& r : fab.taps) {
    WireFrame w;
    w.tap = &r;
    w.ok = wire::decode_frame(wire::Bytes(r.bytes.data(), r.bytes.size()), w.f).ok();
    out.push_back(w);
  }
  return out;
}

// The EV a frame travels on, as the wire shows it: port + flow label + UDP sport + outer DA.
struct EvKey {
  std::uint8_t port = 0;
  std::uint32_t flow_label = 0;
  std::uint16_t sport = 0;
  wire::Ipv6Addr da{};
  bool operator<(const EvKey& o) const {
    return std::tie(port, flow_label, sport, da) < std::tie(o.port, o.flow_label, o.sport, o.da);
  }
  bool operator==(const EvKey& o) const = default;
};
inline EvKey ev_key(const WireFrame& w) {
  return EvKey{w.port(), w.f.ip6.flow_label, w.f.udp.sport, w.f.ip6.dst};
}

// A path probe: the reference's health probes are reliability probes (W9); endpoint EV probes too.
inline bool is_probe(const WireFrame& w) {
  return w.ok && (w.f.bth.opcode == wire::opcode::kMrcProbe || w.f.bth.opcode == wire::opcode::kMrcEndpointReq);
}
inline bool is_sack(const WireFrame& w) { return w.ok && w.f.has_sack; }
inline bool is_nack(const WireFrame& w) { return w.ok && w.f.has_neth; }
inline bool is_transport_ack(const WireFrame& w) {
  return w.ok && w.f.has_aeth && w.f.bth.opcode == wire::opcode::kMrcAck;
}
// Any feedback (W5-W8).
inline bool is_feedback(const WireFrame& w) { return is_sack(w) || is_nack(w) || is_transport_ack(w); }
// Feedback whose BTH.PSN is a cumulative ACK: a SACK, a Transport ACK (not a NAK).
inline bool carries_cack(const WireFrame& w) {
  return is_sack(w) || (is_transport_ack(w) && w.f.aeth.syndrome == wire::syndrome::kAck);
}
inline bool is_data_frame(const WireFrame& w) { return w.ok && is_data(w.f); }

// The defect set of one catalog defect, for the symptom tests.
inline DefectSet with(Defect d) {
  DefectSet s;
  s.add(d);
  return s;
}

// Source and destination regions for simple traffic from A to B.
struct Traffic {
  transport::MemoryRegion src;
  transport::MemoryRegion dst;
  std::uint64_t next_off = 0;
  std::uint64_t posted = 0;
};

inline Traffic setup_traffic(Pair& p, std::size_t size = 1 << 22) {
  Traffic t;
  EXPECT_EQ(p.a->reg_mr(0, size, IBV_ACCESS_LOCAL_WRITE, t.src), 0);
  EXPECT_EQ(p.b->reg_mr(0, size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, t.dst), 0);
  auto s = p.a->mr_bytes(t.src.lkey);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return t;
}

// Posts `n` writes of `len` bytes (WRITE WITH IMM when `imm`, with a receive posted at B).
inline void post_writes(Pair& p, Traffic& t, int n, std::uint32_t len, bool imm = false) {
  for (int i = 0; i < n; ++i) {
    if (t.next_off + len > t.dst.length) t.next_off = 0;
    transport::SendWr wr;
    wr.wr_id = t.posted++;
    wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
    wr.local_addr = t.src.addr + t.next_off;
    wr.length = len;
    wr.lkey = t.src.lkey;
    wr.remote_addr = t.dst.addr + t.next_off;
    wr.rkey = t.dst.rkey;
    wr.imm_data = static_cast<std::uint32_t>(wr.wr_id);
    if (imm) {
      EXPECT_EQ(p.b->post_recv(p.qp.qpn_b, wr.wr_id), 0);
    }
    EXPECT_EQ(p.a->post_send(p.qp.qpn_a, wr), 0);
    t.next_off += len;
  }
}

// Completions drained from both sides: {successes at A, failures at A}.
inline std::pair<int, int> drain_completions(Pair& p) {
  int ok = 0, bad = 0;
  transport::Completion c;
  while (p.a->poll_completion(c)) (c.status == IBV_WC_SUCCESS ? ok : bad)++;
  while (p.b->poll_completion(c)) {
  }
  return {ok, bad};
}

// Largest number of PSNs A had sent but B had not cumulatively acknowledged, from the wire:
// for each data frame A emits, its PSN minus the newest cumulative ACK B had emitted before.
// With `new_only`, only first transmissions (a PSN above every PSN sent before) count; only data
// frames sent after `after_ns` count (feedback before it still moves the cumulative point).
inline std::uint32_t max_unacked_on_wire(const std::vector<WireFrame>& frames, std::uint32_t sq_psn,
                                         bool new_only = false, std::uint64_t after_ns = 0) {
  std::uint32_t cum_next = sq_psn;  // first PSN not yet cumulatively acknowledged
  std::uint32_t worst = 0;
  std::uint32_t next_new = sq_psn;
  for (const WireFrame& w : frames) {
    if (!w.ok) continue;
    if (w.from() == 1 && carries_cack(w)) {
      const std::uint32_t n = (w.f.bth.psn + 1) & transport::kPsnMask;
      if (transport::psn_before(cum_next, n)) cum_next = n;
    } else if (w.from() == 0 && is_data(w.f)) {
      const bool fresh = !transport::psn_before(w.f.bth.psn, next_new);
      if (fresh) next_new = (w.f.bth.psn + 1) & transport::kPsnMask;
      if ((new_only && !fresh) || w.t() < after_ns) continue;
      const std::uint32_t d = transport::psn_diff(w.f.bth.psn, cum_next) + 1;
      if (d < (1u << 23)) worst = std::max(worst, d);
    }
  }
  return worst;
}

}  // namespace mrc::ref::testing
