#include "harness/case/date.hpp"

#include <cstdio>

namespace mrc::harness {
namespace {

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

bool digits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int to_int(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

}  // namespace

std::optional<Date> Date::parse(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  const auto y = text.substr(0, 4);
  const auto m = text.substr(5, 2);
  const auto d = text.substr(8, 2);
  if (!digits(y) || !digits(m) || !digits(d)) return std::nullopt;
  Date out{to_int(y), to_int(m), to_int(d)};
  if (out.year < 1970 || out.month < 1 || out.month > 12) return std::nullopt;
  if (out.day < 1 || out.day > days_in_month(out.year, out.month)) return std::nullopt;
  return out;
}

std::string Date::to_string() const {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", year, month, day);
  return buf;
}

// Howard Hinnant's days_from_civil.
std::int64_t Date::days_since_epoch() const {
  const std::int64_t y = month <= 2 ? year - 1 : year;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t mp = month > 2 ? month - 3 : month + 9;
  const std::int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace mrc::harness
