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
  if (quirks_.timeout_cap_20) t = std::min<std::uint8_t>(t, 20);  // defect timeout-cap-20
  t_ns_ = std::uint64_t{1024} << t;  // MODEL: M8 (1.024 us x 2^timeout)
  if (slow) t_ns_ *= 2;              // defect slow-timeout
}

std::uint32_t RetrySchedule::level(std::uint32_t retry) const {
  if (retry <= linear_cnt_) return 0;  // MODEL: M8 linear retries wait T
  return std::min<std::uint32_t>(retry - linear_cnt_, kLevels - 1);
}

std::uint64_t RetrySchedule::level_wait_ns(std::uint32_t lvl) const {
  // MODEL: M8 exponential backoff T x 2^j, capped at 2^24 x 1.024 us.
  const std::uint64_t cap = quirks_.no_cap ? ~std::uint64_t{0} : std::max(kMaxWaitNs, t_ns_);  // defect no-backoff-cap
  std::uint64_t w = lvl >= 40 ? cap : std::min(t_ns_ << lvl, cap);
  if (quirks_.linear_backoff && lvl > 0) w = std::min(t_ns_ * (lvl + 1), cap);  // defect backoff-adds-t
  if (skew_16ths_ == 0) return w;
  // Variant timers-fast / timers-slow: the wait moves by skew/16 of itself, within the cap.
  const auto delta = w / 16 * static_cast<std::uint64_t>(skew_16ths_ < 0 ? -skew_16ths_ : skew_16ths_);
  return skew_16ths_ < 0 ? w - delta : std::min(w + delta, cap);
}

bool RetrySchedule::may_retry_after(std::uint32_t retry) const {
  return infinite() || retry < max_retries() + (quirks_.one_extra ? 1u : 0u);  // defect retry-one-extra
}

}  // namespace mrc::transport
