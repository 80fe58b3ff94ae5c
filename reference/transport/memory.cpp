#include "reference/transport/memory.hpp"

#include <algorithm>
#include <cstring>

namespace mrc::transport {

std::string_view to_string(MemStatus s) {
  switch (s) {
    case MemStatus::kOk: return "ok";
    case MemStatus::kBadKey: return "bad key";
    case MemStatus::kOutOfBounds: return "out of bounds";
    case MemStatus::kNoAccess: return "access not permitted";
    case MemStatus::kBadArgument: return "bad argument";
    case MemStatus::kTableFull: return "memory table full";
  }
  return "unknown";
}

MemoryTable::MemoryTable(const MemoryTableConfig& cfg)
    : cfg_(cfg), slots_(std::max<std::size_t>(cfg.max_regions, 1)), next_va_(cfg.va_base) {}

const MemoryTable::Slot* MemoryTable::slot_for(std::uint32_t key) const {
  const std::uint32_t index = key >> 8;
  if (index == 0 || index > slots_.size()) return nullptr;
  const Slot& s = slots_[index - 1];
  if (!s.live) return nullptr;
  if (s.generation != static_cast<std::uint8_t>(key & 0xFF) && !ignore_key_byte_) return nullptr;
  return &s;
}

MemoryTable::Slot* MemoryTable::slot_for(std::uint32_t key) {
  return const_cast<Slot*>(static_cast<const MemoryTable*>(this)->slot_for(key));
}

MemoryTable::RegisterResult MemoryTable::register_region(std::size_t length, int access,
                                                         std::optional<std::uint64_t> va) {
  RegisterResult r;
  const bool remote_write = (access & IBV_ACCESS_REMOTE_WRITE) != 0;
  const bool local_write = (access & IBV_ACCESS_LOCAL_WRITE) != 0;
  if (length == 0 || (access & ~kKnownAccess) != 0 || (remote_write && !local_write)) {
    r.status = MemStatus::kBadArgument;
    return r;
  }
  std::uint64_t addr = va ? *va : next_va_;
  if (addr + length < addr) {  // the range would wrap past 2^64
    r.status = MemStatus::kBadArgument;
    return r;
  }
  auto free_slot = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.live; });
  if (free_slot == slots_.end()) {
    r.status = MemStatus::kTableFull;
    return r;
  }
  // Undefined bytes, zeroed page by page on first access (Slot; malloc(0) may return null: length
  // 0 was refused above).
  std::unique_ptr<std::uint8_t, void (*)(void*)> bytes(static_cast<std::uint8_t*>(std::malloc(length)), &std::free);
  if (!bytes) {
    r.status = MemStatus::kBadArgument;  // more than the host can hold
    return r;
  }
  const auto index = static_cast<std::uint32_t>(free_slot - slots_.begin()) + 1;
  Slot& s = *free_slot;
  s.live = true;
  s.generation = static_cast<std::uint8_t>(s.generation + 1);
  s.bytes = std::move(bytes);
  s.zeroed.assign((length + kPage - 1) / kPage / 64 + 1, 0);
  const std::uint32_t key = (index << 8) | s.generation;
  s.mr = MemoryRegion{addr, length, key, key, access};
  ++live_;
  if (!va) {
    // Next region starts on the page after a one-page guard gap, so auto-assigned regions never
    // touch and an off-by-one VA lands in no region.
    const std::uint64_t end = addr + length;
    next_va_ = ((end + kPage - 1) / kPage) * kPage + kPage;
  }
  r.mr = s.mr;
  return r;
}

MemStatus MemoryTable::deregister(std::uint32_t lkey) {
  Slot* s = slot_for(lkey);
  if (s == nullptr) return MemStatus::kBadKey;
  s->live = false;
  s->bytes.reset();
  s->zeroed.clear();
  --live_;
  return MemStatus::kOk;
}

void MemoryTable::define(const Slot& s, std::size_t off, std::size_t len) {
  if (len == 0) return;
  const std::size_t last = (off + len - 1) / kPage;
  for (std::size_t p = off / kPage; p <= last; ++p) {
    std::uint64_t& word = s.zeroed[p / 64];
    const std::uint64_t bit = std::uint64_t{1} << (p % 64);
    if (word & bit) continue;
    const std::size_t begin = p * kPage;
    std::memset(s.bytes.get() + begin, 0, std::min<std::size_t>(kPage, s.mr.length - begin));
    word |= bit;
  }
}

void MemoryTable::define_for_overwrite(const Slot& s, std::size_t off, std::size_t len) {
  if (len == 0) return;
  const std::size_t end = off + len;
  const std::size_t first = off / kPage;
  const std::size_t last = (end - 1) / kPage;
  // The end pages are covered whole when the range starts on a page boundary, and ends on one or
  // at the region's end.
  if (off % kPage != 0) define(s, off, 1);
  if (end % kPage != 0 && end != s.mr.length) define(s, end - 1, 1);
  for (std::size_t p = first; p <= last; ++p) s.zeroed[p / 64] |= std::uint64_t{1} << (p % 64);
}

MemStatus MemoryTable::range_ok(const Slot& s, std::uint64_t va, std::size_t len) {
  const std::uint64_t begin = s.mr.addr;
  const std::uint64_t end = begin + s.mr.length;
  if (va < begin || va > end) return MemStatus::kOutOfBounds;
  if (len > end - va) return MemStatus::kOutOfBounds;
  return MemStatus::kOk;
}

MemStatus MemoryTable::check_remote_write(std::uint32_t rkey, std::uint64_t va,
                                          std::size_t len) const {
  if (len == 0) return MemStatus::kOk;
  const Slot* s = slot_for(rkey);
  if (s == nullptr) return MemStatus::kBadKey;
  if ((s->mr.access & IBV_ACCESS_REMOTE_WRITE) == 0) return MemStatus::kNoAccess;
  return range_ok(*s, va, len);
}

MemStatus MemoryTable::remote_write(std::uint32_t rkey, std::uint64_t va, wire::Bytes data) {
  const MemStatus st = check_remote_write(rkey, va, data.size());
  if (st != MemStatus::kOk || data.empty()) return st;
  Slot* s = slot_for(rkey);
  const std::size_t off = va - s->mr.addr;
  define_for_overwrite(*s, off, data.size());
  std::memcpy(s->bytes.get() + off, data.data(), data.size());
  return MemStatus::kOk;
}

MemStatus MemoryTable::local_access(std::uint32_t lkey, std::uint64_t va, std::size_t len, bool overwrite,
                                    wire::MutBytes& out) const {
  const Slot* s = slot_for(lkey);
  if (s == nullptr) return MemStatus::kBadKey;
  const MemStatus st = range_ok(*s, va, len);
  if (st != MemStatus::kOk) return st;
  const std::size_t off = va - s->mr.addr;
  if (overwrite) {
    define_for_overwrite(*s, off, len);
  } else {
    define(*s, off, len);  // a first read sees zeros (Slot)
  }
  out = wire::MutBytes(s->bytes.get() + off, len);
  return MemStatus::kOk;
}

MemStatus MemoryTable::local_view(std::uint32_t lkey, std::uint64_t va, std::size_t len,
                                  wire::Bytes& out) const {
  wire::MutBytes m;
  const MemStatus st = local_access(lkey, va, len, false, m);
  out = m;
  return st;
}

MemStatus MemoryTable::local_mut(std::uint32_t lkey, std::uint64_t va, std::size_t len,
                                 wire::MutBytes& out) {
  return local_access(lkey, va, len, false, out);
}

MemStatus MemoryTable::local_overwrite(std::uint32_t lkey, std::uint64_t va, std::size_t len,
                                       wire::MutBytes& out) {
  return local_access(lkey, va, len, true, out);
}

const MemoryRegion* MemoryTable::find(std::uint32_t key) const {
  const Slot* s = slot_for(key);
  return s ? &s->mr : nullptr;
}

}  // namespace mrc::transport
