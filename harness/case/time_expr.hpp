// Times in a case file written as what the case configures (cases/README.md "Times in units of
// the case's timers"): a plain integer is nanoseconds, as before; an expression sums terms of a
// number and a unit, `3 T + 20 us`, `2.5 T`, `T - 10 us`, `1.5 ms`.
//
// Units: ns, us, ms, s, and T, the case's ACK timeout (1.024 us x 2^config.qp.timeout, W15). A
// bound written in T follows the timer it was derived from: when the runner raises the timeout
// exponent on a slow wire (a case with `timing: scales`), every time written in T grows with it,
// and the times written in absolute units stay.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mrc::harness {

// What the units of an expression stand for in one case.
struct TimeUnits {
  std::uint8_t timeout = 8;  // config.qp.timeout: T = 1024 ns << timeout
  std::uint64_t t_ns() const { return std::uint64_t{1024} << timeout; }
};

struct TimeValue {
  std::optional<std::uint64_t> ns;  // the value, rounded to the nearest ns
  bool uses_t = false;              // a term in T
  std::string error;                // why not, when ns is empty: "unknown unit 'uS' (...)"
};

// A plain integer (ns) or an expression, evaluated with `u`. Negative or past 2^62 ns is an error.
TimeValue parse_time(std::string_view text, const TimeUnits& u);

}  // namespace mrc::harness
