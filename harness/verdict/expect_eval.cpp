#include "harness/verdict/expect_eval.hpp"

#include <algorithm>
#include <set>

#include "harness/case/field_match.hpp"
#include "harness/verdict/check_support.hpp"
#include "harness/verdict/field_access.hpp"
#include "harness/verdict/timing_budget.hpp"
#include "reference/wire/frame.hpp"

namespace mrc::harness {
namespace {

struct Candidate {
  std::uint64_t ts = 0;
  std::size_t tap = 0;
  std::size_t index = 0;
};

// A value as the evidence shows the field (hex PSNs, opcode numbers in hex, ...).
std::string shown(const FieldMatch& m) {
  const auto id = field_id(m.field);
  if (const auto* u = std::get_if<std::uint64_t>(&m.value); u && id) {
    return format_value(*id, FieldValue{FieldKind::kUInt, *u, {}});
  }
  return to_string(m.value);
}

// "dut.p1.tx.pcapng packet 178 (dut.p1.tx)": the tap's evidence key and tap-local index, which the
// runner rewrites to the case's evidence file and its Wireshark frame number (case_evidence.cpp).
std::string tap_frame(const TapCapture& tap, std::size_t index) {
  const std::string key = tap.pcap.empty() ? tap.name : tap.pcap;
  return key + " packet " + std::to_string(index) + " (" + tap.name + ")";
}

std::string describe(const ExpectStep& e, std::size_t step, std::uint64_t anchor, const TimingBudget& b,
                     bool two_crossings) {
  std::string d = "stimulus[" + std::to_string(step) + "] expect";
  if (e.absent) d += " no";
  if (e.count > 1) d += " " + std::to_string(e.count) + "x";
  d += " {";
  for (std::size_t i = 0; i < e.match.size(); ++i) {
    if (i) d += ", ";
    d += e.match[i].field + ": " + shown(e.match[i]);
  }
  d += "}";
  if (e.port) d += " on port " + std::to_string(*e.port);
  d += " within " + std::to_string(e.within_ns) + " ns" + (e.absent ? minus_budget(b) : plus_budget(b)) + " of t=" +
       std::to_string(anchor) + " ns";
  if (two_crossings) d += " (the budget twice: the injected frame crosses to the DUT and its answer back)";
  if (e.absent && e.grace_ns > 0) {
    d += ", after a grace of " + std::to_string(e.grace_ns) + " ns" + plus_budget(b) + " for frames already queued";
  }
  return d;
}

// Evaluates `e` on one frame: number of fields that match, and the first that does not.
struct Score {
  std::size_t matched = 0;
  bool decoded = false;
  std::string first_miss;
};

Score score(const ExpectStep& e, const CheckContext& ctx, const TapCapture& tap, std::size_t index,
            wire::DecodedFrame& f) {
  Score s;
  const auto bytes = tap.capture.bytes(index);
  wire::DecodeOptions opt;
  opt.trimmed_dscps = ctx.dut_dscp.trimmed_mask();  // W13: the run's TRIMMED DSCPs mark a trim
  opt.trimmed_lasthop_dscp = ctx.dut_dscp.trimmed_lasthop;
  s.decoded = wire::decode_frame(wire::Bytes(bytes.data(), bytes.size()), f, opt).ok() || f.trimmed;
  FrameMeta m;
  m.ts_ns = tap.capture.packet(index).ts_ns;
  m.caplen = static_cast<std::uint32_t>(bytes.size());
  m.from_dut = tap.from_dut;
  m.port = tap.port;
  m.mode = ev_mode(ctx.dut);
  m.dut = &ctx.dut;
  if (!s.decoded) {
    s.first_miss = "the frame does not decode";
    return s;
  }
  for (const auto& fm : e.match) {
    const auto id = field_id(fm.field);
    if (!id) {
      if (s.first_miss.empty()) s.first_miss = "unknown field " + fm.field;
      continue;
    }
    const FieldValue v = get_field(*id, f, m);
    if (matches(v, fm.value)) {
      ++s.matched;
    } else if (s.first_miss.empty()) {
      s.first_miss = fm.field + " = " + format_value(*id, v) + ", expected " + shown(fm);
    }
  }
  return s;
}

// When the frame an absent window is anchored on crossed the DUT's port (observe/port_time.hpp),
// as the earliest and latest it may have: the injected frame (what the DUT's port took on the
// inject's port at the time it was sent; of several sent at that instant, the earliest start and
// the latest end), or the DUT's frame the previous expect matched (exact). Unknown when the
// testbed did not time it.
struct Span {
  std::uint64_t earliest = 0;
  std::uint64_t latest = 0;
};

Span anchor_port_time(const stim::ExpectPlan& plan, const std::vector<ExpectRecord>& done, const CheckContext& ctx,
                      std::uint64_t sent_ns) {
  if (plan.anchored_on_expect) {
    const ExpectRecord& prev = done[plan.prev_expect];
    if (prev.control || !prev.matched || prev.packet_index < 0 || prev.matched_at_ns == 0) return {};
    const TapCapture* t = ctx.tap(prev.tap);
    const auto i = static_cast<std::size_t>(prev.packet_index);
    if (t == nullptr || !t->from_dut || i >= t->capture.size()) return {};
    const PortTime& pt = t->capture.packet(i).port;
    return {pt.earliest(), pt.latest()};
  }
  if (!plan.anchored_on_inject) return {};
  Span s{UINT64_MAX, 0};
  for (const auto& tap : ctx.taps) {
    if (tap.from_dut || tap.port != static_cast<int>(plan.inject_port)) continue;
    for (const CapturedPacket& p : tap.capture.packets()) {
      if (p.ts_ns > sent_ns) break;
      if (p.ts_ns < sent_ns) continue;
      if (!p.port.known()) return {};
      s.earliest = std::min(s.earliest, p.port.earliest());
      s.latest = std::max(s.latest, p.port.latest());
    }
  }
  return s.latest == 0 ? Span{} : s;
}

// An absent window in port times (absolute, CLOCK_REALTIME ns): a frame of the DUT's is in it when
// it left the DUT's port in [open, close]; anchor 0 when the bridge did not time the anchor. The
// frame that opens it reached the DUT somewhere in a send's span, so the window holds only what
// is in it whenever that was: from the latest arrival on, to within_ns after the earliest. And the
// bridge delays frames to the DUT by different amounts, so on the DUT's port a frame sent before
// the anchor may arrive after it, and one sent after the window (the next injection, T later) may
// arrive inside it: what the DUT sends in answer to either is not what the window is about, and in
// the simulator it falls outside. So the window opens no earlier than every frame sent at or
// before the anchor surely reached the DUT, and closes when the first frame sent after it may have.
struct PortWindow {
  std::uint64_t anchor = 0;  // the anchor's latest arrival (or the DUT frame's departure)
  std::uint64_t open = 0;
  std::uint64_t close = 0;
};

PortWindow port_window(const Span& anchor, const CheckContext& ctx, std::uint64_t sent_ns, std::uint64_t after_ns,
                       std::uint64_t open_after, std::uint64_t close_after) {
  PortWindow w;
  if (anchor.latest == 0) return w;
  std::uint64_t last_before = anchor.latest;
  std::uint64_t first_after = UINT64_MAX;
  for (const auto& tap : ctx.taps) {
    if (tap.from_dut) continue;
    for (const CapturedPacket& p : tap.capture.packets()) {
      if (!p.port.known()) continue;
      if (p.ts_ns <= sent_ns) last_before = std::max(last_before, p.port.latest());
      if (p.ts_ns > after_ns) first_after = std::min(first_after, p.port.earliest());
    }
  }
  w.anchor = anchor.latest;
  w.open = last_before + open_after;
  w.close = std::min(anchor.earliest + close_after, first_after);
  return w;
}

}  // namespace

std::vector<ExpectRecord> evaluate_expects(const stim::Timeline& t, const CheckContext& ctx) {
  std::vector<ExpectRecord> out;
  std::set<std::pair<std::size_t, std::size_t>> used;  // (tap, index) consumed by a positive expect
  wire::DecodedFrame f;
  for (std::size_t k = 0; k < t.expects.size(); ++k) {
    const auto& plan = t.expects[k];
    const ExpectStep& e = *plan.expect;
    std::uint64_t anchor = plan.anchor_ns;
    if (plan.anchored_on_expect) {
      const ExpectRecord& prev = out[plan.prev_expect];
      anchor = prev.matched && prev.matched_at_ns != 0 ? prev.matched_at_ns : prev.window_start_ns;
    }
    std::uint64_t call_ns = 0;  // how long past the anchor the step it is anchored on took effect
    if (!plan.anchored_on_expect) {
      for (const auto& [at, returned] : ctx.late_steps) {
        if (at == anchor && returned > at) call_ns = std::max(call_ns, returned - at);
      }
    }
    ExpectRecord r;
    r.window_start_ns = anchor;
    // The delay from the anchor is the measured time, within_ns (plus tolerances) its bound: an
    // expected frame may come the timing budget later, an absent one must stay away that much
    // less long (never a window ending before its start).
    const TimingBudget& b = ctx.timing_budget;
    // An expected answer to an injection crosses the bridge twice, each crossing within the
    // budget; an absent frame's window shrinks by one budget as always.
    const bool two_crossings = plan.anchored_on_inject && !e.absent && b.ns > 0;
    const TimingBudget upper{two_crossings ? 2 * b.ns : b.ns, b.source};
    const std::uint64_t deadline = stim::expect_deadline(e, anchor);
    r.window_end_ns = e.absent ? std::max(anchor, widen_lower(deadline, b)) : widen_upper(deadline + call_ns, upper);
    // An absent frame's window opens once the step has surely taken effect (its call returned)
    // and the frames the DUT sent before it had their grace, each crossing the bridge within the
    // budget: a frame seen at the tap left the DUT up to the budget earlier. Anchored on an
    // injection or on a frame of the DUT's, the bridge measured what it added: the inject reached
    // the DUT at most the run's largest tx lag after its time, and a frame the DUT sent before it
    // (or before the frame matched) entered the fabric at most the largest entry delay after it
    // was captured. The budget still caps them; without this, a window for an answer the DUT gives
    // at once vanished behind 500 us of budget, and a retry's 0.9 T with it.
    std::uint64_t opening = b.ns;
    const CheckContext::BridgeLag& lag = ctx.bridge_lag;
    if (e.absent && lag.known && (plan.anchored_on_inject || plan.anchored_on_expect)) {
      opening = std::min(b.ns, (plan.anchored_on_inject ? lag.to_dut_max_ns : 0) + lag.from_dut_max_ns);
    }
    if (e.absent) {
      const std::uint64_t open = anchor + call_ns + e.grace_ns + opening;
      r.judged = b.ns == 0 || open < r.window_end_ns;
      r.window_start_ns = std::min(open, r.window_end_ns);
    }
    // Better than any bound: the bridge recorded when each frame crossed the DUT's port (its port).
    // A frame of the DUT's then lies in the window when it left the DUT's port from its grace to
    // within_ns (and tolerances) after the anchor's frame crossed that port: the DUT's own time,
    // what the simulator's window is, with nothing of the bridge's lag in it (port_window() says
    // how frames sent before and after it bound it). An injection sent late (call_ns: it followed
    // late traffic) is found at the time it went, and its port time holds that lateness already.
    // Frames the bridge did not time keep the window above.
    const std::uint64_t sent_ns = anchor + call_ns;
    const PortWindow pw =
        port_window(e.absent && b.ns > 0 ? anchor_port_time(plan, out, ctx, sent_ns) : Span{}, ctx, sent_ns, deadline,
                    e.grace_ns, deadline - anchor);
    if (pw.anchor != 0) r.judged = pw.open < pw.close;
    r.description = describe(e, plan.step, anchor, b, two_crossings);
    if (pw.anchor != 0) {
      const auto rel = [&](std::uint64_t t) {
        return t >= pw.anchor ? fmt_ns(static_cast<double>(t - pw.anchor)) : "-" + fmt_ns(static_cast<double>(pw.anchor - t));
      };
      r.description += " (judged on each frame's own crossing of the DUT's port, from " + rel(pw.open) + " to " +
                       rel(pw.close) + " after " +
                       (plan.anchored_on_inject ? "the send of the injected frame to it returned" : "the matched frame left it") +
                       ", as the bridge timed them, each packet's comment in the evidence; within " +
                       fmt_ns(static_cast<double>(deadline - anchor)) +
                       ", less what frames sent before or after it took to reach the DUT)";
    } else if (opening < b.ns) {
      r.description += " (it opens " + fmt_ns(static_cast<double>(opening)) + " after, not a budget after: this run's bridge took " +
                       (plan.anchored_on_inject ? "frames to the DUT within " + fmt_ns(static_cast<double>(lag.to_dut_max_ns)) + " and " : std::string()) +
                       "the DUT's into the fabric within " + fmt_ns(static_cast<double>(lag.from_dut_max_ns)) + ")";
    }
    if (call_ns > 0) {
      r.description += std::string(e.absent ? " (its window opens " : " (+ ") + std::to_string(call_ns) +
                       " ns" + (e.absent ? " later" : "") + ": the step at t=" + std::to_string(anchor) +
                       " ns took effect that much later, a control call over the wire)";
    }

    if (!r.judged) {  // no time left to watch: nothing seen is not nothing sent
      r.matched = true;
      r.mismatch = "the window closes (" + std::to_string(r.window_end_ns) + " ns) before it opens: within " +
                   std::to_string(e.within_ns) + " ns is shorter than the testbed's crossings";
      out.push_back(std::move(r));
      continue;
    }
    std::vector<Candidate> cands;
    std::uint64_t entry_max = 0;  // the largest entry delay taken off a frame that is in the window
    for (std::size_t ti = 0; ti < ctx.taps.size(); ++ti) {
      const auto& tap = ctx.taps[ti];
      if (!tap.from_dut) continue;
      if (e.port && tap.port != static_cast<int>(*e.port)) continue;
      for (std::size_t i = 0; i < tap.capture.size(); ++i) {
        const CapturedPacket& p = tap.capture.packet(i);
        // An expected frame is in time when it left the DUT by the window's end: a bridge that
        // took it into the fabric late (observe/port_time.hpp entry_ns) delayed the tap's time, not
        // the DUT's send. Its start is still judged at the tap, which no frame reaches before it
        // left.
        const std::uint64_t entry = e.absent ? 0 : std::min<std::uint64_t>(p.port.entry_ns, p.ts_ns);
        const std::uint64_t at = p.ts_ns - entry;
        const bool in = pw.anchor != 0 && p.port.known()
                            ? p.ts_ns >= anchor && p.port.ns >= pw.open && p.port.ns <= pw.close
                            : p.ts_ns >= r.window_start_ns && at <= r.window_end_ns;
        if (in) cands.push_back({p.ts_ns, ti, i});
        if (in && p.ts_ns > r.window_end_ns) entry_max = std::max(entry_max, entry);
      }
    }
    if (entry_max > 0) {
      r.description += " (a frame of the DUT's at the time it left the DUT's port: the bridge took one into the fabric up to " +
                       fmt_ns(static_cast<double>(entry_max)) + " after, its entry_ns in the evidence)";
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.ts < b.ts; });

    std::uint32_t found = 0;
    std::size_t best_score = 0;
    std::string best_miss;
    const TapCapture* best_tap = nullptr;  // the closest candidate: the evidence row points at it
    std::size_t best_index = 0;
    for (const Candidate& cd : cands) {
      // A frame an earlier expect consumed is accounted for: it neither satisfies a later expect
      // nor breaks a later absent one (an absent window anchored on a match starts at that frame).
      if (used.count({cd.tap, cd.index})) continue;
      const auto& tap = ctx.taps[cd.tap];
      const Score s = score(e, ctx, tap, cd.index, f);
      const bool hit = s.decoded && s.matched == e.match.size();
      if (hit) {
        ++found;
        if (e.absent) {
          r.tap = tap.name;
          r.packet_index = static_cast<std::int64_t>(cd.index);
          r.matched_at_ns = cd.ts;
          r.mismatch = tap_frame(tap, cd.index) + " at " + std::to_string(cd.ts) + " ns matches, but no such frame may be sent";
          if (const std::uint64_t left = tap.capture.packet(cd.index).port.ns; pw.anchor != 0 && left >= pw.anchor) {
            r.mismatch += " (it left the DUT's port " + fmt_ns(static_cast<double>(left - pw.anchor)) + " after " +
                          (plan.anchored_on_inject ? "the send of the injected frame to it returned)" : "the matched frame left it)");
          }
          break;
        }
        used.insert({cd.tap, cd.index});
        r.tap = tap.name;
        r.packet_index = static_cast<std::int64_t>(cd.index);
        r.matched_at_ns = cd.ts;
        if (found >= e.count) break;
      } else if (best_miss.empty() || s.matched > best_score) {
        best_score = s.matched;
        best_miss = "closest: " + tap_frame(tap, cd.index) + " at " + std::to_string(cd.ts) + " ns: " + s.first_miss;
        best_tap = &tap;
        best_index = cd.index;
      }
    }
    if (e.absent) {
      r.matched = found == 0;
    } else {
      r.matched = found >= e.count;
      if (!r.matched && found == 0 && best_tap != nullptr) {
        r.tap = best_tap->name;
        r.packet_index = static_cast<std::int64_t>(best_index);
      }
      if (!r.matched) {
        r.mismatch = (found > 0 ? "matched " + std::to_string(found) + " of " + std::to_string(e.count) + " frames; " : "") +
                     (cands.empty() ? "the DUT sent nothing in the window [" + std::to_string(r.window_start_ns) + ", " +
                                          std::to_string(r.window_end_ns) + "] ns"
                                    : best_miss);
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mrc::harness
