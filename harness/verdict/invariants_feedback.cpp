// Invariants on the DUT as responder: what its feedback (SACK, NACK, Transport ACK; W5-W8) may
// claim given what reached it. "Arrived" means an MRC WRITE with a good ICRC, not a trimmed packet
// (W13), for the DUT's QP: the only frames a responder may place and acknowledge. When feedback
// must be sent is invariants_feedback_triggers.cpp's.
#include <algorithm>
#include <functional>
#include <numeric>

#include "harness/verdict/flat_index.hpp"
#include "harness/verdict/invariants.hpp"
#include "harness/verdict/psn_space.hpp"
#include "harness/verdict/trigger_index.hpp"

namespace mrc::harness::inv {
namespace {

// A WRITE whose ICRC fails without a trimmed DSCP: corrupted, not trimmed (W13: only the DSCP
// marks a trim), so it deserves silence rather than a TRIM NACK.
bool corrupted_not_stub(const PacketRec& p) { return p.is_write_data() && !p.icrc_ok && !p.trimmed; }

// Acknowledged PSNs that only `tainted` frames (and no accepted one) had brought: shared by
// stub_not_placed, not_placed and silently_dropped. Each PSN is examined once per advance of the
// cumulative ACK and once per SACK bit.
template <typename Tainted>
void acknowledged_only_tainted(Run& r, Tainted tainted) {
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  std::int64_t acked_upto = -1;
  auto judge = [&](std::int64_t off, const PacketRec& fb, const char* how) {
    if (off < 0) return;
    std::uint8_t& f = s.flags(off);
    if ((f & PsnSpace::kTainted) && !(f & PsnSpace::kArrived) && !(f & PsnSpace::kReported)) {
      f |= PsnSpace::kReported;
      r.violation(fb, how, "PSN " + std::to_string(s.psn_at(off)) + " not acknowledged (only invalid frames brought it)",
                  "acknowledged");
    }
  };
  for (const PacketRec& p : r.t.packets) {
    if (to_dut_data(p)) {
      const std::int64_t off = s.offset(p.psn);
      if (accepted(r.ctx, p)) {
        s.arrive(off);
      } else if (tainted(p) && off >= 0) {
        s.flags(off) |= PsnSpace::kTainted;
        ++r.judged;
      }
      continue;
    }
    if (!dut_feedback(p) || s.empty()) continue;
    if (p.carries_cack()) {
      const std::int64_t a = psn_diff(p.psn, s.start());
      for (std::int64_t off = acked_upto + 1; off <= a && static_cast<std::size_t>(off) < s.size(); ++off) {
        judge(off, p, "bth.psn");
      }
      acked_upto = std::max(acked_upto, std::min<std::int64_t>(a, static_cast<std::int64_t>(s.size()) - 1));
    }
    if (p.is_sack()) {
      for (unsigned k = 0; k < 64; ++k) {
        if (p.sack_bit(k)) judge(s.offset(psn_add(p.sack_base, k)), p, "seth.sack_bitmap");
      }
      if (!p.seth_pr) judge(s.offset(p.trig_psn), p, "seth.ack_psn");
    }
  }
}

}  // namespace

void sack_consistent(Run& r) {  // W5, W6
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  r.judged_what = "feedback frames from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (accepted(r.ctx, p)) {
      s.arrive(s.offset(p.psn));
      continue;
    }
    if (!dut_feedback(p)) continue;
    ++r.judged;
    if (p.carries_cack() && psn_diff(p.psn, s.frontier_psn()) > 0) {
      r.violation(p, "bth.psn", "<= " + std::to_string(s.frontier_psn()) + " (highest PSN received in order)",
                  std::to_string(p.psn), "cumulative ACK beyond what arrived");
    }
    if (!p.is_sack()) continue;
    if (!p.seth_pr && !s.has(s.offset(p.trig_psn), PsnSpace::kArrived)) {
      r.violation(p, "seth.ack_psn", "the PSN of a data packet that arrived whole", std::to_string(p.trig_psn) + ", which had not");
      continue;
    }
    for (unsigned k = 0; k < 64; ++k) {
      if (!p.sack_bit(k)) continue;
      const std::uint32_t psn = psn_add(p.sack_base, k);
      if (!s.has(s.offset(psn), PsnSpace::kArrived)) {
        r.violation(p, "seth.sack_bitmap", "bit " + std::to_string(k) + " set only if PSN " + std::to_string(psn) + " arrived",
                    "bit " + std::to_string(k) + " set, PSN " + std::to_string(psn) + " had not arrived", "bitmap " + hex(p.sack_bitmap));
        break;
      }
    }
  }
}

// FB-SACK-BITMAP both ways ("exactly when"): no bit for a PSN that had not arrived, and a bit for
// every accepted PSN in the bitmap's range that arrived at least `grace_ns` before the feedback
// left the DUT (a feedback frame may have been built a moment before it was captured), or that is
// the PSN whose arrival the SACK answers (its ack_psn: its arrival necessarily came first). Only
// PSNs inside the DUT's responder window (ePSN .. ePSN + mpr_dest x 128 - 1, ePSN one past the
// cumulative ACK) are demanded: a PSN beyond it is not received.                       W5, W6, W12
// Across a real-time bridge a time cannot say what the DUT had taken in when it built the SACK: the
// bridge's budget bounds when a frame reached the DUT's port, not how long the DUT took to read it.
// There the order does: a PSN that reached the port the answered PSN came in on before it (the
// bridge hands frames over in order) was read first.
void sack_exact(Run& r) {
  const std::uint64_t grace = r.param("grace_ns", 1000);
  const bool by_order = r.budget().ns > 0;
  const std::uint64_t judged_grace =
      by_order ? 0 : r.within(grace, "grace_ns " + fmt_ns(static_cast<double>(grace)));
  if (by_order) r.note_bound("on a real-time testbed: a PSN that reached the answered PSN's port before it");
  constexpr std::uint64_t kNever = ~std::uint64_t{0};
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  std::vector<std::uint64_t> arrived_at(s.size(), kNever);  // first accepted arrival per PSN
  std::vector<std::uint8_t> arrived_port(s.size(), 0);     // and its port
  r.judged_what = "SACK bitmaps from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (accepted(r.ctx, p)) {
      const std::int64_t off = s.offset(p.psn);
      s.arrive(off);
      if (off >= 0 && arrived_at[static_cast<std::size_t>(off)] == kNever) {
        arrived_at[static_cast<std::size_t>(off)] = p.ts_ns;
        arrived_port[static_cast<std::size_t>(off)] = p.port;
      }
      continue;
    }
    if (!dut_feedback(p) || !p.is_sack()) continue;
    ++r.judged;
    const std::uint32_t epsn = psn_add(p.psn, 1);
    for (unsigned i = 0; i < 64; ++i) {
      const bool bit = p.sack_bit(i);
      const std::uint32_t psn = psn_add(p.sack_base, i);
      const std::int64_t off = s.offset(psn);
      const bool arrived = s.has(off, PsnSpace::kArrived);
      if (bit && !arrived) {
        r.violation(p, "seth.sack_bitmap", "bit " + std::to_string(i) + " set only if PSN " + std::to_string(psn) + " arrived",
                    "bit " + std::to_string(i) + " set, PSN " + std::to_string(psn) + " had not arrived", "bitmap " + hex(p.sack_bitmap));
        break;
      }
      if (bit || !arrived) continue;
      const std::int32_t ahead = psn_diff(psn, epsn);
      if (ahead < 0 || (r.ctx.responder_window_psns != 0 && static_cast<std::uint32_t>(ahead) >= r.ctx.responder_window_psns)) {
        continue;
      }
      const std::uint64_t at = arrived_at[static_cast<std::size_t>(off)];
      const bool answered = !p.seth_pr && p.trig_psn == psn;
      if (!answered && at == kNever) continue;
      if (!answered && by_order) {
        const std::int64_t trig = p.seth_pr ? -1 : s.offset(p.trig_psn);
        const bool known = trig >= 0 && static_cast<std::size_t>(trig) < s.size() &&
                           arrived_at[static_cast<std::size_t>(trig)] != kNever;
        if (!known || arrived_port[static_cast<std::size_t>(trig)] != arrived_port[static_cast<std::size_t>(off)] ||
            at >= arrived_at[static_cast<std::size_t>(trig)]) {
          continue;
        }
      } else if (!answered && at + judged_grace > p.ts_ns) {
        continue;
      }
      r.violation(p, "seth.sack_bitmap",
                  "bit " + std::to_string(i) + " set: PSN " + std::to_string(psn) +
                      (answered  ? " is the PSN this SACK answers"
                       : by_order ? " reached the port before the PSN this SACK answers (" + std::to_string(p.trig_psn) + ")"
                                  : " arrived " + std::to_string(p.ts_ns - at) + " ns before"),
                  "bit " + std::to_string(i) + " clear", "bitmap " + hex(p.sack_bitmap) + ", base PSN " + std::to_string(p.sack_base));
      break;
    }
  }
}

// W2, W6, W7, W9: a SACK's or NACK's entropy is the EV its trigger arrived on (the probe's for a
// pr = 1 SACK), by the echo rule of the DUT's EV format mode.
void ev_echo_matches(Run& r) {
  TriggerIndex triggers(r.t.packets.size());
  r.judged_what = "SACKs and NACKs from the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (triggers.note(p, i)) continue;
    if (!dut_feedback(p) || !(p.is_sack() || p.is_nack())) continue;
    ++r.judged;
    const char* field = p.is_sack() ? "seth.entropy" : "neth.entropy";
    const bool probe = TriggerIndex::answers_probe(p);
    const std::uint32_t at = triggers.trigger_of(p);
    if (at == FlatIndex::kNone) {
      r.violation(p, probe ? "seth.probe_id" : (p.is_sack() ? "seth.ack_psn" : "neth.nack_psn"),
                  probe ? "the probe_id of a probe that reached the DUT" : "the PSN of a data packet that reached the DUT",
                  std::to_string(probe ? p.probe_id : p.trig_psn) + ", which no packet to the DUT carried");
      continue;
    }
    const PacketRec& d = r.t.packets[at];
    // Across a bridge, any copy of the trigger within twice the budget (trigger_index.hpp).
    const bool echoed = triggers.for_each_trigger(p, r.t.packets, 2 * r.budget().ns,
                                                  [&](std::uint32_t k) { return r.t.packets[k].ev == p.ev_echo; });
    if (!echoed) {
      r.violation(p, field, hex(d.ev) + " (EV of " + (probe ? "probe " + std::to_string(d.probe_id) : "PSN " + std::to_string(d.psn)) +
                                ", " + where(r.ctx, d) + ")",
                  hex(p.ev_echo));
    }
  }
}

void stub_not_placed(Run& r) {  // W13
  r.judged_what = "trimmed stubs sent to the DUT";
  acknowledged_only_tainted(r, [](const PacketRec& p) { return p.trimmed; });
  // Memory: an injected stub whose PSN never arrived whole must leave no trace in the DUT's buffer.
  // Its range is read back after the run; holding every non-zero byte the stub carried (at least 8
  // of them, so a zeroed or unrelated buffer cannot match) means the stub was placed.
  if (r.ctx.dut.injected_writes.empty()) return;
  FlatIndex whole(r.t.packets.size());  // psn -> an accepted arrival
  FlatIndex stub_at(r.t.packets.size());  // psn -> the stub's packet in the trace
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (accepted(r.ctx, p)) {
      if (std::uint32_t* s = whole.find_or_insert(p.psn)) *s = static_cast<std::uint32_t>(i);
    } else if (to_dut_data(p) && p.trimmed) {
      if (std::uint32_t* s = stub_at.find_or_insert(p.psn); s && *s == FlatIndex::kNone) *s = static_cast<std::uint32_t>(i);
    }
  }
  for (const InjectedWriteRecord& w : r.ctx.dut.injected_writes) {
    if (!w.trimmed || w.after.size() != w.payload.size() || whole.get(w.psn) != FlatIndex::kNone) continue;
    const std::uint32_t at = stub_at.get(w.psn);
    if (at == FlatIndex::kNone) continue;  // never reached the DUT's port
    std::size_t informative = 0;
    std::size_t same = 0;
    for (std::size_t i = 0; i < w.payload.size(); ++i) {
      if (w.payload[i] == 0) continue;
      ++informative;
      same += w.after[i] == w.payload[i];
    }
    if (informative < 8 || same != informative) continue;
    r.violation(r.t.packets[at], "memory",
                "the DUT's buffer at offset " + std::to_string(w.offset) + " untouched by the stub of PSN " + std::to_string(w.psn),
                "the stub's " + std::to_string(w.payload.size()) + " payload bytes written there",
                "no whole frame for PSN " + std::to_string(w.psn) + " reached the DUT");
  }
}

// The valid side of an invalid-input rule's edge (a P_Key one membership bit away, ...): every
// WRITE the case injected that reached the DUT whole and is its to take (good ICRC, its QP, a
// matching P_Key) is placed, byte for byte, and acknowledged by the DUT's feedback.
void injected_placed(Run& r) {
  r.judged_what = "valid WRITEs injected into the DUT";
  FlatIndex arrived(r.t.packets.size());  // psn -> its first accepted, untrimmed arrival
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!accepted(r.ctx, p) || p.trimmed) continue;
    if (std::uint32_t* s = arrived.find_or_insert(p.psn); s && *s == FlatIndex::kNone) *s = static_cast<std::uint32_t>(i);
  }
  auto acknowledged = [&](std::uint32_t psn) {
    return std::any_of(r.t.packets.begin(), r.t.packets.end(), [&](const PacketRec& p) {
      if (!dut_feedback(p)) return false;
      const std::int32_t d = psn_diff(p.psn, psn);
      return (p.carries_cack() && d >= 0) || (p.is_sack() && !p.seth_pr && sack_has(p, psn));
    });
  };
  for (const InjectedWriteRecord& w : r.ctx.dut.injected_writes) {
    if (w.trimmed) continue;
    const std::uint32_t at = arrived.get(w.psn);
    if (at == FlatIndex::kNone) continue;  // lost on the way, or not the DUT's to take
    ++r.judged;
    const PacketRec& p = r.t.packets[at];
    if (w.after.size() != w.payload.size()) {
      return r.stop(Verdict::kInconclusive, "the DUT binding could not read back its buffer at offset " + std::to_string(w.offset));
    }
    const auto differ = static_cast<std::size_t>(
        std::inner_product(w.payload.begin(), w.payload.end(), w.after.begin(), std::size_t{0}, std::plus<>(),
                           [](std::uint8_t a, std::uint8_t b) { return std::size_t{a != b}; }));
    if (differ != 0) {
      r.violation(p, "memory", "the frame's " + std::to_string(w.payload.size()) + " payload bytes at offset " + std::to_string(w.offset),
                  std::to_string(differ) + " of them differ (the WRITE was not placed)");
    }
    if (!acknowledged(w.psn)) {
      r.violation(p, "feedback", "a SACK or Transport ACK from the DUT acknowledging PSN " + std::to_string(w.psn), "none");
    }
  }
  if (r.judged == 0) r.stop(Verdict::kInconclusive, "no injected WRITE reached the DUT whole with its QP and P_Key");
}

void not_placed(Run& r) {
  r.judged_what = "invalid data frames sent to the DUT";
  acknowledged_only_tainted(r, [&](const PacketRec& p) { return !accepted(r.ctx, p); });
}

void silently_dropped(Run& r) {
  // Invalid but not a trimmed packet: a trimmed one deserves a NACK TRIMMED (W7), these silence.
  auto invalid = [&](const PacketRec& p) {
    if (!to_dut_data(p)) return false;
    if (corrupted_not_stub(p)) return true;
    return !p.trimmed && (!p.is_write_data() || !pkey_matches(r.ctx, p) ||
                          (r.ctx.dut.dut_qpn != 0 && p.dqpn != r.ctx.dut.dut_qpn));
  };
  r.judged_what = "invalid frames sent to the DUT";
  FlatIndex pending(r.t.packets.size());  // psn -> position of an invalid arrival not yet superseded
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (invalid(p)) {
      if (std::uint32_t* s = pending.find_or_insert(p.psn)) *s = static_cast<std::uint32_t>(i);
      continue;
    }
    if (accepted(r.ctx, p)) {
      if (std::uint32_t* s = pending.find_or_insert(p.psn)) *s = FlatIndex::kNone;
      continue;
    }
    // A SACK or NACK naming it (its ack_psn / nack_psn) answers the invalid frame.
    if (!dut_feedback(p) || !((p.is_sack() && !p.seth_pr) || p.is_nack())) continue;
    const std::uint32_t at = pending.get(p.trig_psn);
    if (at == FlatIndex::kNone) continue;
    r.violation(p, p.is_sack() ? "seth.ack_psn" : "neth.nack_psn", "no feedback for the invalid frame " + where(r.ctx, r.t.packets[at]),
                std::to_string(p.trig_psn));
    if (std::uint32_t* s = pending.find_or_insert(p.trig_psn)) *s = FlatIndex::kNone;  // one finding per frame
  }
  acknowledged_only_tainted(r, invalid);
}

// W12: a PSN beyond [cack + 1, cack + mpr_dest x 128] is never placed or acknowledged; it is
// dropped silently (§6.3.1) or answered by a NACK PSN_OOR_WINDOW (Table 7-3), and such a NACK
// never names a PSN that was inside the window when it arrived.
void responder_window(Run& r) {
  const std::uint32_t w = r.ctx.responder_window_psns;
  if (w == 0) return r.stop(Verdict::kError, "the context does not carry the DUT's mpr_dest window");
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  FlatIndex ack_then(r.t.packets.size());   // psn -> the DUT's cumulative ACK when it last arrived
  bool have_ack = false;
  std::uint32_t ack = 0;
  std::vector<std::uint32_t> beyond;        // positions of arrivals surely beyond the window
  r.judged_what = "arrivals beyond the window and PSN_OOR_WINDOW NACKs";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (accepted(r.ctx, p)) {
      // The DUT's epsn is at most one past the highest in-order arrival so far.
      const std::uint32_t epsn_max = psn_add(s.frontier_psn(), 1);
      if (psn_diff(p.psn, epsn_max) >= static_cast<std::int32_t>(w)) {
        beyond.push_back(static_cast<std::uint32_t>(i));
        ++r.judged;
      } else {
        s.arrive(s.offset(p.psn));
      }
      if (have_ack) {
        if (std::uint32_t* a = ack_then.find_or_insert(p.psn)) *a = ack;
      }
      continue;
    }
    if (!dut_feedback(p)) continue;
    if (p.is_nack() && p.nack_reason == wire::nack::kPsnOorWindow) {
      ++r.judged;
      const std::uint32_t a = ack_then.get(p.trig_psn);
      if (a != FlatIndex::kNone && psn_diff(p.trig_psn, a) <= static_cast<std::int32_t>(w)) {
        r.violation(p, "neth.reason", "no PSN_OOR_WINDOW: PSN " + std::to_string(p.trig_psn) + " was inside the window (cack " +
                                          std::to_string(a) + " + " + std::to_string(w) + ")",
                    "0x0b (PSN_OOR_WINDOW)");
      }
    }
    if (p.carries_cack()) {
      have_ack = true;
      ack = p.psn;
    }
  }
  // A beyond-window PSN must not be acknowledged later by anything it alone brought.
  for (const std::uint32_t i : beyond) {
    const PacketRec& b = r.t.packets[i];
    for (std::size_t j = i + 1; j < r.t.packets.size(); ++j) {
      const PacketRec& q = r.t.packets[j];
      if (accepted(r.ctx, q) && q.psn == b.psn) break;  // it came again: judged as that arrival
      if (!dut_feedback(q) || !q.is_sack()) continue;
      if (sack_has(q, b.psn) && psn_diff(b.psn, q.psn) > 0) {
        r.violation(q, "seth.sack_bitmap", "PSN " + std::to_string(b.psn) + " not acknowledged: it arrived beyond the window of " +
                                               std::to_string(w) + " PSNs (" + where(r.ctx, b) + ")",
                    "acknowledged");
        break;
      }
    }
  }
}

void no_rnr(Run& r) {
  r.judged_what = "Transport ACKs from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!dut_feedback(p) || !p.has_aeth) continue;
    ++r.judged;
    if (p.syndrome >= 0x20 && p.syndrome < 0x40) {
      r.violation(p, "aeth.syndrome", "not an RNR NAK (0x20..0x3F): MRC has no RNR", hex(p.syndrome));
    }
  }
}

// W5, W7, W9: the SACKs, NACKs and reliability probes the DUT sends carry the low 16 bits of the
// two QPNs as spdcid and dpdcid. Which end goes first is open (5.21: the packet's sender, F1 and
// UET, or the data direction, F2), so either order passes; anything else (zeros, one QPN twice)
// names no QP pair. The peer's QPN is the frame's BTH.DestQP; the DUT's is the one the case's data
// to it targets.
void pdc_ids(Run& r) {
  std::uint32_t dut_qpn = r.ctx.dut.dut_qpn;
  if (dut_qpn == 0) {
    for (const PacketRec& p : r.t.packets) {
      if (!to_dut_data(p)) continue;
      if (dut_qpn != 0 && p.dqpn != dut_qpn) {
        return r.stop(Verdict::kError, "judges a case whose data reaches one DUT QP (it reaches " + hex(dut_qpn) +
                                           " and " + hex(p.dqpn) + ")");
      }
      dut_qpn = p.dqpn;
    }
  }
  if (dut_qpn == 0) return r.stop(Verdict::kInconclusive, "the DUT's QPN is unknown: no data reached it");
  r.judged_what = "SACKs, NACKs and reliability probes the DUT sent";
  const std::uint16_t own = static_cast<std::uint16_t>(dut_qpn & 0xFFFFu);
  for (const PacketRec& p : r.t.packets) {
    if (!p.from_dut || !(p.has_sack || p.has_neth || p.has_peth)) continue;
    ++r.judged;
    const std::uint16_t peer = static_cast<std::uint16_t>(p.dqpn & 0xFFFFu);
    if ((p.spdcid == own && p.dpdcid == peer) || (p.spdcid == peer && p.dpdcid == own)) continue;
    const char* hdr = p.has_sack ? "seth" : p.has_neth ? "neth" : "peth";
    r.violation(p, std::string(hdr) + ".spdcid/dpdcid",
                hex(own) + "/" + hex(peer) + " or " + hex(peer) + "/" + hex(own) +
                    " (the low 16 bits of the DUT's and the peer's QPN, either order)",
                hex(p.spdcid) + "/" + hex(p.dpdcid));
  }
}

}  // namespace mrc::harness::inv
