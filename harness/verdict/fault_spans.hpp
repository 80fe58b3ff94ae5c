// Which recorded faults are failures, and when each failure ends. Shared by the failover timing
// metrics and the no_data_on_failed_ev invariant so that both read a flapping link the same way.
//
// The runner lists, for every fault it scheduled, the EVs whose path crosses its target; it does
// so for a recovery (link_up, switch_up, port_up) as well, since the path query is the same. A
// recovery is therefore told apart by its kind, never by its EVs: it ends the failure of the same
// target that precedes it and never starts one of its own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "harness/observe/observations.hpp"
#include "harness/verdict/check_context.hpp"
#include "harness/verdict/trace.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

inline constexpr std::uint64_t kNeverRestored = std::numeric_limits<std::uint64_t>::max();

// The judgement of a check that found no failure to judge. When an impairment rule never acted
// (CheckContext::idle_impairments) the DUT never sent what it selects, an EV it never used: that
// is the DUT's doing, and nothing failed, so INCONCLUSIVE naming the rule. Otherwise a fault the
// case scheduled went unrecorded: the harness's, ERROR. `what` opens the message.
struct NoFaultVerdict {
  Verdict verdict = Verdict::kError;
  std::string message;
};
inline NoFaultVerdict no_fault_verdict(const CheckContext& ctx, const std::string& what) {
  if (ctx.idle_impairments.empty()) return {Verdict::kError, what};
  std::string rules;
  for (const std::string& r : ctx.idle_impairments) rules += (rules.empty() ? "" : "; ") + r;
  return {Verdict::kInconclusive, what + ": the impairment never acted, the DUT sent nothing it selects (" + rules +
                                      "): nothing failed, nothing to judge"};
}

// link_up, switch_up, port_up: the target works again from at_ns on.
inline bool is_recovery(const FaultEvent& f) {
  const std::string_view k = f.kind;
  return k.size() > 3 && k.substr(k.size() - 3) == "_up";
}

// A fault that takes paths away: any non-recovery event with affected EVs (per-packet drops
// included), or a down / black-hole whose path query happened to find none.
inline bool is_failure(const FaultEvent& f) {
  if (is_recovery(f)) return false;
  if (!f.affected_evs.empty()) return true;
  return f.kind == "link_down" || f.kind == "switch_down" || f.kind == "port_down" || f.kind == "blackhole";
}

// When the failure `f` ends: the first recovery of its target after it, or kNeverRestored.
inline std::uint64_t restored_at(const std::vector<FaultEvent>& faults, const FaultEvent& f) {
  std::uint64_t t = kNeverRestored;
  for (const FaultEvent& g : faults) {
    if (is_recovery(g) && g.target == f.target && g.at_ns > f.at_ns) t = std::min(t, g.at_ns);
  }
  return t;
}

// When the DUT's data first met each EV the failure `f` took away (f.affected_evs, in order), at or
// after `from` and before `until`; kNeverRestored where it did not. A DUT learns a path failed only
// from a packet it sends on it, and when it next uses an EV is its own spraying choice: in-process
// within nanoseconds of the fault, across a 1 Gb/s bridge with two or three packets in flight up
// to 2 T after it. The failover metrics and no_data_on_failed_ev both start their spans here.
inline std::vector<std::uint64_t> first_data_on_failed_evs(const Trace& t, const FaultEvent& f, std::uint64_t from,
                                                           std::uint64_t until) {
  const auto& dead = f.affected_evs;
  std::vector<std::uint64_t> first(dead.size(), kNeverRestored);
  std::size_t left = dead.size();
  // t.packets is in time order: start at `from`, stop at `until` or once every EV was met.
  auto p = std::lower_bound(t.packets.begin(), t.packets.end(), from,
                            [](const PacketRec& r, std::uint64_t ts) { return r.ts_ns < ts; });
  for (; p != t.packets.end() && p->ts_ns < until && left > 0; ++p) {
    if (!p->from_dut || !p->is_write_data()) continue;
    const auto it = std::find(dead.begin(), dead.end(), p->ev);
    if (it == dead.end()) continue;
    std::uint64_t& at = first[static_cast<std::size_t>(it - dead.begin())];
    if (at == kNeverRestored) {
      at = p->ts_ns;
      --left;
    }
  }
  return first;
}

}  // namespace mrc::harness
