// Per-packet EV choice (W11): round-robin over eligible EVs, ports (planes) first.
#include "reference/ev/selector.hpp"

#include <algorithm>

namespace mrc::ev {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

EvSelector::EvSelector(EvHealth& health, SelectorQuirks quirks)
    : health_(health), quirks_(quirks), rng_(quirks.random_seed), retx_rng_(quirks.retx_random_seed) {
  const std::size_t n = health_.size();
  order_.resize(n);
  for (std::size_t i = 0; i < n; ++i) order_[i] = static_cast<std::uint16_t>(i);
  // Group by port (ascending), keeping index order inside a port.
  std::stable_sort(order_.begin(), order_.end(), [this](std::uint16_t a, std::uint16_t b) {
    return health_.port(a) < health_.port(b);
  });
  for (std::size_t i = 0; i < n;) {
    PortRing r;
    r.port = health_.port(order_[i]);
    r.begin = i;
    while (i < n && health_.port(order_[i]) == r.port) ++i;
    r.size = i - r.begin;
    ports_.push_back(r);
  }
  if (quirks_.reverse || quirks_.start_at_last) {
    // The first pick is the last port's last EV (the rotation then runs down or wraps around).
    port_cursor_ = ports_.empty() ? 0 : ports_.size() - 1;
    for (PortRing& r : ports_) r.cursor = r.size - 1;
  }
}

bool EvSelector::usable(std::uint16_t ev, std::uint64_t now) const {
  if (ev >= health_.size()) return false;
  const bool denied_ok = !health_.denied(ev) || quirks_.use_denied || health_.quirks().use_denied;
  return health_.good(ev) && denied_ok && !health_.skipped(ev, now) && health_.port_up(health_.port(ev));
}

bool EvSelector::reach_skipped(std::uint16_t ev, std::uint64_t now, std::optional<std::uint16_t>& restored) {
  if (restored || health_.params().skip_ns != 0 || !health_.good(ev) || !health_.skipped(ev, now)) return false;
  if (!health_.restore_skip(ev)) return false;
  restored = ev;  // S1: W11 GOOD again, but not for this packet
  return true;
}

std::optional<std::uint16_t> EvSelector::pick(std::uint64_t now, std::optional<std::uint16_t> exclude,
                                              bool avoid_forced) {
  pick_restored_.reset();  // S1: W11 at most one SKIP EV restored per packet sent
  if (quirks_.spray_single_ev) {
    // Defect: every packet on the first eligible EV.
    for (std::size_t i = 0; i < health_.size(); ++i) {
      const auto ev = static_cast<std::uint16_t>(i);
      if (exclude && *exclude == ev) continue;
      if (usable(ev, now)) return ev;
    }
    return std::nullopt;
  }
  // A forced-active EV keeps its GOOD state and its share of new data (the ev_min_active floor,
  // W11), and so does a suspect one until its timeout is reported, but a retransmission that has a
  // choice does not go back into a path that already lost data: W15 asks only for a different GOOD
  // EV, and this keeps dead EVs (a floor of them, or ones whose losses wait behind a collapsed
  // window to be reported) from taking one PSN after another while the backoff grows.
  if (avoid_forced) {
    const auto ev = quirks_.random_seed != 0 ? pick_random(now, exclude, true) : rotate(now, exclude, true);
    if (ev) return ev;
  }
  if (quirks_.random_seed != 0) return pick_random(now, exclude, false);
  return rotate(now, exclude, false);
}

std::optional<std::uint16_t> EvSelector::rotate(std::uint64_t now, std::optional<std::uint16_t> exclude,
                                                bool skip_forced) {
  // MODEL: W11 rotate over ports first, then over the EVs of the chosen port (descending with the
  // reverse-rotation variant: every step is -1 mod n instead of +1).
  const std::size_t np = ports_.size();
  const bool down = quirks_.reverse;
  std::optional<std::uint16_t>& restored = pick_restored_;  // W11: the SKIP EV this pick restored
  const bool restored_before = restored.has_value();        // by the pass before this one
  std::size_t restored_pi = 0;
  std::size_t restored_pos = 0;
  for (std::size_t k = 0; k < np; ++k) {
    const std::size_t pi = down ? (port_cursor_ + np - k) % np : (port_cursor_ + k) % np;
    PortRing& r = ports_[pi];
    if (!health_.port_up(r.port)) continue;
    for (std::size_t j = 0; j < r.size; ++j) {
      const std::size_t pos = down ? (r.cursor + r.size - j) % r.size : (r.cursor + j) % r.size;
      const std::uint16_t ev = order_[r.begin + pos];
      if (exclude && *exclude == ev) continue;
      if (reach_skipped(ev, now, restored)) {
        restored_pi = pi;
        restored_pos = pos;
        continue;
      }
      if (!usable(ev, now) || (skip_forced && doubtful(ev))) continue;
      r.cursor = down ? (pos + r.size - 1) % r.size : (pos + 1) % r.size;
      port_cursor_ = down ? (pi + np - 1) % np : (pi + 1) % np;
      return ev;
    }
  }
  // MODEL: W11 no other EV was eligible: the one restored in this scan may carry the packet.
  if (restored && !restored_before && usable(*restored, now) && !(skip_forced && doubtful(*restored))) {
    PortRing& r = ports_[restored_pi];
    r.cursor = down ? (restored_pos + r.size - 1) % r.size : (restored_pos + 1) % r.size;
    port_cursor_ = down ? (restored_pi + np - 1) % np : (restored_pi + 1) % np;
    return restored;
  }
  return std::nullopt;
}

std::optional<std::uint16_t> EvSelector::pick_other(std::uint64_t now, std::uint16_t exclude,
                                                    bool avoid_forced) {
  // MODEL: W15 any eligible EV but the one that lost the packet (not forced-active ones while
  // others are left, as pick()). Two passes over the EVs per try, no allocation.
  auto candidate = [&](std::size_t i, bool skip_forced) {
    const auto ev = static_cast<std::uint16_t>(i);
    return i != exclude && usable(ev, now) && !(skip_forced && doubtful(ev));
  };
  for (bool skip_forced : {avoid_forced, false}) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < health_.size(); ++i) n += candidate(i, skip_forced);
    if (n == 0) continue;
    std::size_t k = static_cast<std::size_t>(splitmix64(retx_rng_) % n);
    for (std::size_t i = 0; i < health_.size(); ++i) {
      if (candidate(i, skip_forced) && k-- == 0) return static_cast<std::uint16_t>(i);
    }
  }
  return std::nullopt;
}

std::optional<std::uint16_t> EvSelector::pick_random(std::uint64_t now, std::optional<std::uint16_t> exclude,
                                                     bool skip_forced) {
  // Two passes over the EVs, no allocation: count the candidates, then take the k-th. The previous
  // pick is a candidate only when nothing else is eligible (consecutive packets must differ
  // whenever they can, SPRAY-PER-PACKET-EV).
  // W11 with no rotation cursor: one SKIP EV a pick, taken in index order, is restored.
  std::optional<std::uint16_t>& restored = pick_restored_;
  for (std::size_t i = 0; i < health_.size() && !restored; ++i) {
    reach_skipped(static_cast<std::uint16_t>(i), now, restored);
  }
  auto candidate = [&](std::uint16_t ev, bool allow_last) {
    return !(exclude && *exclude == ev) && (allow_last || !(last_ && *last_ == ev)) && usable(ev, now) &&
           !(skip_forced && doubtful(ev)) && !(restored && *restored == ev);
  };
  for (bool allow_last : {false, true}) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < health_.size(); ++i) n += candidate(static_cast<std::uint16_t>(i), allow_last);
    if (n == 0) continue;
    std::size_t k = static_cast<std::size_t>(splitmix64(rng_) % n);
    for (std::size_t i = 0; i < health_.size(); ++i) {
      const auto ev = static_cast<std::uint16_t>(i);
      if (!candidate(ev, allow_last)) continue;
      if (k-- == 0) {
        last_ = ev;
        return ev;
      }
    }
  }
  if (restored && usable(*restored, now)) return restored;  // MODEL: W11 nothing else was eligible
  return std::nullopt;
}

}  // namespace mrc::ev
