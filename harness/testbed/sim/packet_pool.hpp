// Packet buffers for the simulator: fixed-size frames (transport::TxFrame, so an endpoint's
// poll_frame writes straight into one) handed out by index from a free list. The pool grows in
// chunks up to a bound and never shrinks, so a run allocates only while it warms up; in steady
// state every packet reuses a buffer. Per-packet metadata (the frame's offset and length inside
// its buffer, the intrusive FIFO link, the link epoch it left on) sits beside the buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "harness/observe/port_time.hpp"
#include "harness/testbed/sim/topology.hpp"
#include "reference/transport/qp_types.hpp"

namespace mrc::sim {

using PacketId = std::uint32_t;

struct PacketMeta {
  PacketId next = kNone;    // FIFO link while queued
  std::uint16_t off = 0;    // frame start inside the buffer (moves forward on decapsulation)
  std::uint16_t len = 0;
  std::uint32_t epoch = 0;  // link-direction epoch when it went onto the wire
  harness::PortTime port;  // when it crossed a bridged host's interface (FramePort::port_time)
};

class PacketPool {
 public:
  static constexpr std::uint32_t kChunk = 512;
  static constexpr std::size_t kBufferBytes = wire::kMaxFrameLen;

  explicit PacketPool(std::uint32_t max_packets) : max_(max_packets) {}

  PacketId alloc();  // kNone when the bound is reached
  void free(PacketId id) { free_.push_back(id); }

  transport::TxFrame& frame(PacketId id) { return chunks_[id / kChunk][id % kChunk]; }
  PacketMeta& meta(PacketId id) { return meta_[id]; }
  const PacketMeta& meta(PacketId id) const { return meta_[id]; }
  std::uint8_t* buffer(PacketId id) { return frame(id).bytes.data(); }
  std::uint8_t* data(PacketId id) { return buffer(id) + meta_[id].off; }

  std::size_t buffers() const { return meta_.size(); }     // allocated so far
  std::size_t in_use() const { return meta_.size() - free_.size(); }
  std::size_t high_water() const { return high_water_; }
  std::size_t bytes_reserved() const { return chunks_.size() * kChunk * sizeof(transport::TxFrame); }

 private:
  std::uint32_t max_;
  // calloc'd chunks (zero bytes are a default TxFrame, which is trivially destructible): a chunk
  // is 512 buffers, 4.7 MB, of which a run touches the few it uses. Value-initialising it wrote
  // all of it, faulting every page in, on the first packet of every simulation.
  struct FreeChunk {
    void operator()(transport::TxFrame* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<transport::TxFrame[], FreeChunk>> chunks_;
  std::vector<PacketMeta> meta_;
  std::vector<PacketId> free_;
  std::size_t high_water_ = 0;
};

// An intrusive FIFO of packets threaded through PacketMeta::next.
struct PacketFifo {
  PacketId head = kNone;
  PacketId tail = kNone;
  std::uint32_t count = 0;
  std::uint64_t bytes = 0;

  bool empty() const { return head == kNone; }
  void push(PacketPool& pool, PacketId id);
  PacketId pop(PacketPool& pool);
};

}  // namespace mrc::sim
