// CRC-32 engines (slice-by-8 tables, PCLMULQDQ folding) and the RoCEv2 ICRC recipe.
//
// Every constant below is derived here from the generator polynomial; none is pasted in.
//
// Notation. CRC-32 as zlib computes it is "reflected": the least-significant bit of the first
// byte is the highest-degree coefficient of the message polynomial M(x). The CRC register r after
// a message is (r0 * x^|M| + M(x) * x^32) mod P(x), so an initial register value is the same as
// XOR-ing it into the first 32 message bits. A little-endian load of n bytes therefore gives an
// integer whose bit k is the coefficient of x^(8n-1-k): the register layout the folding uses.
#include "reference/wire/icrc.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MRC_CRC_HAVE_PCLMUL 1
#include <immintrin.h>
#else
#define MRC_CRC_HAVE_PCLMUL 0
#endif

namespace mrc::wire {
namespace {

// Polynomials in normal form: bit d = coefficient of x^d.
constexpr std::uint64_t kPoly = 0x104C11DB7;  // P(x) = x^32 + x^26 + ... + 1 (IEEE 802.3)

constexpr std::uint32_t reflect32(std::uint32_t v) {
  std::uint32_t out = 0;
  for (unsigned d = 0; d < 32; ++d) {
    if ((v >> d) & 1u) out |= std::uint32_t{1} << (31 - d);
  }
  return out;
}

// ---- slice-by-8 tables ------------------------------------------------------------------------

constexpr std::uint32_t kPolyReflected = reflect32(static_cast<std::uint32_t>(kPoly));

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

constexpr CrcTables kTables = make_tables();

constexpr std::uint32_t load32le(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

// Advances the raw register (no pre/post inversion).
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

// The register after the 8 x 0xFF stand-in LRH, from the standard initial value.
constexpr std::uint32_t prefix_register() {
  const std::uint8_t ones[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  return slice8_update(0xFFFFFFFFu, ones, sizeof ones);
}
constexpr std::uint32_t kIcrcPrefixRegister = prefix_register();
// mrc-wire-model.md §2.5 quotes this register value (rxe seeds its ICRC with it).
static_assert(kIcrcPrefixRegister == 0xDEBB20E3u);

// ---- PCLMULQDQ folding ------------------------------------------------------------------------
#if MRC_CRC_HAVE_PCLMUL

// GF(2) polynomial arithmetic for the folding constants, at compile time.

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
struct FoldConstants {
  std::uint64_t for_low;   // multiplies the low qword (H)
  std::uint64_t for_high;  // multiplies the high qword (L)
};
constexpr FoldConstants fold_constants(unsigned distance_bits) {
  return {reflect33(xpow_mod_p(distance_bits + 32)), reflect33(xpow_mod_p(distance_bits - 32))};
}
constexpr FoldConstants kFold512 = fold_constants(512);  // 4 x 128 bits per loop step
constexpr FoldConstants kFold128 = fold_constants(128);
constexpr std::uint64_t kX96 = reflect33(xpow_mod_p(96));
constexpr std::uint64_t kX64 = reflect33(xpow_mod_p(64));
constexpr std::uint64_t kMu = reflect33(x64_div_p());
constexpr std::uint64_t kPolyR33 = reflect33(kPoly);

#define MRC_PCLMUL __attribute__((target("pclmul,sse4.1")))

MRC_PCLMUL inline __m128i load128(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
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
MRC_PCLMUL std::uint32_t reduce128(__m128i x) {
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

// Everything after the first 16 bytes: n bytes at p remain; x holds the folded prefix. Bytes
// before p back to seg_start belong to this same contiguous span and may be re-read.
MRC_PCLMUL std::uint32_t pclmul_finish(__m128i x, const std::uint8_t* p, std::size_t n,
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

// The CRC of a followed by b as one message, in one folding pass (no reduction between the two).
// Needs na to be a multiple of 64 whenever b is non-empty; otherwise it runs the pieces one by one.
MRC_PCLMUL std::uint32_t pclmul_update2(std::uint32_t r, const std::uint8_t* a, std::size_t na,
                                        const std::uint8_t* b, std::size_t nb) {
  if (na == 0) {
    a = b;
    na = nb;
    nb = 0;
  }
  if (nb != 0 && na % 64 != 0) return pclmul_update2(pclmul_update2(r, a, na, b, 0), b, nb, b, 0);
  if (na + nb < 16) return slice8_update(slice8_update(r, a, na), b, nb);

  const std::uint8_t* seg = a;
  const std::uint8_t* p = a;
  std::size_t n = na;
  __m128i x0 = _mm_xor_si128(load128(p), _mm_cvtsi32_si128(static_cast<int>(r)));
  if (n >= 64) {
    // Four independent lanes hide the multiply latency; each folds 512 bits ahead per step.
    __m128i x1 = load128(p + 16);
    __m128i x2 = load128(p + 32);
    __m128i x3 = load128(p + 48);
    p += 64;
    n -= 64;
    const __m128i k512 = constants(kFold512);
    for (;;) {
      while (n >= 64) {
        x0 = fold(x0, k512, load128(p));
        x1 = fold(x1, k512, load128(p + 16));
        x2 = fold(x2, k512, load128(p + 32));
        x3 = fold(x3, k512, load128(p + 48));
        p += 64;
        n -= 64;
      }
      if (nb == 0) break;
      seg = p = b;  // n == 0 here: na is a multiple of 64
      n = nb;
      nb = 0;
    }
    const __m128i k128 = constants(kFold128);
    x0 = fold(x0, k128, x1);
    x0 = fold(x0, k128, x2);
    x0 = fold(x0, k128, x3);
  } else {
    p += 16;
    n -= 16;
  }
  return pclmul_finish(x0, p, n, seg);
}

MRC_PCLMUL std::uint32_t pclmul_update(std::uint32_t r, const std::uint8_t* p, std::size_t n) {
  return pclmul_update2(r, p, n, p, 0);
}

#endif  // MRC_CRC_HAVE_PCLMUL

// ---- engine choice, once per process ----------------------------------------------------------

using CrcUpdate = std::uint32_t (*)(std::uint32_t, const std::uint8_t*, std::size_t);
// Two pieces as one message; the first piece's length must be a multiple of 64 for the folding
// engine to run them in one pass (it falls back to two passes otherwise).
using CrcUpdate2 = std::uint32_t (*)(std::uint32_t, const std::uint8_t*, std::size_t,
                                     const std::uint8_t*, std::size_t);

std::uint32_t slice8_update2(std::uint32_t r, const std::uint8_t* a, std::size_t na,
                             const std::uint8_t* b, std::size_t nb) {
  return slice8_update(slice8_update(r, a, na), b, nb);
}

struct Engine {
  CrcUpdate update;
  CrcUpdate2 update2;
  const char* name;
};

Engine pick_engine() {
#if MRC_CRC_HAVE_PCLMUL
  __builtin_cpu_init();  // may run from another translation unit's static initializer
  if (__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1")) {
    return {&pclmul_update, &pclmul_update2, "pclmul"};
  }
#endif
  return {&slice8_update, &slice8_update2, "slice8"};
}

const Engine& engine() {
  static const Engine e = pick_engine();
  return e;
}

}  // namespace

std::uint32_t crc32(std::uint32_t crc, Bytes data) {
  return ~engine().update(~crc, data.data(), data.size());
}

const char* crc32_engine() { return engine().name; }

std::uint32_t crc32_portable(std::uint32_t crc, Bytes data) {
  return ~slice8_update(~crc, data.data(), data.size());
}

// Masks the variant fields of the first headers in a small stack copy, then continues the CRC over
// the rest of the packet in place. The copy is 64 or 128 bytes (whole 64-byte folding blocks) so
// the folding engine runs the copy and the rest as one pass. A span too short for its headers
// gets the masks that fall inside it; a version nibble other than 4 or 6 gets no IP masks. The
// decoder rejects such frames before it asks for an ICRC, so these rules only keep the function
// total.
std::uint32_t icrc_compute(Bytes ip) {
  constexpr std::size_t kIpv4MaxLen = 60;
  constexpr std::size_t kCopyMax = 128;
  static_assert(kIpv4MaxLen + kUdpLen + kBthLen <= kCopyMax);
  const unsigned version = ip.empty() ? 0u : ip[0] >> 4;
  std::size_t ip_len = kIpv6Len;
  if (version == 4) ip_len = std::max<std::size_t>(kIpv4MinLen, std::size_t{ip[0] & 0x0Fu} * 4);
  const std::size_t udp = ip_len;
  const std::size_t bth = udp + kUdpLen;
  const std::size_t masked_end = bth + kBthLen;

  std::uint8_t head[kCopyMax];
  std::size_t n = ip.size();
  if (n > kCopyMax) n = masked_end <= 64 ? 64 : kCopyMax;
  if (n > 0) std::memcpy(head, ip.data(), n);
  const auto set_ones = [&](std::size_t off, std::uint8_t bits) {
    if (off < n) head[off] |= bits;
  };
  if (version == 4) {
    set_ones(1, 0xFF);   // TOS (DSCP + ECN)
    set_ones(8, 0xFF);   // TTL
    set_ones(10, 0xFF);  // header checksum
    set_ones(11, 0xFF);
  } else if (version == 6) {
    set_ones(0, 0x0F);  // traffic class, high nibble
    set_ones(1, 0xFF);  // traffic class low nibble + flow label
    set_ones(2, 0xFF);
    set_ones(3, 0xFF);
    set_ones(7, 0xFF);  // hop limit
  }
  set_ones(udp + 6, 0xFF);  // UDP checksum
  set_ones(udp + 7, 0xFF);
  set_ones(bth + 4, 0xFF);  // BTH F/B/reserved byte

  return ~engine().update2(kIcrcPrefixRegister, head, n, ip.data() + n, ip.size() - n);
}

std::uint32_t icrc_read(const std::uint8_t* p) { return load32le(p); }

void icrc_write(std::uint8_t* p, std::uint32_t icrc) {
  p[0] = static_cast<std::uint8_t>(icrc);
  p[1] = static_cast<std::uint8_t>(icrc >> 8);
  p[2] = static_cast<std::uint8_t>(icrc >> 16);
  p[3] = static_cast<std::uint8_t>(icrc >> 24);
}

}  // namespace mrc::wire
