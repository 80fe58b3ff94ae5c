#include "harness/observe/capture_pool.hpp"

#include <optional>
#include <utility>

#include "harness/observe/free_list.hpp"

namespace mrc::harness::capture_pool {
namespace {

FreeList<Capture>& pool() { return FreeList<Capture>::process_wide(); }

}  // namespace

Capture take() {
  if (std::optional<Capture> c = pool().pop()) return std::move(*c);
  return Capture();
}

void recycle(Capture&& c) {
  Capture mine = std::move(c);
  c = Capture();
  if (mine.stored_bytes() > kMaxKeptBytes) return;  // freed here, outside the lock
  mine.clear();
  mine.set_tap("");
  pool().push(mine, kMaxKept);  // freed here, outside the lock, when the pool is full
}

std::size_t kept() { return pool().size(); }

}  // namespace mrc::harness::capture_pool
