// Batched transmission on one interface: an AF_PACKET socket with a memory-mapped transmit ring
// (PACKET_TX_RING, TPACKET_V2). queue() copies a frame into the next free slot of the ring, which
// the kernel shares with us, and flush() hands every queued frame to the kernel with one send():
// one system call per batch instead of one per frame. On a virtual machine where every system
// call costs microseconds (measured by bench/bridge_bench.cpp), that is most of what a frame costs.
//
// TPACKET_V2 rather than V3 for transmission: V3's variable-size blocks are a receive-side
// feature (its transmit ring takes the same fixed-size slots), and V2 transmission is in every
// kernel the suite supports. Reception already runs through libpcap's memory-mapped receive ring.
// AF_XDP was not taken: it needs an XDP program loaded on the interface (libbpf/libxdp, a new
// dependency that would have to earn its place), and on veth, the interfaces the suite's own
// namespaces use, it runs in copy mode, so the copy this ring makes is not saved there either.
//
// A slot is free again when the kernel has released the frame's buffer, which for some drivers
// happens after send() returns: queue() never waits for that. When the next slot is still in
// flight it flushes, and if the slot is still busy it sends that frame with an ordinary send()
// after the queued ones, so a frame is never dropped and frames leave in the order given.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace mrc::harness::wire {

struct TxRingFigures {
  std::uint64_t frames = 0;       // handed to the kernel
  std::uint64_t flushes = 0;      // send() calls that carried queued frames
  std::uint64_t slot_busy = 0;    // frames sent past the ring because their slot was in flight
  std::uint64_t rejected = 0;     // frames refused by queue() for not fitting a slot
};

class TxRing {
 public:
  // `frames` slots of `frame_bytes` each (rounded up to the kernel's alignment). nullptr and
  // `error` when the interface or the kernel does not allow it.
  static std::unique_ptr<TxRing> open(const std::string& ifname, int frames, std::size_t frame_bytes,
                                      std::string* error);
  ~TxRing();
  TxRing(const TxRing&) = delete;
  TxRing& operator=(const TxRing&) = delete;

  // Queues one frame (sent at the next flush()). "" or why not.
  std::string queue(std::span<const std::uint8_t> frame);
  // Sends every queued frame. "" or why not.
  std::string flush();
  std::size_t pending() const { return pending_; }
  const TxRingFigures& figures() const { return fig_; }

 private:
  TxRing() = default;
  std::uint8_t* slot(std::size_t i) const { return ring_ + i * slot_bytes_; }
  std::string send_now(std::span<const std::uint8_t> frame);

  std::string name_;
  int fd_ = -1;
  int ifindex_ = 0;
  std::uint8_t* ring_ = nullptr;
  std::size_t ring_bytes_ = 0;
  std::size_t slot_bytes_ = 0;
  std::size_t slots_ = 0;
  std::size_t data_offset_ = 0;  // where a frame's bytes start in its slot
  std::size_t head_ = 0;         // the next slot queue() fills
  std::size_t pending_ = 0;      // queued since the last flush
  TxRingFigures fig_;
};

}  // namespace mrc::harness::wire
