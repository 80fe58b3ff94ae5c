// A calendar date (proleptic Gregorian), for expectation expiry. The harness never reads the wall
// clock: callers pass "today" in, so runs and tests are deterministic.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mrc::harness {

struct Date {
  int year = 0;
  int month = 0;  // 1..12
  int day = 0;    // 1..31

  // Strict `YYYY-MM-DD` with a real calendar day (2026-02-30 is rejected).
  static std::optional<Date> parse(std::string_view text);
  std::string to_string() const;
  // Days since 1970-01-01 (negative before).
  std::int64_t days_since_epoch() const;
  bool valid() const { return month != 0; }

  auto operator<=>(const Date&) const = default;
};

// Whole days from `a` to `b` (positive when b is later).
inline std::int64_t days_between(const Date& a, const Date& b) {
  return b.days_since_epoch() - a.days_since_epoch();
}

}  // namespace mrc::harness
