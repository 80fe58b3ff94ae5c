#include "harness/observe/capture_chunks.hpp"

#include <optional>
#include <utility>

#include "harness/observe/free_list.hpp"

namespace mrc::harness::capture_chunks {
namespace {

FreeList<Bytes>& pool() { return FreeList<Bytes>::process_wide(); }

}  // namespace

Bytes take(std::size_t bytes) {
  if (bytes == kChunkBytes) {
    if (std::optional<Bytes> b = pool().pop()) return std::move(*b);
  }
  return Bytes(new std::uint8_t[bytes]);  // default-initialised: no zeroing pass over it
}

void recycle(Bytes b, std::size_t bytes) {
  if (!b || bytes != kChunkBytes) return;  // freed here
  pool().push(b, kMaxFree);                 // freed here when the pool is full
}

std::size_t free_count() { return pool().size(); }

}  // namespace mrc::harness::capture_chunks
