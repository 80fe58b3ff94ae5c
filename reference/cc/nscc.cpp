// The NSCC controller (mrc-wire-model.md §4.2), one per QP (W14).
//
// The shape follows the UEC htsim model: an ACK first gives QuickAdapt its chance (once per
// base RTT + target epoch); otherwise exactly one of four rules picks by (marked, delay vs target):
//   unmarked, delay >= target  fair increase          (accrue fi x acked)
//   unmarked, delay <  target  proportional increase  (accrue alpha x acked x headroom),
//                              or fast increase once a cwnd of ACKs saw ~0 delay
//   marked,   delay >= target  multiplicative decrease (at most once per base RTT)
//   marked,   delay <  target  nothing (the EV selector reacts instead)
// Accrued increases are applied in batches ("fulfill adjustment") every adjust_bytes_threshold
// bytes or adjust_period_threshold ns, the latter adding eta. Trims and losses shrink the window
// by their bytes unless QuickAdapt took over.
#include <algorithm>
#include <cmath>

#include "reference/cc/nscc.hpp"

namespace mrc::cc {
namespace {

std::uint64_t since(std::uint64_t now, std::uint64_t then) { return now > then ? now - then : 0; }

// Hand-built params (not from resolve()) must still keep the controller finite and bounded.
NsccParams sanitize(NsccParams p) {
  auto finite_nonneg = [](double v) { return std::isfinite(v) && v > 0.0 ? v : 0.0; };
  p.mtu_bytes = std::max<std::uint32_t>(p.mtu_bytes, 1);
  p.max_cwnd = std::max(p.max_cwnd, p.mtu_bytes);
  p.target_delay = std::max<std::uint32_t>(p.target_delay, 1);
  p.eta = finite_nonneg(p.eta);
  p.fi = finite_nonneg(p.fi);
  p.fi_scale = finite_nonneg(p.fi_scale);
  p.alpha = finite_nonneg(p.alpha);
  p.gamma = std::min(finite_nonneg(p.gamma), 1.0);
  p.max_md_jump = std::min(finite_nonneg(p.max_md_jump), 1.0);
  p.qa_gate = std::min<std::uint8_t>(p.qa_gate, 31);
  return p;
}

}  // namespace

std::string_view to_string(NsccRule r) {
  switch (r) {
    case NsccRule::kFairIncrease: return "fair_increase";
    case NsccRule::kProportionalIncrease: return "proportional_increase";
    case NsccRule::kFastIncrease: return "fast_increase";
    case NsccRule::kFulfillBytes: return "fulfill_bytes";
    case NsccRule::kFulfillPeriod: return "fulfill_period";
    case NsccRule::kMultiplicativeDecrease: return "multiplicative_decrease";
    case NsccRule::kMdHeldOff: return "md_held_off";
    case NsccRule::kMarkBelowTarget: return "mark_below_target";
    case NsccRule::kQuickAdapt: return "quick_adapt";
    case NsccRule::kQaIgnoredMark: return "qa_ignored_mark";
    case NsccRule::kTrimShrink: return "trim_shrink";
    case NsccRule::kLossShrink: return "loss_shrink";
    case NsccRule::kClampMax: return "clamp_max";
    case NsccRule::kClampMin: return "clamp_min";
    case NsccRule::kSuppressedByQuirk: return "suppressed_by_quirk";
    case NsccRule::kMdAvgBelowTarget: return "md_avg_below_target";
    case NsccRule::kCount: break;
  }
  return "unknown";
}

Nscc::Nscc(const NsccParams& params, NsccQuirks quirks) : p_(sanitize(params)), quirks_(quirks) {
  if (quirks_.exceed_max_cwnd) p_.max_cwnd *= 4;  // the `nscc-exceed-max-cwnd` defect
  cwnd_ = p_.max_cwnd;  // UEC starts at MaxWnd
  base_rtt_live_ = p_.base_rtt;
  last_.cwnd_before = last_.cwnd_after = cwnd_;
}

std::uint32_t Nscc::cwnd() const { return static_cast<std::uint32_t>(cwnd_); }

bool Nscc::can_send(std::uint64_t inflight_bytes, std::uint32_t pkt_bytes) const {
  return inflight_bytes == 0 || inflight_bytes + pkt_bytes <= cwnd();
}

void Nscc::begin(std::uint64_t now) {
  cur_ = NsccDecision{};
  cur_.now_ns = now;
  cur_.cwnd_before = cwnd_;
  if (!started_) {
    started_ = true;
    last_adjust_ns_ = now;
    qa_epoch_end_ns_ = now + base_rtt_live_ + p_.target_delay;
  }
}

void Nscc::finish() {
  cur_.cwnd_after = cwnd_;
  last_ = cur_;
}

void Nscc::note(NsccRule r) {
  cur_.rules |= 1u << static_cast<unsigned>(r);
  ++counts_[static_cast<std::size_t>(r)];
}

void Nscc::clamp() {
  const double max = p_.max_cwnd;
  const double min = p_.mtu_bytes;
  if (cwnd_ > max) {
    cwnd_ = max;
    note(NsccRule::kClampMax);
  }
  if (cwnd_ < min) {
    cwnd_ = min;
    note(NsccRule::kClampMin);
  }
}

void Nscc::decrease_to(double v, NsccRule why) {
  if (quirks_.never_decrease && v < cwnd_) {
    note(NsccRule::kSuppressedByQuirk);  // the `nscc-no-decrease` defect
    return;
  }
  cwnd_ = v;
  note(why);
  clamp();
}

// Returns true when QuickAdapt acted (fired, or swallowed a mark on pre-QA bytes in flight): the
// caller then applies no other rule to this event.
bool Nscc::quick_adapt(std::uint64_t now, bool loss_signal, bool marked, double delay,
                       std::optional<std::uint64_t> inflight) {
  if (p_.disable_qa || quirks_.no_quick_adapt) return false;  // the latter: `nscc-no-quick-adapt`
  bool acted = false;
  if (marked && qa_ignored_bytes_ < qa_ignore_bytes_) {
    // This mark was earned by bytes sent under the old window; QA already answered it.
    note(NsccRule::kQaIgnoredMark);
    acted = true;
  } else if (now > qa_epoch_end_ns_) {
    const bool triggered = qa_pending_ || loss_signal || delay > p_.qa_threshold;
    const std::uint64_t gate = static_cast<std::uint64_t>(p_.max_cwnd) >> p_.qa_gate;
    // Defect nscc-qa-ungated: a full epoch fires QuickAdapt too.
    if (triggered && (qa_achieved_bytes_ < gate || quirks_.qa_ungated)) {
      // Defect nscc-qa-one-mtu: the window falls to its floor, whatever the epoch achieved.
      const double achieved = quirks_.qa_one_mtu ? static_cast<double>(p_.mtu_bytes)
                                                 : std::max<double>(static_cast<double>(qa_achieved_bytes_), p_.mtu_bytes);
      const double before = cwnd_;
      decrease_to(achieved, NsccRule::kQuickAdapt);
      qa_ignore_bytes_ = inflight.value_or(static_cast<std::uint64_t>(before));
      qa_ignored_bytes_ = 0;
      acted = true;
    }
    qa_pending_ = false;
    qa_achieved_bytes_ = 0;
    qa_epoch_end_ns_ = now + base_rtt_live_ + p_.target_delay;
  }
  if (acted) {
    // Increases accrued under the old window no longer mean anything.
    inc_bytes_ = 0;
    adjust_bytes_ = 0;
  }
  return acted;
}

void Nscc::increase_unmarked(std::uint32_t acked, double delay) {
  const double target = p_.target_delay;
  if (delay >= target) {
    fi_clear_bytes_ = 0;
    fast_increase_ = false;
    inc_bytes_ += p_.fi * acked;  // every flow gains the same bytes per cwnd acked
    note(NsccRule::kFairIncrease);
    return;
  }
  // Fast increase: after more than a cwnd of consecutive ACKs at about zero delay the path is
  // clearly idle, so grow per ACK instead of per batch.
  if (delay < kFastIncreaseDelayToleranceNs) {
    fi_clear_bytes_ += acked;
    if (fast_increase_ || static_cast<double>(fi_clear_bytes_) > cwnd_) {
      fast_increase_ = true;
      cwnd_ += p_.fi_scale * acked;
      note(NsccRule::kFastIncrease);
      return;
    }
  } else {
    fi_clear_bytes_ = 0;
  }
  fast_increase_ = false;
  inc_bytes_ += p_.alpha * acked * (target - delay);  // more headroom, faster growth
  note(NsccRule::kProportionalIncrease);
}

void Nscc::multiplicative_decrease(std::uint64_t now) {
  fast_increase_ = false;
  fi_clear_bytes_ = 0;
  const double target = p_.target_delay;
  if (!(avg_delay_ > target)) {
    note(NsccRule::kMdAvgBelowTarget);  // a single late ACK is not sustained congestion
    return;
  }
  // Defect nscc-md-every-mark skips the hold-off: a burst of marks cuts the window once per mark.
  if (last_md_ns_ && since(now, *last_md_ns_) <= base_rtt_live_ && !quirks_.md_every_mark) {
    note(NsccRule::kMdHeldOff);  // the last cut has not had an RTT to show its effect
    return;
  }
  const double factor = std::max(1.0 - p_.gamma * (avg_delay_ - target) / avg_delay_, p_.max_md_jump);
  last_md_ns_ = now;
  decrease_to(cwnd_ * factor, NsccRule::kMultiplicativeDecrease);
}

void Nscc::fulfill_adjustment(std::uint64_t now) {
  const bool by_bytes = adjust_bytes_ > p_.adjust_bytes_threshold;
  const bool by_period = since(now, last_adjust_ns_) >= p_.adjust_period_threshold;
  if (!by_bytes && !by_period) return;
  cwnd_ += inc_bytes_ / cwnd_;  // fi and alpha accrue bytes^2: per cwnd acked they add bytes
  if (by_bytes) note(NsccRule::kFulfillBytes);
  if (by_period) {
    cwnd_ += p_.eta;
    last_adjust_ns_ = now;
    note(NsccRule::kFulfillPeriod);
  }
  inc_bytes_ = 0;
  adjust_bytes_ = 0;
  clamp();
}

void Nscc::on_ack(const AckSample& s) {
  begin(s.now_ns);

  // Achieved bytes: the receiver's cumulative counter when it sends one, else what was ACKed.
  std::uint64_t achieved = s.acked_bytes;
  if (s.rcvd_bytes) {
    if (last_rcvd_bytes_) achieved = static_cast<std::uint32_t>(*s.rcvd_bytes - *last_rcvd_bytes_);
    last_rcvd_bytes_ = s.rcvd_bytes;
  }
  qa_achieved_bytes_ += achieved;
  qa_ignored_bytes_ += s.acked_bytes;
  adjust_bytes_ += s.acked_bytes;

  // Queueing delay. Without a valid sample the averaged delay stands in (as htsim does).
  double delay = avg_delay_;
  if (s.rtt_ns != 0) {
    base_rtt_live_ = std::min(base_rtt_live_, s.rtt_ns);
    delay = static_cast<double>(s.rtt_ns - base_rtt_live_);
    avg_delay_ = kDelayEwmaWeight * delay + (1.0 - kDelayEwmaWeight) * avg_delay_;
  }

  if (quick_adapt(s.now_ns, false, s.ecn_marked, delay, s.inflight_bytes)) {
    finish();
    return;
  }

  const double target = p_.target_delay;
  if (!s.ecn_marked) {
    increase_unmarked(s.acked_bytes, delay);
  } else if (delay >= target) {
    multiplicative_decrease(s.now_ns);
  } else if (quirks_.md_below_target) {
    // The `nscc-md-below-target` defect: the mark alone cuts the window, whatever the delay.
    if (!last_md_ns_ || since(s.now_ns, *last_md_ns_) > base_rtt_live_) {
      last_md_ns_ = s.now_ns;
      decrease_to(cwnd_ * p_.max_md_jump, NsccRule::kMultiplicativeDecrease);
    } else {
      note(NsccRule::kMdHeldOff);
    }
  } else {
    note(NsccRule::kMarkBelowTarget);
  }
  clamp();
  fulfill_adjustment(s.now_ns);
  finish();
}

void Nscc::on_nack(std::uint64_t now, std::uint32_t bytes, std::optional<std::uint64_t> inflight,
                   NsccRule why) {
  begin(now);
  qa_ignored_bytes_ += bytes;
  qa_pending_ = true;
  // A trim or loss is treated like a marked signal: during QA's ignore window it is already paid
  // for; when an epoch closes it can fire QA itself.
  if (!quick_adapt(now, true, true, 0.0, inflight)) decrease_to(cwnd_ - bytes, why);
  finish();
}

void Nscc::on_trim(std::uint64_t now_ns, std::uint32_t bytes,
                   std::optional<std::uint64_t> inflight_bytes) {
  // A trim means a switch queue overflowed: count it as a delay sample of one base RTT (htsim
  // takes the network RTT as the trimming threshold), so the average sees the congestion.
  avg_delay_ = kDelayEwmaWeight * base_rtt_live_ + (1.0 - kDelayEwmaWeight) * avg_delay_;
  on_nack(now_ns, bytes, inflight_bytes, NsccRule::kTrimShrink);
}

void Nscc::on_loss(std::uint64_t now_ns, std::uint32_t bytes,
                   std::optional<std::uint64_t> inflight_bytes) {
  on_nack(now_ns, bytes, inflight_bytes, NsccRule::kLossShrink);
}

}  // namespace mrc::cc
