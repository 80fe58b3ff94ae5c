// What a SACK or NACK from the DUT answers (W5, W7, W9): the latest data arrival at the DUT of its
// ack_psn / nack_psn, or, for a SACK with pr = 1, the latest reliability probe with its probe_id.
// Shared by the checks that judge what feedback echoes of its trigger (ev_echo_matches,
// ts_reflected). Feed it every packet of the trace in order.
//
// Across a real-time bridge which copy of a PSN the DUT had when it answered is not observable:
// each copy (an original and its resend, a duplicate) reaches the DUT up to the timing budget after
// the tap saw it, and the answer reaches the tap up to the budget after the DUT sent it. So there
// the checks accept the echo of any copy the taps saw within twice the budget before the latest
// (for_each_trigger); on the simulated fabric (budget 0) the latest alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/verdict/flat_index.hpp"
#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {

class TriggerIndex {
 public:
  explicit TriggerIndex(std::size_t packets) : data_(packets), probes_(packets), earlier_(packets, FlatIndex::kNone) {}

  // Records packet `i` when it is a possible trigger (data or a probe to the DUT); true if it was.
  bool note(const PacketRec& p, std::size_t i) {
    FlatIndex* index = to_dut_data(p) ? &data_ : (!p.from_dut && p.has_peth) ? &probes_ : nullptr;
    if (index == nullptr) return false;
    if (std::uint32_t* s = index->find_or_insert(to_dut_data(p) ? p.psn : p.probe_id)) {
      earlier_[i] = *s;  // kNone for the first copy
      *s = static_cast<std::uint32_t>(i);
    }
    return true;
  }
  // The position of what `fb` (a SACK or NACK) answers, FlatIndex::kNone when nothing did.
  std::uint32_t trigger_of(const PacketRec& fb) const {
    return answers_probe(fb) ? probes_.get(fb.probe_id) : data_.get(fb.trig_psn);
  }
  static bool answers_probe(const PacketRec& fb) { return fb.is_sack() && fb.seth_pr; }
  // Calls `f(position)` for the latest copy of what `fb` answers, then for each earlier copy the
  // taps saw within `uncertain_ns` before it (none when 0), until one returns true; returns whether
  // one did. `packets` is the trace the positions index.
  template <typename Packets, typename F>
  bool for_each_trigger(const PacketRec& fb, const Packets& packets, std::uint64_t uncertain_ns, F&& f) const {
    const std::uint32_t latest = trigger_of(fb);
    for (std::uint32_t at = latest; at != FlatIndex::kNone; at = earlier_[at]) {
      if (at != latest && packets[at].ts_ns + uncertain_ns < packets[latest].ts_ns) break;
      if (f(at)) return true;
      if (uncertain_ns == 0) break;
    }
    return false;
  }

 private:
  FlatIndex data_;    // psn -> position of its latest arrival at the DUT
  FlatIndex probes_;  // probe_id -> position of its latest probe to the DUT
  std::vector<std::uint32_t> earlier_;  // position -> the copy before it of the same PSN / probe
};

}  // namespace mrc::harness::inv
