// Private pieces of the Endpoint shared by its .cpp files (not part of the public API).
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "reference/endpoint.hpp"

namespace mrc::ref {

// The refresh probes' period (the probe-anytime and probe-loss variants). W9 leaves a probe's
// rate and schedule to the implementation; one every 5 us is several per fabric round trip of the
// built-in testbeds, so every case sees probes between its data packets. They stop 100 us after
// the QP's last data packet: a QP waiting out seconds of retry backoff is not probed all along.
inline constexpr std::uint64_t kRefreshProbeNs = 5'000;
inline constexpr std::uint64_t kRefreshQuietNs = 100'000;

struct Endpoint::Qp {
  std::uint32_t qpn = 0;
  transport::QpState state = transport::QpState::kReset;
  transport::QpInitAttr init;
  transport::QpAttr attr;
  bool ev_attached = false;
  bool cc_attached = false;
  ev::ProfileId ev_profile = 0;
  ev::ProfileId cc_profile = 0;
  wire::EvFmtMode fmt = wire::EvFmtMode::kStev;  // AUTO profiles spray on UDP source ports
  std::uint64_t ev_generation = 0;
  std::optional<cc::NsccConfig> nscc;  // set at INIT when the CC profile runs NSCC
  // EndpointConfig::probe_timeout_ns, raised to two base RTTs when the path is longer than that
  // (a probe timed out before its answer can return fails every time: a real-time bridge adds
  // tens of microseconds), and per probe to two measured round trips (send_health_probes). The
  // reference's W11 timing fixes the probe interval, not this timeout.
  std::uint64_t probe_timeout_ns = 0;
  std::unique_ptr<transport::Requester> req;
  std::unique_ptr<transport::Responder> rsp;
  std::vector<std::uint64_t> tx_per_ev;
  // EV indices by 1-based port (for feedback leaving on the port its trigger arrived on) and a
  // round-robin cursor per port; rebuilt when the profile's array changes.
  std::vector<std::vector<std::uint16_t>> evs_by_port;
  std::vector<std::uint32_t> port_cursor;
  std::uint32_t any_cursor = 0;
  std::vector<std::uint64_t> early_recv;  // receives posted in INIT, handed to the responder at RTR
  std::uint16_t next_probe_id = 1;        // W9 probe_id of this QP's next reliability probe
  // The probe-anytime variant: when the next refresh probe is due (UINT64_MAX while nothing is
  // outstanding) and the EV it takes.
  std::uint64_t refresh_probe_at = UINT64_MAX;
  std::uint16_t refresh_cursor = 0;
  // The probe-loss variant: the refresh probes still unanswered (their id, EV and send time), the
  // oldest overwritten first; an answer not found here is no evidence.
  struct RefreshProbe {
    std::uint16_t probe_id = 0;
    std::uint16_t ev = 0;
    std::uint64_t sent_ns = 0;
    bool live = false;
  };
  std::array<RefreshProbe, 16> refresh_sent{};
  std::uint8_t refresh_next = 0;
  // ... and the copy of the oldest unacknowledged PSN it last probed for (PSN, EV): one probe per
  // copy, so a path that has failed is not probed on top of its health schedule (W11).
  std::uint32_t refresh_psn = UINT32_MAX;
  std::uint16_t refresh_psn_ev = 0;
  std::uint64_t last_data_tx_ns = 0;  // when this QP last sent a data packet
};

struct Endpoint::EpPending {
  std::uint16_t req_id = 0;
  wire::EpOp op = wire::EpOp::kEvProbe;
  std::uint64_t deadline = 0;
};

// A reliability probe (W9) of an ASSUMED_BAD EV of a QP, waiting for its pr = 1 SACK.
struct Endpoint::HealthProbe {
  std::uint32_t qpn = 0;
  std::uint16_t probe_id = 0;
  std::uint16_t ev = 0;
  std::uint64_t deadline = 0;
};

// FIFO of control packets (feedback, EP requests and responses) waiting for poll_frame.
struct Endpoint::ControlQueue {
  explicit ControlQueue(std::size_t depth) : buf(depth == 0 ? 1 : depth) {}
  std::vector<transport::TxPacket> buf;
  std::size_t head = 0;
  std::size_t size = 0;
  bool push(const transport::TxPacket& p) {
    if (size == buf.size()) return false;
    buf[(head + size) % buf.size()] = p;
    ++size;
    return true;
  }
  transport::TxPacket& front() { return buf[head]; }
  void pop() {
    head = (head + 1) % buf.size();
    --size;
  }
};

// Feedback from a responder goes into the control queue, steered to the arrival port.
class Endpoint::Sink final : public transport::FeedbackSink {
 public:
  explicit Sink(Endpoint& ep) : ep_(ep) {}
  void send_feedback(const transport::TxPacket& pkt, const transport::FeedbackEgress& egress) override;

 private:
  Endpoint& ep_;
};

}  // namespace mrc::ref
