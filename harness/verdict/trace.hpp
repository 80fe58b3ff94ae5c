// A run's frames as one time-ordered list of compact records: what the invariant, distribution,
// timing and positive-control checks reason over.
//
// build_trace() decodes every frame of the chosen taps once (FrameCursor), keeps the fields the
// checks use in a PacketRec, and merges the taps by timestamp. One vector per check run; nothing
// per packet beyond it. Each record keeps its tap and packet index, so any finding points back at
// the evidence pcap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/verdict/check_context.hpp"
#include "harness/verdict/frame_cursor.hpp"

namespace mrc::harness {

struct PacketRec {
  std::uint64_t ts_ns = 0;
  std::uint64_t va = 0;            // RETH VA (has_reth)
  std::uint64_t sack_bitmap = 0;   // W5: bit k = PSN sack_base + k
  std::uint64_t srv6_path = 0;     // W1: key of the outer DA and SRH segment (encapsulated only)
  std::uint32_t index = 0;         // packet index in its tap's capture
  std::uint32_t psn = 0;
  std::uint32_t dqpn = 0;
  std::uint32_t ev = 0;            // EV identity on the wire (ev_echo_value for the DUT's mode)
  std::uint32_t payload_len = 0;
  std::uint32_t wire_len = 0;      // bytes on the wire (captured packet's origlen)
  std::uint32_t dma_len = 0;
  std::uint32_t rkey = 0;
  std::uint32_t immdt = 0;
  std::uint32_t msn = 0;            // AETH MSN
  std::uint16_t meth_msn = 0;       // W4 METH msn (has_meth)
  std::uint16_t meth_rqmsn = 0;     // W4 METH rqmsn
  std::uint16_t tx_ts = 0;          // W4 TSETH tx_timestamp (has_tseth), W9 PETH's (peth_ts)
  std::uint32_t trig_psn = 0;      // the PSN a SACK answers (pr = 0) or a NACK names (W5, W7)
  std::uint32_t ev_echo = 0;       // SETH / NETH entropy: the EV echoed (W2)
  std::uint32_t sack_base = 0;     // W5: absolute PSN of bitmap bit 0
  std::uint32_t rcvd_units = 0;    // W5: CC_STATE rcvd_bytes (256-byte units)
  std::uint32_t port_status_mask = 0;  // W10: ERTH port_status_mask (port-status updates)
  std::uint32_t flow_label = 0;
  std::uint16_t tap = 0;           // index into CheckContext::taps
  std::uint16_t sport = 0;
  std::uint16_t pkey = 0;          // BTH P_Key
  std::uint16_t reflected_ts = 0;  // W5, W7: CC_STATE / NETH tx_timestamp
  std::uint16_t probe_id = 0;      // W9: PETH probe_id, or the one a pr = 1 SACK echoes
  std::uint16_t ooo_count = 0;     // W5
  std::uint16_t req_id = 0;        // W10: BTH.PSN[15:0] of an endpoint request / response
  std::uint16_t spdcid = 0;        // W5, W7, W9: SETH / NETH / PETH PDC ids
  std::uint16_t dpdcid = 0;
  std::uint8_t port = 0;           // the tap's 1-based port = plane
  std::uint8_t opcode = 0;
  FrameClass cls = FrameClass::kOther;
  std::uint8_t ip_version = 6;
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  std::uint8_t syndrome = 0;
  std::uint8_t seth_m = 0;         // W5 multipath verdict (0 NONE, 1 SKIP_ONCE, 2 ALWAYS_SKIP)
  std::uint8_t nack_reason = 0;    // W7
  std::uint8_t mpr = 0;            // W5 SETH.mpr
  std::uint8_t ep_op = 0;          // W10: ERTH / EETH op (wire value)
  std::uint8_t srh_sl = 0;
  std::uint8_t srh_le = 0;
  std::uint8_t srh_segments = 0;
  bool from_dut = false;
  bool icrc_ok = false;
  bool trimmed = false;
  bool has_reth = false;
  bool has_immdt = false;
  bool has_aeth = false;
  bool has_sack = false;           // 0xDC
  bool has_neth = false;           // 0xDD
  bool has_peth = false;           // 0xDE
  bool seth_pr = false;            // a SACK answering a reliability probe
  bool has_ep = false;             // an endpoint request (ERTH) or response (EETH)
  bool ack_req = false;
  bool rtx = false;                 // W3 BTH RTX
  bool has_meth = false;
  bool has_tseth = false;
  bool peth_ts = false;             // W9 the probe carries a timestamp (ftype 1)
  bool encapsulated = false;
  bool has_srh = false;

  bool is_data() const { return cls == FrameClass::kData; }
  bool is_write_data() const { return is_write(opcode); }
  bool is_feedback() const { return cls == FrameClass::kFeedback; }
  bool is_sack() const { return has_sack; }
  bool is_nack() const { return has_neth; }
  bool is_trim_nack() const { return has_neth && (nack_reason == wire::nack::kTrimmed || nack_reason == wire::nack::kTrimmedLastHop); }
  // A Transport ACK or NAK (0xD1 + AETH, W8).
  bool is_transport_ack() const { return has_aeth && opcode == wire::opcode::kMrcAck; }
  // A probe of one path: a reliability probe (W9) or an endpoint EV probe (W10). Either may test
  // an ASSUMED_BAD EV; which one is the DUT's choice (W11).
  bool is_path_probe() const {
    return has_peth || (opcode == wire::opcode::kMrcEndpointReq && has_ep &&
                        ep_op == static_cast<std::uint8_t>(wire::EpWireOp::kEvProbe));
  }
  // Whether BTH.PSN is a cumulative ACK: a SACK's cack_psn, a Transport ACK's (W5, W8).
  bool carries_cack() const { return is_sack() || (is_transport_ack() && syndrome == wire::syndrome::kAck); }
  // SETH.m = SKIP_ONCE: the SACK reports its trigger arrived ECN-CE marked (W6).
  bool skip_once() const { return has_sack && seth_m == static_cast<std::uint8_t>(wire::MpVerdict::kSkipOnce); }
  // Whether bit k (PSN sack_base + k) of a SACK's bitmap is set, in wire::Seth's bit order.
  bool sack_bit(unsigned k) const { return (sack_bitmap & wire::Seth::sack_mask(k)) != 0; }
};

struct TraceIssue {
  std::uint16_t tap = 0;
  DecodeIssue issue;
};

struct Trace {
  std::vector<PacketRec> packets;   // by timestamp; ties keep tap order, then capture order
  std::vector<TraceIssue> issues;   // the first few malformed frames per tap
  std::size_t malformed = 0;
  std::size_t foreign = 0;
  std::array<std::size_t, 32> malformed_by_error{};  // index = wire::WireError
};

// Which taps a check looks at.
enum class TapSide : std::uint8_t { kAll, kFromDut, kToDut };
std::vector<std::size_t> select_taps(const CheckContext& ctx, TapSide side);

Trace build_trace(const CheckContext& ctx, const std::vector<std::size_t>& taps);

// What the checks call: build_trace(), or, while a SharedTraces for `ctx` lives on this thread,
// the trace it built for the same taps earlier.
std::shared_ptr<const Trace> trace_of(const CheckContext& ctx, const std::vector<std::size_t>& taps);

// While it lives, the checks run on this thread on `ctx` share one trace per tap set: the checks
// of a case each decoded and ICRC-checked every frame again, a tenth of a campaign's CPU time. For
// a context nothing changes while it lives (the runner's judge_case()); one per thread at a time.
class SharedTraces {
 public:
  explicit SharedTraces(const CheckContext& ctx);
  ~SharedTraces();
  SharedTraces(const SharedTraces&) = delete;
  SharedTraces& operator=(const SharedTraces&) = delete;

  std::size_t built() const { return traces_.size(); }  // distinct tap sets decoded (tests)

 private:
  friend std::shared_ptr<const Trace> trace_of(const CheckContext&, const std::vector<std::size_t>&);
  const CheckContext& ctx_;
  SharedTraces* outer_;
  std::vector<std::pair<std::vector<std::size_t>, std::shared_ptr<const Trace>>> traces_;
};

// For every WRITE data packet sent by the DUT: the position in t.packets of the previous
// transmission of the same PSN on the same destination QP (kNoPacket for a first transmission
// and for every other packet). A packet with a previous transmission is a retransmission.
inline constexpr std::uint32_t kNoPacket = 0xFFFFFFFFu;
std::vector<std::uint32_t> previous_transmissions(const Trace& t);

// ---- 24-bit PSN arithmetic ------------------------------------------------------------------
inline constexpr std::uint32_t kPsnMask = 0xFFFFFF;
inline std::uint32_t psn_add(std::uint32_t psn, std::int64_t d) {
  return static_cast<std::uint32_t>((static_cast<std::int64_t>(psn) + d) & kPsnMask);
}
// b - a as a signed distance in [-2^23, 2^23).
inline std::int32_t psn_diff(std::uint32_t b, std::uint32_t a) {
  std::int32_t d = static_cast<std::int32_t>((b - a) & kPsnMask);
  return d >= (1 << 23) ? d - (1 << 24) : d;
}

// A data frame the DUT may accept: a WRITE with a good ICRC that is not a trimmed stub (W13).
inline bool valid_arrival(const PacketRec& p) { return p.is_write_data() && p.icrc_ok && !p.trimmed; }

}  // namespace mrc::harness
