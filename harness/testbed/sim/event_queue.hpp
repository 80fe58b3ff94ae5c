// The simulator's event queue: a binary min-heap on (time, sequence number). The sequence number
// is taken when an event is scheduled, so events due at the same nanosecond run in the order they
// were scheduled: a deterministic tie-break that does not depend on heap layout. The heap's
// vector keeps its capacity, so scheduling allocates only while the queue grows past its largest
// size so far.
#pragma once

#include <cstdint>
#include <vector>

namespace mrc::sim {

enum class EventKind : std::uint8_t {
  kArrive,     // a = direction, b = packet: the packet's last bit reaches the far node
  kTxDone,     // a = direction: the transmitter finished a frame and may start the next
  kHostTimer,  // a = host: the endpoint's next_deadline()
  kFault,      // a = fault index
  kInject,     // a = direction (host -> leaf), b = packet: enters the host's NIC queue
  kDeliver,    // a = direction (leaf -> host), b = packet: handed straight to the host
};

struct Event {
  std::uint64_t t = 0;
  std::uint64_t seq = 0;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  EventKind kind = EventKind::kArrive;
};

class EventQueue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  std::uint64_t next_time() const { return heap_.empty() ? UINT64_MAX : heap_.front().t; }
  std::uint64_t scheduled() const { return seq_; }

  void push(std::uint64_t t, EventKind kind, std::uint32_t a, std::uint32_t b = 0);
  Event pop();  // precondition: !empty()

 private:
  static bool before(const Event& x, const Event& y) { return x.t != y.t ? x.t < y.t : x.seq < y.seq; }
  std::vector<Event> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace mrc::sim
