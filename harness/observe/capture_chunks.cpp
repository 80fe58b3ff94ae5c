#include "harness/observe/capture_chunks.hpp"

#include <mutex>
#include <utility>
#include <vector>

namespace mrc::harness::capture_chunks {
namespace {

struct Pool {
  std::mutex m;
  std::vector<Bytes> free;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: a detached case thread may still hand one back
  return *p;
}

}  // namespace

Bytes take(std::size_t bytes) {
  if (bytes == kChunkBytes) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.m);
    if (!p.free.empty()) {
      Bytes b = std::move(p.free.back());
      p.free.pop_back();
      return b;
    }
  }
  return Bytes(new std::uint8_t[bytes]);  // default-initialised: no zeroing pass over it
}

void recycle(Bytes b, std::size_t bytes) {
  if (!b || bytes != kChunkBytes) return;  // freed here
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.m);
    if (p.free.size() < kMaxFree) {
      p.free.push_back(std::move(b));
      return;
    }
  }
}

std::size_t free_count() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.m);
  return p.free.size();
}

}  // namespace mrc::harness::capture_chunks
