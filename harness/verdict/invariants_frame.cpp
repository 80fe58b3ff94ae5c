// Invariants on each frame the DUT sends: the per-packet RETH of MRC framing (MODEL: M3), a
// valid ICRC, only the opcodes MRC allows, DSCP (MODEL: M11) and ECN marking. A frame the DUT
// sent that does not decode at all violates the "well-formed" invariants: it is counted and
// shown, never skipped silently.
#include "harness/verdict/flat_index.hpp"
#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {
namespace {

constexpr std::uint64_t kUnset = ~std::uint64_t{0};

// Malformed frames from the DUT (only its taps are in the trace) as violations; `only` limits
// them to one decode error (kOk: every kind).
void malformed_violations(Run& r, wire::WireError only, const char* field, const char* expected) {
  const std::size_t n = only == wire::WireError::kOk
                            ? r.t.malformed
                            : r.t.malformed_by_error[static_cast<std::size_t>(only) % r.t.malformed_by_error.size()];
  std::size_t shown = 0;
  for (const TraceIssue& ti : r.t.issues) {
    if (only != wire::WireError::kOk && ti.issue.error != only) continue;
    Evidence e;
    e.pcap = pcap_of(r.ctx.taps[ti.tap]);
    e.packet_index = static_cast<std::int64_t>(ti.issue.index);
    e.ts_ns = ti.issue.ts_ns;
    e.field = field;
    e.expected = expected;
    e.observed = "undecodable: " + std::string(wire::to_string(ti.issue.error)) + " at byte " + std::to_string(ti.issue.offset);
    e.display_filter = frame_filter(ti.issue.index);
    r.violation(std::move(e));
    ++shown;
  }
  for (; shown < n; ++shown) r.findings.count_only();  // beyond the kept issues: counted
  r.judged += n;
}

bool allowed_opcode(std::uint8_t op) {  // WRITE family, ACK, and the model's endpoint ops
  return is_write(op) || op == wire::opcode::kRcAck || op == wire::opcode::kMrcEpReq || op == wire::opcode::kMrcEpRsp;
}

}  // namespace

void reth_every_packet(Run& r) {  // MODEL: M3
  FlatIndex first(r.t.packets.size());  // (dqpn, psn) -> position of its first transmission
  r.judged_what = "WRITE data packets from the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!dut_data(p)) continue;
    ++r.judged;
    if (!p.has_reth) {
      r.violation(p, "reth.va", "a RETH on every WRITE packet", "absent");
      continue;
    }
    if (!p.trimmed && p.dma_len != p.payload_len) {
      r.violation(p, "reth.len", std::to_string(p.payload_len) + " (this packet's payload)", std::to_string(p.dma_len));
    }
    std::uint32_t* slot = first.find_or_insert(psn_key(p.dqpn, p.psn));
    if (!slot) continue;
    if (*slot == FlatIndex::kNone) {
      *slot = static_cast<std::uint32_t>(i);
    } else if (r.t.packets[*slot].va != p.va) {
      r.violation(p, "reth.va", hex(r.t.packets[*slot].va) + " (as in the first transmission of PSN " + std::to_string(p.psn) + ")",
                  hex(p.va));
    }
  }
  // Inside a message each packet's VA = the previous packet's VA + its payload, whatever order
  // the packets were sprayed in.
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!dut_data(p) || !p.has_reth || is_write_first(p.opcode)) continue;
    if (first.get(psn_key(p.dqpn, p.psn)) != i) continue;  // judge first transmissions once
    const std::uint32_t q = first.get(psn_key(p.dqpn, psn_add(p.psn, -1)));
    if (q == FlatIndex::kNone) continue;
    const PacketRec& before = r.t.packets[q];
    if (is_write_last(before.opcode) || !before.has_reth) continue;
    const std::uint64_t expect = before.va + before.payload_len;
    if (expect != p.va) {
      r.violation(p, "reth.va", hex(expect) + " (VA of PSN " + std::to_string(before.psn) + " + its " +
                                    std::to_string(before.payload_len) + " payload bytes)",
                  hex(p.va));
    }
  }
}

void icrc_valid(Run& r) {
  r.judged_what = "frames from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!p.from_dut) continue;
    ++r.judged;
    if (!p.icrc_ok) r.violation(p, "icrc", "good", "bad");
  }
  malformed_violations(r, wire::WireError::kOk, "icrc", "a frame whose ICRC can be verified");
}

void allowed_opcodes(Run& r) {
  r.judged_what = "frames from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!p.from_dut) continue;
    ++r.judged;
    if (!allowed_opcode(p.opcode)) {
      r.violation(p, "bth.opcode", "WRITE (0x06..0x0b), ACK (0x11) or an endpoint op (0xc0/0xc1)", hex(p.opcode));
    }
  }
  malformed_violations(r, wire::WireError::kBadOpcode, "bth.opcode", "an opcode MRC defines");
}

void dscp_marking(Run& r) {  // MODEL: M11
  const std::uint64_t data = r.param("data", wire::kDscpTrimmable);
  const std::uint64_t feedback = r.param("feedback", wire::kDscpControl);
  const std::uint64_t probe = r.param("probe", kUnset);  // probes use req_tc: judged only when given
  r.judged_what = "frames from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!p.from_dut) continue;
    std::uint64_t want = kUnset;
    if (p.is_write_data()) want = data;
    if (p.is_feedback()) want = feedback;
    if (p.cls == FrameClass::kEndpoint) want = probe;
    if (want == kUnset) continue;
    ++r.judged;
    if (p.dscp != want) r.violation(p, "ip.dscp", std::to_string(want), std::to_string(p.dscp));
  }
}

void ecn_capable(Run& r) {
  r.judged_what = "data packets from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p)) continue;
    ++r.judged;
    if (p.ecn != wire::kEcnEct0) r.violation(p, "ip.ecn", "2 (ECT(0))", std::to_string(p.ecn));
  }
}

}  // namespace mrc::harness::inv
