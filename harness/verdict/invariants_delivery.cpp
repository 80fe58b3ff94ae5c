// Invariants on the DUT as requester and on the run's outcome: every PSN acknowledged, the
// un-ACKed window (W12) and WIMM limit (W16), selective retransmission, completions exactly once
// and only after every PSN of the message was placed, data verified, and the congestion
// response to ECN (W14).
#include <algorithm>
#include <deque>

#include "harness/verdict/invariants.hpp"
#include "harness/verdict/psn_space.hpp"

namespace mrc::harness::inv {
namespace {

bool to_dut_feedback(const PacketRec& p) { return !p.from_dut && p.is_feedback(); }

// The DUT's sent PSNs with what the peer's feedback (to the DUT) acknowledged so far.
class SentSpace {
 public:
  explicit SentSpace(const Trace& t) : s_(t, [](const PacketRec& p) { return dut_data(p); }) {}

  // Applies one feedback frame to the DUT: cumulative ACK and SACK bits (W5, W8).
  void feedback(const PacketRec& fb) {
    if (s_.empty()) return;
    if (fb.carries_cack()) {
      const std::int64_t a = std::min<std::int64_t>(psn_diff(fb.psn, s_.start()), static_cast<std::int64_t>(s_.size()) - 1);
      acked_upto_ = std::max(acked_upto_, a);
    }
    if (fb.is_sack()) {
      for (unsigned k = 0; k < 64; ++k) {
        if (!fb.sack_bit(k)) continue;
        const std::int64_t off = s_.offset(psn_add(fb.sack_base, k));
        if (off >= 0) s_.flags(off) |= PsnSpace::kAcked;
      }
    }
  }
  bool acked(std::int64_t off) const { return off >= 0 && (off <= acked_upto_ || s_.has(off, PsnSpace::kAcked)); }
  std::int64_t acked_upto() const { return acked_upto_; }  // -1: nothing cumulatively acked
  PsnSpace& space() { return s_; }

 private:
  PsnSpace s_;
  std::int64_t acked_upto_ = -1;
};

Evidence report_evidence(std::uint64_t ts, std::string field, std::string expected, std::string observed, std::string note) {
  Evidence e;
  e.ts_ns = ts;
  e.field = std::move(field);
  e.expected = std::move(expected);
  e.observed = std::move(observed);
  e.note = std::move(note);
  return e;
}

}  // namespace

void every_psn_delivered(Run& r) {
  SentSpace s(r.t);
  std::vector<std::uint32_t> first_tx(s.space().size(), kNoPacket);
  r.judged_what = "PSNs sent by the DUT";
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (to_dut_feedback(p)) {
      s.feedback(p);
    } else if (dut_data(p)) {
      const std::int64_t off = s.space().offset(p.psn);
      if (first_tx[static_cast<std::size_t>(off)] == kNoPacket) {
        first_tx[static_cast<std::size_t>(off)] = static_cast<std::uint32_t>(i);
        ++r.judged;
      }
    }
  }
  for (std::size_t off = 0; off < first_tx.size(); ++off) {
    if (first_tx[off] == kNoPacket || s.acked(static_cast<std::int64_t>(off))) continue;
    r.violation(r.t.packets[first_tx[off]], "bth.psn", "acknowledged by the peer's feedback before the run ended",
                "PSN " + std::to_string(r.t.packets[first_tx[off]].psn) + " never acknowledged");
  }
}

// The DUT as requester: one send completion per write it posted, with success status.
static void send_completions_once(Run& r) {
  std::vector<const CompletionRecord*> sends;
  for (const auto& c : r.ctx.dut.completions) {
    if (c.is_send) sends.push_back(&c);
  }
  std::stable_sort(sends.begin(), sends.end(), [](auto* a, auto* b) { return a->wr_id < b->wr_id; });
  std::vector<std::uint64_t> posted;
  for (const WriteRecord& w : r.ctx.dut.writes) {
    if (!w.posted_by_dut) continue;
    posted.push_back(w.wr_id);
    ++r.judged;
    auto lo = std::lower_bound(sends.begin(), sends.end(), w.wr_id,
                               [](const CompletionRecord* c, std::uint64_t id) { return c->wr_id < id; });
    auto hi = lo;
    while (hi != sends.end() && (*hi)->wr_id == w.wr_id) ++hi;
    const auto n = static_cast<std::size_t>(hi - lo);
    if (n != 1) {
      r.violation(report_evidence(n ? (*lo)->at_ns : w.posted_ns, "wr_id", "exactly 1 completion for wr_id " + std::to_string(w.wr_id),
                                  std::to_string(n) + " completions", "write of " + std::to_string(w.length) + " bytes"));
    } else if ((*lo)->status != 0) {
      r.violation(report_evidence((*lo)->at_ns, "status", "0 (success) for wr_id " + std::to_string(w.wr_id),
                                  std::to_string((*lo)->status), {}));
    }
  }
  std::sort(posted.begin(), posted.end());
  for (const CompletionRecord* c : sends) {
    if (!std::binary_search(posted.begin(), posted.end(), c->wr_id)) {
      r.violation(report_evidence(c->at_ns, "wr_id", "the wr_id of a posted write", std::to_string(c->wr_id),
                                  "completion for a write that was never posted"));
    }
  }
}

// The DUT as responder: one receive completion per WRITE-with-IMM the peer posted, carrying its
// immediate data (WIMM-COMPLETION-EXACTLY-ONCE, WIMM-IMM-DATA), and none for anything else.
static void receive_completions_once(Run& r) {
  std::vector<std::pair<std::uint32_t, const CompletionRecord*>> recvs;  // (imm, completion)
  for (const auto& c : r.ctx.dut.completions) {
    if (!c.is_send) recvs.emplace_back(c.has_imm ? c.imm : 0, &c);
  }
  std::stable_sort(recvs.begin(), recvs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::uint32_t> expected;
  for (const WriteRecord& w : r.ctx.dut.writes) {
    if (w.posted_by_dut || !w.with_imm) continue;
    expected.push_back(w.imm);
    ++r.judged;
    auto lo = std::lower_bound(recvs.begin(), recvs.end(), w.imm, [](const auto& c, std::uint32_t v) { return c.first < v; });
    auto hi = lo;
    while (hi != recvs.end() && hi->first == w.imm) ++hi;
    const auto n = static_cast<std::size_t>(hi - lo);
    if (n != 1) {
      r.violation(report_evidence(n ? lo->second->at_ns : w.posted_ns, "imm",
                                  "exactly 1 receive completion with imm " + std::to_string(w.imm),
                                  std::to_string(n) + " receive completions",
                                  "WRITE-with-IMM of " + std::to_string(w.length) + " bytes (wr_id " + std::to_string(w.wr_id) + ")"));
    } else if (lo->second->status != 0) {
      r.violation(report_evidence(lo->second->at_ns, "status", "0 (success) for the receive with imm " + std::to_string(w.imm),
                                  std::to_string(lo->second->status), {}));
    }
  }
  std::sort(expected.begin(), expected.end());
  for (const auto& [imm, c] : recvs) {
    if (!c->has_imm || !std::binary_search(expected.begin(), expected.end(), imm)) {
      r.violation(report_evidence(c->at_ns, "imm", "the immediate data of a WRITE-with-IMM the peer posted",
                                  c->has_imm ? std::to_string(imm) : "no immediate data",
                                  "receive completion for no message sent"));
    }
  }
}

void completions_exactly_once(Run& r) {
  const auto& writes = r.ctx.dut.writes;
  if (writes.empty()) return r.stop(Verdict::kInconclusive, "the DUT binding reported no posted writes");
  r.judged_what = "posted writes";
  send_completions_once(r);
  receive_completions_once(r);
  if (r.judged == 0) {
    r.stop(Verdict::kInconclusive, "no write the DUT posted and no WRITE-with-IMM sent to it: nothing to judge");
  }
}

void completion_after_all_psns(Run& r) {  // W4, W16
  PsnSpace s(r.t, [](const PacketRec& p) { return !p.from_dut && p.is_write_data(); });
  std::vector<std::uint64_t> placed_at(s.size(), ~std::uint64_t{0});
  std::vector<std::uint8_t> opcode(s.size(), 0);
  std::vector<std::uint32_t> imm_last;  // positions of WRITE-with-IMM LAST/ONLY arrivals, time order
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (p.from_dut || !valid_arrival(p) || (r.ctx.dut.dut_qpn && p.dqpn != r.ctx.dut.dut_qpn)) continue;
    const auto off = static_cast<std::size_t>(s.offset(p.psn));
    if (placed_at[off] == ~std::uint64_t{0}) {
      placed_at[off] = p.ts_ns;
      opcode[off] = p.opcode;
    }
    if (carries_imm(p.opcode)) imm_last.push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<std::uint8_t> used(imm_last.size(), 0);
  r.judged_what = "WRITE-with-IMM receive completions";
  for (const CompletionRecord& c : r.ctx.dut.completions) {
    if (c.is_send || !c.has_imm) continue;
    ++r.judged;
    std::size_t k = 0;
    while (k < imm_last.size() && (used[k] || r.t.packets[imm_last[k]].immdt != c.imm)) ++k;
    if (k == imm_last.size()) {
      r.violation(report_evidence(c.at_ns, "imm", "a WRITE-with-IMM carrying imm " + hex(c.imm) + " reached the DUT",
                                  "none", "receive completion without its message"));
      continue;
    }
    used[k] = 1;
    const PacketRec& last = r.t.packets[imm_last[k]];
    // Placement (tap time) may trail the completion (binding time) by the timing budget.
    const std::uint64_t deadline = r.within(c.at_ns, "placement before each receive completion's time");
    // Walk the message back from its LAST/ONLY to its FIRST: every PSN placed before the completion.
    std::int64_t off = s.offset(last.psn);
    for (std::size_t steps = 0; off >= 0 && steps < (1u << 20); ++steps, --off) {
      const auto o = static_cast<std::size_t>(off);
      if (placed_at[o] == ~std::uint64_t{0}) {
        r.violation(last, "bth.psn", "PSN " + std::to_string(s.psn_at(off)) + " of the message placed before the completion at " +
                                         std::to_string(c.at_ns) + " ns",
                    "never arrived intact");
        break;
      }
      if (placed_at[o] > deadline) {
        r.violation(last, "bth.psn", "PSN " + std::to_string(s.psn_at(off)) + " placed before the completion at " +
                                         std::to_string(c.at_ns) + " ns" + plus_budget(r.budget()),
                    "placed at " + std::to_string(placed_at[o]) + " ns");
        break;
      }
      if (is_write_first(opcode[o])) break;
    }
  }
}

// A limit the DUT never reached was not tested: a DUT that exceeds it must first be at it. Its
// congestion control or its traffic may keep a conformant DUT below (a 1 Gb/s wire holds a few
// packets in flight, not 128 PSNs), and then the run judged nothing about the limit.
static void never_reached(Run& r, std::int64_t most, std::uint64_t limit, const std::string& what) {
  if (r.findings.count() != 0 || r.judged == 0 || most >= static_cast<std::int64_t>(limit)) return;
  r.stop(Verdict::kInconclusive, "the limit never bound: the DUT had at most " + std::to_string(most) + " " + what +
                                     ", the limit is " + std::to_string(limit) +
                                     " (its congestion control or its traffic kept it below): nothing to judge");
}

void requester_window(Run& r) {  // W12
  const std::uint64_t n = r.param("max_outstanding", r.ctx.requester_window_psns);
  if (n == 0) return r.stop(Verdict::kError, "the context does not carry the requester window (min(mpr, mpr_dest) x 128)");
  SentSpace s(r.t);
  r.judged_what = "data packets from the DUT";
  std::int64_t most = 0;
  for (const PacketRec& p : r.t.packets) {
    if (to_dut_feedback(p)) {
      s.feedback(p);
      continue;
    }
    if (!dut_data(p)) continue;
    ++r.judged;
    const std::int64_t ahead = s.space().offset(p.psn) - s.acked_upto();
    most = std::max(most, ahead);
    if (ahead > static_cast<std::int64_t>(n)) {
      r.violation(p, "bth.psn", "<= cumulative ACK + " + std::to_string(n) + " (" + std::to_string(s.space().psn_at(s.acked_upto() + static_cast<std::int64_t>(n))) + ")",
                  std::to_string(p.psn) + ", " + std::to_string(ahead) + " PSNs past the cumulative ACK");
    }
  }
  never_reached(r, most, n, "PSNs past the cumulative ACK");
}

void wimm_limit(Run& r) {  // W16
  const std::uint64_t limit = r.param("max_outstanding", r.ctx.wimm_limit);
  if (limit == 0) return r.stop(Verdict::kError, "the context does not carry the WIMM limit (min(max_wimm, max_wimm_dest))");
  SentSpace s(r.t);
  // WIMM messages not yet ACKed through their LAST: FIRST and LAST PSN offsets. Messages are
  // counted in PSN order, not capture order: FIRSTs of two messages with equal timestamps are
  // ordered by port, so a later message's FIRST can show before an earlier one's.
  struct Open {
    std::int64_t first;
    std::int64_t last;
  };
  std::vector<Open> outstanding;
  const auto prev = previous_transmissions(r.t);
  // A message's LAST decides whether it is a WIMM: the LAST nearest after its FIRST in PSN order,
  // wherever it sits in the capture. (Sprayed packets with equal timestamps are ordered by port,
  // so a message's LAST can come before its FIRST, and the next LAST in capture order may be the
  // next message's.) Every LAST of the DUT, sorted by QP and PSN offset once.
  struct Last {
    std::uint32_t dqpn;
    std::int64_t off;
    std::uint8_t opcode;
    bool operator<(const Last& o) const { return dqpn != o.dqpn ? dqpn < o.dqpn : off < o.off; }
  };
  std::vector<Last> lasts;
  for (const PacketRec& q : r.t.packets) {
    if (dut_data(q) && is_write_last(q.opcode)) lasts.push_back(Last{q.dqpn, s.space().offset(q.psn), q.opcode});
  }
  std::sort(lasts.begin(), lasts.end());
  outstanding.reserve(limit + 2);
  r.judged_what = "WRITE-with-IMM messages from the DUT";
  std::int64_t most = 0;
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (to_dut_feedback(p)) {
      s.feedback(p);
      continue;
    }
    if (!dut_data(p) || !is_write_first(p.opcode) || prev[i] != kNoPacket) continue;
    // A new message starts: drop the ones ACKed through their LAST, then count.
    std::erase_if(outstanding, [&](const Open& o) { return o.last <= s.acked_upto(); });
    const std::int64_t first = s.space().offset(p.psn);
    if (p.opcode == wire::opcode::kMrcWriteOnlyImm) {
      outstanding.push_back(Open{first, first});
      ++r.judged;
    } else if (p.opcode == wire::opcode::kMrcWriteFirst) {
      const auto last = std::upper_bound(lasts.begin(), lasts.end(), Last{p.dqpn, first, 0});
      if (last == lasts.end() || last->dqpn != p.dqpn || last->opcode != wire::opcode::kMrcWriteLastImm) continue;
      outstanding.push_back(Open{first, last->off});
      ++r.judged;
    } else {
      continue;
    }
    // Those that started before this one in PSN order, and this one.
    const auto open = static_cast<std::size_t>(
        std::count_if(outstanding.begin(), outstanding.end(), [&](const Open& o) { return o.first <= first; }));
    most = std::max(most, static_cast<std::int64_t>(open));
    if (open > limit) {
      r.violation(p, "bth.opcode", "<= " + std::to_string(limit) + " WRITE-with-IMM messages outstanding",
                  std::to_string(open) + " outstanding when this message started");
    }
  }
  never_reached(r, most, limit, "WRITE-with-IMM messages outstanding");
}

void selective_retx(Run& r) {
  SentSpace s(r.t);
  const auto prev = previous_transmissions(r.t);
  r.judged_what = "retransmissions from the DUT";
  // Across a real-time bridge a feedback frame reaches the DUT up to the timing budget after its
  // tap stamped it (the DUT's own frames carry their kernel capture times): a retransmission sent
  // meanwhile was picked before the DUT had that acknowledgement. Feedback counts from then on.
  const std::uint64_t crossing = r.budget().ns;
  std::size_t applied = 0;  // feedback frames before this index are applied
  const auto apply_until = [&](std::size_t end, std::uint64_t ts) {
    for (; applied < end; ++applied) {
      const PacketRec& fb = r.t.packets[applied];
      if (!to_dut_feedback(fb)) continue;
      if (fb.ts_ns + crossing > ts) return;  // the rest is later still
      s.feedback(fb);
    }
  };
  for (std::size_t i = 0; i < r.t.packets.size(); ++i) {
    const PacketRec& p = r.t.packets[i];
    if (!dut_data(p) || prev[i] == kNoPacket) continue;
    apply_until(i, p.ts_ns);
    ++r.judged;
    if (s.acked(s.space().offset(p.psn))) {
      r.violation(p, "bth.psn", "a PSN the peer has not acknowledged (cumulatively or by SACK)",
                  std::to_string(p.psn) + ", already acknowledged");
    }
  }
}

void data_verified(Run& r) {
  const auto& writes = r.ctx.dut.writes;
  if (writes.empty()) return r.stop(Verdict::kInconclusive, "the DUT binding reported no posted writes");
  r.judged_what = "posted writes";
  for (const WriteRecord& w : writes) {
    ++r.judged;
    if (!w.data_verified) {
      r.violation(report_evidence(w.posted_ns, "data", "destination bytes equal the source", "differ",
                                  "wr_id " + std::to_string(w.wr_id) + ", " + std::to_string(w.length) + " bytes"));
    }
  }
}

void cwnd_decreases(Run& r) {  // W14
  const std::uint64_t w = r.param("within_ns", 50'000);
  // The DUT sees a feedback frame up to the timing budget after its tap stamped it, so the
  // window in which its rate must have dropped opens that much later (the deadline grows by it).
  const std::uint64_t lag = r.budget().ns;
  r.note_bound("within_ns " + fmt_ns(static_cast<double>(w)) + ", its window opening " + budget_text(r.budget()) +
               " after the feedback");
  const auto& pk = r.t.packets;
  auto bytes_in = [&](std::uint64_t from, std::uint64_t to) {
    std::uint64_t b = 0;
    for (const PacketRec& p : pk) {
      if (dut_data(p) && p.ts_ns >= from && p.ts_ns < to) b += p.wire_len;
    }
    return b;
  };
  const std::uint64_t last_data = [&] {
    std::uint64_t t = 0;
    for (const PacketRec& p : pk) t = dut_data(p) ? p.ts_ns : t;
    return t;
  }();
  r.judged_what = "congestion signals";
  for (const PacketRec& fb : pk) {
    if (!to_dut_feedback(fb) || !fb.skip_once() || fb.ts_ns < w) continue;  // W14: marked = SKIP_ONCE
    const std::uint64_t before = bytes_in(fb.ts_ns - w, fb.ts_ns);
    if (before == 0 || last_data < fb.ts_ns + lag + w) continue;  // no rate to compare, or traffic ended
    ++r.judged;
    const std::uint64_t after = bytes_in(fb.ts_ns + lag, fb.ts_ns + lag + w);
    r.r.metrics["bytes_before"] = static_cast<double>(before);
    r.r.metrics["bytes_after"] = static_cast<double>(after);
    if (after >= before) {
      const std::string opens = lag == 0 ? "" : " (opening " + budget_text(r.budget()) + " after it)";
      r.violation(fb, "rate", "fewer data bytes in the " + fmt_ns(static_cast<double>(w)) + " after this ECN-CE feedback" + opens +
                                  " than the " + std::to_string(before) + " bytes before it",
                  std::to_string(after) + " bytes");
    }
    return;  // the first congestion signal with traffic on both sides is the trial
  }
}

}  // namespace mrc::harness::inv
