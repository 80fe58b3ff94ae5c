// A FIFO with a capacity fixed at construction: storage is allocated once, push/pop never
// allocate. Used for receive queues and completion queues on the per-packet path.
#pragma once

#include <cstddef>
#include <vector>

namespace mrc::transport {

template <typename T>
class BoundedRing {
 public:
  explicit BoundedRing(std::size_t capacity) : buf_(capacity == 0 ? 1 : capacity) {}

  std::size_t capacity() const { return buf_.size(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == buf_.size(); }

  // False (and nothing stored) when full.
  bool push(const T& v) {
    if (full()) return false;
    buf_[(head_ + size_) % buf_.size()] = v;
    ++size_;
    return true;
  }
  // False when empty.
  bool pop(T& out) {
    if (empty()) return false;
    out = buf_[head_];
    head_ = (head_ + 1) % buf_.size();
    --size_;
    return true;
  }
  const T& front() const { return buf_[head_]; }
  void clear() { head_ = size_ = 0; }

 private:
  std::vector<T> buf_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace mrc::transport
