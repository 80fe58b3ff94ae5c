// Internal to reference/wire: the CRC-32 engines behind crc32() and icrc_compute() (icrc.hpp).
//
// Every engine advances the raw CRC register (no pre/post inversion) of reflected CRC-32
// (0x04C11DB7, zlib bit order). Two entry points per engine:
//   update(r, p, n)                        the register after the n bytes at p;
//   update_masked(r, p, n, mask, mask_len) the same, but the first mask_len bytes are read as
//                                          p[i] | mask[i]: the ICRC's "variant fields set to
//                                          ones" without copying the headers.
// Preconditions of update_masked: mask_len is 64 or 128 and mask_len <= n.
//
// The slice-by-8 engine lives here as constexpr code so the folding engines can use it for
// inputs shorter than one 16-byte block, and icrc.cpp can derive constants from it at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mrc::wire::crc_engine {

// P(x) in normal form (bit d = coefficient of x^d): x^32 + x^26 + ... + 1 (IEEE 802.3).
inline constexpr std::uint64_t kPoly = 0x104C11DB7;

constexpr std::uint32_t reflect32(std::uint32_t v) {
  std::uint32_t out = 0;
  for (unsigned d = 0; d < 32; ++d) {
    if ((v >> d) & 1u) out |= std::uint32_t{1} << (31 - d);
  }
  return out;
}

inline constexpr std::uint32_t kPolyReflected = reflect32(static_cast<std::uint32_t>(kPoly));

using CrcTables = std::array<std::array<std::uint32_t, 256>, 8>;

// tables[0][b]: register after one byte b from register 0. tables[k][b]: the same byte followed by
// k zero bytes, so eight table look-ups advance the register by eight bytes at once.
constexpr CrcTables make_tables() {
  CrcTables t{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c & 1u) ? (c >> 1) ^ kPolyReflected : c >> 1;
    t[0][b] = c;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (std::size_t b = 0; b < 256; ++b) {
      t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
    }
  }
  return t;
}

inline constexpr CrcTables kTables = make_tables();

constexpr std::uint32_t load32le(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

constexpr std::uint32_t slice8_update(std::uint32_t r, const std::uint8_t* p, std::size_t n) {
  const auto& t = kTables;
  while (n >= 8) {
    const std::uint32_t a = r ^ load32le(p);
    const std::uint32_t b = load32le(p + 4);
    r = t[7][a & 0xFFu] ^ t[6][(a >> 8) & 0xFFu] ^ t[5][(a >> 16) & 0xFFu] ^ t[4][a >> 24] ^
        t[3][b & 0xFFu] ^ t[2][(b >> 8) & 0xFFu] ^ t[1][(b >> 16) & 0xFFu] ^ t[0][b >> 24];
    p += 8;
    n -= 8;
  }
  for (; n > 0; --n, ++p) r = (r >> 8) ^ t[0][(r ^ *p) & 0xFFu];
  return r;
}

std::uint32_t slice8_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                   const std::uint8_t* mask, std::size_t mask_len);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MRC_CRC_HAVE_CLMUL 1
// 128-bit PCLMULQDQ folding (crc32_clmul.cpp). Needs pclmul + sse4.1.
bool pclmul_runnable();
std::uint32_t pclmul_update(std::uint32_t r, const std::uint8_t* p, std::size_t n);
std::uint32_t pclmul_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                   const std::uint8_t* mask, std::size_t mask_len);
// 512-bit VPCLMULQDQ folding (crc32_clmul.cpp). Needs vpclmulqdq + avx512f/bw/vl, and an OS that
// saves the AVX-512 register state (XCR0).
bool vpclmul_runnable();
std::uint32_t vpclmul_update(std::uint32_t r, const std::uint8_t* p, std::size_t n);
std::uint32_t vpclmul_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                    const std::uint8_t* mask, std::size_t mask_len);
#else
#define MRC_CRC_HAVE_CLMUL 0
#endif

}  // namespace mrc::wire::crc_engine
