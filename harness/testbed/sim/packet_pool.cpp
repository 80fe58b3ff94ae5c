// Packet pool and FIFO (packet_pool.hpp).
#include "harness/testbed/sim/packet_pool.hpp"

#include <algorithm>
#include <new>
#include <type_traits>

namespace mrc::sim {

PacketId PacketPool::alloc() {
  if (free_.empty()) {
    if (meta_.size() >= max_) return kNone;
    // Grow by one chunk: buffers are never moved, so frames stay where endpoints wrote them.
    const std::size_t first = meta_.size();
    const std::size_t n = std::min<std::size_t>(kChunk, max_ - first);
    static_assert(std::is_trivially_copyable_v<transport::TxFrame> &&
                  std::is_trivially_destructible_v<transport::TxFrame>);
    auto* chunk = static_cast<transport::TxFrame*>(std::calloc(kChunk, sizeof(transport::TxFrame)));
    if (chunk == nullptr) throw std::bad_alloc();
    chunks_.emplace_back(chunk);
    meta_.resize(first + n);
    free_.reserve(meta_.size());
    for (std::size_t i = first + n; i-- > first;) free_.push_back(static_cast<PacketId>(i));
  }
  const PacketId id = free_.back();
  free_.pop_back();
  meta_[id] = PacketMeta{};
  high_water_ = std::max(high_water_, in_use());
  return id;
}

void PacketFifo::push(PacketPool& pool, PacketId id) {
  PacketMeta& m = pool.meta(id);
  m.next = kNone;
  if (tail == kNone) {
    head = id;
  } else {
    pool.meta(tail).next = id;
  }
  tail = id;
  ++count;
  bytes += m.len;
}

PacketId PacketFifo::pop(PacketPool& pool) {
  const PacketId id = head;
  if (id == kNone) return kNone;
  PacketMeta& m = pool.meta(id);
  head = m.next;
  if (head == kNone) tail = kNone;
  m.next = kNone;
  --count;
  bytes -= m.len;
  return id;
}

}  // namespace mrc::sim
