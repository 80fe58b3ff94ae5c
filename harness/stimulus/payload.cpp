#include "harness/stimulus/payload.hpp"

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

// xorshift64*: 8 bytes per step, written little-endian byte by byte so the stream is the same on
// every host.
template <typename Visit>
void prbs_stream(std::uint64_t seed, std::size_t n, Visit visit) {
  std::uint64_t s = mix(seed);
  std::size_t i = 0;
  while (i < n) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    const std::uint64_t v = s * 0x2545F4914F6CDD1Dull;
    for (unsigned b = 0; b < 8 && i < n; ++b, ++i) visit(i, static_cast<std::uint8_t>(v >> (8 * b)));
  }
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
    case PayloadPattern::kPrbs:
      prbs_stream(seed, out.size(), [&](std::size_t i, std::uint8_t b) { out[i] = b; });
      return;
  }
}

void fill_write_data(std::uint64_t seed, std::uint32_t program, std::uint64_t index, std::span<std::uint8_t> out) {
  prbs_stream(write_seed(seed, program, index), out.size(), [&](std::size_t i, std::uint8_t b) { out[i] = b; });
}

bool check_write_data(std::uint64_t seed, std::uint32_t program, std::uint64_t index,
                      std::span<const std::uint8_t> bytes, std::size_t* first_bad) {
  bool ok = true;
  std::size_t bad = bytes.size();
  prbs_stream(write_seed(seed, program, index), bytes.size(), [&](std::size_t i, std::uint8_t b) {
    if (ok && bytes[i] != b) {
      ok = false;
      bad = i;
    }
  });
  if (first_bad) *first_bad = bad;
  return ok;
}

}  // namespace mrc::harness::stim
