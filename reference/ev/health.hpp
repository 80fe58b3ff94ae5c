// Per-QP view of EV health: the EV state machine of mrc-wire-model.md §5 W11.
//
//   GOOD -> SKIP          a SACK with m = SKIP_ONCE (its trigger was ECN-CE marked) or a NACK
//                         TRIMMED naming the EV (on_skip). Feedback for an EV already in SKIP
//                         neither re-arms nor extends it (MODEL: W11, F7's refinement).
//   SKIP -> GOOD          when the selector's rotation reaches it (restore_skip: S1: W11, at most
//                         one per packet sent, and not used for that packet), or, with the
//                         skip-timer variant, `skip_ns` after it was skipped. SKIP is invisible to
//                         the host API: state() reports GOOD, and no event fires.
//   GOOD/SKIP -> ASSUMED_BAD  a data timeout on the EV with no SACK covering it (the transport
//                         calls on_timeout after the retransmission elsewhere), or a SACK with
//                         m = ALWAYS_SKIP (on_always_skip). MODEL: W11 a loss the requester
//                         infers from SACKs before the timer fires (W6) is the same event
//                         detected sooner; `losses_to_fail` of them in a row on the EV, with no
//                         delivery on it in between (on_loss / on_delivered), mark it too, so a
//                         random drop does not retire a path and a dead one goes at once. And a
//                         single inferred loss marks it when the lost copy's own ACK timeout
//                         passes with still no delivery on the EV (expire_losses): what a DUT
//                         that waits for its timer does. Without it a dead EV that the rotation
//                         meets once per round trip (a window of a packet or two across a slow
//                         path) lives until its second loss, many timeouts later.
//   ASSUMED_BAD -> GOOD   only after `hold_down_ns` AND then `probes_needed` consecutive probe
//                         answers with m = NONE, one probe every `probe_interval_ns` (MODEL: W11
//                         counts); an answer with m = SKIP_ONCE puts it in SKIP (S1: W11, F5).
//   DENIED                set/cleared by the controller only; never eligible; no probing.
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
#include "reference/wire/mrc_headers.hpp"

namespace mrc::ev {

// When an ASSUMED_BAD EV gets its first probe. The W11 timing below fixes the hold-down before
// reuse and the probe interval, not when probing starts; the phases other than the default are
// conformant variants (reference/variants.hpp). Only probes sent once the hold-down is over count
// towards recovery.
enum class ProbePhase : std::uint8_t {
  kAtHoldDownEnd,    // the reference: first probe when the hold-down ends
  kFromFailure,      // probe-eager: every interval from the failure on, hold-down included
  kOneIntervalLate,  // probe-lazy: first probe one interval after the hold-down ends
};

// MODEL: W11 timing parameters.
struct HealthParams {
  std::uint64_t hold_down_ns = 100'000;      // MODEL: W11 100 us
  std::uint64_t probe_interval_ns = 50'000;  // MODEL: W11 50 us
  std::uint32_t probes_needed = 2;           // MODEL: W11 2 consecutive answers with m = NONE
  std::uint32_t losses_to_fail = 2;          // MODEL: W11 inferred losses in a row
  // 0: SKIP ends when the rotation reaches the EV (S1: W11). Non-zero: after this long instead
  // (the skip-timer variant; "how long SKIP lasts is implementation-defined", W11).
  std::uint64_t skip_ns = 0;
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
  quirk::Flag ignore_skip = false;        // SKIP_ONCE and NACK TRIMMED leave the EV GOOD
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

  EvHealth(std::span<const EvSlotInit> evs, const HealthParams& params, HealthQuirks quirks = {});

  std::size_t size() const { return evs_.size(); }
  const HealthParams& params() const { return params_; }
  const HealthQuirks& quirks() const { return quirks_; }

  // ---- inputs ----
  void on_timeout(std::uint16_t ev, std::uint64_t now);       // W11 -> ASSUMED_BAD
  // An inferred loss of a copy whose ACK timeout was (or is) `timer_end` (the rule: on_loss in
  // health.cpp).
  void on_loss(std::uint16_t ev, std::uint64_t now, std::uint64_t timer_end);
  void on_delivered(std::uint16_t ev) {                       // a PSN sent on it was acknowledged
    if (ev >= evs_.size()) return;
    evs_[ev].losses = 0;
    evs_[ev].loss_deadline = 0;
  }
  // Marks every EV whose inferred loss's timer_end has passed with no delivery on it since.
  void expire_losses(std::uint64_t now);
  void on_skip(std::uint16_t ev, std::uint64_t now);          // W11 SKIP_ONCE / NACK TRIMMED -> SKIP
  void on_always_skip(std::uint16_t ev, std::uint64_t now);   // W11 ALWAYS_SKIP -> ASSUMED_BAD
  // A probe answer: m of the pr = 1 SACK, or no answer (`answered` false) within the probe timeout.
  void on_probe_result(std::uint16_t ev, bool answered, wire::MpVerdict m, std::uint64_t now);
  // A probe of `ev` went out and is waited for until `until` (its answer or on_probe_result ends
  // the wait): no next probe of that EV before, whatever probe_interval_ns says (MODEL: W11 one
  // probe of an EV in flight). Where the wait
  // is the probe interval (in-process, answers within microseconds) nothing changes; across a
  // path slower than the interval, each EV keeps one probe in flight, not one per interval: a
  // 1 Gb/s real-time bridge carries about 100k frames/s, and 32 ASSUMED_BAD EVs probed every
  // 50 us whatever came back are 640k, a queue that delays every answer past its wait.
  void await_probe(std::uint16_t ev, std::uint64_t until) {
    if (ev < evs_.size()) evs_[ev].awaiting_until = until;
  }
  // The selector's rotation reached a SKIP EV: back to GOOD (S1: W11). False if it was not in SKIP.
  bool restore_skip(std::uint16_t ev);
  // A PSN last sent on `ev` timed out; its on_timeout() report waits for the retransmission (W11).
  // Until it is reported, or the PSN is acknowledged first (on_timeout_resolved), the EV is
  // suspect. Why it matters: with the window collapsed to one packet by the losses, retransmissions
  // leave one per ACK timeout; sprayed over EVs whose losses are not reported yet, each lands on a
  // dead path again while the backoff doubles, and the QP stalls with a live path idle.
  void on_timeout_pending(std::uint16_t ev);
  void on_timeout_resolved(std::uint16_t ev);
  void clear_suspects();  // the QP flushed: nothing is pending
  // Controller DENIED flag (from a profile resync). Does not re-evaluate the ev_min_active floor.
  void set_denied(std::uint16_t ev, bool denied);
  // Peer or local port status (W10): EVs on a down port are not eligible. Not a state change.
  void set_port_up(std::uint8_t port, bool up);

  // ---- outputs ----
  // GOOD (incl. forced active), not SKIP, not DENIED (unless use_denied), port up.
  bool eligible(std::uint16_t ev, std::uint64_t now) const;
  // DENIED when denied, else GOOD or ASSUMED_BAD (a forced-active or SKIP EV reports GOOD: SKIP
  // is not a host-API state, W11).
  EvState state(std::uint16_t ev) const;
  bool good(std::uint16_t ev) const { return !evs_[ev].bad; }  // ignores DENIED and SKIP
  bool denied(std::uint16_t ev) const { return evs_[ev].denied; }
  bool skipped(std::uint16_t ev, std::uint64_t now) const {
    const Slot& s = evs_[ev];
    return s.skip && (params_.skip_ns == 0 || now < s.skip_until);
  }
  bool port_up(std::uint8_t port) const { return !port_down_[port]; }
  bool forced_active(std::uint16_t ev) const { return evs_[ev].forced; }
  bool suspect(std::uint16_t ev) const { return evs_[ev].pending_timeouts != 0; }
  std::uint8_t port(std::uint16_t ev) const { return evs_[ev].port; }
  std::uint32_t good_count() const;  // GOOD and not DENIED

  // The next ASSUMED_BAD EV due for a probe at `now` (hold-down over, interval since the last
  // probe elapsed); it is recorded as probed at `now`. nullopt if none is due.
  std::optional<std::uint16_t> next_probe(std::uint64_t now);
  // Earliest time something changes on its own: a probe falls due, a timed SKIP ends or an
  // inferred loss's timer_end passes.
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
    std::uint32_t losses = 0;         // inferred losses since the last delivery on it
    std::uint64_t loss_deadline = 0;  // earliest timer_end of those losses, 0 when none
    std::uint64_t failed_at = 0;      // time of the failure that marked it (or forced it)
    std::uint64_t probe_after = 0;    // end of hold-down
    std::uint64_t last_probe = 0;
    bool probe_sent = false;   // any probe since it was marked (ProbePhase::kFromFailure)
    bool probed_once = false;  // a probe sent after the hold-down, so its answer counts
    std::uint32_t probe_ok_run = 0;
    std::uint64_t awaiting_until = 0;  // await_probe(): no probe before, 0 when none is awaited
    bool skip = false;                // W11 SKIP
    std::uint64_t skip_until = 0;     // with HealthParams::skip_ns
  };

  void fail(std::uint16_t ev, std::uint64_t now);
  void mark_bad(std::uint16_t ev, std::uint64_t failed_at, std::uint64_t now);
  void release_forced(std::uint64_t now);
  void emit(std::uint16_t ev, EvState s);
  std::uint64_t probe_due(const Slot& s) const;     // the schedule's, or the awaited probe's end
  std::uint64_t schedule_due(const Slot& s) const;  // by probe_interval_ns and the probe phase

  // W11's hold-down and probe count, or none and one under the early-probe-reuse defect: read where
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
