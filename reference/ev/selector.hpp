// Per-packet EV choice (mrc-wire-model.md §5 W11): round-robin over the eligible EVs, rotating
// over ports (planes) first. Consecutive picks cycle through the ports; within a port they cycle
// through that port's EVs. An EV is eligible when EvHealth says GOOD, not DENIED, not in SKIP and
// its port is up.
//
// SKIP restore (S1: W11): when the rotation reaches an EV in SKIP, the EV becomes GOOD again but
// is passed over for this packet; at most one EV is restored per pick, and when no other EV is
// eligible the one restored in this pick is used (MODEL: W11, F7's refinement). With a SKIP timer
// (HealthParams::skip_ns) the timer ends SKIP instead and the rotation restores nothing.
//
// pick() is O(1) amortized while most EVs are eligible (it skips ineligible EVs, so a worst case
// pick with almost everything ineligible scans each EV once) and never allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "reference/ev/health.hpp"
#include "reference/quirk/quirk_flag.hpp"

namespace mrc::ev {

// Behaviour switches the endpoint fills from its defect set.
struct SelectorQuirks {
  quirk::Flag spray_single_ev = false;  // always the first eligible EV (lowest index)
  quirk::Flag use_denied = false;       // DENIED EVs are not skipped
  // Not a defect: a conformant alternative policy (W11 allows any per-packet choice that
  // spreads evenly). Nonzero = seed of a uniformly random choice among the eligible EVs other than
  // the previous pick. The `reference-random` DUT uses it so statistical checks meet a sprayer whose
  // counts really vary, which is what their false-fail rate is about.
  std::uint64_t random_seed = 0;
  // Not defects either: conformant variants of the rotation (reference/variants.hpp). W11 fixes
  // only that picks vary per packet, spread evenly over the eligible EVs and ports; the order is
  // free. `reverse` walks ports and EVs in descending order; `start_at_last` starts the rotation at
  // the last port and the last EV of every port.
  bool reverse = false;
  bool start_at_last = false;
  // Nonzero = seed of the retransmission choice of pick_other(): uniform among the eligible EVs
  // other than the one that lost the packet (W15 fixes only "a different GOOD EV").
  std::uint64_t retx_random_seed = 0;
};

class EvSelector {
 public:
  // `health` must outlive the selector; its EV list (ports) is fixed at construction. The
  // selector changes it only to restore SKIP EVs.
  explicit EvSelector(EvHealth& health, SelectorQuirks quirks = {});

  // The next EV, or nullopt if none is eligible. `exclude` keeps a retransmission off the EV that
  // timed out (it is still chosen by nothing else). `avoid_forced` (retransmissions) passes over
  // EVs that lost data already, while another eligible EV is left: forced-active ones (GOOD only
  // because of the ev_min_active floor) and suspect ones (a timeout on them not yet reported).
  std::optional<std::uint16_t> pick(std::uint64_t now,
                                    std::optional<std::uint16_t> exclude = std::nullopt,
                                    bool avoid_forced = false);

  // For a retransmission with SelectorQuirks::retx_random_seed set: a seeded uniform choice among
  // the eligible EVs other than `exclude`, leaving the rotation where it is. nullopt when no other
  // EV is eligible.
  std::optional<std::uint16_t> pick_other(std::uint64_t now, std::uint16_t exclude,
                                          bool avoid_forced = false);

  // Eligibility as this selector sees it (health + quirks).
  bool usable(std::uint16_t ev, std::uint64_t now) const;

  std::size_t port_count() const { return ports_.size(); }
  const SelectorQuirks& quirks() const { return quirks_; }

 private:
  struct PortRing {
    std::uint8_t port = 0;
    std::size_t begin = 0;   // into order_
    std::size_t size = 0;
    std::size_t cursor = 0;  // next position to try, 0..size-1
  };

  EvHealth& health_;
  SelectorQuirks quirks_;
  std::vector<PortRing> ports_;      // ports in ascending port number
  std::vector<std::uint16_t> order_; // EV indices grouped by port, ascending index within a port
  std::size_t port_cursor_ = 0;
  std::uint64_t rng_ = 0;                  // splitmix64 state (random policy)
  std::uint64_t retx_rng_ = 0;             // splitmix64 state (retransmission choice)
  std::optional<std::uint16_t> last_;      // previous pick (random policy)
  std::optional<std::uint16_t> pick_restored_;  // the SKIP EV the current pick restored (W11)

  std::optional<std::uint16_t> rotate(std::uint64_t now, std::optional<std::uint16_t> exclude,
                                      bool skip_forced);
  std::optional<std::uint16_t> pick_random(std::uint64_t now, std::optional<std::uint16_t> exclude,
                                           bool skip_forced);
  // The SKIP EV `ev`, reached by the rotation: restored to GOOD, once per pick (restored_ holds
  // the one of this pick). True when it was restored now (it still sits this packet out).
  bool reach_skipped(std::uint16_t ev, std::uint64_t now, std::optional<std::uint16_t>& restored);
  // Lost data already: forced active (W11 floor) or suspect (a timeout waiting to be reported).
  bool doubtful(std::uint16_t ev) const { return health_.forced_active(ev) || health_.suspect(ev); }
};

}  // namespace mrc::ev
