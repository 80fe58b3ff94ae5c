// CRC-32 engine choice and the RoCEv2 ICRC recipe (icrc.hpp). The engines themselves are in
// crc32_engines.hpp (slice-by-8) and crc32_clmul.cpp (PCLMULQDQ, VPCLMULQDQ).
#include "reference/wire/icrc.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <string_view>

#include "reference/wire/crc32_engines.hpp"

namespace mrc::wire {

namespace crc_engine {

std::uint32_t slice8_update_masked(std::uint32_t r, const std::uint8_t* p, std::size_t n,
                                   const std::uint8_t* mask, std::size_t mask_len) {
  std::uint8_t head[128];
  for (std::size_t i = 0; i < mask_len; ++i) head[i] = p[i] | mask[i];
  return slice8_update(slice8_update(r, head, mask_len), p + mask_len, n - mask_len);
}

}  // namespace crc_engine

namespace {

namespace ce = crc_engine;

// The register after the 8 x 0xFF stand-in LRH, from the standard initial value.
constexpr std::uint32_t prefix_register() {
  const std::uint8_t ones[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  return ce::slice8_update(0xFFFFFFFFu, ones, sizeof ones);
}
constexpr std::uint32_t kIcrcPrefixRegister = prefix_register();
// mrc-wire-model.md §2.5 quotes this register value (rxe seeds its ICRC with it).
static_assert(kIcrcPrefixRegister == 0xDEBB20E3u);

// ---- the ICRC's masked header bytes -----------------------------------------------------------
//
// The variant fields are "set to ones": OR masks over the first bytes of the covered span. They
// depend only on the first byte (IP version and IPv4 header length), so every mask is built here
// at compile time. A version nibble other than 4 or 6 gets no IP masks (and the IPv6 offsets for
// UDP and BTH); an IPv4 IHL below 5 gets the masks of IHL 5. The decoder rejects such frames before
// it asks for an ICRC, so these rules only keep icrc_compute() total.
constexpr std::size_t kMaskMax = 128;  // bytes any mask can reach: 60 (IPv4 + options) + 8 + 12

struct HeadMask {
  std::array<std::uint8_t, kMaskMax> bytes{};
  // How many bytes the folding engines OR with `bytes`: whole 64-byte blocks covering the masks.
  std::size_t len = 0;
  std::size_t reach = 0;  // one past the last masked byte: a split there leaves the rest unmasked
};

constexpr HeadMask make_head_mask(unsigned version, std::size_t ip_len) {
  HeadMask m;
  auto& b = m.bytes;
  if (version == 4) {
    b[1] = 0xFF;   // TOS (DSCP + ECN)
    b[8] = 0xFF;   // TTL
    b[10] = 0xFF;  // header checksum
    b[11] = 0xFF;
  } else if (version == 6) {
    b[0] = 0x0F;  // traffic class, high nibble
    b[1] = 0xFF;  // traffic class low nibble + flow label
    b[2] = 0xFF;
    b[3] = 0xFF;
    b[7] = 0xFF;  // hop limit
  }
  const std::size_t udp = ip_len;
  const std::size_t bth = udp + kUdpLen;
  b[udp + 6] = 0xFF;  // UDP checksum
  b[udp + 7] = 0xFF;
  b[bth + 4] = 0xFF;  // BTH F/B/reserved byte
  m.len = bth + kBthLen <= 64 ? 64 : 128;
  m.reach = bth + 5;
  return m;
}

// [0..15]: IPv4 by IHL nibble; [16]: IPv6; [17]: any other version.
constexpr std::array<HeadMask, 18> make_head_masks() {
  std::array<HeadMask, 18> masks{};
  for (std::size_t ihl = 0; ihl < 16; ++ihl) {
    masks[ihl] = make_head_mask(4, std::max<std::size_t>(kIpv4MinLen, ihl * 4));
  }
  masks[16] = make_head_mask(6, kIpv6Len);
  masks[17] = make_head_mask(0, kIpv6Len);
  return masks;
}
constexpr std::array<HeadMask, 18> kHeadMasks = make_head_masks();
static_assert(kHeadMasks[16].len == 64 && kHeadMasks[5].len == 64 && kHeadMasks[15].len == 128);

const HeadMask& head_mask(std::uint8_t first_byte) {
  const unsigned version = first_byte >> 4u;
  if (version == 4) return kHeadMasks[first_byte & 0x0Fu];
  return kHeadMasks[version == 6 ? 16 : 17];
}

using Update = std::uint32_t (*)(std::uint32_t, const std::uint8_t*, std::size_t);
using UpdateMasked = std::uint32_t (*)(std::uint32_t, const std::uint8_t*, std::size_t,
                                       const std::uint8_t*, std::size_t);

// A span at least as long as its mask blocks (64 or 128 bytes) is CRC'd in place, the engine
// ORing the masks in as it loads the first blocks. A shorter one (too short for its headers, or a
// small header stack) is masked in a small copy; a mask byte past its end has no effect.
// The register (not yet inverted) after the prefix and the masked span.
template <Update U, UpdateMasked M>
std::uint32_t icrc_register(Bytes ip) {
  const std::size_t n = ip.size();
  if (n == 0) return kIcrcPrefixRegister;
  const HeadMask& mask = head_mask(ip[0]);
  if (n >= mask.len) return M(kIcrcPrefixRegister, ip.data(), n, mask.bytes.data(), mask.len);
  std::uint8_t head[kMaskMax];
  for (std::size_t i = 0; i < n; ++i) head[i] = ip[i] | mask.bytes[i];
  return U(kIcrcPrefixRegister, head, n);
}

template <Update U, UpdateMasked M>
std::uint32_t icrc_with(Bytes ip) {
  return ~icrc_register<U, M>(ip);
}

template <Update U>
std::uint32_t crc32_with(std::uint32_t crc, Bytes data) {
  return ~U(~crc, data.data(), data.size());
}

// The payload is read once: its own CRC (zlib form, initial register all ones) continues the
// header's register by linearity, R(h, P) = shift(h ^ ~0, |P|) ^ R(~0, P), then the bytes after it.
template <Update U, UpdateMasked M, ce::Clmul32 C>
IcrcSplit icrc_split_with(Bytes ip, std::size_t payload_off, std::size_t payload_len) {
  if (ip.empty() || payload_off < head_mask(ip[0]).reach) {  // a mask would reach the payload
    return {icrc_with<U, M>(ip), crc32_with<U>(0, ip.subspan(payload_off, payload_len))};
  }
  const std::uint32_t head = icrc_register<U, M>(ip.first(payload_off));
  const std::uint32_t payload = U(0xFFFFFFFFu, ip.data() + payload_off, payload_len);
  std::uint32_t r = ce::shift_register<C>(head ^ 0xFFFFFFFFu, payload_len) ^ payload;
  const std::size_t after = payload_off + payload_len;
  r = U(r, ip.data() + after, ip.size() - after);
  return {~r, ~payload};
}

// ---- engine choice, once per process ----------------------------------------------------------

constexpr CrcEngine kSlice8{"slice8", &crc32_with<&ce::slice8_update>,
                            &icrc_with<&ce::slice8_update, &ce::slice8_update_masked>,
                            &icrc_split_with<&ce::slice8_update, &ce::slice8_update_masked, &ce::clmul32_portable>};
#if MRC_CRC_HAVE_CLMUL
constexpr CrcEngine kPclmul{"pclmul", &crc32_with<&ce::pclmul_update>,
                            &icrc_with<&ce::pclmul_update, &ce::pclmul_update_masked>,
                            &icrc_split_with<&ce::pclmul_update, &ce::pclmul_update_masked, &ce::pclmul_clmul32>};
constexpr CrcEngine kVpclmul256{"vpclmul256", &crc32_with<&ce::vpclmul256_update>,
                                &icrc_with<&ce::vpclmul256_update, &ce::vpclmul256_update_masked>,
                                &icrc_split_with<&ce::vpclmul256_update, &ce::vpclmul256_update_masked, &ce::pclmul_clmul32>};
constexpr CrcEngine kVpclmul{"vpclmul", &crc32_with<&ce::vpclmul_update>,
                             &icrc_with<&ce::vpclmul_update, &ce::vpclmul_update_masked>,
                             &icrc_split_with<&ce::vpclmul_update, &ce::vpclmul_update_masked, &ce::pclmul_clmul32>};
#endif

struct EngineList {
  std::array<CrcEngine, 4> items{};
  std::size_t count = 0;
};

EngineList detect_engines() {
  EngineList l;
#if MRC_CRC_HAVE_CLMUL
  if (ce::vpclmul_runnable()) l.items[l.count++] = kVpclmul;
  if (ce::vpclmul256_runnable()) l.items[l.count++] = kVpclmul256;
  if (ce::pclmul_runnable()) l.items[l.count++] = kPclmul;
#endif
  l.items[l.count++] = kSlice8;
  return l;
}

// A function-local static: crc32() may run from another translation unit's static initializer.
const EngineList& engine_list() {
  static const EngineList l = detect_engines();
  return l;
}

// The per-call path: one load and a well-predicted branch instead of a call into the guarded
// static above (which costs about a nanosecond per ICRC). Set once, by whichever thread gets
// there first; every thread stores the same pointer.
constinit std::atomic<const CrcEngine*> g_best_engine{nullptr};

[[gnu::noinline]] const CrcEngine& first_use_engine() {
  const CrcEngine& e = engine_list().items[0];
  g_best_engine.store(&e, std::memory_order_release);
  return e;
}

inline const CrcEngine& best_engine() {
  const CrcEngine* e = g_best_engine.load(std::memory_order_acquire);
  return e != nullptr ? *e : first_use_engine();
}

}  // namespace

std::uint32_t crc32(std::uint32_t crc, Bytes data) { return best_engine().crc32(crc, data); }

const char* crc32_engine() { return best_engine().name; }

std::uint32_t crc32_portable(std::uint32_t crc, Bytes data) {
  return crc32_with<&ce::slice8_update>(crc, data);
}

std::span<const CrcEngine> crc32_engines() {
  const EngineList& l = engine_list();
  return {l.items.data(), l.count};
}

const CrcEngine* crc32_engine_by_name(std::string_view name) {
  for (const CrcEngine& e : crc32_engines()) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

std::uint32_t icrc_compute(Bytes ip) { return best_engine().icrc(ip); }

IcrcSplit icrc_compute_split(Bytes ip, std::size_t payload_off, std::size_t payload_len) {
  return best_engine().icrc_split(ip, payload_off, payload_len);
}

std::uint32_t crc32_shift(std::uint32_t reg, std::size_t n) {
#if MRC_CRC_HAVE_CLMUL
  if (std::string_view(best_engine().name) != "slice8") return ce::shift_register<&ce::pclmul_clmul32>(reg, n);
#endif
  return ce::shift_register<&ce::clmul32_portable>(reg, n);
}

void icrc_write(std::uint8_t* p, std::uint32_t icrc) {
  p[0] = static_cast<std::uint8_t>(icrc);
  p[1] = static_cast<std::uint8_t>(icrc >> 8);
  p[2] = static_cast<std::uint8_t>(icrc >> 16);
  p[3] = static_cast<std::uint8_t>(icrc >> 24);
}

}  // namespace mrc::wire
