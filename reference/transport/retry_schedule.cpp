#include "reference/transport/retry_schedule.hpp"

#include <algorithm>

namespace mrc::transport {

RetrySchedule::RetrySchedule(std::uint8_t timeout, RetryAttr retry, bool slow, std::int8_t skew_16ths,
                             RetryQuirks quirks)
    : linear_cnt_(std::min(retry.linear_cnt, kMaxLinearRetry)),
      exp_cnt_(std::min(retry.exp_cnt, kMaxExpRetry)),
      skew_16ths_(std::clamp<std::int8_t>(skew_16ths, -8, 8)),
      quirks_(quirks) {
  std::uint8_t t = std::min(timeout, kMaxTimeout);
  if (t > 20 && quirks_.timeout_cap_20) t = 20;  // defect timeout-cap-20
  t_ns_ = std::uint64_t{1024} << t;  // W15 (host API: 1.024 us x 2^timeout)
  if (slow) t_ns_ *= 2;              // defect slow-timeout
}

std::uint32_t RetrySchedule::level(std::uint32_t retry) const {
  if (retry <= linear_cnt_) return 0;  // W15 linear retries wait T
  return std::min<std::uint32_t>(retry - linear_cnt_, kLevels - 1);
}

std::uint64_t RetrySchedule::level_wait_ns(std::uint32_t lvl) const {
  // W15 exponential backoff T x 2^j, capped at 2^24 x 1.024 us. The defect no-backoff-cap
  // lifts the cap: its switch is read only where a wait would be cut by it.
  const std::uint64_t m8_cap = std::max(kMaxWaitNs, t_ns_);
  auto capped = [&](std::uint64_t v) { return v <= m8_cap || quirks_.no_cap ? v : m8_cap; };
  std::uint64_t w = lvl >= 40 ? capped(~std::uint64_t{0}) : capped(t_ns_ << lvl);
  if (lvl > 0 && quirks_.linear_backoff) w = capped(t_ns_ * (lvl + 1));  // defect backoff-adds-t
  if (skew_16ths_ == 0) return w;
  // Variant timers-fast / timers-slow: the wait moves by skew/16 of itself, within the cap.
  const auto delta = w / 16 * static_cast<std::uint64_t>(skew_16ths_ < 0 ? -skew_16ths_ : skew_16ths_);
  return skew_16ths_ < 0 ? w - delta : capped(w + delta);
}

bool RetrySchedule::may_retry_after(std::uint32_t retry) const {
  return infinite() || retry < max_retries() + (quirks_.one_extra ? 1u : 0u);  // defect retry-one-extra
}

}  // namespace mrc::transport
