#include "reference/transport/sack_tracker.hpp"

#include <algorithm>

#include "reference/wire/mrc_headers.hpp"

namespace mrc::transport {
namespace {

std::uint32_t clamp_window(std::uint32_t w, std::uint32_t cap) {
  return std::clamp<std::uint32_t>(w, 1u, cap);
}

std::uint32_t pow2_at_least(std::uint32_t n) {
  std::uint32_t c = 64;  // at least one bitmap word
  while (c < n) c <<= 1;
  return c;
}

}  // namespace

SackTracker::SackTracker(std::uint32_t epsn, std::uint32_t window, std::uint32_t max_window)
    : epsn_(epsn & kPsnMask),
      capacity_(pow2_at_least(std::clamp<std::uint32_t>(std::max(window, max_window), 1u, kMaxWindow))),
      received_(capacity_ / 64, 0),
      trimmed_(capacity_ / 64, 0),
      records_(capacity_) {
  window_ = clamp_window(window, std::min(capacity_, kMaxWindow));
}

SackTracker::Class SackTracker::classify(std::uint32_t psn) const {
  const std::uint32_t d = (psn - epsn_) & kPsnMask;
  if (d >= (1u << 23)) return Class::kDuplicate;  // behind ePSN: an old, acknowledged PSN
  if (d < capacity_ && bit(received_, psn)) return Class::kDuplicate;
  if (d < window_) return Class::kNew;
  return Class::kBeyondWindow;
}

void SackTracker::mark(std::uint32_t psn, PsnRecord rec) {
  psn &= kPsnMask;
  set_bit(received_, psn);
  records_[slot(psn)] = rec;
  const std::uint32_t d = (psn - epsn_) & kPsnMask;
  if (held_ == 0 || d > ((highest_ - epsn_) & kPsnMask)) highest_ = psn;
  ++held_;
}

bool SackTracker::pop_in_order(std::uint32_t& psn, PsnRecord& rec) {
  if (!bit(received_, epsn_)) return false;
  psn = epsn_;
  rec = records_[slot(epsn_)];
  records_[slot(epsn_)] = PsnRecord{};
  clear_bit(received_, epsn_);
  clear_bit(trimmed_, epsn_);
  epsn_ = (epsn_ + 1) & kPsnMask;
  --held_;
  return true;
}

void SackTracker::mark_trimmed(std::uint32_t psn) { set_bit(trimmed_, psn & kPsnMask); }

bool SackTracker::trimmed(std::uint32_t psn) const {
  const std::uint32_t d = (psn - epsn_) & kPsnMask;
  return d < capacity_ && bit(trimmed_, psn);
}

bool SackTracker::received(std::uint32_t psn) const {
  const std::uint32_t d = (psn - epsn_) & kPsnMask;
  return d < capacity_ && bit(received_, psn);
}

std::uint64_t SackTracker::bitmap64(std::uint32_t base) const {
  std::uint64_t out = 0;
  for (unsigned i = 0; i < 64; ++i) {
    if (received((base + i) & kPsnMask)) out |= wire::Seth::sack_mask(i);
  }
  return out;
}

void SackTracker::set_window(std::uint32_t window) {
  window_ = clamp_window(window, std::min(capacity_, kMaxWindow));
}

}  // namespace mrc::transport
