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

// ---- advancing a register over n zero bytes without reading them ------------------------------
//
// The register is linear in what it has read: R(r, data) = R(r, 0^n) ^ R(0, data) for n = |data|.
// So the CRC of a message whose two parts were CRC'd apart is shift(r1, |part 2|) ^ r2, and
// shift(r, n) = R(r, 0^n) = r * x^(8n) mod P. It costs two carry-less 32x32 multiplies and two
// 8-byte table reductions for any n below 65,536, instead of n bytes of CRC.
//
// mul_xpow(r, k): r * x^(8m) mod P, with k = x^(8m-32) mod P (m >= 4), both reflected. The
// carry-less product r*k, shifted up one bit, is a 64-bit reflected polynomial D; read as eight
// message bytes from register 0 it leaves D * x^32 mod P = r * x^(8m) mod P.

// Normal-form (bit d = x^d) product mod P, for the tables.
constexpr std::uint32_t mulmod_normal(std::uint32_t a, std::uint32_t b) {
  std::uint64_t acc = 0;
  for (unsigned i = 0; i < 32; ++i) {
    if ((b >> i) & 1u) acc ^= std::uint64_t{a} << i;
  }
  for (unsigned d = 63; d >= 32; --d) {
    if ((acc >> d) & 1u) acc ^= kPoly << (d - 32);
  }
  return static_cast<std::uint32_t>(acc);
}

constexpr std::uint32_t xpow_normal(std::uint64_t n) {  // x^n mod P by squaring
  std::uint32_t result = 1;
  std::uint32_t base = 2;  // x
  for (; n != 0; n >>= 1) {
    if (n & 1u) result = mulmod_normal(result, base);
    base = mulmod_normal(base, base);
  }
  return result;
}

struct ShiftTables {
  std::array<std::uint32_t, 256> low{};   // [m]: x^(8m-32) mod P reflected, m >= 4 (0..3 unused)
  std::array<std::uint32_t, 256> high{};  // [h]: x^(8*256h-32) mod P reflected, h >= 1
};

// Each entry one multiply from the one before (few enough steps for clang's constexpr limit).
constexpr ShiftTables make_shift_tables() {
  ShiftTables t;
  const std::uint32_t x8 = xpow_normal(8);
  std::uint32_t v = 1;  // x^(8*4-32)
  for (std::uint64_t m = 4; m < 256; ++m, v = mulmod_normal(v, x8)) t.low[m] = reflect32(v);
  const std::uint32_t x2048 = xpow_normal(8 * 256);
  v = xpow_normal(8 * 256 - 32);
  for (std::uint64_t h = 1; h < 256; ++h, v = mulmod_normal(v, x2048)) t.high[h] = reflect32(v);
  return t;
}

inline constexpr ShiftTables kShiftTables = make_shift_tables();

// The register after eight message bytes (D, little-endian) from register 0.
constexpr std::uint32_t reduce64(std::uint64_t d) {
  const auto& t = kTables;
  const auto a = static_cast<std::uint32_t>(d);
  const auto b = static_cast<std::uint32_t>(d >> 32);
  return t[7][a & 0xFFu] ^ t[6][(a >> 8) & 0xFFu] ^ t[5][(a >> 16) & 0xFFu] ^ t[4][a >> 24] ^
         t[3][b & 0xFFu] ^ t[2][(b >> 8) & 0xFFu] ^ t[1][(b >> 16) & 0xFFu] ^ t[0][b >> 24];
}

constexpr std::uint64_t clmul32_portable(std::uint32_t a, std::uint32_t b) {
  std::uint64_t acc = 0;
  for (unsigned i = 0; i < 32; ++i) acc ^= (std::uint64_t{a} << i) & (0 - std::uint64_t{(b >> i) & 1u});
  return acc;
}

using Clmul32 = std::uint64_t (*)(std::uint32_t, std::uint32_t);

template <Clmul32 C>
std::uint32_t shift_register(std::uint32_t r, std::size_t n) {
  constexpr std::size_t kStep = 255 * 256;  // the largest shift one high-table entry makes
  const auto mul = [](std::uint32_t v, std::uint32_t k) { return reduce64(C(v, k) << 1); };
  for (; n > kStep; n -= kStep) r = mul(r, kShiftTables.high[255]);
  if (const std::size_t h = n >> 8; h != 0) r = mul(r, kShiftTables.high[h]);
  const std::size_t m = n & 0xFFu;
  if (m >= 4) return mul(r, kShiftTables.low[m]);
  for (std::size_t i = 0; i < m; ++i) r = (r >> 8) ^ kTables[0][r & 0xFFu];  // a zero byte
  return r;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MRC_CRC_HAVE_CLMUL 1
// 128-bit PCLMULQDQ folding (crc32_clmul.cpp). Needs pclmul + sse4.1.
bool pclmul_runnable();
std::uint32_t pclmul_update(std::uint32_t r, const std::uint8_t* p, std::size_t n);
std::uint32_t pclmul_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                   const std::uint8_t* mask, std::size_t mask_len);
// One PCLMULQDQ: the carry-less product of two 32-bit values (for shift_register).
std::uint64_t pclmul_clmul32(std::uint32_t a, std::uint32_t b);
// 256-bit VPCLMULQDQ folding (crc32_clmul.cpp). Needs vpclmulqdq + avx2 and an OS that saves the
// AVX register state: the fastest engine on AVX2 machines without AVX-512 (AMD Zen 3).
bool vpclmul256_runnable();
std::uint32_t vpclmul256_update(std::uint32_t r, const std::uint8_t* p, std::size_t n);
std::uint32_t vpclmul256_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
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
