// A fixed-capacity open-addressing map from 64-bit keys to 32-bit values, for per-PSN state in
// checks: sized once for the trace, so lookups and inserts allocate nothing per packet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mrc::harness {

class FlatIndex {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  // Room for at least `max_keys` keys (load factor <= 1/2).
  explicit FlatIndex(std::size_t max_keys) {
    std::size_t cap = 16;
    while (cap < 2 * max_keys + 2) cap *= 2;
    keys_.assign(cap, kEmpty);
    vals_.assign(cap, kNone);
    mask_ = cap - 1;
  }

  std::uint32_t get(std::uint64_t key) const {
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return vals_[i];
      if (keys_[i] == kEmpty) return kNone;
    }
  }

  // The value slot for `key`, inserted with kNone when new. Returns nullptr when full (the
  // caller sized it for the trace, so this means a bug, and the check reports ERROR).
  std::uint32_t* find_or_insert(std::uint64_t key) {
    if (key == kEmpty) key = kEmptyAlias;
    for (std::size_t i = slot(key), probes = 0; probes <= mask_; i = (i + 1) & mask_, ++probes) {
      if (keys_[i] == key) return &vals_[i];
      if (keys_[i] == kEmpty) {
        if (size_ * 2 >= keys_.size()) return nullptr;
        keys_[i] = key;
        ++size_;
        return &vals_[i];
      }
    }
    return nullptr;
  }

  std::size_t size() const { return size_; }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static constexpr std::uint64_t kEmptyAlias = ~std::uint64_t{0} - 1;  // keys never reach it (PSN keys < 2^56)

  std::size_t slot(std::uint64_t key) const {
    std::uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h ^ (h >> 32)) & mask_;
  }

  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> vals_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

// The key of a PSN in one QP's space.
inline std::uint64_t psn_key(std::uint32_t dqpn, std::uint32_t psn) {
  return (std::uint64_t{dqpn & 0xFFFFFF} << 24) | (psn & 0xFFFFFF);
}

}  // namespace mrc::harness
