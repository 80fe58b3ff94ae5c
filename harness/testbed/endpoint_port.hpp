// A reference endpoint as a testbed host: the FramePort calls forwarded to the sans-I/O
// ref::Endpoint. The simulator's own endpoints (make_endpoint, for its tests and benchmarks) and
// the reference DUT binding both reach the fabric through this adapter, so the fabric's host code
// only knows FramePort.
#pragma once

#include "harness/testbed/frame_port.hpp"
#include "reference/endpoint.hpp"

namespace mrc::harness {

class EndpointPort final : public FramePort {
 public:
  explicit EndpointPort(ref::Endpoint& ep) : ep_(ep) {}

  void on_frame(std::uint8_t port, std::span<const std::uint8_t> frame, std::uint64_t now_ns) override {
    ep_.on_frame(port, wire::Bytes(frame.data(), frame.size()), now_ns);
  }
  void advance(std::uint64_t now_ns) override { ep_.advance(now_ns); }
  bool poll_frame(transport::TxFrame& out) override { return ep_.poll_frame(out); }
  std::uint64_t next_deadline() const override { return ep_.next_deadline(); }
  int set_port_up(std::uint8_t port, bool up) override { return ep_.modify_port(port, up); }

  ref::Endpoint& endpoint() { return ep_; }

 private:
  ref::Endpoint& ep_;
};

}  // namespace mrc::harness
