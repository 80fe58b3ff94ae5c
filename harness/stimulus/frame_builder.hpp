// Builds the bytes of a frame a case describes compactly (case_model.hpp FrameSpec: opcode, PSN,
// EV, METH / TSETH / RETH, AETH, SETH, NETH, PETH, ERTH / EETH, flags, payload pattern, DSCP/ECN,
// bad ICRC, truncation) with the wire codecs (wire::encode_frame, wire::place_ev). Unset fields
// take what the reference endpoint would send on the QP: its addresses, the DUT's QPN (DestQP 0x2
// for endpoint operations), P_Key 0xFFFF, the Data class + ECT(0) for data and probes and the
// Control class for feedback and endpoint operations (W13 default DSCPs), a RETH naming the DUT's
// buffer at (PSN - first PSN) x MTU for data opcodes (W4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"
#include "reference/wire/frame.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::harness::stim {

// One EV of the sender's array: on-wire (expanded) bytes and its index.
struct WireEv {
  wire::EvBytes wire{};
  std::uint8_t port = 1;
  std::uint8_t index = 0;
};

// Who sends to whom, and what the receiving QP expects.
struct FrameContext {
  wire::MacAddr src_mac{};
  wire::MacAddr dst_mac{};
  wire::Ipv6Addr src_gid{};
  wire::Ipv6Addr dst_gid{};
  bool ipv4 = false;             // UDP-mode over IPv4
  std::uint32_t src_ipv4 = 0;    // host order
  std::uint32_t dst_ipv4 = 0;
  wire::EvFmtMode mode = wire::EvFmtMode::kStev;
  std::vector<WireEv> evs;       // the sender's EV array; FrameSpec::ev indexes it
  // SRv6: true builds the encapsulated form a host puts into the fabric; false the inner packet
  // a host receives after decapsulation at the last hop (W1).
  bool srv6_encapsulated = false;
  std::uint32_t dqpn = 0;        // the receiver's QPN
  std::uint64_t buffer_va = 0;   // the receiver's buffer and R_Key (default RETH)
  std::uint64_t buffer_bytes = 0;  // ... and its length (RETH past_end)
  std::uint32_t rkey = 0;
  std::uint32_t first_psn = 0;
  std::uint32_t mtu = 4096;
  std::uint64_t seed = 1;        // PRBS payloads
  // W13 the run's traffic classes: a frame without its own `dscp` travels in `trimmable` (data)
  // or `control`, and a cut data frame in `trimmed` / `trimmed_lasthop` is built as a trim.
  wire::DscpConfig dscp;
};

struct BuiltFrame {
  std::vector<std::uint8_t> bytes;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};

BuiltFrame build_frame(const FrameSpec& spec, const FrameContext& ctx);

// True for the MRC WRITE data opcodes (0xC6..0xCB, W3).
bool is_write_opcode(std::uint8_t opcode);

}  // namespace mrc::harness::stim
