// Internal to harness/observe: the thread-safe stack of reusable objects behind the capture pool
// (capture_pool.cpp) and the chunk pool (capture_chunks.cpp).
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace mrc::harness {

template <typename T>
class FreeList {
 public:
  // The most recently pushed object, or nothing.
  std::optional<T> pop() {
    std::lock_guard<std::mutex> lock(m_);
    if (items_.empty()) return std::nullopt;
    std::optional<T> out(std::move(items_.back()));
    items_.pop_back();
    return out;
  }
  // Keeps `v` (moved from) while fewer than `max` wait; otherwise leaves it to the caller, who
  // frees it outside the lock.
  void push(T& v, std::size_t max) {
    std::lock_guard<std::mutex> lock(m_);
    if (items_.size() < max) items_.push_back(std::move(v));
  }
  std::size_t size() {
    std::lock_guard<std::mutex> lock(m_);
    return items_.size();
  }

  // The process's one list of T, never destroyed: a detached case thread may still hand one back
  // while the process exits.
  static FreeList& process_wide() {
    static FreeList* l = new FreeList;
    return *l;
  }

 private:
  std::mutex m_;
  std::vector<T> items_;
};

}  // namespace mrc::harness
