// Invariants on the DUT as responder: what its feedback (MODEL: M5) may claim given what reached
// it. "Arrived" means a WRITE with a good ICRC, not a trimmed stub (M11), for the DUT's QP: the
// only frames a responder may place and acknowledge.
#include <algorithm>

#include "harness/verdict/flat_index.hpp"
#include "harness/verdict/invariants.hpp"
#include "harness/verdict/psn_space.hpp"

namespace mrc::harness::inv {
namespace {

bool to_dut_data(const PacketRec& p) { return !p.from_dut && p.is_data(); }

// The membership bit (bit 15) of a P_Key does not take part in the match (IBA P_Key checks).
bool pkey_matches(const CheckContext& ctx, const PacketRec& p) {
  return (p.pkey & 0x7FFF) == (ctx.dut_pkey & 0x7FFF);
}

// A WRITE whose ICRC fails without a trimmed DSCP: corrupted, not trimmed (W13: only the DSCP
// marks a trim), so it deserves silence rather than a TRIM NACK.
bool corrupted_not_stub(const PacketRec& p) { return p.is_write_data() && !p.icrc_ok && !p.trimmed; }

bool accepted(const CheckContext& ctx, const PacketRec& p) {
  return !p.from_dut && valid_arrival(p) && (ctx.dut.dut_qpn == 0 || p.dqpn == ctx.dut.dut_qpn) && pkey_matches(ctx, p);
}

bool is_trim_nack(const PacketRec& p) {  // MODEL: M5
  return (p.has_mfeh && p.fb_type == 3) || (p.has_aeth && p.syndrome == wire::syndrome::kNakTrim);
}

bool is_loss_nack(const PacketRec& p) {  // MODEL: M5
  return (p.has_mfeh && p.fb_type == 2) || (!p.has_mfeh && p.has_aeth && p.syndrome == wire::syndrome::kNakPsnSeqError);
}

std::string where(const CheckContext& ctx, const PacketRec& p) {
  return pcap_of(ctx.taps[p.tap]) + " packet " + std::to_string(p.index);
}

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
    if (has_cumulative_ack(p)) {
      const std::int64_t a = psn_diff(p.psn, s.start());
      for (std::int64_t off = acked_upto + 1; off <= a && static_cast<std::size_t>(off) < s.size(); ++off) {
        judge(off, p, "bth.psn");
      }
      acked_upto = std::max(acked_upto, std::min<std::int64_t>(a, static_cast<std::int64_t>(s.size()) - 1));
    }
    if (p.has_mfeh && p.sack_valid) {
      for (unsigned i = 0; i < 64; ++i) {
        if ((p.sack_bitmap >> (63 - i)) & 1u) {
          judge(s.offset(psn_add(p.psn, 1 + std::int64_t{p.sack_base_off} + i)), p, "mfeh.sack_bitmap");
        }
      }
    }
  }
}

}  // namespace

void sack_consistent(Run& r) {  // MODEL: M5
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  r.judged_what = "feedback frames from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (accepted(r.ctx, p)) {
      s.arrive(s.offset(p.psn));
      continue;
    }
    if (!dut_feedback(p)) continue;
    ++r.judged;
    if (has_cumulative_ack(p) && psn_diff(p.psn, s.frontier_psn()) > 0) {
      r.violation(p, "bth.psn", "<= " + std::to_string(s.frontier_psn()) + " (highest PSN received in order)",
                  std::to_string(p.psn), "cumulative ACK beyond what arrived");
    }
    if (!p.has_mfeh || !p.sack_valid) continue;
    for (unsigned i = 0; i < 64; ++i) {
      if (!((p.sack_bitmap >> (63 - i)) & 1u)) continue;
      const std::uint32_t psn = psn_add(p.psn, 1 + std::int64_t{p.sack_base_off} + i);
      if (!s.has(s.offset(psn), PsnSpace::kArrived)) {
        r.violation(p, "mfeh.sack_bitmap", "bit " + std::to_string(i) + " set only if PSN " + std::to_string(psn) + " arrived",
                    "bit " + std::to_string(i) + " set, PSN " + std::to_string(psn) + " had not arrived", "bitmap " + hex(p.sack_bitmap));
        break;
      }
    }
  }
}

// FB-SACK-BITMAP both ways ("exactly when"): no bit for a PSN that had not arrived, and a bit for
// every accepted PSN in the bitmap's range that arrived at least `grace_ns` before the feedback
// left the DUT (a feedback frame may have been built a moment before it was captured), or that is
// the PSN whose arrival the SACK answers (MFEH type 1: its arrival necessarily came first). Only
// PSNs inside the DUT's responder window (ePSN .. ePSN + mpr_dest x 128 - 1, ePSN one past the
// cumulative ACK) are demanded: a PSN beyond it is not received.                     MODEL: M5, M9
void sack_exact(Run& r) {
  const std::uint64_t grace = r.param("grace_ns", 1000);
  const std::uint64_t judged_grace = r.within(grace, "grace_ns " + fmt_ns(static_cast<double>(grace)));
  constexpr std::uint64_t kNever = ~std::uint64_t{0};
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  std::vector<std::uint64_t> arrived_at(s.size(), kNever);  // first accepted arrival per PSN
  r.judged_what = "SACK bitmaps from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (accepted(r.ctx, p)) {
      const std::int64_t off = s.offset(p.psn);
      s.arrive(off);
      if (off >= 0 && arrived_at[static_cast<std::size_t>(off)] == kNever) arrived_at[static_cast<std::size_t>(off)] = p.ts_ns;
      continue;
    }
    if (!dut_feedback(p) || !p.has_mfeh || !p.sack_valid) continue;
    ++r.judged;
    const std::uint32_t epsn = psn_add(p.psn, 1);
    for (unsigned i = 0; i < 64; ++i) {
      const bool bit = ((p.sack_bitmap >> (63 - i)) & 1u) != 0;
      const std::uint32_t psn = psn_add(p.psn, 1 + std::int64_t{p.sack_base_off} + i);
      const std::int64_t off = s.offset(psn);
      const bool arrived = s.has(off, PsnSpace::kArrived);
      if (bit && !arrived) {
        r.violation(p, "mfeh.sack_bitmap", "bit " + std::to_string(i) + " set only if PSN " + std::to_string(psn) + " arrived",
                    "bit " + std::to_string(i) + " set, PSN " + std::to_string(psn) + " had not arrived", "bitmap " + hex(p.sack_bitmap));
        break;
      }
      if (bit || !arrived) continue;
      const std::int32_t ahead = psn_diff(psn, epsn);
      if (ahead < 0 || (r.ctx.responder_window_psns != 0 && static_cast<std::uint32_t>(ahead) >= r.ctx.responder_window_psns)) {
        continue;
      }
      const std::uint64_t at = arrived_at[static_cast<std::size_t>(off)];
      const bool answered = p.fb_type == 1 && p.trig_psn == psn;
      if (!answered && (at == kNever || at + judged_grace > p.ts_ns)) continue;
      r.violation(p, "mfeh.sack_bitmap",
                  "bit " + std::to_string(i) + " set: PSN " + std::to_string(psn) +
                      (answered ? " is the PSN this SACK answers" : " arrived " + std::to_string(p.ts_ns - at) + " ns before"),
                  "bit " + std::to_string(i) + " clear", "bitmap " + hex(p.sack_bitmap) + ", base PSN " + std::to_string(psn_add(epsn, p.sack_base_off)));
      break;
    }
  }
}

void ev_echo_matches(Run& r) {  // MODEL: M5
  FlatIndex last(r.t.packets.size());  // psn -> position of its latest arrival at the DUT
  r.judged_what = "feedback frames with a valid EV echo";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (to_dut_data(p)) {
      if (std::uint32_t* s = last.find_or_insert(p.psn)) *s = static_cast<std::uint32_t>(i);
      continue;
    }
    if (!dut_feedback(p) || !p.has_mfeh || !p.ev_valid) continue;
    ++r.judged;
    const std::uint32_t at = last.get(p.trig_psn);
    if (at == FlatIndex::kNone) {
      r.violation(p, "mfeh.trig_psn", "the PSN of a data packet that reached the DUT",
                  std::to_string(p.trig_psn) + ", which no data packet to the DUT carried");
      continue;
    }
    const PacketRec& d = r.t.packets[at];
    if (p.ev_echo != d.ev) {
      r.violation(p, "mfeh.ev_echo", hex(d.ev) + " (EV of PSN " + std::to_string(d.psn) + ", " + where(r.ctx, d) + ")",
                  hex(p.ev_echo));
    } else if (d.port != 0 && p.ev_port != d.port) {
      r.violation(p, "mfeh.ev_port", std::to_string(d.port) + " (port PSN " + std::to_string(d.psn) + " arrived on)",
                  std::to_string(p.ev_port));
    }
  }
}

void trim_nack_per_stub(Run& r) {  // MODEL: M5, M11
  std::vector<std::uint32_t> stubs;
  std::vector<std::uint8_t> answered;
  FlatIndex pending(r.t.packets.size());  // psn -> index into stubs of the earliest unanswered one
  // A stub of a PSN that had already arrived whole is a duplicate too (PLACE-DUPLICATE-ONCE: it
  // is acknowledged again): an ACK answers it as well as a TRIM NACK, so it is not judged here.
  // (A responder with a short out-of-order tolerance NACKs a merely delayed PSN, whose
  // retransmission can then be trimmed after the original arrived.)
  FlatIndex arrived(r.t.packets.size());  // psn -> 1 once a whole copy reached the DUT
  r.judged_what = "trimmed stubs of PSNs not yet received, sent to the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (accepted(r.ctx, p) && !p.trimmed) {
      if (std::uint32_t* a = arrived.find_or_insert(p.psn)) *a = 1;
      continue;
    }
    if (to_dut_data(p) && p.trimmed && arrived.get(p.psn) == FlatIndex::kNone) {
      std::uint32_t* s = pending.find_or_insert(p.psn);
      if (s && *s == FlatIndex::kNone) *s = static_cast<std::uint32_t>(stubs.size());
      stubs.push_back(static_cast<std::uint32_t>(i));
      answered.push_back(0);
      ++r.judged;
    } else if (dut_feedback(p) && is_trim_nack(p) && p.has_mfeh) {
      std::uint32_t* s = pending.find_or_insert(p.trig_psn);
      if (!s || *s == FlatIndex::kNone) continue;
      answered[*s] = 1;
      if (!p.ce) r.violation(p, "mfeh.ce", "true (a TRIM NACK reports congestion)", "false");
      // Another stub of the same PSN still waiting takes the slot.
      const std::uint32_t done = *s;
      *s = FlatIndex::kNone;
      for (std::size_t k = done + 1; k < stubs.size(); ++k) {
        if (!answered[k] && r.t.packets[stubs[k]].psn == p.trig_psn) {
          *s = static_cast<std::uint32_t>(k);
          break;
        }
      }
    }
  }
  for (std::size_t k = 0; k < stubs.size(); ++k) {
    if (answered[k]) continue;
    const PacketRec& stub = r.t.packets[stubs[k]];
    r.violation(stub, "mfeh.trig_psn", "a TRIM NACK from the DUT with trig_psn " + std::to_string(stub.psn), "none");
  }
}

void nack_for_hole(Run& r) {  // MODEL: M5
  const std::uint64_t max_delay = r.param("max_delay_ns", 100'000);
  const std::uint64_t judged_delay = r.within(max_delay, "max_delay_ns " + fmt_ns(static_cast<double>(max_delay)));
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  r.judged_what = "PSN holes at the DUT";
  std::int64_t hole = -1;          // offset of the lowest missing PSN while a higher one arrived
  std::uint64_t since = 0;
  const PacketRec* exposer = nullptr;
  bool settled = true;             // NACKed or reported
  auto check_deadline = [&](std::uint64_t now) {
    if (hole >= 0 && !settled && now > since + judged_delay) {
      settled = true;
      r.violation(*exposer, "aeth.syndrome", "a loss NACK for PSN " + std::to_string(s.psn_at(hole)) + " within " +
                                                 fmt_ns(static_cast<double>(max_delay)) + plus_budget(r.budget()),
                  "none", "PSN " + std::to_string(s.psn_at(hole)) + " missing since " + std::to_string(since) + " ns");
    }
  };
  for (const PacketRec& p : r.t.packets) {
    check_deadline(p.ts_ns);
    if (accepted(r.ctx, p)) {
      s.arrive(s.offset(p.psn));
      const std::int64_t next = s.frontier() + 1;
      if (s.highest() > s.frontier()) {
        if (next != hole) {
          hole = next;
          since = p.ts_ns;
          exposer = &p;
          settled = false;
          ++r.judged;
        }
      } else {
        hole = -1;
      }
      continue;
    }
    if (hole >= 0 && dut_feedback(p) && is_loss_nack(p) && psn_diff(s.psn_at(hole), p.psn) > 0) settled = true;
  }
}

// A loss NACK names a PSN that is missing below a higher one that arrived (M5: "a PSN below the
// SACK window's highest received PSN stays missing"): never a PSN that already arrived, never the
// next PSN when nothing beyond it came. When it is sent (the out-of-order tolerance) is the
// responder's choice and is not judged here; `grace_ns` (default 0, plus the timing budget) lets
// an arrival that the NACK had already been queued before count as not yet seen.
void nack_names_hole(Run& r) {  // MODEL: M5
  const std::uint64_t declared = r.param("grace_ns", 0);
  const std::uint64_t grace = r.within(declared, "grace_ns " + std::to_string(declared) + " ns");
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  r.judged_what = "loss NACKs from the DUT";
  // Arrival times by offset, so an arrival within the grace before the NACK is not held against it.
  std::vector<std::uint64_t> arrived_at(s.size(), 0);
  std::size_t next = 0;       // first packet not yet folded into `s`
  for (const PacketRec& p : r.t.packets) {
    if (!dut_feedback(p) || !is_loss_nack(p)) continue;
    ++r.judged;
    const std::uint64_t seen_until = p.ts_ns > grace ? p.ts_ns - grace : 0;
    // An arrival at the very time of the NACK may have been processed after the NACK was decided.
    for (; next < r.t.packets.size() && r.t.packets[next].ts_ns < seen_until; ++next) {
      const PacketRec& q = r.t.packets[next];
      if (!accepted(r.ctx, q)) continue;
      const std::int64_t off = s.offset(q.psn);
      if (off < 0) continue;
      if (!s.has(off, PsnSpace::kArrived)) arrived_at[static_cast<std::size_t>(off)] = q.ts_ns;
      s.arrive(off);
    }
    const std::uint32_t named = psn_add(p.psn, 1);
    const std::int64_t off = s.offset(named);
    if (off >= 0 && s.has(off, PsnSpace::kArrived)) {
      r.violation(p, "bth.psn", "a loss NACK naming a missing PSN",
                  "it names PSN " + std::to_string(named) + ", which reached the DUT at " +
                      std::to_string(arrived_at[static_cast<std::size_t>(off)]) + " ns");
    } else if (off < 0 || s.highest() <= off) {
      r.violation(p, "bth.psn", "a loss NACK naming a PSN below the highest one received",
                  "it names PSN " + std::to_string(named) + ", and no higher PSN had reached the DUT");
    }
  }
}

void svc_time_reported(Run& r) {  // MODEL: M5
  r.judged_what = "ACK/SACK frames from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!dut_feedback(p) || !p.has_mfeh || p.fb_type > 1) continue;
    ++r.judged;
    if (!p.svc_valid) r.violation(p, "mfeh.svc_valid", "true (service time reported)", "false");
  }
}

void stub_not_placed(Run& r) {  // MODEL: M11
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

void not_placed(Run& r) {
  r.judged_what = "invalid data frames sent to the DUT";
  acknowledged_only_tainted(r, [&](const PacketRec& p) { return !accepted(r.ctx, p); });
}

void silently_dropped(Run& r) {
  // Invalid but not a stub: a stub deserves a TRIM NACK (M11), these deserve silence.
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
    if (!dut_feedback(p) || !p.has_mfeh) continue;
    const std::uint32_t at = pending.get(p.trig_psn);
    if (at == FlatIndex::kNone) continue;
    r.violation(p, "mfeh.trig_psn", "no feedback for the invalid frame " + where(r.ctx, r.t.packets[at]),
                std::to_string(p.trig_psn));
    if (std::uint32_t* s = pending.find_or_insert(p.trig_psn)) *s = FlatIndex::kNone;  // one finding per frame
  }
  acknowledged_only_tainted(r, invalid);
}

void responder_window(Run& r) {  // MODEL: M9
  const std::uint32_t w = r.ctx.responder_window_psns;
  if (w == 0) return r.stop(Verdict::kError, "the context does not carry the DUT's mpr_dest window");
  PsnSpace s(r.t, [](const PacketRec& p) { return to_dut_data(p); });
  FlatIndex beyond(r.t.packets.size());     // psn -> position of an arrival surely beyond the window
  FlatIndex ack_then(r.t.packets.size());   // psn -> the DUT's cumulative ACK when it last arrived
  bool have_ack = false;
  std::uint32_t ack = 0;
  r.judged_what = "arrivals beyond the window and out-of-range reports";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (accepted(r.ctx, p)) {
      // The DUT's ePSN is at most one past the highest in-order arrival so far.
      const std::uint32_t epsn_max = psn_add(s.frontier_psn(), 1);
      if (psn_diff(p.psn, epsn_max) >= static_cast<std::int32_t>(w)) {
        if (std::uint32_t* b = beyond.find_or_insert(p.psn)) *b = static_cast<std::uint32_t>(i);
        ++r.judged;
      } else {
        s.arrive(s.offset(p.psn));
      }
      if (have_ack) {
        if (std::uint32_t* a = ack_then.find_or_insert(p.psn)) *a = ack;
      }
      continue;
    }
    if (!dut_feedback(p) || !p.has_mfeh) continue;
    if (p.fb_type == 4) {
      ++r.judged;
      std::uint32_t* b = beyond.find_or_insert(p.trig_psn);
      if (b && *b != FlatIndex::kNone) {
        *b = FlatIndex::kNone;
      } else {
        const std::uint32_t a = ack_then.get(p.trig_psn);
        if (a != FlatIndex::kNone && psn_diff(p.trig_psn, a) <= static_cast<std::int32_t>(w)) {
          r.violation(p, "mfeh.type", "not 4: PSN " + std::to_string(p.trig_psn) + " was inside the window (ACK " +
                                          std::to_string(a) + " + " + std::to_string(w) + ")",
                      "4 (PSN out of range)");
        }
      }
    }
    if (has_cumulative_ack(p)) {
      have_ack = true;
      ack = p.psn;
    }
  }
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!accepted(r.ctx, p) || beyond.get(p.psn) != static_cast<std::uint32_t>(i)) continue;
    r.violation(p, "mfeh.type", "feedback type 4 (PSN out of range) naming PSN " + std::to_string(p.psn) +
                                    ", beyond the window of " + std::to_string(w) + " PSNs",
                "none");
  }
}

void no_rnr(Run& r) {
  r.judged_what = "feedback frames from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!dut_feedback(p) || !p.has_aeth) continue;
    ++r.judged;
    if (p.syndrome >= 0x20 && p.syndrome < 0x40) {
      r.violation(p, "aeth.syndrome", "not an RNR NAK (0x20..0x3F): MRC has no RNR", hex(p.syndrome));
    }
  }
}

}  // namespace mrc::harness::inv
