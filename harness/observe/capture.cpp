#include "harness/observe/capture.hpp"

#include <sstream>

namespace mrc::harness {

std::string CaptureIntegrity::describe() const {
  std::ostringstream s;
  s << "offered " << offered << ", captured " << captured << ", tap dropped " << tap_dropped
    << ", truncated " << truncated << ", timestamps " << (ns_timestamps ? "ns" : "coarse");
  return s.str();
}

void Capture::reserve(std::size_t packets, std::size_t bytes) {
  packets_.reserve(packets);
  arena_.reserve(bytes);
}

void Capture::add(std::uint64_t ts_ns, std::span<const std::uint8_t> bytes, std::uint32_t origlen) {
  CapturedPacket p;
  p.ts_ns = ts_ns;
  p.offset = static_cast<std::uint32_t>(arena_.size());
  p.caplen = static_cast<std::uint32_t>(bytes.size());
  p.origlen = origlen != 0 ? origlen : p.caplen;
  arena_.insert(arena_.end(), bytes.begin(), bytes.end());
  packets_.push_back(p);
  ++integrity_.captured;
  if (p.origlen > p.caplen) ++integrity_.truncated;
}

void Capture::clear() {
  arena_.clear();
  packets_.clear();
  integrity_ = {};
}

}  // namespace mrc::harness
