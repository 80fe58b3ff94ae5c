#include "harness/verdict/timing_metrics.hpp"

#include <algorithm>
#include <vector>

#include "harness/verdict/fault_spans.hpp"
#include "harness/verdict/flat_index.hpp"
#include "reference/wire/headers.hpp"

namespace mrc::harness::timing {
namespace {

constexpr std::uint32_t kEvAssumedBad = 1u << 1;  // host-API EV state bit

using Trial = FailureTrial;

std::uint64_t run_end(const CheckContext& ctx, const Trace& t) {
  std::uint64_t end = ctx.end_ns;
  if (!t.packets.empty()) end = std::max(end, t.packets.back().ts_ns + 1);
  return end;
}

std::size_t first_at(const Trace& t, std::uint64_t ts) {
  return static_cast<std::size_t>(
      std::lower_bound(t.packets.begin(), t.packets.end(), ts,
                       [](const PacketRec& p, std::uint64_t v) { return p.ts_ns < v; }) -
      t.packets.begin());
}

bool contains(const std::vector<std::uint32_t>& evs, std::uint32_t ev) {
  return std::find(evs.begin(), evs.end(), ev) != evs.end();
}

bool dut_data(const PacketRec& p) { return p.from_dut && p.is_write_data(); }

void skip(Measurement& m, std::string why) {
  if (m.skipped++ == 0) m.skip_reason = std::move(why);
}

Sample sample(std::uint64_t start, std::uint64_t end, std::int64_t anchor, const char* what, bool censored = false) {
  return Sample{static_cast<double>(end - start), censored, start, anchor, what};
}

// ---- failover metrics, one trial per failure event -------------------------------------------

// What every failover trial reads.
struct TrialEnv {
  const Trace& t;
  const std::vector<std::uint32_t>& prev;  // previous_transmissions(t)
  std::size_t confirm;  // healthy-EV packets after the last failed-EV one that prove the DUT stopped
  const MetricParams& params;
  std::uint64_t bridge_rate_bps;  // what a real-time bridge forwards (0: not bridged)
};

using TrialFn = void (*)(const Trial&, const TrialEnv&, Measurement&);

// From when the DUT's traffic met the last failed EV it used (last_failed_ev_met) to its last data
// packet on a failed EV.
void stop_using_failed(const Trial& tr, const TrialEnv& env, Measurement& m) {
  const Trace& t = env.t;
  std::int64_t last_failed = -1;
  bool any = false;
  std::size_t healthy_after = 0;  // data on healthy EVs after the last one on a failed EV
  for (std::size_t i = first_at(t, tr.start); i < t.packets.size() && t.packets[i].ts_ns < tr.end; ++i) {
    const PacketRec& p = t.packets[i];
    if (!dut_data(p)) continue;
    any = true;
    if (contains(tr.fault->affected_evs, p.ev)) {
      last_failed = static_cast<std::int64_t>(i);
      healthy_after = 0;
    } else {
      ++healthy_after;
    }
  }
  if (!any) return skip(m, "no data from the DUT after the fault at " + std::to_string(tr.start) + " ns");
  if (last_failed < 0) return m.samples.push_back(sample(tr.start, tr.start, -1, "no data on an affected EV after the fault"));
  const auto& lp = t.packets[static_cast<std::size_t>(last_failed)];
  // Stopped only if afterwards it sent enough on healthy EVs to have come back round to a failed
  // one (twice the EV count); otherwise the trial ended too soon to tell.
  const std::uint64_t met = last_failed_ev_met(tr, t);
  if (healthy_after >= env.confirm) {
    return m.samples.push_back(sample(met, lp.ts_ns, last_failed,
                                      "last data packet on a failed EV, from the DUT's first data on the last "
                                      "failed EV it used"));
  }
  m.samples.push_back(sample(met, tr.end, last_failed, "still sending on a failed EV when the trial ended", true));
}

// From the first data packet the fault swallowed (the first on an affected EV at or after the
// fault; the fault itself when there is none) to the first retransmission on a healthy EV. The span
// starts at the loss, not the fault, because when a conformant DUT next sends on an affected EV is
// its own spraying choice; the case's bound then counts ACK timeouts (a remote fault is learnt only
// by them, and RETX-DIFFERENT-EV lets a retransmission take another EV through the same dead switch).
void first_retx_other_path(const Trial& tr, const TrialEnv& env, Measurement& m) {
  const Trace& t = env.t;
  const auto& prev = env.prev;
  bool any = false;
  std::uint64_t first_loss = tr.start;
  bool lost = false;
  std::int64_t retx_on_failed = -1;
  for (std::size_t i = first_at(t, tr.start); i < t.packets.size() && t.packets[i].ts_ns < tr.end; ++i) {
    const PacketRec& p = t.packets[i];
    if (!dut_data(p)) continue;
    any = true;
    const bool affected = contains(tr.fault->affected_evs, p.ev);
    if (affected && !lost) {
      lost = true;
      first_loss = p.ts_ns;
    }
    if (prev[i] == kNoPacket) continue;
    if (!affected) {
      return m.samples.push_back(sample(first_loss, p.ts_ns, static_cast<std::int64_t>(i),
                                        "first retransmission on a healthy EV; span starts at the first loss"));
    }
    if (retx_on_failed < 0) retx_on_failed = static_cast<std::int64_t>(i);
  }
  if (!any) return skip(m, "no data from the DUT after the fault at " + std::to_string(tr.start) + " ns");
  if (retx_on_failed < 0) return skip(m, "nothing was retransmitted after the fault at " + std::to_string(tr.start) + " ns");
  m.samples.push_back(sample(first_loss, tr.end, retx_on_failed, "retransmitted only on failed EVs until the trial ended", true));
}

// The DUT's data rate after the fault, back to `recovered_fraction` of the rate before it: bytes
// in a window of `window_ns` ending at each data packet. After the fault only data on EVs the fault
// left working counts (goodput): what the failed path swallows is no throughput. A DUT that keeps
// spraying onto a dead plane of eight loses an eighth of what it sends, which stalls its window
// on a fast fabric and, on a path slower than the DUT (a real-time bridge), would not show in
// its egress rate at all.
// The span starts when the DUT's traffic met the last of the failed EVs it used
// (last_failed_ev_met), as first_retx_other_path's starts at the loss.
void throughput_recovered(const Trial& tr, const TrialEnv& env, Measurement& m) {
  const Trace& t = env.t;
  const std::uint64_t w = std::max<std::uint64_t>(env.params.window_ns, 1);
  std::uint64_t pre = 0;
  const std::uint64_t pre_start = tr.start >= w ? tr.start - w : 0;
  for (std::size_t i = first_at(t, pre_start); i < t.packets.size() && t.packets[i].ts_ns < tr.start; ++i) {
    if (dut_data(t.packets[i])) pre += t.packets[i].wire_len;
  }
  if (pre == 0) return skip(m, "no data from the DUT in the " + std::to_string(w) + " ns before the fault at " +
                                   std::to_string(tr.start) + " ns");
  const double need = env.params.recovered_fraction * static_cast<double>(pre);
  // Across a real-time bridge a DUT that sent well below the bridge's rate before the fault was
  // paced by its congestion control, not by the wire, and that control reads the bridge's lag as
  // queueing: the reference's NSCC, told a base RTT of the bridge's declared 55 us, kept about
  // two packets in flight against round trips of 100 to 300 us, and after the fault's losses took
  // from 16 ms to over 100 ms to open its window again, from one run to the next. How soon such a
  // pace comes back is the congestion control's recovery, which no requirement fixes (the case's
  // bound holds the failover's part: retiring the dead EVs and refilling the rate window).
  const double pre_bps = static_cast<double>(pre) * 8e9 / static_cast<double>(w);
  if (env.bridge_rate_bps != 0 && pre_bps < env.params.recovered_fraction * static_cast<double>(env.bridge_rate_bps) &&
      m.fail_withheld.empty()) {
    m.fail_withheld = "before the fault at " + std::to_string(tr.start) + " ns the DUT sent " +
                      std::to_string(static_cast<std::uint64_t>(pre_bps / 1e6)) + " Mb/s, below " +
                      std::to_string(static_cast<int>(env.params.recovered_fraction * 100)) + " % of the bridge's " +
                      std::to_string(env.bridge_rate_bps / 1'000'000) +
                      " Mb/s: its congestion control, not the wire, set its pace (across a real-time bridge it "
                      "reads the bridge's lag as queueing), and how soon that pace returns after losses is the "
                      "congestion control's recovery, which no requirement fixes";
  }
  const auto& dead = tr.fault->affected_evs;
  const auto good = [&](const PacketRec& p) { return dut_data(p) && !contains(dead, p.ev); };
  const std::uint64_t met = last_failed_ev_met(tr, t);
  std::uint64_t bytes = 0;
  std::size_t tail = first_at(t, tr.start);
  bool any = false;
  // Windows (ts - w, ts] that lie wholly after the span's start (so after the fault), ending at
  // each data packet.
  for (std::size_t i = tail; i < t.packets.size() && t.packets[i].ts_ns < tr.end; ++i) {
    const PacketRec& p = t.packets[i];
    if (!dut_data(p)) continue;
    any = true;
    if (good(p)) bytes += p.wire_len;
    while (t.packets[tail].ts_ns + w <= p.ts_ns) {
      if (good(t.packets[tail])) bytes -= t.packets[tail].wire_len;
      ++tail;
    }
    if (p.ts_ns >= met + w && static_cast<double>(bytes) >= need) {
      return m.samples.push_back(sample(met, p.ts_ns, static_cast<std::int64_t>(i),
                                        "end of the first window back at the pre-fault rate on working EVs, from "
                                        "the DUT's first data on the last failed EV it used"));
    }
  }
  if (!any) return skip(m, "no data from the DUT after the fault at " + std::to_string(tr.start) + " ns");
  m.samples.push_back(sample(met, tr.end, -1, "rate on working EVs still below the pre-fault rate when the trial ended", true));
}

Measurement fault_metric(const CheckContext& ctx, const Trace& t, TrialFn fn, bool need_affected,
                         const MetricParams& params = {}) {
  Measurement m;
  const auto trials = failure_trials(ctx, t);
  if (trials.empty()) {
    const NoFaultVerdict v = no_fault_verdict(ctx, "no fault event was recorded");
    m.early = v.verdict;
    m.message = v.verdict == Verdict::kError ? v.message + ": the case's impairment never happened, nothing to time"
                                             : v.message;
    return m;
  }
  const auto prev = previous_transmissions(t);
  const TrialEnv env{t, prev, 2 * std::max<std::size_t>(ctx.dut.evs.size(), 1), params,
                     ctx.timing_budget.ns > 0 ? ctx.timing_budget.rate_bps : 0};
  for (const Trial& tr : trials) {
    if (need_affected && tr.fault->affected_evs.empty()) {
      m.early = Verdict::kError;
      m.message = "fault " + tr.fault->kind + " on " + tr.fault->target + " at " + std::to_string(tr.start) +
                  " ns lists no affected EVs: the testbed's path query found none";
      return m;
    }
    fn(tr, env, m);
  }
  return m;
}

// ---- per-packet metrics ----------------------------------------------------------------------

// The PSN a NACK sent to the DUT asks for again: every MRC NACK names it (W7), and so does a
// Transport NAK (W8, BTH.PSN = the refused packet). kNone otherwise.
std::uint32_t nacked_psn(const PacketRec& f) {
  if (f.is_nack()) return f.trig_psn;
  if (f.is_transport_ack() && f.syndrome != wire::syndrome::kAck) return f.psn;
  return FlatIndex::kNone;
}

Measurement ack_timeout(const Trace& t) {
  Measurement m;
  const auto prev = previous_transmissions(t);
  FlatIndex last_nack(t.packets.size());  // psn -> position of the latest NACK naming it
  for (std::size_t i = 0; i < t.packets.size(); ++i) {
    const PacketRec& p = t.packets[i];
    if (!p.from_dut && p.is_feedback()) {
      const std::uint32_t named = nacked_psn(p);
      if (named != FlatIndex::kNone) {
        if (std::uint32_t* s = last_nack.find_or_insert(named)) *s = static_cast<std::uint32_t>(i);
      }
      continue;
    }
    if (!dut_data(p) || prev[i] == kNoPacket || prev[prev[i]] != kNoPacket) continue;  // first retx only
    const PacketRec& orig = t.packets[prev[i]];
    const std::uint32_t nack = last_nack.get(p.psn);
    if (nack != FlatIndex::kNone && t.packets[nack].ts_ns >= orig.ts_ns) continue;  // NACK-driven, not a timeout
    m.samples.push_back(sample(orig.ts_ns, p.ts_ns, static_cast<std::int64_t>(i), "first retransmission, no NACK since the send"));
  }
  if (m.samples.empty()) {
    m.early = Verdict::kInconclusive;
    m.message = "no retransmission without a NACK was observed: no ACK timeout to time";
  }
  return m;
}

Measurement retry_interval(const Trace& t) {
  Measurement m;
  const auto prev = previous_transmissions(t);
  for (std::size_t i = 0; i < t.packets.size(); ++i) {
    if (!dut_data(t.packets[i]) || prev[i] == kNoPacket || prev[prev[i]] == kNoPacket) continue;
    m.samples.push_back(sample(t.packets[prev[i]].ts_ns, t.packets[i].ts_ns, static_cast<std::int64_t>(i),
                               "retransmission following an earlier retransmission of the PSN"));
  }
  if (m.samples.empty()) {
    m.early = Verdict::kInconclusive;
    m.message = "no PSN was retransmitted twice: no retry interval to time";
  }
  return m;
}

Measurement trim_nack_latency(const CheckContext& ctx, const Trace& t) {
  Measurement m;
  std::vector<std::uint32_t> stubs;
  std::vector<std::uint8_t> answered;
  FlatIndex pending(t.packets.size());  // psn -> index into stubs of the earliest unanswered stub
  FlatIndex arrived(t.packets.size());  // psn -> a whole copy reached the DUT
  for (std::size_t i = 0; i < t.packets.size(); ++i) {
    const PacketRec& p = t.packets[i];
    if (!p.from_dut && valid_arrival(p)) {
      if (std::uint32_t* a = arrived.find_or_insert(p.psn)) *a = static_cast<std::uint32_t>(i);
      continue;
    }
    // W7: TRIMMED answers a PSN the responder has not received. A trimmed duplicate of one that
    // arrived whole (the peer resent it: its Transport ACK came late) draws a SACK, not a NACK.
    if (!p.from_dut && p.is_write_data() && p.trimmed && arrived.get(p.psn) == FlatIndex::kNone) {  // W13
      std::uint32_t* s = pending.find_or_insert(p.psn);
      if (s && *s == FlatIndex::kNone) *s = static_cast<std::uint32_t>(stubs.size());
      stubs.push_back(static_cast<std::uint32_t>(i));
      answered.push_back(0);
    } else if (p.from_dut && p.is_trim_nack()) {
      std::uint32_t* s = pending.find_or_insert(p.trig_psn);
      if (!s || *s == FlatIndex::kNone) continue;
      const PacketRec& stub = t.packets[stubs[*s]];
      m.samples.push_back(sample(stub.ts_ns, p.ts_ns, static_cast<std::int64_t>(i), "NACK TRIMMED naming the trimmed packet"));
      answered[*s] = 1;
      *s = FlatIndex::kNone;
    }
  }
  const std::uint64_t end = run_end(ctx, t);
  for (std::size_t k = 0; k < stubs.size(); ++k) {
    if (answered[k]) continue;
    const PacketRec& stub = t.packets[stubs[k]];
    m.samples.push_back(sample(stub.ts_ns, end, static_cast<std::int64_t>(stubs[k]), "trimmed packet never answered by a NACK TRIMMED", true));
  }
  if (stubs.empty()) {
    m.early = Verdict::kInconclusive;
    m.message = "no trimmed packet reached the DUT: no trim NACK latency to time";
  }
  return m;
}

// Whether feedback reports `psn` received: a cumulative ACK at or past it, or a SACK naming it
// (its trigger or a bitmap bit; W5, W8).
bool covers(const PacketRec& fb, std::uint32_t psn) {
  if (fb.carries_cack() && psn_diff(fb.psn, psn) >= 0) return true;
  if (!fb.is_sack()) return false;
  if (!fb.seth_pr && fb.trig_psn == psn) return true;
  const std::int32_t off = psn_diff(psn, fb.sack_base);
  return off >= 0 && off < 64 && fb.sack_bit(static_cast<unsigned>(off));
}

Measurement feedback_latency(const CheckContext& ctx, const Trace& t) {
  Measurement m;
  std::vector<std::uint32_t> pending;  // arrivals not yet covered by feedback (the in-flight window)
  std::size_t arrivals = 0;
  for (std::size_t i = 0; i < t.packets.size(); ++i) {
    const PacketRec& p = t.packets[i];
    if (!p.from_dut && valid_arrival(p)) {
      pending.push_back(static_cast<std::uint32_t>(i));
      ++arrivals;
    } else if (p.from_dut && p.is_feedback()) {
      auto keep = std::remove_if(pending.begin(), pending.end(), [&](std::uint32_t a) {
        if (!covers(p, t.packets[a].psn)) return false;
        m.samples.push_back(sample(t.packets[a].ts_ns, p.ts_ns, static_cast<std::int64_t>(i), "first feedback covering the PSN"));
        return true;
      });
      pending.erase(keep, pending.end());
    }
  }
  const std::uint64_t end = run_end(ctx, t);
  for (auto a : pending) {
    m.samples.push_back(sample(t.packets[a].ts_ns, end, a, "data packet never covered by feedback", true));
  }
  if (arrivals == 0) {
    m.early = Verdict::kInconclusive;
    m.message = "no valid data packet reached the DUT: no feedback latency to time";
  }
  return m;
}

// The health-probe schedule (W11) of an EV out of service: the gap between two probes of an EV
// that carried no data since the probe before them (so the first probe already tested an EV out
// of service, not one that failed in the gap or sat out a hold-down), timed while the DUT sent
// data on other EVs. W9 lets a DUT probe any EV at any time (to refresh its acknowledgement
// state), so the probes of an EV in use, or of an idle QP, are not the schedule and are not timed.
Measurement probe_interval(const Trace& t) {
  Measurement m;
  struct Probes {
    std::uint32_t last = FlatIndex::kNone;    // the EV's latest probe
    std::uint32_t before = FlatIndex::kNone;  // the one before it
  };
  FlatIndex slot(t.packets.size());       // EV -> index into probes
  std::vector<Probes> probes;
  FlatIndex last_data(t.packets.size());  // EV -> position of its latest data packet
  std::uint32_t last_any = FlatIndex::kNone;  // position of the DUT's latest data packet
  auto none_since = [](std::uint32_t data, std::uint32_t from) {
    return from != FlatIndex::kNone && (data == FlatIndex::kNone || data < from);
  };
  for (std::size_t i = 0; i < t.packets.size(); ++i) {
    const PacketRec& p = t.packets[i];
    if (!p.from_dut) continue;
    if (p.is_write_data()) {
      if (std::uint32_t* d = last_data.find_or_insert(p.ev)) *d = static_cast<std::uint32_t>(i);
      last_any = static_cast<std::uint32_t>(i);
      continue;
    }
    if (!p.is_path_probe()) continue;
    std::uint32_t* s = slot.find_or_insert(p.ev);
    if (!s) continue;
    if (*s == FlatIndex::kNone) {
      *s = static_cast<std::uint32_t>(probes.size());
      probes.emplace_back();
    }
    Probes& e = probes[*s];
    const std::uint32_t data_here = last_data.get(p.ev);
    const bool qp_busy = last_any != FlatIndex::kNone && e.last != FlatIndex::kNone && last_any > e.last;
    if (none_since(data_here, e.before) && qp_busy) {
      m.samples.push_back(sample(t.packets[e.last].ts_ns, p.ts_ns, static_cast<std::int64_t>(i),
                                 "next probe of an EV that carried no data since the probe before"));
    }
    e.before = e.last;
    e.last = static_cast<std::uint32_t>(i);
  }
  if (m.samples.empty()) {
    m.early = Verdict::kInconclusive;
    m.message = "no EV out of service was probed three times while data flowed elsewhere: no probe interval to time";
  }
  return m;
}

Measurement ev_reuse_delay(const CheckContext& ctx, const Trace& t) {
  Measurement m;
  const std::uint64_t end = run_end(ctx, t);
  std::size_t events = 0;
  for (const EvEventRecord& ev : ctx.dut.ev_events) {
    if (!(ev.state & kEvAssumedBad)) continue;
    ++events;
    const EvRecord* rec = nullptr;
    for (const auto& e : ctx.dut.evs) {
      if (e.index == ev.ev_index) rec = &e;
    }
    if (!rec) {
      m.early = Verdict::kError;
      m.message = "EV event names EV index " + std::to_string(ev.ev_index) + ", which the DUT's EV list does not have";
      return m;
    }
    bool found = false;
    for (std::size_t i = first_at(t, ev.at_ns + 1); i < t.packets.size(); ++i) {
      if (dut_data(t.packets[i]) && t.packets[i].ev == rec->echo) {
        m.samples.push_back(sample(ev.at_ns, t.packets[i].ts_ns, static_cast<std::int64_t>(i), "first data packet on the EV after it was marked ASSUMED_BAD"));
        found = true;
        break;
      }
    }
    if (!found) m.samples.push_back(sample(ev.at_ns, end, -1, "EV not used again before the run ended", true));
  }
  if (events == 0) {
    m.early = Verdict::kInconclusive;
    m.message = "the DUT reported no ASSUMED_BAD event: no EV reuse delay to time";
  }
  return m;
}

}  // namespace

// The last of the failed EVs the DUT's traffic met (first_data_on_failed_evs): with a window of
// hundreds of packets within nanoseconds of the fault; with the two or three packets in flight of
// a 1 Gb/s bridge, whose congestion control slows after the first loss, a conformant DUT met the
// last dead EV of four 3.7 ms (1.8 T) after the fault.
std::uint64_t last_failed_ev_met(const Trial& tr, const Trace& t) {
  std::uint64_t met = tr.start;
  for (const std::uint64_t first : first_data_on_failed_evs(t, *tr.fault, tr.start, tr.end)) {
    if (first != kNeverRestored) met = std::max(met, first);
  }
  return met;
}

TapSide taps_needed(TimingMetric m) {
  switch (m) {
    case TimingMetric::kAckTimeout:
    case TimingMetric::kTrimNackLatency:
    case TimingMetric::kFeedbackLatency:
      return TapSide::kAll;
    default:
      return TapSide::kFromDut;
  }
}

Measurement measure(TimingMetric m, const CheckContext& ctx, const Trace& t, const MetricParams& params) {
  switch (m) {
    case TimingMetric::kStopUsingFailed: return fault_metric(ctx, t, stop_using_failed, true);
    case TimingMetric::kFirstRetxOtherPath: return fault_metric(ctx, t, first_retx_other_path, true);
    case TimingMetric::kThroughputRecovered: return fault_metric(ctx, t, throughput_recovered, false, params);
    case TimingMetric::kAckTimeout: return ack_timeout(t);
    case TimingMetric::kRetryInterval: return retry_interval(t);
    case TimingMetric::kTrimNackLatency: return trim_nack_latency(ctx, t);
    case TimingMetric::kFeedbackLatency: return feedback_latency(ctx, t);
    case TimingMetric::kProbeInterval: return probe_interval(t);
    case TimingMetric::kEvReuseDelay: return ev_reuse_delay(ctx, t);
  }
  Measurement bad;
  bad.early = Verdict::kError;
  bad.message = "unknown timing metric";
  return bad;
}

std::vector<FailureTrial> failure_trials(const CheckContext& ctx, const Trace& t) {
  std::vector<const FaultEvent*> f;
  for (const auto& e : ctx.faults) {
    if (is_failure(e)) f.push_back(&e);
  }
  std::stable_sort(f.begin(), f.end(), [](auto* a, auto* b) { return a->at_ns < b->at_ns; });
  std::vector<FailureTrial> out;
  const std::uint64_t end = run_end(ctx, t);
  for (std::size_t i = 0; i < f.size(); ++i) {
    // A trial lasts until the next failure, or until its target comes back up (a recovery is
    // never a failure of its own: a link that flaps gives one trial per down).
    std::uint64_t next = i + 1 < f.size() ? f[i + 1]->at_ns : end;
    next = std::min(next, restored_at(ctx.faults, *f[i]));
    out.push_back(FailureTrial{f[i], f[i]->at_ns, std::max(next, f[i]->at_ns)});
  }
  return out;
}

}  // namespace mrc::harness::timing
