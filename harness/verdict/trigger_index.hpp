// What a SACK or NACK from the DUT answers (W5, W7, W9): the latest data arrival at the DUT of its
// ack_psn / nack_psn, or, for a SACK with pr = 1, the latest reliability probe with its probe_id.
// Shared by the checks that judge what feedback echoes of its trigger (ev_echo_matches,
// ts_reflected). Feed it every packet of the trace in order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "harness/verdict/flat_index.hpp"
#include "harness/verdict/invariants.hpp"

namespace mrc::harness::inv {

class TriggerIndex {
 public:
  explicit TriggerIndex(std::size_t packets) : data_(packets), probes_(packets) {}

  // Records packet `i` when it is a possible trigger (data or a probe to the DUT); true if it was.
  bool note(const PacketRec& p, std::size_t i) {
    FlatIndex* index = to_dut_data(p) ? &data_ : (!p.from_dut && p.has_peth) ? &probes_ : nullptr;
    if (index == nullptr) return false;
    if (std::uint32_t* s = index->find_or_insert(to_dut_data(p) ? p.psn : p.probe_id)) *s = static_cast<std::uint32_t>(i);
    return true;
  }
  // The position of what `fb` (a SACK or NACK) answers, FlatIndex::kNone when nothing did.
  std::uint32_t trigger_of(const PacketRec& fb) const {
    return answers_probe(fb) ? probes_.get(fb.probe_id) : data_.get(fb.trig_psn);
  }
  static bool answers_probe(const PacketRec& fb) { return fb.is_sack() && fb.seth_pr; }

 private:
  FlatIndex data_;    // psn -> position of its latest arrival at the DUT
  FlatIndex probes_;  // probe_id -> position of its latest probe to the DUT
};

}  // namespace mrc::harness::inv
