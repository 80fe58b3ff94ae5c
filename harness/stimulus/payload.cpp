#include "harness/stimulus/payload.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace mrc::harness::stim {
namespace {

// splitmix64 finaliser: turns any seed (including 0) into a well-mixed non-zero state.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x != 0 ? x : 0x2545F4914F6CDD1Dull;
}

// xorshift64*: 8 bytes per step, little-endian, so the stream is the same on every host. Whole
// words are written and compared 8 bytes at a time (this runs over every byte of every write a
// case posts and verifies); only a tail shorter than a word goes byte by byte.
class PrbsStream {
 public:
  explicit PrbsStream(std::uint64_t seed) : s_(mix(seed)) {}
  std::uint64_t next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545F4914F6CDD1Dull;
  }

 private:
  std::uint64_t s_;
};

// The stream's word as it lies in memory: its bytes in little-endian order.
std::uint64_t as_stored(std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    return v;
  } else {
    return __builtin_bswap64(v);
  }
}

void prbs_fill(std::uint64_t seed, std::span<std::uint8_t> out) {
  PrbsStream r(seed);
  std::size_t i = 0;
  for (; i + 8 <= out.size(); i += 8) {
    const std::uint64_t w = as_stored(r.next());
    std::memcpy(out.data() + i, &w, 8);
  }
  if (i < out.size()) {
    const std::uint64_t v = r.next();
    for (unsigned b = 0; i < out.size(); ++b, ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * b));
  }
}

// Offset of the first byte of `bytes` that differs from the stream; bytes.size() when none does.
std::size_t prbs_mismatch(std::uint64_t seed, std::span<const std::uint8_t> bytes) {
  PrbsStream r(seed);
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t v = r.next();
    const std::size_t n = std::min<std::size_t>(8, bytes.size() - i);
    if (n == 8) {
      std::uint64_t got = 0;
      std::memcpy(&got, bytes.data() + i, 8);
      if (got == as_stored(v)) continue;
    }
    for (std::size_t b = 0; b < n; ++b) {
      if (bytes[i + b] != static_cast<std::uint8_t>(v >> (8 * b))) return i + b;
    }
  }
  return bytes.size();
}

std::uint64_t write_seed(std::uint64_t seed, std::uint32_t program, std::uint64_t index) {
  return mix(seed ^ mix((std::uint64_t{program} << 40) ^ index));
}

}  // namespace

void fill_pattern(PayloadPattern pattern, std::uint64_t seed, std::span<std::uint8_t> out) {
  switch (pattern) {
    case PayloadPattern::kZero: std::memset(out.data(), 0, out.size()); return;
    case PayloadPattern::kIncrement:
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(i);
      return;
    case PayloadPattern::kPrbs: prbs_fill(seed, out); return;
  }
}

void fill_write_data(std::uint64_t seed, std::uint32_t program, std::uint64_t index, std::span<std::uint8_t> out) {
  prbs_fill(write_seed(seed, program, index), out);
}

bool check_write_data(std::uint64_t seed, std::uint32_t program, std::uint64_t index,
                      std::span<const std::uint8_t> bytes, std::size_t* first_bad) {
  const std::size_t bad = prbs_mismatch(write_seed(seed, program, index), bytes);
  if (first_bad) *first_bad = bad;
  return bad == bytes.size();
}

}  // namespace mrc::harness::stim
