// Invariants on each frame the DUT sends: the per-packet RETH of MRC data packets (W4), a valid
// ICRC, only the opcodes MRC allows (W3), DSCP (W13) and ECN marking. A frame the DUT
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

bool allowed_opcode(std::uint8_t op) { return wire::is_mrc_opcode(op); }  // W3

}  // namespace

namespace {

// First transmissions of the DUT's data packets by (QP, PSN), and each message's packets walked
// in PSN order from its FIRST / ONLY packet: what the RETH and METH rules are judged on.
struct Messages {
  FlatIndex first;
  explicit Messages(const Trace& t) : first(t.packets.size()) {
    for (std::size_t i = 0; i < t.packets.size(); ++i) {
      const PacketRec& p = t.packets[i];
      if (!dut_data(p)) continue;
      std::uint32_t* slot = first.find_or_insert(psn_key(p.dqpn, p.psn));
      if (slot && *slot == FlatIndex::kNone) *slot = static_cast<std::uint32_t>(i);
    }
  }
  bool is_first_tx(std::size_t i, const PacketRec& p) const { return first.get(psn_key(p.dqpn, p.psn)) == i; }
  // The packets of the message that starts at `head`, head first; stops at its LAST packet or at
  // the first PSN that was not captured (`complete` false then).
  template <typename Fn>
  void walk(const Trace& t, const PacketRec& head, bool& complete, Fn fn) const {
    complete = false;
    for (std::uint32_t k = 0; k < (1u << 16); ++k) {
      const std::uint32_t q = first.get(psn_key(head.dqpn, psn_add(head.psn, k)));
      if (q == FlatIndex::kNone) return;
      const PacketRec& p = t.packets[q];
      if (k > 0 && is_write_first(p.opcode)) return;  // a new message before this one ended
      fn(p);
      if (is_write_last(p.opcode)) {
        complete = true;
        return;
      }
    }
  }
};

}  // namespace

void reth_every_packet(Run& r) {  // W4
  const Messages m(r.t);
  r.judged_what = "WRITE data packets from the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!dut_data(p)) continue;
    ++r.judged;
    if (!p.has_reth) {
      r.violation(p, "reth.va", "a RETH on every WRITE packet", "absent");
      continue;
    }
    if (!p.trimmed && p.payload_len > p.dma_len) {
      r.violation(p, "reth.len", "at least " + std::to_string(p.payload_len) + " (the message holds this packet's payload)",
                  std::to_string(p.dma_len));
    }
    const std::uint32_t f = m.first.get(psn_key(p.dqpn, p.psn));
    if (f != i && f != FlatIndex::kNone && r.t.packets[f].has_reth) {
      const PacketRec& q = r.t.packets[f];
      if (q.va != p.va || q.dma_len != p.dma_len || q.rkey != p.rkey) {
        const bool va = q.va != p.va;
        r.violation(p, va ? "reth.va" : (q.dma_len != p.dma_len ? "reth.len" : "reth.rkey"),
                    (va ? hex(q.va) : q.dma_len != p.dma_len ? std::to_string(q.dma_len) : hex(q.rkey)) +
                        " (as in the first transmission of PSN " + std::to_string(p.psn) + ")",
                    va ? hex(p.va) : q.dma_len != p.dma_len ? std::to_string(p.dma_len) : hex(p.rkey));
      }
    }
  }
  // Inside a message each packet's VA = the previous packet's VA + its payload, whatever order
  // the packets were sprayed in; every packet names the message's R_Key and its whole length
  // (S1: W4), which a message seen whole must add up to.
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& head = r.t.packets[i];
    if (!dut_data(head) || !head.has_reth || head.trimmed || !is_write_first(head.opcode) || !m.is_first_tx(i, head)) {
      continue;
    }
    const PacketRec* before = nullptr;
    std::uint64_t total = 0;
    bool complete = false;
    bool reported = false;
    m.walk(r.t, head, complete, [&](const PacketRec& p) {
      total += p.payload_len;
      if (reported || !p.has_reth || p.trimmed) {
        before = nullptr;
        return;
      }
      if (before != nullptr && before->va + before->payload_len != p.va) {
        r.violation(p, "reth.va", hex(before->va + before->payload_len) + " (VA of PSN " + std::to_string(before->psn) +
                                      " + its " + std::to_string(before->payload_len) + " payload bytes)",
                    hex(p.va));
        reported = true;
      } else if (p.dma_len != head.dma_len || p.rkey != head.rkey) {
        const bool len = p.dma_len != head.dma_len;
        r.violation(p, len ? "reth.len" : "reth.rkey",
                    (len ? std::to_string(head.dma_len) : hex(head.rkey)) + " (as the message's FIRST packet, PSN " +
                        std::to_string(head.psn) + ")",
                    len ? std::to_string(p.dma_len) : hex(p.rkey));
        reported = true;
      }
      before = &p;
    });
    if (complete && !reported && total != head.dma_len) {
      r.violation(head, "reth.len", std::to_string(total) + " (the payload bytes of its message, S1: W4)",
                  std::to_string(head.dma_len));
    }
  }
}

void meth_every_packet(Run& r) {  // W4
  const Messages m(r.t);
  r.judged_what = "WRITE data packets from the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!dut_data(p)) continue;
    ++r.judged;
    if (!p.has_meth) {
      r.violation(p, "meth.msn", "a METH on every WRITE packet", "absent");
      continue;
    }
    const std::uint32_t f = m.first.get(psn_key(p.dqpn, p.psn));
    if (f != i && f != FlatIndex::kNone && r.t.packets[f].has_meth) {
      const PacketRec& q = r.t.packets[f];
      if (q.meth_msn != p.meth_msn) {
        r.violation(p, "meth.msn", std::to_string(q.meth_msn) + " (as in the first transmission of PSN " +
                                       std::to_string(p.psn) + ")", std::to_string(p.meth_msn));
      }
    }
  }
  // One msn per message, one more than the message before it on the QP; likewise rqmsn among the
  // WRITE_WITH_IMM messages.
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& head = r.t.packets[i];
    if (!dut_data(head) || !head.has_meth || !is_write_first(head.opcode) || !m.is_first_tx(i, head)) continue;
    bool complete = false;
    bool reported = false;
    bool imm = false;
    m.walk(r.t, head, complete, [&](const PacketRec& p) {
      imm = imm || carries_imm(p.opcode);
      if (reported || !p.has_meth || p.meth_msn == head.meth_msn) return;
      r.violation(p, "meth.msn", std::to_string(head.meth_msn) + " (the msn of its message, from PSN " +
                                     std::to_string(head.psn) + ")", std::to_string(p.meth_msn));
      reported = true;
    });
    // The message before: the one whose LAST packet is the PSN before this FIRST.
    const std::uint32_t prev = m.first.get(psn_key(head.dqpn, psn_add(head.psn, -1)));
    if (prev == FlatIndex::kNone) continue;
    const PacketRec& last = r.t.packets[prev];
    if (!last.has_meth || !is_write_last(last.opcode)) continue;
    const auto want = static_cast<std::uint16_t>(last.meth_msn + 1);
    if (head.meth_msn != want) {
      r.violation(head, "meth.msn", std::to_string(want) + " (the message before, ending at PSN " +
                                        std::to_string(last.psn) + ", has msn " + std::to_string(last.meth_msn) + ")",
                  std::to_string(head.meth_msn));
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
      r.violation(p, "bth.opcode", "an MRC opcode (W3: 0xc6..0xcb, 0xd1, 0xd8, 0xd9, 0xdc..0xde)", hex(p.opcode));
    }
  }
  malformed_violations(r, wire::WireError::kBadOpcode, "bth.opcode", "an opcode MRC defines");
}

// W13: each class in the DSCP value the DUT was configured with (the case's config.dscp, W13's
// defaults when it sets none; a param overrides). A retransmission may carry DSCP_TRIMMABLE again
// or DSCP_TRIMMABLE_RETX: W13 leaves that to the sender. Reliability probes travel in the Data
// class (W9), endpoint responses in Control with the feedback (W10); an endpoint request carries
// the req_tc its caller gave, judged only against a `probe` param.
void dscp_marking(Run& r) {
  const wire::DscpConfig& cfg = r.ctx.dut_dscp;
  const std::uint64_t data = r.param("data", cfg.trimmable);
  const std::uint64_t retx = r.param("retx", cfg.trimmable_retx);
  const std::uint64_t feedback = r.param("feedback", cfg.control);
  const std::uint64_t probe = r.param("probe", kUnset);  // probes use req_tc: judged only when given
  r.judged_what = "frames from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!p.from_dut) continue;
    std::uint64_t want = kUnset;
    if (p.is_write_data() || p.cls == FrameClass::kProbe) want = data;
    if (p.is_feedback()) want = feedback;
    if (p.cls == FrameClass::kEndpoint) want = p.opcode == wire::opcode::kMrcEndpointRsp ? feedback : probe;
    if (want == kUnset) continue;
    ++r.judged;
    if (p.is_write_data() && p.rtx && p.dscp == retx) continue;
    if (p.dscp != want) {
      const std::string expected = p.is_write_data() && p.rtx ? std::to_string(want) + " or " + std::to_string(retx)
                                                              : std::to_string(want);
      r.violation(p, "ip.dscp", expected, std::to_string(p.dscp));
    }
  }
}

// W13: the traffic classes, whatever DSCP values the DUT is configured with (they are
// configuration, not fixed): every first transmission of data in one DSCP (DSCP_TRIMMABLE, or
// DSCP_NO_TRIM where the fabric does not trim), every retransmission in that one or in one other
// (DSCP_TRIMMABLE_RETX), and every SACK, NACK, Transport ACK and endpoint response in one Control
// DSCP that no data packet carries. The first frame of each kind sets the class's value.
void traffic_classes(Run& r) {
  r.judged_what = "data, feedback and endpoint responses from the DUT";
  const PacketRec* first_data = nullptr;
  const PacketRec* first_retx = nullptr;  // the first retransmission in a DSCP other than the data's
  const PacketRec* first_control = nullptr;
  auto data_class = [&](const PacketRec& p) {
    return p.dscp == first_data->dscp || (first_retx && p.dscp == first_retx->dscp);
  };
  for (const PacketRec& p : r.t.packets) {
    if (!p.from_dut) continue;
    const bool response = p.has_ep && p.opcode == wire::opcode::kMrcEndpointRsp;
    if (dut_data(p)) {
      ++r.judged;
      if (!p.rtx) {
        if (!first_data) first_data = &p;
        if (p.dscp != first_data->dscp) {
          r.violation(p, "ip.dscp", std::to_string(first_data->dscp) + ", the Data class of the first data packet (" +
                                        where(r.ctx, *first_data) + ")",
                      std::to_string(p.dscp));
        }
      } else if (first_data && !data_class(p)) {
        if (!first_retx) {
          first_retx = &p;
        } else {
          r.violation(p, "ip.dscp", "the DSCP of first transmissions (" + std::to_string(first_data->dscp) +
                                        ") or of the first other retransmission (" + std::to_string(first_retx->dscp) + ")",
                      std::to_string(p.dscp), "retransmission of PSN " + std::to_string(p.psn));
        }
      }
    } else if (p.is_feedback() || response) {
      ++r.judged;
      if (!first_control) first_control = &p;
      if (p.dscp != first_control->dscp) {
        r.violation(p, "ip.dscp",
                    std::to_string(first_control->dscp) + ", the Control class of the DUT's first control frame (" +
                        where(r.ctx, *first_control) + ")",
                    std::to_string(p.dscp));
      }
    }
  }
  // Control must be its own class: no data packet may share its DSCP.
  if (first_control && first_data && data_class(*first_control)) {
    const std::string data = std::to_string(first_data->dscp) +
                             (first_retx ? ", " + std::to_string(first_retx->dscp) : std::string());
    r.violation(*first_control, "ip.dscp", "a Control DSCP no data packet carries (data: " + data + ")",
                std::to_string(first_control->dscp));
  }
}

// W13: a switch marks CE only on an ECN-capable packet, and the mark is what the responder echoes
// as SKIP_ONCE; ECT(0) or ECT(1) both let it (the reference sends ECT(0)). A data packet the DUT
// sends CE-marked is not judged: nothing forbids a sender to pass a mark on, and the tap is at its port.
void ecn_capable(Run& r) {
  r.judged_what = "data packets from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p)) continue;
    ++r.judged;
    if (p.ecn == wire::kEcnNotEct) r.violation(p, "ip.ecn", "ECT(0) or ECT(1) (2 or 1)", "0 (Not-ECT)");
  }
}

}  // namespace mrc::harness::inv
