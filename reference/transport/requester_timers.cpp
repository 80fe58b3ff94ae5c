// Requester: per-PSN ACK timers (S1: W15), timeouts, errors and the completion queue.
//
// Every transmission waits RetrySchedule::wait_ns(retries). Transmissions with the same wait are
// kept in one FIFO list per wait level; since they are appended in time order, each list's head
// has the earliest deadline of the list, and the next deadline is the minimum over 26 heads.
#include <algorithm>
#include <cerrno>

#include "reference/transport/requester.hpp"

namespace mrc::transport {

void Requester::timer_insert(std::uint32_t psn, std::uint8_t level, std::uint64_t deadline) {
  const std::uint32_t idx = psn & ring_mask_;
  PsnSlot& s = ring_[idx];
  TimerList& l = timers_[level];
  s.level = level;
  s.deadline = deadline;
  s.prev = l.tail;
  s.next = kNil;
  if (l.tail != kNil) {
    ring_[l.tail].next = idx;
  } else {
    l.head = idx;
  }
  l.tail = idx;
}

void Requester::timer_remove(std::uint32_t psn) {
  const std::uint32_t idx = psn & ring_mask_;
  PsnSlot& s = ring_[idx];
  if (s.level == kNoLevel) return;
  TimerList& l = timers_[s.level];
  if (s.prev != kNil) {
    ring_[s.prev].next = s.next;
  } else {
    l.head = s.next;
  }
  if (s.next != kNil) {
    ring_[s.next].prev = s.prev;
  } else {
    l.tail = s.prev;
  }
  s.prev = s.next = kNil;
  s.level = kNoLevel;
}

std::uint64_t Requester::next_deadline() const {
  if (error_) return UINT64_MAX;
  std::uint64_t t = UINT64_MAX;
  for (const TimerList& l : timers_) {
    if (l.head != kNil) t = std::min(t, ring_[l.head].deadline);
  }
  return std::min(t, tack_deadline_);
}

void Requester::advance(std::uint64_t now) {
  for (std::uint32_t lvl = 0; lvl < timers_.size() && !error_; ++lvl) {
    while (!error_ && timers_[lvl].head != kNil && ring_[timers_[lvl].head].deadline <= now) {
      // Recover the PSN of the slot: the slot index is psn & mask, and the PSN lies in the window.
      const std::uint32_t idx = timers_[lvl].head;
      const std::uint32_t psn = psn_add(una_psn_, (idx - una_psn_) & ring_mask_);
      on_timeout(psn, now);
    }
  }
  if (!error_ && tack_deadline_ <= now) on_tack_timeout(now);
  if (!error_) health_->expire_losses(now);  // an inferred loss whose copy's timer ran out (EvHealth)
}

void Requester::on_timeout(std::uint32_t psn, std::uint64_t now) {
  PsnSlot& s = slot(psn);
  timer_remove(psn);
  ++stats_.timeouts;
  if (!schedule_.may_retry_after(s.retries)) {  // W15 retries exhausted
    fail(s.wr, IBV_WC_RETRY_EXC_ERR);
    return;
  }
  if (!(s.flags & kQueued)) {
    // The transmission really went out on s.ev and drew no ACK, SACK or NACK in time. EvHealth
    // hears about it after the retransmission on a different EV (W11).
    s.blame_ev = s.ev;
    s.flags |= kBlame;
    health_->on_timeout_pending(s.ev);  // suspect until reported: retransmissions avoid it
    if (nscc_) nscc_->on_loss(now, s.len, inflight_bytes_);
  }
  ++s.retries;
  declare_lost(psn, false);
  // The timer keeps running while the retransmission waits (no EV, no cwnd): a PSN that can never
  // go out still exhausts its retries instead of hanging the QP.
  timer_insert(psn, static_cast<std::uint8_t>(schedule_.level(s.retries)),
               now + schedule_.wait_ns(s.retries));
  if (cfg_.quirks.go_back_n) go_back_from(psn);
}

void Requester::push_completion(const Completion& c) {
  if (cq_count_ >= cq_.size()) return;  // cannot happen: post() reserves a CQ entry per WR
  cq_[(cq_head_ + cq_count_) % cq_.size()] = c;
  ++cq_count_;
}

bool Requester::poll_completion(Completion& out) {
  if (cq_count_ == 0) return false;
  out = cq_[cq_head_];
  cq_head_ = (cq_head_ + 1) % static_cast<std::uint32_t>(cq_.size());
  --cq_count_;
  return true;
}

void Requester::fail(std::uint32_t wr_slot, enum ibv_wc_status status) {
  if (error_) return;
  error_ = true;
  // The WR that failed completes first with its own status, then every other WR still queued is
  // flushed in posting order (verbs: a QP in ERR flushes its send queue).
  const auto n = static_cast<std::uint32_t>(sq_.size());
  bool failed_found = false;
  for (std::uint32_t i = 0; i < sq_count_; ++i) {
    if ((sq_head_ + i) % n == wr_slot) failed_found = true;
  }
  if (failed_found) {
    const WrSlot& w = sq_[wr_slot];
    Completion c;
    c.wr_id = w.wr.wr_id;
    c.status = status;
    c.opcode = IBV_WC_RDMA_WRITE;
    c.qp_num = cfg_.qpn;
    push_completion(c);
  }
  for (std::uint32_t i = 0; i < sq_count_; ++i) {
    const std::uint32_t idx = (sq_head_ + i) % n;
    if (failed_found && idx == wr_slot) continue;
    Completion c;
    c.wr_id = sq_[idx].wr.wr_id;
    c.status = IBV_WC_WR_FLUSH_ERR;
    c.opcode = IBV_WC_RDMA_WRITE;
    c.qp_num = cfg_.qpn;
    push_completion(c);
    sq_[idx].payload = {};
  }
  sq_count_ = sq_cursor_ = 0;
  wimm_outstanding_ = 0;
  for (std::uint32_t i = 0; i < outstanding_; ++i) slot(psn_add(una_psn_, i)).flags = 0;
  health_->clear_suspects();
  for (PsnSlot& s : ring_) s.level = kNoLevel, s.prev = s.next = kNil;
  timers_.fill(TimerList{});
  rq_count_ = 0;
  outstanding_ = 0;
  inflight_bytes_ = 0;
  una_psn_ = next_psn_;
}

void Requester::flush() { fail(UINT32_MAX, IBV_WC_WR_FLUSH_ERR); }

}  // namespace mrc::transport
