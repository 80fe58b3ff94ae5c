// Binary heap with explicit sift-up / sift-down (event_queue.hpp).
#include "harness/testbed/sim/event_queue.hpp"

namespace mrc::sim {

void EventQueue::push(std::uint64_t t, EventKind kind, std::uint32_t a, std::uint32_t b) {
  Event e;
  e.t = t;
  e.seq = seq_++;
  e.a = a;
  e.b = b;
  e.kind = kind;
  std::size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

Event EventQueue::pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  std::size_t i = 0;
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(heap_[c + 1], heap_[c])) ++c;
    if (!before(heap_[c], last)) break;
    heap_[i] = heap_[c];
    i = c;
  }
  heap_[i] = last;
  return top;
}

}  // namespace mrc::sim
