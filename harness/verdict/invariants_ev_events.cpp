// EV events as the DUT reported them (EV-EVENT-ON-STATE, EV-EVENT-DROP-COUNT): which EV and
// state each names, whether every monitored state change was reported, and whether drop counts
// account for the events the DUT lost. Judged from the DUT's reports and its EV table only; the
// harness's own DENIED notes (EvEventRecord::controller_change) are not DUT events.
#include <map>
#include <vector>

#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {
namespace {

constexpr std::uint32_t kGood = 1u << 0;
constexpr std::uint32_t kAssumedBad = 1u << 1;
constexpr std::uint32_t kDenied = 1u << 2;

std::string state_name(std::uint32_t s) {
  switch (s) {
    case kGood: return "GOOD";
    case kAssumedBad: return "ASSUMED_BAD";
    case kDenied: return "DENIED";
    case 1u << 31: return "UNKNOWN";
    default: return "state bits " + std::to_string(s);
  }
}

std::string mask_text(std::uint32_t mask) {
  std::string s;
  for (std::uint32_t b : {kGood, kAssumedBad}) {
    if (mask & b) s += (s.empty() ? "" : "|") + state_name(b);
  }
  return s.empty() ? "nothing" : s;
}

Evidence event_evidence(const EvEventRecord& e, std::size_t n, std::string field, std::string expected,
                        std::string observed) {
  Evidence x;
  x.ts_ns = e.at_ns;
  x.field = std::move(field);
  x.expected = std::move(expected);
  x.observed = std::move(observed);
  x.note = "EV event #" + std::to_string(n) + " (EV index " +
           (e.ev_index == UINT32_MAX ? std::string("unknown") : std::to_string(e.ev_index)) + ", port " +
           std::to_string(e.port) + ")";
  return x;
}

std::vector<const EvEventRecord*> dut_events(const CheckContext& ctx) {
  std::vector<const EvEventRecord*> out;
  for (const auto& e : ctx.dut.ev_events) {
    if (!e.controller_change) out.push_back(&e);
  }
  return out;
}

}  // namespace

void ev_events(Run& r) {
  r.judged_what = "EVs and EV events";
  const std::uint32_t mask = r.ctx.ev_event_mask;
  if (r.ctx.dut.evs.empty()) return r.stop(Verdict::kError, "the DUT reported no EV table to judge its events against");
  const auto events = dut_events(r.ctx);
  bool drops_reported = false;
  std::map<std::uint32_t, std::uint32_t> last_state;  // EV index -> state of its last event
  for (std::size_t i = 0; i < events.size(); ++i) {
    const EvEventRecord& e = *events[i];
    ++r.judged;
    drops_reported |= e.drop_count != 0;
    const EvRecord* ev = ev_by_index(r.ctx, e.ev_index);
    if (ev == nullptr || (e.port != 0 && ev->port != e.port)) {
      r.violation(event_evidence(e, i, "ev", "an EV of the profile's table (value and port)",
                                 ev == nullptr ? "an EV not in the table" : "port " + std::to_string(e.port)));
      continue;
    }
    if ((e.state & mask) == 0 || (e.state & ~(kGood | kAssumedBad)) != 0) {
      r.violation(event_evidence(e, i, "state", "a state in ev_event_mask (" + mask_text(mask) + ")", state_name(e.state)));
    }
    last_state[e.ev_index] = e.state;
  }
  // Every EV whose monitored state at the end differs from what its events said (GOOD before any
  // event) entered that state unreported, unless the DUT reported having dropped events.
  for (const EvRecord& ev : r.ctx.dut.evs) {
    if (ev.denied || (ev.state & mask & (kGood | kAssumedBad)) == 0) continue;
    const auto it = last_state.find(ev.index);
    if (it == last_state.end() && ev.state == kGood) continue;  // never left GOOD: nothing to judge
    ++r.judged;
    const std::uint32_t reported = it == last_state.end() ? kGood : it->second;
    if (reported == ev.state || drops_reported) continue;
    EvEventRecord at;
    at.at_ns = r.ctx.end_ns;
    at.ev_index = ev.index;
    at.port = ev.port;
    r.violation(event_evidence(at, events.size(), "events", "an EV event for entering " + state_name(ev.state),
                               it == last_state.end() ? "no EV event for this EV"
                                                      : "last EV event said " + state_name(reported)));
  }
}

void ev_event_drop_count(Run& r) {
  r.judged_what = "EV events lost by the DUT";
  const auto events = dut_events(r.ctx);
  if (!r.ctx.ev_precise_drop_count) {  // a 0/1 flag
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events[i]->drop_count > 1) {
        r.violation(event_evidence(*events[i], i, "drop_count", "0 or 1 (no PRECISE_DROP_CNT)",
                                   std::to_string(events[i]->drop_count)));
      }
    }
  }
  if (r.ctx.ev_event_mask != (kGood | kAssumedBad)) {
    return r.stop(Verdict::kError, "lost events are provable only with ev_event_mask [good, assumed_bad]");
  }
  // With both states monitored an EV's events alternate ASSUMED_BAD, GOOD, ... from GOOD; two
  // in a row with one state prove at least one lost in between, reported by an event at or before
  // the second. Precise: the drop counts up to each event cover every loss proven by then.
  // Flag: some event between the two carries the flag.
  std::map<std::uint32_t, std::pair<std::uint32_t, std::size_t>> last;  // EV -> (state, event #)
  std::uint64_t proven = 0;
  std::uint64_t reported = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const EvEventRecord& e = *events[i];
    reported += e.drop_count;
    const auto it = last.find(e.ev_index);
    const std::uint32_t before = it == last.end() ? kGood : it->second.first;
    const std::size_t since = it == last.end() ? 0 : it->second.second + 1;
    last[e.ev_index] = {e.state, i};
    if (e.state != before) continue;
    ++proven;
    ++r.judged;
    if (r.ctx.ev_precise_drop_count) {
      if (reported < proven) {
        r.violation(event_evidence(e, i, "drop_count", "drop counts so far >= " + std::to_string(proven) + " lost events",
                                   std::to_string(reported) + " (exact counts: PRECISE_DROP_CNT)"));
        reported = proven;  // report each shortfall once
      }
      continue;
    }
    bool flagged = false;
    for (std::size_t k = since; k <= i; ++k) flagged |= events[k]->drop_count != 0;
    if (!flagged) {
      r.violation(event_evidence(e, i, "drop_count", "a drop flag after the lost " + state_name(e.state == kGood ? kAssumedBad : kGood) + " event",
                                 "0 on every event since the EV's previous one"));
    }
  }
}

// The control steps' calls (profile operations above all, where a refusal is the behaviour under
// test): each returned what its step expects. The implicit `expect` check judges them too; this
// names the requirement the calls prove and is INCONCLUSIVE for a case without control steps.
void control_results(Run& r) {
  r.judged_what = "control-plane calls";
  for (const ExpectRecord& e : r.ctx.expects) {
    if (!e.control) continue;
    ++r.judged;
    if (e.matched) continue;
    Evidence x;
    x.ts_ns = e.window_start_ns;
    x.field = "control";
    x.expected = e.description;
    x.observed = e.mismatch;
    r.violation(std::move(x));
  }
}

}  // namespace mrc::harness::inv
