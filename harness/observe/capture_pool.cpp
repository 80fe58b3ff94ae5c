#include "harness/observe/capture_pool.hpp"

#include <mutex>
#include <utility>
#include <vector>

namespace mrc::harness::capture_pool {
namespace {

struct Pool {
  std::mutex m;
  std::vector<Capture> kept;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: a detached case thread may still hand one back
  return *p;
}

}  // namespace

Capture take() {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.m);
    if (!p.kept.empty()) {
      Capture c = std::move(p.kept.back());
      p.kept.pop_back();
      return c;
    }
  }
  return Capture();
}

void recycle(Capture&& c) {
  Capture mine = std::move(c);
  c = Capture();
  if (mine.stored_bytes() > kMaxKeptBytes) return;  // freed here, outside the lock
  mine.clear();
  mine.set_tap("");
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.m);
  if (p.kept.size() < kMaxKept) p.kept.push_back(std::move(mine));
}

std::size_t kept() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.m);
  return p.kept.size();
}

}  // namespace mrc::harness::capture_pool
