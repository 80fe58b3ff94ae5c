// Payload bytes the generator puts in frames and writes: the case format's patterns (zero,
// incrementing, PRBS) and the per-write data of traffic programs. Every byte is a pure function
// of (pattern, seed, position), identical on every platform, so a destination buffer can be
// verified by regenerating what should be there instead of keeping a copy.
#pragma once

#include <cstdint>
#include <span>

#include "harness/case/vocabulary.hpp"

namespace mrc::harness::stim {

// Fills `out` with `pattern`: zero; inc = byte i is i mod 256; prbs = a xorshift64* stream
// seeded from `seed`.
void fill_pattern(PayloadPattern pattern, std::uint64_t seed, std::span<std::uint8_t> out);

// The data of write `index` of traffic program `program` in a run seeded with `seed`.
void fill_write_data(std::uint64_t seed, std::uint32_t program, std::uint64_t index, std::span<std::uint8_t> out);

// True when `bytes` equals what fill_write_data() would produce; `first_bad` (when given) gets
// the offset of the first differing byte.
bool check_write_data(std::uint64_t seed, std::uint32_t program, std::uint64_t index,
                      std::span<const std::uint8_t> bytes, std::size_t* first_bad = nullptr);

}  // namespace mrc::harness::stim
