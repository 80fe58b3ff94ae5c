// Per-QP view of EV health: the project's EV state machine (mrc-wire-model.md §5 M7).
//
//   GOOD -> ASSUMED_BAD   on a data timeout on that EV (the transport calls on_timeout after the
//                         retransmission elsewhere) or `nack_threshold` NACK-loss reports naming
//                         the EV within `nack_window_ns`.
//   ASSUMED_BAD -> GOOD   only after `hold_down_ns` AND then `probes_needed` consecutive
//                         successful probes, one every `probe_interval_ns`.
//   DENIED                set/cleared by the controller only; never eligible; no probing.
//   cooldown              ECN-CE or a TRIM NACK skips the EV for `cooldown_ns`; no state change,
//                         no event.
//   suspect               a PSN sent on the EV timed out and waits for its retransmission, after
//                         which on_timeout() reports it. No state change, no event; the selector
//                         keeps retransmissions off suspect EVs while another eligible EV is left.
//   ev_min_active floor   if marking would leave fewer than ev_min_active GOOD (non-DENIED) EVs,
//                         the EV stays GOOD ("forced active", no event). When the floor later
//                         allows, forced EVs are released newest failure first, so the EV with the
//                         oldest failure is the one that stays GOOD.
//
// All times are ns on the caller's clock. Nothing allocates after construction. State changes
// are queued as HealthEvents in a fixed buffer; overflow is counted into the next event's
// drop_count.
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "reference/ev/types.hpp"
#include "reference/quirk/quirk_flag.hpp"

namespace mrc::ev {

// When an ASSUMED_BAD EV gets its first probe. M7 fixes the hold-down before reuse and the probe
// interval, not when probing starts; the phases other than the default are conformant variants
// (reference/variants.hpp). Only probes sent once the hold-down is over count towards recovery.
enum class ProbePhase : std::uint8_t {
  kAtHoldDownEnd,    // the reference: first probe when the hold-down ends
  kFromFailure,      // probe-eager: every interval from the failure on, hold-down included
  kOneIntervalLate,  // probe-lazy: first probe one interval after the hold-down ends
};

// MODEL: M7 timing parameters.
struct HealthParams {
  std::uint64_t hold_down_ns = 100'000;      // MODEL: M7 100 us
  std::uint64_t probe_interval_ns = 50'000;  // MODEL: M7 50 us
  std::uint32_t probes_needed = 2;           // MODEL: M7 2 consecutive successes
  std::uint64_t cooldown_ns = 12'000;        // MODEL: M7 1 base RTT (set from the QP's base RTT)
  std::uint32_t nack_threshold = 2;          // MODEL: M7 2 NACK-loss reports ...
  std::uint64_t nack_window_ns = 1'000'000;  // MODEL: M7 ... within 1 ms
  std::uint32_t ev_min_active = 0;           // from the EV profile
  ProbePhase probe_phase = ProbePhase::kAtHoldDownEnd;
};

// Behaviour switches the endpoint fills from its defect set (reference/defects.hpp), so this layer
// does not depend on the facade.
struct HealthQuirks {
  quirk::Flag keep_failed = false;        // loss never marks an EV ASSUMED_BAD
  quirk::Flag early_probe_reuse = false;  // no hold-down; one good probe brings an EV back
  quirk::Flag ignore_min_active = false;  // marks EVs below the ev_min_active floor
  quirk::Flag use_denied = false;         // DENIED EVs count as eligible
};

// One EV as the QP sees it at construction.
struct EvSlotInit {
  std::uint8_t port = 0;  // 1-based egress port (plane)
  bool denied = false;    // from the profile's DENIED flag
};

struct HealthEvent {
  std::uint16_t ev = 0;             // index into the QP's EV list
  EvState state = EvState::kGood;   // the state entered (GOOD or ASSUMED_BAD)
  std::uint32_t drop_count = 0;     // events lost to overflow before this one
};

class EvHealth {
 public:
  static constexpr std::size_t kEventCapacity = 64;
  static constexpr std::uint32_t kMaxNackThreshold = 8;

  EvHealth(std::span<const EvSlotInit> evs, const HealthParams& params, HealthQuirks quirks = {});

  std::size_t size() const { return evs_.size(); }
  const HealthParams& params() const { return params_; }
  const HealthQuirks& quirks() const { return quirks_; }

  // ---- inputs ----
  void on_timeout(std::uint16_t ev, std::uint64_t now);   // MODEL: M7
  void on_nack_loss(std::uint16_t ev, std::uint64_t now); // MODEL: M7
  void on_congestion(std::uint16_t ev, std::uint64_t now);  // ECN-CE / TRIM NACK -> cooldown
  void on_probe_result(std::uint16_t ev, bool ok, std::uint64_t now);
  // A PSN last sent on `ev` timed out; its on_timeout() report waits for the retransmission (M7).
  // Until it is reported, or the PSN is acknowledged first (on_timeout_resolved), the EV is
  // suspect. Why it matters: with the window collapsed to one packet by the losses, retransmissions
  // leave one per ACK timeout; sprayed over EVs whose losses are not reported yet, each lands on a
  // dead path again while the backoff doubles, and the QP stalls with a live path idle.
  void on_timeout_pending(std::uint16_t ev);
  void on_timeout_resolved(std::uint16_t ev);
  void clear_suspects();  // the QP flushed: nothing is pending
  // Controller DENIED flag (from a profile resync). Does not re-evaluate the ev_min_active floor.
  void set_denied(std::uint16_t ev, bool denied);
  // Peer or local port status (M6): EVs on a down port are not eligible. Not a state change.
  void set_port_up(std::uint8_t port, bool up);

  // ---- outputs ----
  // GOOD (incl. forced active), not DENIED (unless use_denied), not cooling, port up.
  bool eligible(std::uint16_t ev, std::uint64_t now) const;
  // DENIED when denied, else GOOD or ASSUMED_BAD (a forced-active EV reports GOOD).
  EvState state(std::uint16_t ev) const;
  bool good(std::uint16_t ev) const { return !evs_[ev].bad; }  // ignores DENIED
  bool denied(std::uint16_t ev) const { return evs_[ev].denied; }
  bool cooling(std::uint16_t ev, std::uint64_t now) const { return now < evs_[ev].cool_until; }
  bool port_up(std::uint8_t port) const { return !port_down_[port]; }
  bool forced_active(std::uint16_t ev) const { return evs_[ev].forced; }
  bool suspect(std::uint16_t ev) const { return evs_[ev].pending_timeouts != 0; }
  std::uint8_t port(std::uint16_t ev) const { return evs_[ev].port; }
  std::uint32_t good_count() const;  // GOOD and not DENIED

  // The next ASSUMED_BAD EV due for a probe at `now` (hold-down over, interval since the last
  // probe elapsed); it is recorded as probed at `now`. nullopt if none is due.
  std::optional<std::uint16_t> next_probe(std::uint64_t now);
  // Earliest time something changes on its own: a probe falls due or a cooldown ends.
  std::optional<std::uint64_t> next_deadline() const;

  // State changes to report, oldest first. clear_events() empties the buffer.
  std::span<const HealthEvent> events() const { return {events_.data(), n_events_}; }
  void clear_events();
  // State changes lost to overflow since the last buffered event (the next event's drop_count).
  std::uint32_t dropped_pending() const { return dropped_; }

 private:
  struct Slot {
    std::uint8_t port = 0;
    bool denied = false;
    bool bad = false;          // ASSUMED_BAD
    bool forced = false;       // GOOD only because of the ev_min_active floor
    std::uint32_t pending_timeouts = 0;  // timed-out PSNs not yet retransmitted (suspect)
    std::uint64_t failed_at = 0;      // time of the failure that marked it (or forced it)
    std::uint64_t probe_after = 0;    // end of hold-down
    std::uint64_t last_probe = 0;
    bool probe_sent = false;   // any probe since it was marked (ProbePhase::kFromFailure)
    bool probed_once = false;  // a probe sent after the hold-down, so its answer counts
    std::uint32_t probe_ok_run = 0;
    std::uint64_t cool_until = 0;
    std::array<std::uint64_t, kMaxNackThreshold> nack_times{};
    std::uint32_t nack_count = 0;     // entries used in nack_times (ring)
    std::uint32_t nack_head = 0;
  };

  void fail(std::uint16_t ev, std::uint64_t now);
  void mark_bad(std::uint16_t ev, std::uint64_t failed_at, std::uint64_t now);
  void release_forced(std::uint64_t now);
  void emit(std::uint16_t ev, EvState s);
  std::uint64_t probe_due(const Slot& s) const;

  // M7's hold-down and probe count, or none and one under the early-probe-reuse defect: read where
  // an EV fails or recovers, so a run without a failed EV never reaches that defect.
  std::uint64_t hold_down_ns() const { return quirks_.early_probe_reuse ? 0 : params_.hold_down_ns; }
  std::uint32_t probes_needed() const { return quirks_.early_probe_reuse ? 1 : params_.probes_needed; }

  HealthParams params_;
  HealthQuirks quirks_;
  std::vector<Slot> evs_;
  std::bitset<256> port_down_;
  std::array<HealthEvent, kEventCapacity> events_{};
  std::size_t n_events_ = 0;
  std::uint32_t dropped_ = 0;
  std::uint64_t now_seen_ = 0;  // latest time any input carried (for next_deadline)
};

}  // namespace mrc::ev
