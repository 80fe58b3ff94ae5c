// Per-QP EV health machine (W11). See health.hpp for the rules.
#include "reference/ev/health.hpp"

#include <algorithm>

namespace mrc::ev {

EvHealth::EvHealth(std::span<const EvSlotInit> evs, const HealthParams& params, HealthQuirks quirks)
    : params_(params), quirks_(quirks) {
  params_.probes_needed = std::max<std::uint32_t>(params_.probes_needed, 1);
  const std::size_t n = std::min<std::size_t>(evs.size(), 0xFFFF);
  evs_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    evs_[i].port = evs[i].port;
    evs_[i].denied = evs[i].denied;
  }
}

std::uint32_t EvHealth::good_count() const {
  std::uint32_t n = 0;
  for (const Slot& s : evs_) n += (!s.bad && !s.denied) ? 1u : 0u;
  return n;
}

EvState EvHealth::state(std::uint16_t ev) const {
  if (ev >= evs_.size()) return EvState::kUnknown;
  const Slot& s = evs_[ev];
  if (s.denied) return EvState::kDenied;
  return s.bad ? EvState::kAssumedBad : EvState::kGood;
}

bool EvHealth::eligible(std::uint16_t ev, std::uint64_t now) const {
  if (ev >= evs_.size()) return false;
  const Slot& s = evs_[ev];
  return !s.bad && (!s.denied || quirks_.use_denied) && !skipped(ev, now) && !port_down_[s.port];
}

void EvHealth::on_timeout(std::uint16_t ev, std::uint64_t now) {
  if (ev >= evs_.size()) return;
  now_seen_ = std::max(now_seen_, now);
  fail(ev, now);  // W11 a timeout on the EV (after a retransmission elsewhere) marks it
}

void EvHealth::on_loss(std::uint16_t ev, std::uint64_t now, std::uint64_t timer_end) {
  if (ev >= evs_.size()) return;
  now_seen_ = std::max(now_seen_, now);
  Slot& s = evs_[ev];
  // MODEL: W11 the copy's timer would have fired by now (or will, unless the EV delivers first).
  if (++s.losses >= params_.losses_to_fail || timer_end <= now) {
    fail(ev, now);
    return;
  }
  if (!s.bad && (s.loss_deadline == 0 || timer_end < s.loss_deadline)) s.loss_deadline = timer_end;
}

void EvHealth::expire_losses(std::uint64_t now) {
  now_seen_ = std::max(now_seen_, now);
  for (std::size_t i = 0; i < evs_.size(); ++i) {
    Slot& s = evs_[i];
    if (s.loss_deadline == 0 || s.loss_deadline > now) continue;
    s.loss_deadline = 0;
    fail(static_cast<std::uint16_t>(i), now);
  }
}

void EvHealth::on_skip(std::uint16_t ev, std::uint64_t now) {
  if (ev >= evs_.size()) return;
  now_seen_ = std::max(now_seen_, now);
  Slot& s = evs_[ev];
  // W11: only a GOOD EV enters SKIP; one already in SKIP is neither re-armed nor extended.
  if (s.bad || skipped(ev, now) || quirks_.ignore_skip) return;
  s.skip = true;
  s.skip_until = now + params_.skip_ns;
}

void EvHealth::on_always_skip(std::uint16_t ev, std::uint64_t now) {
  if (ev >= evs_.size()) return;
  now_seen_ = std::max(now_seen_, now);
  fail(ev, now);  // W11 GOOD or SKIP -> ASSUMED_BAD
}

bool EvHealth::restore_skip(std::uint16_t ev) {
  if (ev >= evs_.size() || !evs_[ev].skip) return false;
  evs_[ev].skip = false;
  return true;
}

void EvHealth::on_probe_result(std::uint16_t ev, bool answered, wire::MpVerdict m, std::uint64_t now) {
  if (ev >= evs_.size()) return;
  now_seen_ = std::max(now_seen_, now);
  Slot& s = evs_[ev];
  s.awaiting_until = 0;
  // Only probes sent after the hold-down count (next_probe never issues one earlier).
  if (!s.bad || !s.probed_once) return;
  if (!answered || m == wire::MpVerdict::kAlwaysSkip || m == wire::MpVerdict::kReserved) {
    s.probe_ok_run = 0;  // MODEL: W11 no answer, or ALWAYS_SKIP: stays, the run starts over
    return;
  }
  const bool skip_once = m == wire::MpVerdict::kSkipOnce;
  if (!skip_once && ++s.probe_ok_run < probes_needed()) return;
  // MODEL: W11 hold-down over and `probes_needed` consecutive answers with m = NONE: GOOD. An
  // answer with m = SKIP_ONCE leaves ASSUMED_BAD for SKIP (S1: W11, F5; F1 says GOOD): the path
  // works but was congested. SKIP is GOOD to the host API, so the event is GOOD either way.
  s.bad = false;
  s.probed_once = false;
  s.probe_ok_run = 0;
  s.skip = skip_once;
  s.skip_until = now + params_.skip_ns;
  emit(ev, EvState::kGood);
  release_forced(now);
}

void EvHealth::on_timeout_pending(std::uint16_t ev) {
  if (ev < evs_.size()) ++evs_[ev].pending_timeouts;
}

void EvHealth::on_timeout_resolved(std::uint16_t ev) {
  if (ev < evs_.size() && evs_[ev].pending_timeouts != 0) --evs_[ev].pending_timeouts;
}

void EvHealth::clear_suspects() {
  for (Slot& s : evs_) s.pending_timeouts = 0;
}

void EvHealth::set_denied(std::uint16_t ev, bool denied) {
  if (ev >= evs_.size()) return;
  evs_[ev].denied = denied;
}

void EvHealth::set_port_up(std::uint8_t port, bool up) { port_down_[port] = !up; }

void EvHealth::fail(std::uint16_t ev, std::uint64_t now) {
  if (quirks_.keep_failed) return;  // defect: loss never retires an EV
  Slot& s = evs_[ev];
  if (s.bad || s.forced) return;  // already failed (a forced EV keeps its oldest failure time)
  // MODEL: W11 ev_min_active floor: never mark below the floor; the EV stays GOOD, no event.
  if (!quirks_.ignore_min_active && params_.ev_min_active != 0 && !s.denied &&
      good_count() <= params_.ev_min_active) {
    s.forced = true;
    s.failed_at = now;
    return;
  }
  mark_bad(ev, now, now);
}

void EvHealth::mark_bad(std::uint16_t ev, std::uint64_t failed_at, std::uint64_t now) {
  Slot& s = evs_[ev];
  s.bad = true;
  s.skip = false;
  s.losses = 0;
  s.loss_deadline = 0;
  s.forced = false;
  s.failed_at = failed_at;
  s.probe_after = now + hold_down_ns();  // MODEL: W11 hold-down
  s.probe_sent = false;
  s.probed_once = false;
  s.probe_ok_run = 0;
  emit(ev, EvState::kAssumedBad);
}

// Once the floor allows, forced-active EVs are marked after all, newest failure first, so the
// EV with the oldest failure is the one that stays GOOD longest.
void EvHealth::release_forced(std::uint64_t now) {
  if (quirks_.ignore_min_active) return;
  while (good_count() > params_.ev_min_active) {
    std::size_t pick = evs_.size();
    for (std::size_t i = 0; i < evs_.size(); ++i) {
      if (!evs_[i].forced || evs_[i].denied) continue;
      if (pick == evs_.size() || evs_[i].failed_at >= evs_[pick].failed_at) pick = i;
    }
    if (pick == evs_.size()) return;
    mark_bad(static_cast<std::uint16_t>(pick), evs_[pick].failed_at, now);
  }
}

std::optional<std::uint16_t> EvHealth::next_probe(std::uint64_t now) {
  now_seen_ = std::max(now_seen_, now);
  std::size_t best = evs_.size();
  std::uint64_t best_due = 0;
  for (std::size_t i = 0; i < evs_.size(); ++i) {
    const Slot& s = evs_[i];
    if (!s.bad || s.denied || port_down_[s.port]) continue;
    const std::uint64_t due = probe_due(s);
    if (due > now) continue;
    if (best == evs_.size() || due < best_due) {
      best = i;
      best_due = due;
    }
  }
  if (best == evs_.size()) return std::nullopt;
  Slot& b = evs_[best];
  b.last_probe = now;  // MODEL: W11 one probe every probe_interval_ns
  b.probe_sent = true;
  // A probe inside the hold-down (probe-eager) is sent but its answer does not count.
  b.probed_once = b.probed_once || now >= b.probe_after;
  return static_cast<std::uint16_t>(best);
}

std::uint64_t EvHealth::probe_due(const Slot& s) const {
  return std::max(schedule_due(s), s.awaiting_until);
}

std::uint64_t EvHealth::schedule_due(const Slot& s) const {
  const std::uint64_t interval = params_.probe_interval_ns;
  switch (params_.probe_phase) {
    case ProbePhase::kFromFailure:
      // probe_after is the mark time plus the hold-down (mark_bad).
      return s.probe_sent ? s.last_probe + interval : s.probe_after - hold_down_ns();
    case ProbePhase::kOneIntervalLate:
      return s.probed_once ? std::max(s.probe_after, s.last_probe + interval) : s.probe_after + interval;
    case ProbePhase::kAtHoldDownEnd: break;
  }
  return s.probed_once ? std::max(s.probe_after, s.last_probe + interval) : s.probe_after;
}

std::optional<std::uint64_t> EvHealth::next_deadline() const {
  std::optional<std::uint64_t> best;
  auto consider = [&best](std::uint64_t t) {
    if (!best || t < *best) best = t;
  };
  for (const Slot& s : evs_) {
    if (s.bad && !s.denied && !port_down_[s.port]) consider(probe_due(s));
    if (s.skip && params_.skip_ns != 0 && s.skip_until > now_seen_) consider(s.skip_until);
    if (s.loss_deadline != 0) consider(s.loss_deadline);
  }
  return best;
}

void EvHealth::emit(std::uint16_t ev, EvState st) {
  if (n_events_ == kEventCapacity) {
    ++dropped_;  // never overrun: count and report with the next event
    return;
  }
  events_[n_events_++] = HealthEvent{ev, st, dropped_};
  dropped_ = 0;
}

void EvHealth::clear_events() { n_events_ = 0; }

}  // namespace mrc::ev
