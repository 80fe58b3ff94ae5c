// Per-packet EV choice (MODEL: M7): round-robin over eligible EVs, ports (planes) first.
#include "reference/ev/selector.hpp"

#include <algorithm>

namespace mrc::ev {

EvSelector::EvSelector(const EvHealth& health, SelectorQuirks quirks)
    : health_(health), quirks_(quirks), rng_(quirks.random_seed) {
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
}

bool EvSelector::usable(std::uint16_t ev, std::uint64_t now) const {
  if (ev >= health_.size()) return false;
  const bool denied_ok = !health_.denied(ev) || quirks_.use_denied || health_.quirks().use_denied;
  return health_.good(ev) && denied_ok && !health_.cooling(ev, now) &&
         health_.port_up(health_.port(ev));
}

std::optional<std::uint16_t> EvSelector::pick(std::uint64_t now,
                                              std::optional<std::uint16_t> exclude) {
  if (quirks_.spray_single_ev) {
    // Defect: every packet on the first eligible EV.
    for (std::size_t i = 0; i < health_.size(); ++i) {
      const auto ev = static_cast<std::uint16_t>(i);
      if (exclude && *exclude == ev) continue;
      if (usable(ev, now)) return ev;
    }
    return std::nullopt;
  }
  if (quirks_.random_seed != 0) return pick_random(now, exclude);
  // MODEL: M7 rotate over ports first, then over the EVs of the chosen port.
  const std::size_t np = ports_.size();
  for (std::size_t k = 0; k < np; ++k) {
    const std::size_t pi = (port_cursor_ + k) % np;
    PortRing& r = ports_[pi];
    if (!health_.port_up(r.port)) continue;
    for (std::size_t j = 0; j < r.size; ++j) {
      const std::size_t pos = (r.cursor + j) % r.size;
      const std::uint16_t ev = order_[r.begin + pos];
      if (exclude && *exclude == ev) continue;
      if (!usable(ev, now)) continue;
      r.cursor = (pos + 1) % r.size;
      port_cursor_ = (pi + 1) % np;
      return ev;
    }
  }
  return std::nullopt;
}

std::optional<std::uint16_t> EvSelector::pick_random(std::uint64_t now, std::optional<std::uint16_t> exclude) {
  // Two passes over the EVs, no allocation: count the candidates, then take the k-th. The previous
  // pick is a candidate only when nothing else is eligible (consecutive packets must differ
  // whenever they can, SPRAY-PER-PACKET-EV).
  auto candidate = [&](std::uint16_t ev, bool allow_last) {
    return !(exclude && *exclude == ev) && (allow_last || !(last_ && *last_ == ev)) && usable(ev, now);
  };
  for (bool allow_last : {false, true}) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < health_.size(); ++i) n += candidate(static_cast<std::uint16_t>(i), allow_last);
    if (n == 0) continue;
    rng_ += 0x9E3779B97F4A7C15ull;  // splitmix64
    std::uint64_t z = rng_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    std::size_t k = static_cast<std::size_t>(z % n);
    for (std::size_t i = 0; i < health_.size(); ++i) {
      const auto ev = static_cast<std::uint16_t>(i);
      if (!candidate(ev, allow_last)) continue;
      if (k-- == 0) {
        last_ = ev;
        return ev;
      }
    }
  }
  return std::nullopt;
}

}  // namespace mrc::ev
