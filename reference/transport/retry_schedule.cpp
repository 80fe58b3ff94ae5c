#include "reference/transport/retry_schedule.hpp"

#include <algorithm>

namespace mrc::transport {

RetrySchedule::RetrySchedule(std::uint8_t timeout, RetryAttr retry, bool slow, std::int8_t skew_16ths)
    : linear_cnt_(std::min(retry.linear_cnt, kMaxLinearRetry)),
      exp_cnt_(std::min(retry.exp_cnt, kMaxExpRetry)),
      skew_16ths_(std::clamp<std::int8_t>(skew_16ths, -8, 8)) {
  const std::uint8_t t = std::min(timeout, kMaxTimeout);
  t_ns_ = std::uint64_t{1024} << t;  // MODEL: M8 (1.024 us x 2^timeout)
  if (slow) t_ns_ *= 2;              // defect slow-timeout
}

std::uint32_t RetrySchedule::level(std::uint32_t retry) const {
  if (retry <= linear_cnt_) return 0;  // MODEL: M8 linear retries wait T
  return std::min<std::uint32_t>(retry - linear_cnt_, kLevels - 1);
}

std::uint64_t RetrySchedule::level_wait_ns(std::uint32_t lvl) const {
  // MODEL: M8 exponential backoff T x 2^j, capped at 2^24 x 1.024 us.
  const std::uint64_t cap = std::max(kMaxWaitNs, t_ns_);
  const std::uint64_t w = lvl >= 40 ? cap : std::min(t_ns_ << lvl, cap);
  if (skew_16ths_ == 0) return w;
  // Variant timers-fast / timers-slow: the wait moves by skew/16 of itself, within the cap.
  const auto delta = w / 16 * static_cast<std::uint64_t>(skew_16ths_ < 0 ? -skew_16ths_ : skew_16ths_);
  return skew_16ths_ < 0 ? w - delta : std::min(w + delta, cap);
}

bool RetrySchedule::may_retry_after(std::uint32_t retry) const {
  return infinite() || retry < max_retries();
}

}  // namespace mrc::transport
