// The requester's ACK-timeout and retry schedule (host API units §1.3; MODEL: W15 the schedule below).
//
// T = 1.024 us x 2^timeout (1.024 us is exactly 1024 ns). The first transmission and retries
// 1..linear_cnt each wait T; retry linear_cnt + j waits T x 2^j for j = 1..exp_cnt, capped at
// 2^24 x 1.024 us. exp_cnt == 25 never gives up. When the last allowed retry times out the QP
// goes to ERR with IBV_WC_RETRY_EXC_ERR.
#pragma once

#include <cstdint>

#include "reference/quirk/quirk_flag.hpp"
#include "reference/transport/qp_types.hpp"

namespace mrc::transport {

// Defects of the schedule (reference/defects.hpp); all off = the W15 schedule.
struct RetryQuirks {
  quirk::Flag linear_backoff = false;  // backoff-adds-t: retry linear + j waits T x (j + 1), not T x 2^j
  quirk::Flag no_cap = false;          // no-backoff-cap: waits grow past 2^24 x 1.024 us
  quirk::Flag timeout_cap_20 = false;  // timeout-cap-20: T = 1.024 us x 2^min(timeout, 20)
  quirk::Flag one_extra = false;       // retry-one-extra: one retry more than linear + exp
  quirk::Flag exp25_finite = false;    // exp25-finite: exp_cnt 25 gives up after 25 exponential retries
  quirk::Flag never_give_up = false;   // never-give-up: exp_cnt taken as 25 (infinite), whatever it is
};
// Each switch is read only where the schedule's answer would differ with it on (a wait past the
// cap, a timeout above 20, the last allowed retry): a case that never gets there never reaches the
// defect (reference/quirk/quirk_flag.hpp).

class RetrySchedule {
 public:
  // Longest wait any transmission may have: 2^24 x 1.024 us (about 17.18 s).   W15
  static constexpr std::uint64_t kMaxWaitNs = std::uint64_t{1024} << 24;
  // Distinct wait lengths: level 0 (= T) and levels 1..25 (= T x 2^j, capped).
  static constexpr std::uint32_t kLevels = 26;

  RetrySchedule() = default;
  // `slow` is the slow-timeout defect: every wait is doubled. `skew_16ths` is the timers-fast /
  // timers-slow variant: every wait moves by that many sixteenths of itself (a timer wheel's
  // resolution), never past the 2^24 x 1.024 us cap.
  RetrySchedule(std::uint8_t timeout, RetryAttr retry, bool slow = false, std::int8_t skew_16ths = 0,
                RetryQuirks quirks = {});

  std::uint64_t base_ns() const { return t_ns_; }
  // Timer level of a transmission that is retry number `retry` (0 = first transmission).
  std::uint32_t level(std::uint32_t retry) const;
  // How long that transmission waits for its ACK before it counts as timed out.
  std::uint64_t wait_ns(std::uint32_t retry) const { return level_wait_ns(level(retry)); }
  std::uint64_t level_wait_ns(std::uint32_t level) const;
  // True when a transmission that was retry number `retry` timed out and another retry is allowed.
  bool may_retry_after(std::uint32_t retry) const;
  bool infinite() const { return exp_cnt() >= kExpRetryInfinite && !quirks_.exp25_finite; }
  std::uint32_t max_retries() const { return std::uint32_t{linear_cnt_} + exp_cnt(); }

 private:
  std::uint64_t t_ns_ = 1024u << 8;
  std::uint8_t linear_cnt_ = 7;
  std::uint8_t exp_cnt() const { return quirks_.never_give_up ? kMaxExpRetry : exp_cnt_; }

  std::uint8_t exp_cnt_ = 25;  // as configured
  std::int8_t skew_16ths_ = 0;
  RetryQuirks quirks_;
};

}  // namespace mrc::transport
