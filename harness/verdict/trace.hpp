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
  std::uint64_t sack_bitmap = 0;   // MODEL: M5
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
  std::uint16_t tx_ts = 0;          // W4 TSETH tx_timestamp (has_tseth)
  std::uint32_t trig_psn = 0;      // MODEL: M5
  std::uint32_t ev_echo = 0;       // MODEL: M5
  std::uint32_t flow_label = 0;
  std::uint16_t tap = 0;           // index into CheckContext::taps
  std::uint16_t sport = 0;
  std::uint16_t pkey = 0;          // BTH P_Key
  std::uint16_t sack_base_off = 0; // MODEL: M5
  std::uint16_t svc_time = 0;      // MODEL: M5
  std::uint16_t req_id = 0;        // MODEL: M6
  std::uint8_t port = 0;           // the tap's 1-based port = plane
  std::uint8_t opcode = 0;
  FrameClass cls = FrameClass::kOther;
  std::uint8_t ip_version = 6;
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  std::uint8_t syndrome = 0;
  std::uint8_t fb_type = 0;        // MODEL: M5 MFEH type
  std::uint8_t ev_port = 0;        // MODEL: M5
  std::uint8_t mpr = 0;            // MODEL: M5
  std::uint8_t ep_op = 0;          // MODEL: M6
  std::uint8_t srh_sl = 0;
  std::uint8_t srh_le = 0;
  std::uint8_t srh_segments = 0;
  bool from_dut = false;
  bool icrc_ok = false;
  bool trimmed = false;
  bool has_reth = false;
  bool has_immdt = false;
  bool has_aeth = false;
  bool has_mfeh = false;
  bool has_ep = false;
  bool ack_req = false;
  bool rtx = false;                 // W3 BTH RTX
  bool has_meth = false;
  bool has_tseth = false;
  bool ce = false;
  bool svc_valid = false;
  bool ev_valid = false;
  bool mpr_valid = false;
  bool sack_valid = false;
  bool encapsulated = false;
  bool has_srh = false;

  bool is_data() const { return cls == FrameClass::kData; }
  bool is_write_data() const { return is_write(opcode); }
  bool is_feedback() const { return cls == FrameClass::kFeedback; }
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

// A data frame the DUT may accept: a WRITE with a good ICRC that is not a trimmed stub (M11).
inline bool valid_arrival(const PacketRec& p) { return p.is_write_data() && p.icrc_ok && !p.trimmed; }

}  // namespace mrc::harness
