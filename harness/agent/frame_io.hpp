// Raw Ethernet frames in and out of a backend, one port per plane. The agent uses libpcap ports
// (open_pcap_io); tests can join two backends with an in-memory implementation, so the reference
// backend's protocol logic is testable without privileges.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "harness/agentproto/messages.hpp"

namespace mrc::agent {

// "p<N>=<ifname>": plane/port N (1-based) is interface ifname.
struct IfaceBinding {
  std::uint8_t port = 1;
  std::string ifname;
};

class FrameIo {
 public:
  virtual ~FrameIo() = default;
  virtual std::vector<agentproto::PortInfo> ports() const = 0;
  // Sends one frame out of `port`. "" or why not.
  virtual std::string send(std::uint8_t port, std::span<const std::uint8_t> frame) = 0;
  // Hands every waiting frame (up to `max_per_port` per port) to `sink`; returns how many, or -1
  // when a port failed (error() says why).
  using Sink = void (*)(void* ctx, std::uint8_t port, std::span<const std::uint8_t> frame);
  virtual int receive(Sink sink, void* ctx, int max_per_port) = 0;
  virtual std::vector<int> fds() const = 0;
  virtual std::string error() const = 0;
};

// One libpcap port per binding (harness/testbed/wire/pcap_port.hpp). Null and *error on failure.
std::unique_ptr<FrameIo> open_pcap_io(const std::vector<IfaceBinding>& ifaces, std::string* error);

// Parses "p1=veth0,p2=veth1". Ports 1..32, each at most once. Empty result and *error on failure.
std::vector<IfaceBinding> parse_ifaces(const std::string& text, std::string* error);

}  // namespace mrc::agent
