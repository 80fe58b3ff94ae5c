// Responder: frames too broken to name their QP (split from responder.cpp, which holds the rules
// for frames that decode).
#include "reference/transport/responder.hpp"

namespace mrc::transport {

void Responder::on_truncated(std::uint8_t port, std::uint64_t now, FeedbackSink& sink) {
  ++stats_.truncated;
  // A frame cut inside its headers carries no trustworthy PSN or address: drop it, place nothing,
  // answer nothing (IBA malformed-packet rule; even a TRIMMED NACK needs a whole BTH and METH).
  if (!quirks_.accept_truncated || error_) return;
  // Quirk: the responder takes it for one of its own packets and re-acknowledges what it holds.
  FeedbackTrigger t;
  t.valid = true;
  t.psn = window_.cumulative_ack_psn();
  t.port = port;
  t.arrival_ns = now;
  send_ack(wire::syndrome::kAck, t.psn, t, sink);
  send_sack(t, now, sink);
}

}  // namespace mrc::transport
