// Carry-less-multiply CRC-32 engines: 128-bit PCLMULQDQ, 256-bit and 512-bit VPCLMULQDQ folding
// (interface: crc32_engines.hpp). Each is compiled for its instruction set with a target
// attribute, so the rest of the project needs no -m flags; icrc.cpp runs one only after
// *_runnable() said yes.
//
// Every constant below is derived here from the generator polynomial; none is pasted in.
//
// Notation. CRC-32 as zlib computes it is "reflected": the least-significant bit of the first
// byte is the highest-degree coefficient of the message polynomial M(x). The CRC register r after
// a message is (r0 * x^|M| + M(x) * x^32) mod P(x), so an initial register value is the same as
// XOR-ing it into the first 32 message bits. A little-endian load of n bytes therefore gives an
// integer whose bit k is the coefficient of x^(8n-1-k): the register layout the folding uses.
#include "reference/wire/crc32_engines.hpp"

#if MRC_CRC_HAVE_CLMUL

#include <cpuid.h>
#include <immintrin.h>

#include <cstring>

namespace mrc::wire::crc_engine {
namespace {

// ---- GF(2) polynomial arithmetic for the folding constants, at compile time -------------------

// x^n mod P.
constexpr std::uint32_t xpow_mod_p(unsigned n) {
  std::uint64_t r = 1;
  for (unsigned i = 0; i < n; ++i) {
    r <<= 1;
    if (r & (std::uint64_t{1} << 32)) r ^= kPoly;
  }
  return static_cast<std::uint32_t>(r);
}

// floor(x^64 / P), the Barrett constant (degree 32).
constexpr std::uint64_t x64_div_p() {
  // The x^64 step by hand so the running remainder fits 64 bits: x^64 - x^32*P = (P - x^32) x^32.
  std::uint64_t q = std::uint64_t{1} << 32;
  std::uint64_t r = (kPoly ^ (std::uint64_t{1} << 32)) << 32;
  for (int d = 63; d >= 32; --d) {
    if ((r >> d) & 1u) {
      q |= std::uint64_t{1} << (d - 32);
      r ^= kPoly << (d - 32);
    }
  }
  return q;
}

// Bit-reverse a polynomial of degree <= 32 over 33 bits: bit d -> bit 32-d. Operands in this form
// multiply a reflected 64-bit operand without the usual one-bit shift (see reduce128()).
constexpr std::uint64_t reflect33(std::uint64_t v) {
  std::uint64_t out = 0;
  for (unsigned d = 0; d <= 32; ++d) {
    if ((v >> d) & 1u) out |= std::uint64_t{1} << (32 - d);
  }
  return out;
}

// Folding a 128-bit register X = H*x^64 + L (H = low qword, L = high qword in the reflected
// layout) forward by D bits: X*x^D = H*x^(D+64) + L*x^D. With 33-bit reflected constants
// C_H = x^(D+32) mod P and C_L = x^(D-32) mod P, clmul(H, C_H) ^ clmul(L, C_L) is a 128-bit
// reflected value congruent to X*x^D (each product lands as poly * x^32, degree <= 126).
// The 512-bit engine applies the same pair to each 128-bit lane of a zmm register.
struct FoldConstants {
  std::uint64_t for_low;   // multiplies the low qword (H)
  std::uint64_t for_high;  // multiplies the high qword (L)
};
constexpr FoldConstants fold_constants(unsigned distance_bits) {
  return {reflect33(xpow_mod_p(distance_bits + 32)), reflect33(xpow_mod_p(distance_bits - 32))};
}
constexpr FoldConstants kFold128 = fold_constants(128);
constexpr FoldConstants kFold256 = fold_constants(256);
constexpr FoldConstants kFold384 = fold_constants(384);
constexpr FoldConstants kFold512 = fold_constants(512);    // 4 x 128 bits, or one zmm, per step
constexpr FoldConstants kFold1024 = fold_constants(1024);
constexpr FoldConstants kFold1536 = fold_constants(1536);
constexpr FoldConstants kFold2048 = fold_constants(2048);  // 4 x 512 bits per step
constexpr std::uint64_t kX96 = reflect33(xpow_mod_p(96));
constexpr std::uint64_t kX64 = reflect33(xpow_mod_p(64));
constexpr std::uint64_t kMu = reflect33(x64_div_p());
constexpr std::uint64_t kPolyR33 = reflect33(kPoly);

// ORed into the first block when the caller has no mask: keeps one code path for both.
alignas(64) constexpr std::uint8_t kZeroMask[64] = {};

// ---- 128-bit PCLMULQDQ folding ----------------------------------------------------------------

#define MRC_PCLMUL __attribute__((target("pclmul,sse4.1")))

MRC_PCLMUL inline __m128i load128(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

MRC_PCLMUL inline __m128i load128_or(const std::uint8_t* p, const std::uint8_t* mask) {
  return _mm_or_si128(load128(p), load128(mask));
}

MRC_PCLMUL inline __m128i constants(FoldConstants k) {
  return _mm_set_epi64x(static_cast<long long>(k.for_high), static_cast<long long>(k.for_low));
}

MRC_PCLMUL inline __m128i fold(__m128i x, __m128i k, __m128i next) {
  const __m128i h = _mm_clmulepi64_si128(x, k, 0x00);
  const __m128i l = _mm_clmulepi64_si128(x, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(h, l), next);
}

// The CRC register of the 128 message bits held in x: X(x) * x^32 mod P.
MRC_PCLMUL inline std::uint32_t reduce128(__m128i x) {
  const __m128i k = _mm_set_epi64x(static_cast<long long>(kX64), static_cast<long long>(kX96));
  const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
  // 128 -> 96 bits: Z = H*(x^96 mod P) + L*x^32, laid out with bit k = coefficient of x^(95-k).
  // In that layout L*x^32 is L itself in bits 0..63.
  __m128i z = _mm_clmulepi64_si128(x, k, 0x00);
  z = _mm_xor_si128(z, _mm_srli_si128(x, 8));
  // 96 -> 64 bits: W = Zh*(x^64 mod P) + Zl, Zh = the top 32 coefficients (bits 0..31).
  __m128i w = _mm_clmulepi64_si128(_mm_and_si128(z, low32), k, 0x10);
  w = _mm_xor_si128(w, _mm_srli_si128(z, 4));
  // Barrett: T = floor(W/x^32) (bits 0..31), q = floor(T*mu/x^32), W + q*P has degree < 32
  // and sits in bits 32..63.
  const __m128i b = _mm_set_epi64x(static_cast<long long>(kPolyR33), static_cast<long long>(kMu));
  const __m128i t1 = _mm_clmulepi64_si128(_mm_and_si128(w, low32), b, 0x00);
  const __m128i t2 = _mm_clmulepi64_si128(_mm_and_si128(t1, low32), b, 0x10);
  return static_cast<std::uint32_t>(_mm_extract_epi32(_mm_xor_si128(w, t2), 1));
}

// pshufb masks for variable byte shifts (a mask byte with its top bit set selects zero):
// loadu(kShuffle + n) moves bytes 0..n-1 up to positions 16-n..15; loadu(kShuffle + 16 + n) moves
// bytes n..15 down to positions 0..15-n.
alignas(16) constexpr std::uint8_t kShuffle[48] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

// Folds the last n (1..15) message bytes into x without a byte loop. The message x || tail splits
// into A = the first n bytes of x (a polynomial sitting 128 bits before the end) and the 16-byte
// block B = the other 16 - n bytes of x followed by the tail; the result is fold(A) ^ B.
// `last16` holds the tail in its top n byte positions; the rest of it is ignored.
MRC_PCLMUL inline __m128i fold_tail(__m128i x, __m128i k128, std::size_t n, __m128i last16) {
  const __m128i keep_low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kShuffle + n));
  const __m128i drop_low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kShuffle + 16 + n));
  const __m128i a = _mm_shuffle_epi8(x, keep_low);  // x[0..n) moved to positions 16-n..15
  const __m128i b = _mm_shuffle_epi8(x, drop_low);  // x[n..16) moved to positions 0..15-n
  // keep_low has its top bit set exactly at positions 0..15-n: take those from b.
  return fold(a, k128, _mm_blendv_epi8(last16, b, keep_low));
}

// Everything after the folded prefix in x: n more bytes at p. The bytes from seg_start up to p
// were consumed already and may be re-read (never past p + n).
MRC_PCLMUL inline std::uint32_t pclmul_finish(__m128i x, const std::uint8_t* p, std::size_t n,
                                              const std::uint8_t* seg_start) {
  const __m128i k128 = constants(kFold128);
  while (n >= 16) {
    x = fold(x, k128, load128(p));
    p += 16;
    n -= 16;
  }
  if (n > 0) {
    __m128i last16;
    if (p + n >= seg_start + 16) {
      last16 = load128(p + n - 16);  // overlaps consumed bytes; fold_tail ignores them
    } else {
      alignas(16) std::uint8_t tmp[16] = {};
      std::memcpy(tmp + 16 - n, p, n);
      last16 = _mm_load_si128(reinterpret_cast<const __m128i*>(tmp));
    }
    x = fold_tail(x, k128, n, last16);
  }
  return reduce128(x);
}

// n >= 64 bytes; the first mask_len (0, 64 or 128) of them ORed with `mask`.
MRC_PCLMUL std::uint32_t pclmul_fold(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                     const std::uint8_t* mask, std::size_t mask_len) {
  const std::uint8_t* const start = p;
  const std::uint8_t* m = mask_len > 0 ? mask : kZeroMask;
  // Four independent lanes hide the multiply latency; each folds 512 bits ahead per step.
  __m128i x0 = _mm_xor_si128(load128_or(p, m), _mm_cvtsi32_si128(static_cast<int>(r)));
  __m128i x1 = load128_or(p + 16, m + 16);
  __m128i x2 = load128_or(p + 32, m + 32);
  __m128i x3 = load128_or(p + 48, m + 48);
  p += 64;
  n -= 64;
  const __m128i k512 = constants(kFold512);
  if (mask_len > 64) {
    x0 = fold(x0, k512, load128_or(p, m + 64));
    x1 = fold(x1, k512, load128_or(p + 16, m + 80));
    x2 = fold(x2, k512, load128_or(p + 32, m + 96));
    x3 = fold(x3, k512, load128_or(p + 48, m + 112));
    p += 64;
    n -= 64;
  }
  while (n >= 64) {
    x0 = fold(x0, k512, load128(p));
    x1 = fold(x1, k512, load128(p + 16));
    x2 = fold(x2, k512, load128(p + 32));
    x3 = fold(x3, k512, load128(p + 48));
    p += 64;
    n -= 64;
  }
  const __m128i k128 = constants(kFold128);
  x0 = fold(x0, k128, x1);
  x0 = fold(x0, k128, x2);
  x0 = fold(x0, k128, x3);
  return pclmul_finish(x0, p, n, start);
}

MRC_PCLMUL std::uint32_t pclmul_any(std::uint32_t r, const std::uint8_t* p, std::size_t n) {
  if (n < 16) return slice8_update(r, p, n);
  if (n < 64) {
    const __m128i x = _mm_xor_si128(load128(p), _mm_cvtsi32_si128(static_cast<int>(r)));
    return pclmul_finish(x, p + 16, n - 16, p);
  }
  return pclmul_fold(r, p, n, nullptr, 0);
}

// ---- 512-bit VPCLMULQDQ folding ---------------------------------------------------------------

#define MRC_VPCLMUL \
  __attribute__((target("pclmul,sse4.1,avx2,avx512f,avx512bw,avx512vl,vpclmulqdq")))

MRC_VPCLMUL inline __m512i load512(const std::uint8_t* p) { return _mm512_loadu_si512(p); }

MRC_VPCLMUL inline __m512i broadcast(FoldConstants k) {
  const auto lo = static_cast<long long>(k.for_low);
  const auto hi = static_cast<long long>(k.for_high);
  return _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo);
}

// One 128-bit lane. The zero-masking form: GCC 12 warns (-Wuninitialized) about the
// _mm_undefined_si128() inside the plain extract and cast intrinsics.
template <int I>
MRC_VPCLMUL inline __m128i lane(__m512i v) {
  return _mm512_maskz_extracti32x4_epi32(0x0F, v, I);
}

constexpr int kXor3 = 0x96;  // vpternlog truth table of a ^ b ^ c

// Every 128-bit lane of x folded forward by the distance k encodes, plus next.
MRC_VPCLMUL inline __m512i fold512(__m512i x, __m512i k, __m512i next) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                   _mm512_clmulepi64_epi128(x, k, 0x11), next, kXor3);
}

// n >= 256 bytes; the first mask_len (0, 64 or 128) of them ORed with `mask`.
MRC_VPCLMUL std::uint32_t vpclmul_fold(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                       const std::uint8_t* mask, std::size_t mask_len) {
  const std::uint8_t* const start = p;
  const std::uint8_t* m = mask_len > 0 ? mask : kZeroMask;
  // Four zmm accumulators over consecutive 64-byte blocks, each folding 2048 bits ahead per step.
  __m512i x0 = _mm512_or_si512(load512(p), load512(m));
  x0 = _mm512_xor_si512(x0, _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(r))));
  __m512i x1 = load512(p + 64);
  if (mask_len > 64) x1 = _mm512_or_si512(x1, load512(m + 64));
  __m512i x2 = load512(p + 128);
  __m512i x3 = load512(p + 192);
  p += 256;
  n -= 256;
  const __m512i k2048 = broadcast(kFold2048);
  while (n >= 256) {
    x0 = fold512(x0, k2048, load512(p));
    x1 = fold512(x1, k2048, load512(p + 64));
    x2 = fold512(x2, k2048, load512(p + 128));
    x3 = fold512(x3, k2048, load512(p + 192));
    p += 256;
    n -= 256;
  }
  // x0*x^1536 + x1*x^1024 + x2*x^512 + x3, the three folds side by side.
  const __m512i k1536 = broadcast(kFold1536);
  const __m512i k1024 = broadcast(kFold1024);
  const __m512i k512 = broadcast(kFold512);
  const __m512i a = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x0, k1536, 0x00),
                                              _mm512_clmulepi64_epi128(x0, k1536, 0x11),
                                              _mm512_clmulepi64_epi128(x1, k1024, 0x00), kXor3);
  const __m512i b = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x1, k1024, 0x11),
                                              _mm512_clmulepi64_epi128(x2, k512, 0x00),
                                              _mm512_clmulepi64_epi128(x2, k512, 0x11), kXor3);
  __m512i y = _mm512_ternarylogic_epi64(a, b, x3, kXor3);
  while (n >= 64) {
    y = fold512(y, k512, load512(p));
    p += 64;
    n -= 64;
  }
  if (n >= 16) {
    // 512 -> 128 bits onto the next 16-byte block: lanes 0..3 (the earliest bytes first) fold
    // forward by 512, 384, 256 and 128 bits and the block is XORed in. The same multiplies as the
    // form below, but the block needs no fold of its own afterwards: one dependent multiply fewer
    // on the way to the result, which a short message (the ICRC of a 1 KiB data packet) feels.
    const __m512i lanes = _mm512_set_epi64(
        static_cast<long long>(kFold128.for_high), static_cast<long long>(kFold128.for_low),
        static_cast<long long>(kFold256.for_high), static_cast<long long>(kFold256.for_low),
        static_cast<long long>(kFold384.for_high), static_cast<long long>(kFold384.for_low),
        static_cast<long long>(kFold512.for_high), static_cast<long long>(kFold512.for_low));
    const __m512i t = _mm512_xor_si512(_mm512_clmulepi64_epi128(y, lanes, 0x00),
                                       _mm512_clmulepi64_epi128(y, lanes, 0x11));
    const __m128i x01 = _mm_xor_si128(lane<0>(t), lane<1>(t));
    const __m128i x = _mm_ternarylogic_epi64(x01, _mm_xor_si128(lane<2>(t), lane<3>(t)),
                                             load128(p), kXor3);
    return pclmul_finish(x, p + 16, n - 16, start);
  }
  // 512 -> 128 bits: lanes 0, 1, 2 (the earliest bytes first) fold forward by 384, 256 and 128
  // bits onto lane 3. Lane 3's constant is zero, so its product vanishes.
  const __m512i lanes = _mm512_set_epi64(
      0, 0, static_cast<long long>(kFold128.for_high), static_cast<long long>(kFold128.for_low),
      static_cast<long long>(kFold256.for_high), static_cast<long long>(kFold256.for_low),
      static_cast<long long>(kFold384.for_high), static_cast<long long>(kFold384.for_low));
  const __m512i t = _mm512_xor_si512(_mm512_clmulepi64_epi128(y, lanes, 0x00),
                                     _mm512_clmulepi64_epi128(y, lanes, 0x11));
  __m128i x = _mm_ternarylogic_epi64(lane<0>(t), lane<1>(t), lane<2>(t), kXor3);
  x = _mm_xor_si128(x, lane<3>(y));
  return pclmul_finish(x, p, n, start);
}

MRC_VPCLMUL std::uint32_t vpclmul_any(std::uint32_t r, const std::uint8_t* p, std::size_t n) {
  if (n < 256) return pclmul_any(r, p, n);
  return vpclmul_fold(r, p, n, nullptr, 0);
}

MRC_VPCLMUL std::uint32_t vpclmul_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                         const std::uint8_t* mask, std::size_t mask_len) {
  if (n < 256) return pclmul_fold(r, p, n, mask, mask_len);
  return vpclmul_fold(r, p, n, mask, mask_len);
}

// ---- 256-bit VPCLMULQDQ folding (AVX2 machines without AVX-512, e.g. AMD Zen 3) -----------------

#define MRC_VPCLMUL256 __attribute__((target("pclmul,sse4.1,avx2,vpclmulqdq")))

MRC_VPCLMUL256 inline __m256i load256(const std::uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

MRC_VPCLMUL256 inline __m256i broadcast256(FoldConstants k) {
  const auto lo = static_cast<long long>(k.for_low);
  const auto hi = static_cast<long long>(k.for_high);
  return _mm256_set_epi64x(hi, lo, hi, lo);
}

// Both 128-bit lanes of x folded forward by the distance k encodes, plus next.
MRC_VPCLMUL256 inline __m256i fold256(__m256i x, __m256i k, __m256i next) {
  return _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00), _mm256_clmulepi64_epi128(x, k, 0x11)),
                          next);
}

// n >= 128 bytes; the first mask_len (0, 64 or 128) of them ORed with `mask`.
MRC_VPCLMUL256 std::uint32_t vpclmul256_fold(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                             const std::uint8_t* mask, std::size_t mask_len) {
  const std::uint8_t* const start = p;
  const std::uint8_t* m = mask_len > 0 ? mask : kZeroMask;
  // Four ymm accumulators over consecutive 32-byte blocks, each folding 1024 bits ahead per step.
  __m256i x0 = _mm256_or_si256(load256(p), load256(m));
  x0 = _mm256_xor_si256(x0, _mm256_setr_epi32(static_cast<int>(r), 0, 0, 0, 0, 0, 0, 0));
  __m256i x1 = _mm256_or_si256(load256(p + 32), load256(m + 32));
  __m256i x2 = load256(p + 64);
  __m256i x3 = load256(p + 96);
  if (mask_len > 64) {
    x2 = _mm256_or_si256(x2, load256(m + 64));
    x3 = _mm256_or_si256(x3, load256(m + 96));
  }
  p += 128;
  n -= 128;
  const __m256i k1024 = broadcast256(kFold1024);
  while (n >= 128) {
    x0 = fold256(x0, k1024, load256(p));
    x1 = fold256(x1, k1024, load256(p + 32));
    x2 = fold256(x2, k1024, load256(p + 64));
    x3 = fold256(x3, k1024, load256(p + 96));
    p += 128;
    n -= 128;
  }
  const __m256i k256 = broadcast256(kFold256);
  __m256i y = fold256(fold256(fold256(x0, k256, x1), k256, x2), k256, x3);
  while (n >= 32) {
    y = fold256(y, k256, load256(p));
    p += 32;
    n -= 32;
  }
  // 256 -> 128 bits: lane 0 (the earlier bytes) folds forward by 128 bits onto lane 1.
  const __m128i x = fold(_mm256_castsi256_si128(y), constants(kFold128), _mm256_extracti128_si256(y, 1));
  return pclmul_finish(x, p, n, start);
}

MRC_VPCLMUL256 std::uint32_t vpclmul256_any(std::uint32_t r, const std::uint8_t* p, std::size_t n) {
  if (n < 128) return pclmul_any(r, p, n);
  return vpclmul256_fold(r, p, n, nullptr, 0);
}

MRC_VPCLMUL256 std::uint32_t vpclmul256_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                               const std::uint8_t* mask, std::size_t mask_len) {
  if (n < 128) return pclmul_fold(r, p, n, mask, mask_len);
  return vpclmul256_fold(r, p, n, mask, mask_len);
}

// The OS saves the SSE and AVX register state (XCR0 bits 1 and 2).
bool os_saves_avx_state() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & bit_OSXSAVE) == 0) return false;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & 0x6u) == 0x6u;
}

// XCR0 says which register state the OS saves on a context switch; AVX-512 code needs SSE (bit 1),
// AVX (bit 2), the opmask registers (5) and both upper ZMM halves (6, 7). cpuid alone only says
// the CPU has the instructions.
bool os_saves_avx512_state() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & bit_OSXSAVE) == 0) return false;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  constexpr unsigned kNeeded = (1u << 1) | (1u << 2) | (1u << 5) | (1u << 6) | (1u << 7);
  return (xcr0_lo & kNeeded) == kNeeded;
}

}  // namespace

bool pclmul_runnable() {
  __builtin_cpu_init();  // may run from another translation unit's static initializer
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

std::uint32_t pclmul_update(std::uint32_t r, const std::uint8_t* p, std::size_t n) {
  return pclmul_any(r, p, n);
}

std::uint32_t pclmul_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                   const std::uint8_t* mask, std::size_t mask_len) {
  return pclmul_fold(r, p, n, mask, mask_len);
}

MRC_PCLMUL std::uint64_t pclmul_clmul32(std::uint32_t a, std::uint32_t b) {
  const __m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(a)), _mm_cvtsi32_si128(static_cast<int>(b)), 0x00);
  return static_cast<std::uint64_t>(_mm_cvtsi128_si64(p));
}

bool vpclmul256_runnable() {
  __builtin_cpu_init();
  return pclmul_runnable() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq") &&
         os_saves_avx_state();
}

std::uint32_t vpclmul256_update(std::uint32_t r, const std::uint8_t* p, std::size_t n) {
  return vpclmul256_any(r, p, n);
}

std::uint32_t vpclmul256_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                       const std::uint8_t* mask, std::size_t mask_len) {
  return vpclmul256_masked(r, p, n, mask, mask_len);
}

bool vpclmul_runnable() {
  __builtin_cpu_init();
  return pclmul_runnable() && __builtin_cpu_supports("avx2") &&
         __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("vpclmulqdq") &&
         os_saves_avx512_state();
}

std::uint32_t vpclmul_update(std::uint32_t r, const std::uint8_t* p, std::size_t n) {
  return vpclmul_any(r, p, n);
}

std::uint32_t vpclmul_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                    const std::uint8_t* mask, std::size_t mask_len) {
  return vpclmul_masked(r, p, n, mask, mask_len);
}

}  // namespace mrc::wire::crc_engine

#endif  // MRC_CRC_HAVE_CLMUL
