// Small vocabulary shared by the controller model, the per-QP health machine and the selector.
// Values are the host API's enum values (mrc-wire-model.md §1.4), re-declared in our own words.
#pragma once

#include <cstdint>

#include "reference/wire/headers.hpp"

namespace mrc::ev {

// Per-EV state, bit values as in the controller API.
enum class EvState : std::uint32_t {
  kGood = 1u << 0,
  kAssumedBad = 1u << 1,
  kDenied = 1u << 2,
  kUnknown = 1u << 31,
};
inline constexpr std::uint32_t bits(EvState s) { return static_cast<std::uint32_t>(s); }
const char* to_string(EvState s);

// Profile lifecycle shared by EV format, EV and CC profiles: INIT -> OFFLINE -> ONLINE -> OFFLINE
// -> INIT.
enum class ProfileState : std::uint8_t { kInit = 0, kOffline = 1, kOnline = 2 };
const char* to_string(ProfileState s);

// EV profile modes, bit values as in the controller API.
enum class EvMode : std::uint32_t {
  kAuto = 1u << 0,  // the device manages paths itself
  kExp = 1u << 1,   // the controller supplies the EV array
  kGen = 1u << 2,   // the device draws each field between min_val and max_val
};
const char* to_string(EvMode m);

// An EV as the controller names it: value and 1-based egress port. Matching is on both.
struct EvRef {
  wire::EvBytes val{};
  std::uint8_t port = 0;
  bool operator==(const EvRef&) const = default;
};
// All-zero value with port 0: an explicit-array slot nobody has filled yet.
inline bool is_unpopulated(const EvRef& e) {
  if (e.port != 0) return false;
  for (std::uint8_t b : e.val) {
    if (b != 0) return false;
  }
  return true;
}

}  // namespace mrc::ev
