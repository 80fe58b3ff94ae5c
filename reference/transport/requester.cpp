// Requester: construction, posting, segmentation and the send path (what goes out next).
// Feedback handling is in requester_feedback.cpp, timers and errors in requester_timers.cpp.
#include "reference/transport/requester.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>

namespace mrc::transport {
namespace {

std::uint32_t round_up_pow2(std::uint32_t v) { return std::bit_ceil(std::max<std::uint32_t>(v, 1)); }

// MRC WRITE opcodes by position in the message (W3: the RC WRITE opcodes OR 0xC0).
std::uint8_t data_opcode(bool first, bool last, bool imm) {
  namespace oc = wire::opcode;
  if (first && last) return imm ? oc::kMrcWriteOnlyImm : oc::kMrcWriteOnly;
  if (first) return oc::kMrcWriteFirst;
  if (last) return imm ? oc::kMrcWriteLastImm : oc::kMrcWriteLast;
  return oc::kMrcWriteMiddle;
}

}  // namespace

Requester::Requester(const RequesterConfig& cfg, std::span<const ev::EvSlotInit> evs,
                     const ev::HealthParams& health_params, ev::HealthQuirks health_quirks,
                     ev::SelectorQuirks selector_quirks, const cc::NsccParams* nscc,
                     cc::NsccQuirks nscc_quirks)
    : cfg_(cfg),
      schedule_(cfg.timeout, cfg.retry, cfg.quirks.slow_timeout, cfg.timer_skew_16ths, cfg.quirks.retry) {
  cfg_.mpr = std::max<std::uint8_t>(cfg_.mpr, 1);
  cfg_.mtu = std::clamp<std::uint32_t>(cfg_.mtu, 256, 4096);
  cfg_.max_send_wr = std::max<std::uint32_t>(cfg_.max_send_wr, 1);
  health_ = std::make_unique<ev::EvHealth>(evs, health_params, health_quirks);
  selector_ = std::make_unique<ev::EvSelector>(*health_, selector_quirks);
  if (nscc != nullptr) nscc_.emplace(*nscc, nscc_quirks);

  mpr_units_ = cfg_.peer_mpr_dest != 0 ? std::min(cfg_.mpr, cfg_.peer_mpr_dest) : cfg_.mpr;
  // The ring holds the largest window this QP can ever use: the local mpr (dynamic MPR can only
  // lower the peer's share), doubled for the exceed-mpr-window defect, whose switch is read only
  // when the window is full (window_open()).
  const std::uint32_t max_window = std::uint32_t{cfg_.mpr} * kMprUnitPsns * 2u;
  ring_.assign(round_up_pow2(max_window), PsnSlot{});
  ring_mask_ = static_cast<std::uint32_t>(ring_.size() - 1);
  rq_.assign(ring_.size(), 0);
  sq_.assign(cfg_.max_send_wr, WrSlot{});
  cq_.assign(2 * std::size_t{cfg_.max_send_wr}, Completion{});
  una_psn_ = next_psn_ = tacked_psn_ = cfg_.sq_psn & kPsnMask;
}

std::uint32_t Requester::window_psns() const {
  // S1: W12 at most min(mpr, peer mpr_dest) x 128 un-ACKed PSNs; MODEL: W12 the min().
  const std::uint32_t w = std::uint32_t{mpr_units_} * kMprUnitPsns;
  return cfg_.quirks.exceed_mpr_window ? 2 * w : w;  // defect exceed-mpr-window
}

bool Requester::window_open() const {
  // window_psns() without reading the defect's switch below the W12 limit.
  const std::uint32_t w = std::uint32_t{mpr_units_} * kMprUnitPsns;
  return outstanding_ < w || (cfg_.quirks.exceed_mpr_window && outstanding_ < 2 * w);
}

std::uint32_t Requester::wimm_limit() const {
  // MODEL: W16 min(max_wimm, peer max_wimm_dest).
  return cfg_.peer_max_wimm_dest != 0 ? std::min(cfg_.max_wimm, cfg_.peer_max_wimm_dest)
                                      : cfg_.max_wimm;
}

int Requester::post(const SendWr& wr, wire::Bytes payload) {
  if (wr.opcode != IBV_WR_RDMA_WRITE && wr.opcode != IBV_WR_RDMA_WRITE_WITH_IMM) return EINVAL;
  if (payload.size() != wr.length) return EINVAL;
  const bool imm = wr.opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
  if (imm && wimm_limit() == 0 && !cfg_.quirks.ignore_wimm) return EINVAL;
  // Room in the send queue, and a completion entry reserved so the CQ can never overrun.
  if (sq_count_ >= sq_.size() || sq_count_ + cq_count_ >= cq_.size()) return ENOMEM;
  WrSlot& w = sq_[(sq_head_ + sq_count_) % sq_.size()];
  w.wr = wr;
  w.payload = payload;
  w.imm = imm;
  w.first_psn = 0;
  w.npkts = wr.length == 0 ? 1 : (wr.length + cfg_.mtu - 1) / cfg_.mtu;
  w.sent_pkts = 0;
  // W4: msn counts messages, rqmsn WRITE_WITH_IMM messages (0 on plain WRITEs); both wrap at 2^16.
  w.meth.msn = next_msn_++;
  w.meth.rqmsn = imm ? next_rqmsn_++ : 0;
  ++sq_count_;
  ++stats_.posted_wrs;
  return 0;
}

bool Requester::tracked(std::uint32_t psn) const {
  return psn_diff(psn, una_psn_) < outstanding_;
}

std::optional<std::uint16_t> Requester::ev_of(std::uint32_t psn) const {
  if (!tracked(psn)) return std::nullopt;
  return slot(psn).ev;
}

bool Requester::cwnd_allows(std::uint32_t bytes) const {
  // MODEL: W14 UET's gate: inflight + packet <= cwnd (one packet may always go when none is in flight).
  return !nscc_ || nscc_->can_send(inflight_bytes_, bytes);
}

std::optional<std::uint16_t> Requester::pick_ev(std::uint64_t now,
                                                std::optional<std::uint16_t> exclude,
                                                bool retransmission) {
  return selector_->pick(now, exclude, retransmission);  // W11
}

bool Requester::next_packet(std::uint64_t now, TxPacket& out) {
  if (error_) return false;
  if (tack_probe_due_ && emit_tack_probe(now, out)) return true;
  if (rq_count_ != 0 && emit_retransmit(now, out)) return true;
  return emit_new(now, out);
}

bool Requester::emit_new(std::uint64_t now, TxPacket& out) {
  if (sq_cursor_ >= sq_count_) return false;
  const std::uint32_t wr_idx = (sq_head_ + sq_cursor_) % static_cast<std::uint32_t>(sq_.size());
  WrSlot& w = sq_[wr_idx];
  if (!window_open()) {  // W12
    ++stats_.blocked_window;
    return false;
  }
  if (w.imm && w.sent_pkts == 0 && !cfg_.quirks.ignore_wimm &&
      wimm_outstanding_ >= wimm_limit()) {  // W16
    ++stats_.blocked_wimm;
    return false;
  }
  const std::uint32_t offset = w.sent_pkts * cfg_.mtu;
  const std::uint32_t len = std::min(cfg_.mtu, w.wr.length - std::min(w.wr.length, offset));
  if (!cwnd_allows(len)) {
    ++stats_.blocked_cwnd;
    return false;
  }
  const auto ev = pick_ev(now, std::nullopt);
  if (!ev) {
    ++stats_.blocked_no_ev;
    return false;
  }

  const std::uint32_t psn = next_psn_;
  PsnSlot& s = slot(psn);
  s = PsnSlot{};
  s.wr = wr_idx;
  s.offset = offset;
  s.len = static_cast<std::uint16_t>(len);
  s.ev = *ev;
  s.send_ts = now;
  s.tx_seq = ++tx_seq_;
  s.flags = kLive;
  if (w.sent_pkts == 0) {
    s.flags |= kFirst;
    w.first_psn = psn;
    if (w.imm) {
      ++wimm_outstanding_;
      stats_.max_outstanding_wimm = std::max(stats_.max_outstanding_wimm, wimm_outstanding_);
    }
  }
  if (w.sent_pkts + 1 == w.npkts) {
    s.flags |= kLast;
    ++sq_cursor_;
  }
  ++w.sent_pkts;
  next_psn_ = psn_add(psn, 1);
  ++outstanding_;
  stats_.max_outstanding_psns = std::max(stats_.max_outstanding_psns, outstanding_);
  inflight_bytes_ += len;
  timer_insert(psn, static_cast<std::uint8_t>(schedule_.level(0)), now + schedule_.wait_ns(0));
  count_tx(len);
  build(s, psn, *ev, false, now, out);
  return true;
}

bool Requester::emit_retransmit(std::uint64_t now, TxPacket& out) {
  while (rq_count_ != 0) {
    const std::uint32_t psn = rq_[rq_head_];
    PsnSlot& s = slot(psn);
    const bool stale = !tracked(psn) || !(s.flags & kLive);
    const bool done = (s.flags & kSacked) && !cfg_.quirks.go_back_n;  // W6 selective
    if (stale || done) {
      if (!stale) s.flags &= static_cast<std::uint8_t>(~kQueued);
      rq_head_ = (rq_head_ + 1) & ring_mask_;
      --rq_count_;
      continue;
    }
    const bool lost = (s.flags & kLost) != 0;
    if (lost && !cwnd_allows(s.len)) {
      ++stats_.blocked_cwnd;
      return false;
    }
    std::optional<std::uint16_t> ev;
    if (cfg_.quirks.retransmit_same_ev) {
      ev = s.ev;  // defect retransmit-same-ev
    } else {
      // W15 a retransmission goes out on a different GOOD EV than the last one it used;
      // with a single eligible EV it has to reuse it. Which other EV: the next in the rotation,
      // or a random one with the retx-any-other-ev variant.
      ev = selector_->quirks().retx_random_seed != 0 ? selector_->pick_other(now, s.ev, true)
                                                     : pick_ev(now, s.ev, true);
      if (!ev) ev = pick_ev(now, std::nullopt);
    }
    if (!ev) {
      ++stats_.blocked_no_ev;
      return false;
    }
    rq_head_ = (rq_head_ + 1) & ring_mask_;
    --rq_count_;
    s.flags &= static_cast<std::uint8_t>(~(kQueued | kLost | kHole));
    if (lost && !(s.flags & kSacked)) inflight_bytes_ += s.len;
    s.ev = *ev;
    s.send_ts = now;
    s.tx_seq = ++tx_seq_;
    timer_remove(psn);
    const auto lvl = static_cast<std::uint8_t>(schedule_.level(s.retries));
    timer_insert(psn, lvl, now + schedule_.wait_ns(s.retries));
    if (s.flags & kBlame) {
      // W11 the EV that timed out is reported once the PSN went out elsewhere.
      s.flags &= static_cast<std::uint8_t>(~kBlame);
      health_->on_timeout_resolved(s.blame_ev);
      health_->on_timeout(s.blame_ev, now);
    }
    ++stats_.retransmits;
    count_tx(s.len);
    build(s, psn, *ev, true, now, out);
    return true;
  }
  return false;
}

void Requester::build(const PsnSlot& s, std::uint32_t psn, std::uint16_t ev, bool retransmission,
                      std::uint64_t now, TxPacket& out) const {
  const WrSlot& w = sq_[s.wr];
  const bool first = (s.flags & kFirst) != 0;
  const bool last = (s.flags & kLast) != 0;
  out.qpn = cfg_.qpn;
  out.path.kind = TxPath::Kind::kQpEv;
  out.path.ev_index = ev;
  out.dscp = retransmission ? cfg_.retx_dscp : cfg_.data_dscp;  // W13 the Data class, as configured
  // MODEL: W13 data is sent ECT(0) (ECT(1) with the ect1 variant)
  out.ecn = cfg_.quirks.data_not_ect ? wire::kEcnNotEct : (cfg_.data_ect1 ? wire::kEcnEct1 : wire::kEcnEct0);
  out.bth = wire::Bth{};
  out.bth.opcode = data_opcode(first, last, w.imm);
  out.bth.dest_qp = cfg_.dest_qpn;
  out.bth.psn = psn;
  // MODEL: W3 A (an immediate SACK and, once cumulative, a Transport ACK) on the last packet of a
  // message (S1: W3, F10) and when this packet fills the window (B: UET NSCC.AckRequest): the
  // W12 PSN window, or the NSCC window with less than one more MTU of room, so a responder that
  // SACKs lazily does not leave the requester waiting on a window it could free.
  const bool cwnd_full = nscc_ && !nscc_->can_send(inflight_bytes_, cfg_.mtu);
  out.bth.ack_req = last || outstanding_ >= std::uint32_t{mpr_units_} * kMprUnitPsns || cwnd_full;
  out.bth.rtx = retransmission;  // W3: RTX on every retransmission
  out.bth.se = last && w.imm && (w.wr.send_flags & IBV_SEND_SOLICITED) != 0;
  out.has_meth = true;
  out.meth = w.meth;
  if (cfg_.quirks.msn_per_packet) out.meth.msn = static_cast<std::uint16_t>(psn_diff(psn, cfg_.sq_psn));  // defect
  out.has_tseth = cfg_.tseth;
  out.tseth = wire::Tseth{static_cast<std::uint16_t>(now / wire::kTimestampUnitNs), false,
                          wire::kFtypeTimestamp};
  // W4: every packet carries the VA of its own first byte, the message's R_Key and the whole
  // message's length (S1: W4).
  out.has_reth = !(!first && cfg_.quirks.no_reth_middle);  // defect no-reth-middle: FIRST/ONLY only
  out.reth.va = w.wr.remote_addr + s.offset;
  out.reth.rkey = w.wr.rkey;
  out.reth.dma_length = w.wr.length;
  if (last && cfg_.quirks.last_reth_len_mtu) {
    // defect last-reth-len-mtu: the LAST packet names the message rounded up to whole MTUs.
    out.reth.dma_length = w.npkts * cfg_.mtu;
  }
  out.has_immdt = last && w.imm;
  out.immdt = w.wr.imm_data;
  out.has_aeth = false;
  out.payload = w.payload.subspan(s.offset, s.len);
  out.corrupt_icrc = cfg_.quirks.wrong_icrc;  // defect wrong-icrc
}

void Requester::count_tx(std::uint32_t len) {
  ++stats_.data_packets;
  stats_.data_bytes += len;
}

}  // namespace mrc::transport
