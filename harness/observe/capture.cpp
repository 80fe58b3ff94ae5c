#include "harness/observe/capture.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace mrc::harness {

std::string CaptureIntegrity::describe() const {
  std::ostringstream s;
  s << "offered " << offered << ", captured " << captured << ", tap dropped " << tap_dropped
    << ", truncated " << truncated << ", timestamps " << (ns_timestamps ? "ns" : "coarse");
  return s.str();
}

Capture::Capture(const Capture& o) : tap_(o.tap_) {
  reserve(o.size(), o.stored_);
  for (std::size_t i = 0; i < o.size(); ++i) add(o.packets_[i].ts_ns, o.bytes(i), o.packets_[i].origlen);
  integrity_ = o.integrity_;
}

Capture::Capture(Capture&& o) noexcept
    : tap_(std::move(o.tap_)),
      chunks_(std::move(o.chunks_)),
      cur_(o.cur_),
      stored_(o.stored_),
      packets_(std::move(o.packets_)),
      integrity_(o.integrity_) {
  o.chunks_.clear();
  o.packets_.clear();
  o.cur_ = 0;
  o.stored_ = 0;
  o.integrity_ = {};
}

Capture& Capture::operator=(const Capture& o) {
  if (this != &o) *this = Capture(o);
  return *this;
}

Capture& Capture::operator=(Capture&& o) noexcept {
  if (this == &o) return *this;
  release_chunks();
  tap_ = std::move(o.tap_);
  chunks_ = std::move(o.chunks_);
  cur_ = o.cur_;
  stored_ = o.stored_;
  packets_ = std::move(o.packets_);
  integrity_ = o.integrity_;
  o.chunks_.clear();
  o.packets_.clear();
  o.cur_ = 0;
  o.stored_ = 0;
  o.integrity_ = {};
  return *this;
}

Capture::~Capture() { release_chunks(); }

void Capture::release_chunks() {
  for (Chunk& c : chunks_) capture_chunks::recycle(std::move(c.data), c.capacity);
  chunks_.clear();
  cur_ = 0;
}

Capture::Chunk& Capture::room_for(std::size_t bytes) {
  while (cur_ < chunks_.size()) {
    Chunk& c = chunks_[cur_];
    if (c.capacity - c.used >= bytes) return c;
    if (cur_ + 1 == chunks_.size()) break;
    ++cur_;
    chunks_[cur_].base = stored_;
  }
  // A packet never straddles chunks: one larger than a chunk gets a chunk of its own size.
  const std::size_t cap = std::max(bytes, capture_chunks::kChunkBytes);
  chunks_.push_back(Chunk{capture_chunks::take(cap), cap, 0, stored_});
  cur_ = chunks_.size() - 1;
  return chunks_.back();
}

void Capture::reserve(std::size_t packets, std::size_t bytes) {
  packets_.reserve(packets);
  std::size_t room = 0;
  for (std::size_t i = cur_; i < chunks_.size(); ++i) room += chunks_[i].capacity - chunks_[i].used;
  while (room < bytes) {
    chunks_.push_back(Chunk{capture_chunks::take(capture_chunks::kChunkBytes), capture_chunks::kChunkBytes, 0, stored_});
    room += capture_chunks::kChunkBytes;
  }
}

void Capture::add(std::uint64_t ts_ns, std::span<const std::uint8_t> bytes, std::uint32_t origlen,
                  PortTime port) {
  Chunk& c = room_for(bytes.size());
  CapturedPacket p;
  p.ts_ns = ts_ns;
  p.offset = static_cast<std::uint32_t>(stored_);
  p.caplen = static_cast<std::uint32_t>(bytes.size());
  p.origlen = origlen != 0 ? origlen : p.caplen;
  p.chunk = static_cast<std::uint32_t>(cur_);
  p.port = port;
  if (!bytes.empty()) std::memcpy(c.data.get() + c.used, bytes.data(), bytes.size());
  c.used += bytes.size();
  stored_ += bytes.size();
  packets_.push_back(p);
  ++integrity_.captured;
  if (p.origlen > p.caplen) ++integrity_.truncated;
}

void Capture::clear() {
  release_chunks();
  stored_ = 0;
  packets_.clear();
  integrity_ = {};
}

}  // namespace mrc::harness
