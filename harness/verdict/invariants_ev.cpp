// Invariants on how the DUT uses its EVs: never a DENIED or ASSUMED_BAD one, never a failed
// path past a grace time, retransmissions on another EV, per-packet variation, ev_min_active, and
// where the EV sits in the frame per format mode (W1, W2, W11).
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "harness/verdict/fault_spans.hpp"
#include "harness/verdict/flat_index.hpp"
#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {
namespace {

constexpr std::uint32_t kGood = 1u << 0;        // host-API EV state bits
constexpr std::uint32_t kAssumedBad = 1u << 1;
constexpr std::uint32_t kDenied = 1u << 2;
constexpr std::uint64_t kForever = std::numeric_limits<std::uint64_t>::max();

struct Interval {
  std::uint64_t from;
  std::uint64_t to;  // exclusive
};

struct EvIntervals {
  std::uint32_t echo;
  std::uint32_t index;
  std::vector<Interval> spans;
};

// Where an EV had `bit` set, from the DUT's EV events (time order); `initially` = set at start.
std::vector<Interval> state_intervals(const CheckContext& ctx, std::uint32_t index, std::uint32_t bit, bool initially) {
  std::vector<const EvEventRecord*> ev;
  for (const auto& e : ctx.dut.ev_events) {
    if (e.ev_index == index) ev.push_back(&e);
  }
  std::stable_sort(ev.begin(), ev.end(), [](auto* a, auto* b) { return a->at_ns < b->at_ns; });
  std::vector<Interval> out;
  bool in = initially;
  std::uint64_t from = 0;
  for (const auto* e : ev) {
    const bool set = (e->state & bit) != 0;
    if (set && !in) {
      in = true;
      from = e->at_ns;
    } else if (!set && in) {
      in = false;
      out.push_back(Interval{from, e->at_ns});
    }
  }
  if (in) out.push_back(Interval{from, kForever});
  return out;
}

std::vector<EvIntervals> intervals_for(const CheckContext& ctx, std::uint32_t bit) {
  std::vector<EvIntervals> out;
  for (const EvRecord& rec : ctx.dut.evs) {
    bool initially = false;
    if (bit == kDenied && rec.denied) {  // denied before traffic unless an event says when
      initially = std::none_of(ctx.dut.ev_events.begin(), ctx.dut.ev_events.end(), [&](const EvEventRecord& e) {
        return e.ev_index == rec.index && (e.state & kDenied);
      });
    }
    auto spans = state_intervals(ctx, rec.index, bit, initially);
    if (!spans.empty()) out.push_back(EvIntervals{rec.echo, rec.index, std::move(spans)});
  }
  return out;
}

const Interval* covering(const std::vector<EvIntervals>& all, std::uint32_t echo, std::uint64_t ts, bool strict) {
  for (const auto& e : all) {
    if (e.echo != echo) continue;
    for (const auto& s : e.spans) {
      if ((strict ? ts > s.from : ts >= s.from) && ts < s.to) return &s;
    }
  }
  return nullptr;
}

// `probes`: reliability probes count too (DENIED covers them; ASSUMED_BAD EVs are probed on purpose).
void no_data_in_state(Run& r, std::uint32_t bit, const char* state, bool strict, bool probes) {
  // Frames already queued in the DUT's port when the state changed may still leave within grace_ns
  // (and the timing budget: the state change and the frame's timestamp come from two clocks).
  const std::uint64_t declared = r.param("grace_ns", 0);
  const std::uint64_t grace = r.within(declared, "grace_ns " + std::to_string(declared) + " ns");
  const std::string graced = r.budget_note.empty() ? "" : " (" + r.budget_note + ")";
  const auto spans = intervals_for(r.ctx, bit);
  if (spans.empty()) return r.stop(Verdict::kInconclusive, std::string("no EV was ") + state + " during the run");
  r.judged_what = std::string(probes ? "data packets and reliability probes" : "data packets") +
                  " from the DUT while an EV was " + state;
  // Judged: what the DUT sent while some EV had been in the state past the grace. A DUT that sent
  // nothing then (its traffic over before a deny, on a testbed slower than the case was written
  // for) had no EV to avoid: nothing to judge, not a PASS.
  const auto exposed = [&](std::uint64_t ts) {
    for (const auto& e : spans) {
      for (const auto& s : e.spans) {
        if (ts >= s.from + grace && ts < s.to) return true;
      }
    }
    return false;
  };
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p) && !(probes && p.from_dut && p.cls == FrameClass::kProbe)) continue;
    if (!exposed(p.ts_ns)) continue;
    ++r.judged;
    if (const Interval* s = covering(spans, p.ev, p.ts_ns, strict); s && p.ts_ns >= s->from + grace) {
      r.violation(p, "ev", std::string("an EV that is not ") + state + graced, ev_label(r.ctx, p.ev),
                  std::string(state) + " since " + std::to_string(s->from) + " ns");
    }
  }
}

// A generated profile may hold one EV value twice, on different ports (two draws that collide):
// the packet is placed right when any EV of that value is on its port.
void check_port(Run& r, const PacketRec& p, const EvRecord& rec) {
  if (p.port == 0 || rec.port == 0 || p.port == rec.port) return;
  std::string ports;
  for (const EvRecord& e : r.ctx.dut.evs) {
    if (e.echo != p.ev) continue;
    if (e.port == 0 || e.port == p.port) return;
    ports += (ports.empty() ? "" : " or ") + std::to_string(e.port);
  }
  r.violation(p, "port", ports + " (the port of " + ev_label(r.ctx, p.ev) + ")", std::to_string(p.port));
}

bool require_mode(Run& r, int mode, const char* name) {
  if (r.ctx.dut.ev_fmt_mode == mode) return true;
  r.stop(Verdict::kError, std::string("this invariant judges ") + name + " placement, the DUT's EV format mode is " +
                              std::to_string(r.ctx.dut.ev_fmt_mode));
  return false;
}

// The EV identity must be one of the DUT's configured EVs, on that EV's port.
void check_known_ev(Run& r, const PacketRec& p) {
  if (r.ctx.dut.evs.empty()) return;
  const EvRecord* rec = ev_by_echo(r.ctx, p.ev);
  if (!rec) return r.violation(p, "ev", "an EV of the DUT's profile", hex(p.ev));
  check_port(r, p, *rec);
}

// The EVs of the DUT's table a packet may take: GOOD and not DENIED.
std::size_t eligible_evs(const CheckContext& ctx) {
  return static_cast<std::size_t>(std::count_if(ctx.dut.evs.begin(), ctx.dut.evs.end(),
                                                [](const EvRecord& e) { return !e.denied && (e.state & kGood); }));
}

}  // namespace

void no_denied_ev(Run& r) { no_data_in_state(r, kDenied, "DENIED", false, /*probes=*/true); }

void no_assumed_bad_ev(Run& r) { no_data_in_state(r, kAssumedBad, "ASSUMED_BAD", true, /*probes=*/false); }

void no_data_on_failed_ev(Run& r) {
  const std::uint64_t declared = r.param("grace_ns", 0);
  std::vector<const FaultEvent*> failures;
  for (const auto& f : r.ctx.faults) {
    // A recovery lists the EVs crossing its target too, but it ends a failure, never starts one.
    if (!is_recovery(f) && !f.affected_evs.empty()) failures.push_back(&f);
  }
  if (failures.empty()) {
    const NoFaultVerdict v = no_fault_verdict(r.ctx, "no fault event with affected EVs was recorded");
    return r.stop(v.verdict, v.verdict == Verdict::kError ? v.message + ": nothing failed, nothing to judge" : v.message);
  }
  r.judged_what = "data packets from the DUT after a fault";
  const std::uint64_t grace = r.within(declared, "grace_ns " + std::to_string(declared) + " ns");
  for (const FaultEvent* f : failures) {
    const std::uint64_t restored = restored_at(r.ctx.faults, *f);  // a later *_up on its target
    // Each failed EV's grace runs from the DUT's first data packet on it after the fault, the
    // first one the fault swallowed there (first_data_on_failed_evs says why not from the fault).
    const auto& dead = f->affected_evs;
    const std::vector<std::uint64_t> first = first_data_on_failed_evs(r.t, *f, f->at_ns, restored);
    for (const PacketRec& p : r.t.packets) {
      if (!dut_data(p) || p.ts_ns < f->at_ns || p.ts_ns >= restored) continue;
      ++r.judged;
      const auto it = std::find(dead.begin(), dead.end(), p.ev);
      if (it == dead.end()) continue;
      const std::uint64_t since = first[static_cast<std::size_t>(it - dead.begin())];
      if (p.ts_ns <= since + grace) continue;
      r.violation(p, "ev", "an EV not crossing " + f->target + " later than " + std::to_string(declared) + " ns" +
                               plus_budget(r.budget()) + " after the DUT's first data on it since the " + f->kind +
                               " at " + std::to_string(f->at_ns) + " ns (its first loss there, at " +
                               std::to_string(since) + " ns)",
                  ev_label(r.ctx, p.ev), std::to_string(p.ts_ns - since) + " ns after that first loss");
    }
  }
}

void retx_different_ev(Run& r) {
  const auto prev = previous_transmissions(r.t);
  r.judged_what = "retransmissions from the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    if (prev[i] == kNoPacket) continue;
    const PacketRec& p = r.t.packets[i];
    const PacketRec& before = r.t.packets[prev[i]];
    ++r.judged;
    if (p.ev == before.ev) {
      r.violation(p, "ev", "an EV other than that of the previous transmission (" + pcap_of(r.ctx.taps[before.tap]) +
                               " packet " + std::to_string(before.index) + ")",
                  ev_label(r.ctx, p.ev), "retransmission of PSN " + std::to_string(p.psn));
    }
  }
}

void per_packet_ev_variation(Run& r) {
  const std::uint64_t k = r.param("min_distinct", 2);
  const std::uint64_t w = r.param("window", 8);
  if (k < 1 || w < k || w > 1'000'000) return r.stop(Verdict::kError, "needs 1 <= min_distinct <= window <= 1e6");
  const std::size_t eligible = eligible_evs(r.ctx);
  if (!r.ctx.dut.evs.empty() && eligible < k) {
    return r.stop(Verdict::kInconclusive, "only " + std::to_string(eligible) + " eligible EVs, fewer than min_distinct " +
                                              std::to_string(k));
  }
  r.judged_what = "windows of " + std::to_string(w) + " data packets";
  FlatIndex count(r.t.packets.size());
  std::vector<std::uint32_t> ring(w);
  std::size_t seen = 0;
  std::size_t distinct = 0;
  bool in_violation = false;
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!dut_data(p)) continue;
    if (seen >= w) {  // drop the packet leaving the window
      std::uint32_t* c = count.find_or_insert(r.t.packets[ring[seen % w]].ev);
      if (c && --*c == 0) --distinct;
    }
    std::uint32_t* c = count.find_or_insert(p.ev);
    if (!c) return r.stop(Verdict::kError, "EV table overflow");
    if (*c == FlatIndex::kNone) *c = 0;
    if ((*c)++ == 0) ++distinct;
    ring[seen % w] = static_cast<std::uint32_t>(i);
    if (++seen < w) continue;
    ++r.judged;
    const bool bad = distinct < k;
    if (bad && !in_violation) {
      r.violation(p, "ev", ">= " + std::to_string(k) + " distinct EVs in every " + std::to_string(w) + " data packets",
                  std::to_string(distinct) + " distinct (" + ev_label(r.ctx, p.ev) + ")",
                  "the window ends at this packet");
    }
    in_violation = bad;
  }
}

// SPRAY-PER-PACKET-EV: the first copies of two consecutive PSNs of one QP left on different EVs.
// Judged in PSN order, not capture order: packets the DUT chose in turn may leave its ports out of
// order (each port has its own queue). A retransmission is the DUT's choice by RETX-DIFFERENT-EV.
void consecutive_evs_differ(Run& r) {
  if (!r.ctx.dut.evs.empty() && eligible_evs(r.ctx) < 2) {
    return r.stop(Verdict::kInconclusive, "fewer than 2 eligible EVs: consecutive packets may share one");
  }
  r.judged_what = "consecutive PSNs first sent by the DUT";
  auto key = [](const PacketRec& p, std::uint32_t psn) { return (std::uint64_t{p.dqpn} << 24) | (psn & 0xFFFFFFu); };
  FlatIndex first(r.t.packets.size());  // (QP, PSN) -> position of its first copy
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!dut_data(p)) continue;
    std::uint32_t* s = first.find_or_insert(key(p, p.psn));
    if (s && *s == FlatIndex::kNone) *s = static_cast<std::uint32_t>(i);
  }
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!dut_data(p) || first.get(key(p, p.psn)) != i) continue;
    const std::uint32_t prev = first.get(key(p, p.psn - 1));
    if (prev == FlatIndex::kNone) continue;
    ++r.judged;
    const PacketRec& q = r.t.packets[prev];
    if (q.ev == p.ev) {
      r.violation(p, "ev", "an EV other than PSN " + std::to_string(q.psn) + "'s (" + where(r.ctx, q) + ")",
                  ev_label(r.ctx, p.ev), "PSN " + std::to_string(p.psn) + " follows PSN " + std::to_string(q.psn) + " on the same EV");
    }
  }
}

void ev_min_active(Run& r) {
  const std::uint32_t min = r.ctx.ev_min_active;
  if (min == 0) return r.stop(Verdict::kError, "the context does not carry the profile's ev_min_active");
  if (r.ctx.dut.evs.empty()) return r.stop(Verdict::kError, "the DUT binding reported no EV list");
  // The DUT's own reports: marking an EV ASSUMED_BAD must never leave fewer than min GOOD EVs.
  std::vector<std::uint32_t> state;
  std::vector<std::uint32_t> index;
  for (const auto& e : r.ctx.dut.evs) {
    index.push_back(e.index);
    state.push_back(e.denied ? kDenied : kGood);
  }
  std::vector<const EvEventRecord*> ev;
  for (const auto& e : r.ctx.dut.ev_events) ev.push_back(&e);
  std::stable_sort(ev.begin(), ev.end(), [](auto* a, auto* b) { return a->at_ns < b->at_ns; });
  r.judged_what = "EV events and data packets";
  for (const EvEventRecord* e : ev) {
    const auto it = std::find(index.begin(), index.end(), e->ev_index);
    if (it == index.end()) continue;
    state[static_cast<std::size_t>(it - index.begin())] = e->state;
    ++r.judged;
    std::size_t good = 0;
    for (auto s : state) good += ((s & kGood) && !(s & (kDenied | kAssumedBad))) ? 1 : 0;
    if ((e->state & kAssumedBad) && good < min) {
      Evidence x;
      x.ts_ns = e->at_ns;
      x.field = "good_evs";
      x.expected = ">= " + std::to_string(min) + " (ev_min_active)";
      x.observed = std::to_string(good);
      x.note = "after EV index " + std::to_string(e->ev_index) + " was marked ASSUMED_BAD at " + std::to_string(e->at_ns) + " ns";
      r.violation(std::move(x));
    }
  }
  // On the wire: the DUT used at least min distinct EVs over the run.
  std::vector<std::uint32_t> used;
  const PacketRec* last = nullptr;
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p)) continue;
    ++r.judged;
    last = &p;
    if (std::find(used.begin(), used.end(), p.ev) == used.end()) used.push_back(p.ev);
  }
  if (last && used.size() < min) {
    r.violation(*last, "ev", ">= " + std::to_string(min) + " distinct EVs used (ev_min_active)",
                std::to_string(used.size()) + " distinct EVs over the run");
  }
}

void stev_placement(Run& r) {  // W2 option A
  if (!require_mode(r, 1, "STEV")) return;
  r.judged_what = "data packets from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p)) continue;
    ++r.judged;
    if (p.ip_version != 6) {
      r.violation(p, "ip.version", "6 (STEV carries the EV in the IPv6 flow label)", std::to_string(p.ip_version));
      continue;
    }
    if (p.flow_label >> 16) {
      r.violation(p, "ip.flow_label", "EV bits 31..16 in label bits 15..0, top 4 bits 0", hex(p.flow_label));
    }
    check_known_ev(r, p);
  }
}

void udp_placement(Run& r) {  // W2
  if (!require_mode(r, 4, "UDP")) return;
  r.judged_what = "data packets from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p)) continue;
    ++r.judged;
    if (p.ip_version == 6 && p.flow_label != 0) r.violation(p, "ip.flow_label", "0 (UDP mode)", hex(p.flow_label));
    check_known_ev(r, p);
  }
}

// W1: an SRH carries one segment with Last Entry 0. The API puts the EV's bytes 16..31 there as
// the continuation of the path (the next container), and RFC 8754 routes on it only with Segments
// Left 1; a copy of the path for debugging (SL 0, F1's use) would stop the packet at the end of
// the first container wherever the route needs the segment. W2: the inner flow label and
// sport carry the requester's own tag of the EV, "a 32-bit value per SRv6 EV": whatever its
// value, one path always carries the same tag and one tag names one path, and it is an EV of the
// DUT's profile (the identities the DUT reports).
void srv6_layout(Run& r) {
  if (!require_mode(r, 2, "SRv6")) return;
  r.judged_what = "data packets from the DUT";
  std::unordered_map<std::uint32_t, const PacketRec*> first_of_tag;
  std::unordered_map<std::uint64_t, const PacketRec*> first_of_path;
  for (const PacketRec& p : r.t.packets) {
    if (!dut_data(p)) continue;
    ++r.judged;
    if (!p.encapsulated) {
      r.violation(p, "inner.dst", "an inner IPv6 header (SRv6 encapsulation)", "absent");
      continue;
    }
    if (p.has_srh) {
      if (p.srh_segments != 1) r.violation(p, "srh.last_entry", "a single segment", std::to_string(p.srh_segments) + " segments");
      if (p.srh_sl != 1) r.violation(p, "srh.segments_left", "1", std::to_string(p.srh_sl));
      if (p.srh_le != 0) r.violation(p, "srh.last_entry", "0", std::to_string(p.srh_le));
    }
    const PacketRec*& by_tag = first_of_tag.try_emplace(p.ev, &p).first->second;
    const PacketRec*& by_path = first_of_path.try_emplace(p.srv6_path, &p).first->second;
    if (by_tag->srv6_path != p.srv6_path) {
      r.violation(p, "ev", "a tag (inner flow label, sport) that names one path: " + where(r.ctx, *by_tag) +
                               " carried it on another outer DA / SRH segment", hex(p.ev));
    } else if (by_path->ev != p.ev) {
      r.violation(p, "ev", "the tag this path carried first, " + hex(by_path->ev) + " (" + where(r.ctx, *by_path) + ")",
                  hex(p.ev));
    }
    check_known_ev(r, p);
  }
}

void probe_on_tested_ev(Run& r) {  // W9, W10
  r.judged_what = "path probes from the DUT";
  for (const PacketRec& p : r.t.packets) {
    if (!p.from_dut || !p.is_path_probe()) continue;
    ++r.judged;
    if (r.ctx.dut.evs.empty()) continue;
    const EvRecord* rec = ev_by_echo(r.ctx, p.ev);
    if (!rec) {
      r.violation(p, "ev", "the EV under test (one of the DUT's profile)", hex(p.ev));
      continue;
    }
    check_port(r, p, *rec);
  }
}

// ---- helpers shared by the families ----------------------------------------------------------

const EvRecord* ev_by_echo(const CheckContext& ctx, std::uint32_t echo) {
  for (const auto& e : ctx.dut.evs) {
    if (e.echo == echo) return &e;
  }
  return nullptr;
}

const EvRecord* ev_by_index(const CheckContext& ctx, std::uint32_t index) {
  for (const auto& e : ctx.dut.evs) {
    if (e.index == index) return &e;
  }
  return nullptr;
}

std::string ev_label(const CheckContext& ctx, std::uint32_t echo) {
  const EvRecord* e = ev_by_echo(ctx, echo);
  if (!e) return "ev " + hex(echo);
  return "ev " + hex(echo) + " (index " + std::to_string(e->index) + ", port " + std::to_string(e->port) + ")";
}

std::string where(const CheckContext& ctx, const PacketRec& p) {
  return pcap_of(ctx.taps[p.tap]) + " packet " + std::to_string(p.index);
}

// W5, W8: BTH.PSN of a SACK and of a Transport ACK is cack_psn; a Transport NAK's names the
// refused packet and a NACK's the NACKed one, neither cumulative.
bool sack_has(const PacketRec& fb, std::uint32_t psn) {  // W5
  if (!fb.is_sack()) return false;
  const std::int32_t off = psn_diff(psn, fb.sack_base);
  if (off >= 0 && off < 64 && fb.sack_bit(static_cast<unsigned>(off))) return true;
  return !fb.seth_pr && psn == fb.trig_psn;  // W6: the PSN a SACK answers arrived
}

}  // namespace mrc::harness::inv
