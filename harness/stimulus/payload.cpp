#include "harness/stimulus/payload.hpp"

#include <algorithm>
#include <array>
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

// xorshift64*: 8 bytes per step, little-endian, so the stream is the same on every host. This runs
// over every byte of every write a case posts and verifies (a quarter of a campaign's CPU time when
// it went one word after the other), so it is generated in blocks of 4 x kLane words by four
// interleaved copies of the recurrence: the xorshift step is linear over GF(2), so the state kLane
// words further on is a fixed 64 x 64 bit matrix times the state (jump_ahead), and four
// independent chains keep the CPU busy where one waits on its own shifts. The words are the same
// as one chain's, in the same order.
constexpr std::size_t kLane = 32;
constexpr std::size_t kBlockWords = 4 * kLane;
constexpr std::uint64_t kMul = 0x2545F4914F6CDD1Dull;

std::uint64_t xorshift(std::uint64_t s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s;
}

// The stream's word as it lies in memory: its bytes in little-endian order.
std::uint64_t as_stored(std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    return v;
  } else {
    return __builtin_bswap64(v);
  }
}

// xorshift applied kLane times, as eight byte-indexed tables: the jump of state s is the XOR of
// table[b][byte b of s] over the eight bytes (16 KiB, built once).
class JumpAhead {
 public:
  JumpAhead() {
    std::array<std::uint64_t, 64> column{};
    for (unsigned bit = 0; bit < 64; ++bit) {
      std::uint64_t s = std::uint64_t{1} << bit;
      for (std::size_t i = 0; i < kLane; ++i) s = xorshift(s);
      column[bit] = s;
    }
    for (unsigned b = 0; b < 8; ++b) {
      for (unsigned v = 0; v < 256; ++v) {
        std::uint64_t x = 0;
        for (unsigned j = 0; j < 8; ++j) {
          if ((v >> j) & 1u) x ^= column[8 * b + j];
        }
        table_[b][v] = x;
      }
    }
  }
  std::uint64_t operator()(std::uint64_t s) const {
    std::uint64_t x = 0;
    for (unsigned b = 0; b < 8; ++b) x ^= table_[b][(s >> (8 * b)) & 0xFF];
    return x;
  }

 private:
  std::array<std::array<std::uint64_t, 256>, 8> table_{};
};

const JumpAhead& jump_ahead() {
  static const JumpAhead j;
  return j;
}

class PrbsStream {
 public:
  explicit PrbsStream(std::uint64_t seed) : s_(mix(seed)) {}

  // The next out.size() bytes of the stream. Every call but the last must ask for whole words.
  void fill(std::span<std::uint8_t> out) {
    std::uint8_t* p = out.data();
    std::size_t words = out.size() / 8;
    if (words >= kBlockWords) {
      const JumpAhead& jump = jump_ahead();
      for (; words >= kBlockWords; words -= kBlockWords, p += 8 * kBlockWords) {
        std::uint64_t a = s_;
        std::uint64_t b = jump(a);
        std::uint64_t c = jump(b);
        std::uint64_t d = jump(c);
        for (std::size_t i = 0; i < kLane; ++i) {
          a = xorshift(a);
          b = xorshift(b);
          c = xorshift(c);
          d = xorshift(d);
          store(p + 8 * i, a);
          store(p + 8 * (kLane + i), b);
          store(p + 8 * (2 * kLane + i), c);
          store(p + 8 * (3 * kLane + i), d);
        }
        s_ = d;
      }
    }
    for (; words > 0; --words, p += 8) {
      s_ = xorshift(s_);
      store(p, s_);
    }
    if (const std::size_t tail = out.size() % 8; tail != 0) {
      s_ = xorshift(s_);
      const std::uint64_t w = as_stored(s_ * kMul);
      std::memcpy(p, &w, tail);
    }
  }

 private:
  static void store(std::uint8_t* p, std::uint64_t state) {
    const std::uint64_t w = as_stored(state * kMul);
    std::memcpy(p, &w, 8);
  }
  std::uint64_t s_;
};

void prbs_fill(std::uint64_t seed, std::span<std::uint8_t> out) { PrbsStream(seed).fill(out); }

// Offset of the first byte of `bytes` that differs from the stream; bytes.size() when none does.
// The stream is generated a block at a time beside the bytes and compared with memcmp.
std::size_t prbs_mismatch(std::uint64_t seed, std::span<const std::uint8_t> bytes) {
  PrbsStream r(seed);
  std::array<std::uint8_t, 8 * kBlockWords> want;
  for (std::size_t i = 0; i < bytes.size(); i += want.size()) {
    const std::size_t n = std::min(want.size(), bytes.size() - i);
    r.fill(std::span<std::uint8_t>(want.data(), n));
    if (std::memcmp(want.data(), bytes.data() + i, n) == 0) continue;
    for (std::size_t b = 0; b < n; ++b) {
      if (bytes[i + b] != want[b]) return i + b;
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
