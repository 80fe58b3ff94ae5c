// CRC-32 engines and the RoCEv2 ICRC recipe (mrc-wire-model.md §2.5, W19).
#include "reference/wire/icrc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace mrc::wire {
namespace {

using ByteVec = std::vector<std::uint8_t>;

Bytes as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

ByteVec from_hex(std::string_view hex) {
  ByteVec out;
  auto nibble = [](char c) -> std::uint8_t {
    if (c >= '0' && c <= '9') return static_cast<std::uint8_t>(c - '0');
    return static_cast<std::uint8_t>(c - 'a' + 10);
  };
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  return out;
}

// Bit-at-a-time CRC-32 straight from the definition: independent of both engines' tables and
// folding constants.
std::uint32_t crc32_bitwise(std::uint32_t crc, Bytes data) {
  std::uint32_t r = ~crc;
  for (std::uint8_t b : data) {
    r ^= b;
    for (int i = 0; i < 8; ++i) r = (r & 1u) ? (r >> 1) ^ 0xEDB88320u : r >> 1;
  }
  return ~r;
}

// The copy-then-CRC form of the §2.5 recipe, written out field by field, to check the in-place
// implementation against.
std::uint32_t icrc_by_copy(Bytes ip) {
  ByteVec m(ip.begin(), ip.end());
  std::size_t ip_len = 40;
  if ((m[0] >> 4) == 4) {
    ip_len = (m[0] & 0x0Fu) * 4u;
    m[1] = 0xFF;
    m[8] = 0xFF;
    m[10] = m[11] = 0xFF;
  } else {
    m[0] |= 0x0F;
    m[1] = m[2] = m[3] = 0xFF;
    m[7] = 0xFF;
  }
  m[ip_len + 6] = m[ip_len + 7] = 0xFF;
  m[ip_len + 8 + 4] = 0xFF;
  const ByteVec lrh(8, 0xFF);
  return crc32_bitwise(crc32_bitwise(0, lrh), m);
}

// §2.5: IPv6, RC WRITE ONLY, 16-byte payload, no pad; ICRC 0x41FE4829.
constexpr std::string_view kVectorHex =
    "6681234500381140fd000000000000000000000000000001fd000000000000000000000000000002c0de12b700"
    "3800000a00ffff000001238000001000000000100000000000123400000010000102030405060708090a0b0c0d"
    "0e0f";

// An IPv4 RoCEv2 packet built by hand: IHL 5 (or 6 with one NOP option word), UDP, BTH WRITE
// ONLY, RETH, `payload` bytes counting up.
ByteVec ipv4_packet(bool with_option, std::size_t payload) {
  const std::size_t ihl = with_option ? 6 : 5;
  const std::size_t total = ihl * 4 + 8 + 12 + 16 + payload + 4;
  ByteVec p;
  p.push_back(static_cast<std::uint8_t>(0x40 | ihl));
  p.push_back(0x28);  // DSCP 10, not-ECT
  p.push_back(static_cast<std::uint8_t>(total >> 8));
  p.push_back(static_cast<std::uint8_t>(total));
  for (std::uint8_t b : {0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0xAB, 0xCD, 10, 0, 0, 1, 10, 0, 0, 2}) {
    p.push_back(b);
  }
  if (with_option) p.insert(p.end(), {1, 1, 1, 0});  // NOP NOP NOP EOL
  const std::size_t udp_len = total - ihl * 4;
  for (std::uint8_t b : {0xC0, 0x11, 0x12, 0xB7}) p.push_back(b);
  p.push_back(static_cast<std::uint8_t>(udp_len >> 8));
  p.push_back(static_cast<std::uint8_t>(udp_len));
  p.insert(p.end(), {0x00, 0x00});                                          // UDP checksum
  p.insert(p.end(), {0x0A, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x01, 0x23, 0x80, 0x00, 0x00, 0x10});
  p.insert(p.end(), {0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 0,
                     static_cast<std::uint8_t>(payload)});
  for (std::size_t i = 0; i < payload; ++i) p.push_back(static_cast<std::uint8_t>(i));
  return p;  // without the ICRC
}

TEST(Crc32, ZlibCheckValue) {
  EXPECT_EQ(crc32(0, as_bytes("123456789")), 0xCBF43926u);
  EXPECT_EQ(crc32_portable(0, as_bytes("123456789")), 0xCBF43926u);
  EXPECT_EQ(crc32_bitwise(0, as_bytes("123456789")), 0xCBF43926u);
  EXPECT_EQ(crc32(0, {}), 0u);
  EXPECT_EQ(crc32(0x12345678u, {}), 0x12345678u);
}

// The engines the CPU and OS allow, fastest first, from the CPU's own feature report.
std::vector<std::string> expected_engines() {
  std::vector<std::string> names;
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool pclmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  // The compiler runtime reports the AVX-512 features only when XCR0 says the OS saves them.
  const bool vpclmul = pclmul && __builtin_cpu_supports("avx2") &&
                       __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("vpclmulqdq");
  if (vpclmul) names.emplace_back("vpclmul");
  if (pclmul && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq")) names.emplace_back("vpclmul256");
  if (pclmul) names.emplace_back("pclmul");
#endif
  names.emplace_back("slice8");
  return names;
}

TEST(Crc32, EngineIsChosenFromTheCpu) {
  const std::vector<std::string> want = expected_engines();
  std::vector<std::string> got;
  for (const CrcEngine& e : crc32_engines()) got.emplace_back(e.name);
  EXPECT_EQ(got, want);
  EXPECT_EQ(std::string(crc32_engine()), want.front());
  for (const std::string& name : want) {
    const CrcEngine* e = crc32_engine_by_name(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(std::string(e->name), name);
  }
  EXPECT_EQ(crc32_engine_by_name("no-such-engine"), nullptr);
  EXPECT_EQ(crc32_engine_by_name(""), nullptr);
}

TEST(Crc32, EveryEngineAgreesOnRandomBuffers) {
  // Lengths 0..9000 at every alignment mod 64 and random seeds, each engine against slice8 (the
  // portable engine, itself checked against the bitwise definition below).
  std::mt19937_64 rng(0x1C4C'2026);
  ByteVec pool(9000 + 64);
  for (auto& b : pool) b = static_cast<std::uint8_t>(rng());
  std::uniform_int_distribution<std::size_t> len_dist(0, 9000);
  std::uniform_int_distribution<std::size_t> align_dist(0, 63);
  const auto engines = crc32_engines();
  std::vector<int> mismatches(engines.size(), 0);
  for (int i = 0; i < 12000; ++i) {
    // Short lengths are where the engines switch paths; give them extra weight.
    std::size_t len = len_dist(rng);
    if (i % 4 == 0) len %= 600;
    const std::size_t off = align_dist(rng);
    const Bytes data(pool.data() + off, len);
    const auto seed = static_cast<std::uint32_t>(rng());
    const std::uint32_t want = crc32_portable(seed, data);
    for (std::size_t k = 0; k < engines.size(); ++k) {
      if (engines[k].crc32(seed, data) != want) ++mismatches[k];
    }
    if (crc32(seed, data) != want) ++mismatches[0];
    pool[off + len / 2] ^= static_cast<std::uint8_t>(rng());  // keep the contents moving
  }
  for (std::size_t k = 0; k < engines.size(); ++k) {
    EXPECT_EQ(mismatches[k], 0) << engines[k].name;
  }
}

TEST(Crc32, EveryEngineMatchesTheBitwiseDefinition) {
  std::mt19937_64 rng(7);
  ByteVec buf(4200);
  for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
  for (const CrcEngine& e : crc32_engines()) {
    for (std::size_t len = 0; len <= 600; ++len) {
      const Bytes data(buf.data() + (len % 61), len);
      const auto seed = static_cast<std::uint32_t>(len * 0x9E3779B9u);
      ASSERT_EQ(e.crc32(seed, data), crc32_bitwise(seed, data)) << e.name << " len " << len;
    }
    for (std::size_t len : {1024u, 1087u, 1100u, 2048u, 2099u, 4096u, 4159u}) {
      const Bytes data(buf.data() + 3, len);
      EXPECT_EQ(e.crc32(0xA5A5A5A5u, data), crc32_bitwise(0xA5A5A5A5u, data))
          << e.name << " len " << len;
    }
  }
  EXPECT_EQ(crc32(0, Bytes(buf)), crc32_bitwise(0, Bytes(buf)));
  EXPECT_EQ(crc32_portable(0, Bytes(buf)), crc32_bitwise(0, Bytes(buf)));
}

TEST(Crc32, ContinuesAcrossSplits) {
  std::mt19937_64 rng(11);
  ByteVec buf(5000);
  for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
  const std::uint32_t whole = crc32(0, buf);
  for (std::size_t cut : {0u, 1u, 15u, 16u, 63u, 64u, 65u, 1000u, 4999u, 5000u}) {
    const Bytes all(buf);
    EXPECT_EQ(crc32(crc32(0, all.first(cut)), all.subspan(cut)), whole) << "cut " << cut;
  }
}

TEST(Icrc, PrefixRegisterIsDEBB20E3) {
  const ByteVec lrh(8, 0xFF);
  // crc32() returns the register inverted; the register itself is the documented seed.
  EXPECT_EQ(~crc32(0, lrh), 0xDEBB20E3u);
  // An empty span is the prefix alone.
  EXPECT_EQ(icrc_compute({}), crc32(0, lrh));
}

TEST(Icrc, WireModelVector) {
  const ByteVec pkt = from_hex(kVectorHex);
  ASSERT_EQ(pkt.size(), 40u + 8 + 12 + 16 + 16);
  EXPECT_EQ(icrc_compute(pkt), 0x41FE4829u);
  EXPECT_EQ(icrc_by_copy(pkt), 0x41FE4829u);
  for (const CrcEngine& e : crc32_engines()) EXPECT_EQ(e.icrc(pkt), 0x41FE4829u) << e.name;
  std::array<std::uint8_t, 4> wire{};
  icrc_write(wire.data(), 0x41FE4829u);
  EXPECT_EQ(wire, (std::array<std::uint8_t, 4>{0x29, 0x48, 0xFE, 0x41}));
  EXPECT_EQ(icrc_read(wire.data()), 0x41FE4829u);
}

TEST(Icrc, Ipv6MaskedFieldsDoNotChangeIt) {
  const ByteVec base = from_hex(kVectorHex);
  const std::uint32_t want = icrc_compute(base);
  auto with = [&](std::size_t off, std::uint8_t xor_bits) {
    ByteVec p = base;
    p[off] ^= xor_bits;
    return icrc_compute(p);
  };
  EXPECT_EQ(with(0, 0x0F), want);   // traffic class, high nibble
  EXPECT_EQ(with(1, 0xF0), want);   // traffic class, low nibble (DSCP/ECN rewrite)
  EXPECT_EQ(with(1, 0x0F), want);   // flow label (STEV EV bits)
  EXPECT_EQ(with(2, 0xFF), want);
  EXPECT_EQ(with(3, 0x5A), want);
  EXPECT_EQ(with(7, 0x3F), want);   // hop limit
  EXPECT_EQ(with(46, 0xFF), want);  // UDP checksum
  EXPECT_EQ(with(47, 0x01), want);
  EXPECT_EQ(with(52, 0xC0), want);  // BTH byte 4 (F/B/reserved)

  EXPECT_NE(with(40, 0x01), want);  // UDP source port (the EV in STEV/UDP mode)
  EXPECT_NE(with(41, 0x80), want);
  EXPECT_NE(with(0, 0x10), want);   // version nibble is covered
  EXPECT_NE(with(5, 0x01), want);   // payload length
  EXPECT_NE(with(23, 0x02), want);  // source address
  EXPECT_NE(with(48, 0x01), want);  // BTH opcode
  EXPECT_NE(with(base.size() - 1, 0x01), want);  // last payload byte
}

TEST(Icrc, Ipv4MaskedFieldsDoNotChangeIt) {
  for (bool option : {false, true}) {
    const ByteVec base = ipv4_packet(option, 64);
    const std::uint32_t want = icrc_compute(base);
    EXPECT_EQ(want, icrc_by_copy(base)) << "option " << option;
    const std::size_t udp = option ? 24 : 20;
    auto with = [&](std::size_t off, std::uint8_t xor_bits) {
      ByteVec p = base;
      p[off] ^= xor_bits;
      return icrc_compute(p);
    };
    EXPECT_EQ(with(1, 0x07), want);        // TOS: DSCP 10 -> 11 trim rewrite, ECN -> CE
    EXPECT_EQ(with(8, 0x01), want);        // TTL decrement
    EXPECT_EQ(with(10, 0xFF), want);       // header checksum
    EXPECT_EQ(with(11, 0x10), want);
    EXPECT_EQ(with(udp + 6, 0xAA), want);  // UDP checksum
    EXPECT_EQ(with(udp + 7, 0x55), want);
    EXPECT_EQ(with(udp + 12, 0x40), want);  // BTH byte 4

    EXPECT_NE(with(udp, 0x01), want);      // UDP source port
    EXPECT_NE(with(udp + 1, 0x01), want);
    EXPECT_NE(with(4, 0x01), want);        // identification
    EXPECT_NE(with(15, 0x01), want);       // source address
    EXPECT_NE(with(udp + 8, 0x01), want);  // BTH opcode
    if (option) {
      EXPECT_NE(with(20, 0x01), want);  // options are covered
    }
  }
}

TEST(Icrc, ContinuesOverLongPayloadInPlace) {
  // A 4 KiB payload takes the folding path after the masked head; the copy-based form agrees.
  const ByteVec pkt = ipv4_packet(false, 200);
  ByteVec big = from_hex(kVectorHex);
  big.resize(big.size() + 4096 - 16);
  for (std::size_t i = 76; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7);
  EXPECT_EQ(icrc_compute(big), icrc_by_copy(big));
  EXPECT_EQ(icrc_compute(pkt), icrc_by_copy(pkt));
}

TEST(Icrc, InPlaceMatchesCopyAtEveryLength) {
  // Every engine, every split between the masked head blocks and the unmasked rest (including
  // rests shorter than one 16-byte block, and the switch from the copy to the in-place path past
  // 128 bytes), for IPv6 and for IPv4 with every header length.
  std::mt19937_64 rng(5);
  ByteVec v6 = from_hex(kVectorHex);
  v6.resize(600);
  for (std::size_t i = 76; i < v6.size(); ++i) v6[i] = static_cast<std::uint8_t>(rng());
  std::vector<ByteVec> v4s;
  for (std::uint8_t ihl = 5; ihl <= 15; ++ihl) {
    ByteVec v4(600);
    for (auto& b : v4) b = static_cast<std::uint8_t>(rng());
    v4[0] = static_cast<std::uint8_t>(0x40 | ihl);
    v4s.push_back(v4);
  }
  for (const CrcEngine& e : crc32_engines()) {
    for (std::size_t len = 60; len <= v6.size(); ++len) {
      const Bytes pkt(v6.data(), len);
      ASSERT_EQ(e.icrc(pkt), icrc_by_copy(pkt)) << e.name << " IPv6 length " << len;
    }
    for (const ByteVec& v4 : v4s) {
      const std::size_t ihl = v4[0] & 0x0Fu;
      for (std::size_t len = ihl * 4u + 20; len <= v4.size(); len += 3) {
        const Bytes pkt(v4.data(), len);
        ASSERT_EQ(e.icrc(pkt), icrc_by_copy(pkt)) << e.name << " IHL " << ihl << " length " << len;
      }
    }
  }
}

TEST(Icrc, EveryEngineAgreesOnRandomPackets) {
  // Long packets at random alignments, IPv6 and IPv4 with random header lengths (so 64- and
  // 128-byte masked heads), each engine against slice8.
  std::mt19937_64 rng(0x1C4C);
  ByteVec pool(9000 + 64);
  std::uniform_int_distribution<std::size_t> len_dist(0, 9000);
  const CrcEngine* portable = crc32_engine_by_name("slice8");
  ASSERT_NE(portable, nullptr);
  int mismatches = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::size_t off = rng() % 64;
    const std::size_t len = len_dist(rng);
    for (std::size_t k = off; k < off + len; k += 8) pool[k] = static_cast<std::uint8_t>(rng());
    pool[off] = (i % 2 == 0) ? static_cast<std::uint8_t>(0x60 | (rng() & 0x0F))
                             : static_cast<std::uint8_t>(0x40 | (5 + rng() % 11));
    const Bytes pkt(pool.data() + off, len);
    const std::uint32_t want = portable->icrc(pkt);
    for (const CrcEngine& e : crc32_engines()) {
      if (e.icrc(pkt) != want) {
        ++mismatches;
        ADD_FAILURE() << e.name << " length " << len << " offset " << off;
      }
    }
    if (icrc_compute(pkt) != want) ++mismatches;
    if (mismatches > 5) break;
  }
  EXPECT_EQ(mismatches, 0);
}

// The register after n zero bytes, one byte at a time: what crc32_shift must equal.
std::uint32_t shift_by_zeros(std::uint32_t reg, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    for (int b = 0; b < 8; ++b) reg = (reg & 1u) ? (reg >> 1) ^ 0xEDB88320u : reg >> 1;
  }
  return reg;
}

TEST(Crc32Shift, EqualsZeroBytesAtEveryTableBoundary) {
  // Every low-table entry, both sides of each high-table step, and past the largest one.
  std::mt19937_64 rng(0x5417);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n < 600; ++n) lengths.push_back(n);
  for (std::size_t n : {1023u, 1024u, 1025u, 9000u, 65279u, 65280u, 65281u, 65535u, 65536u, 65537u, 130561u, 200000u}) {
    lengths.push_back(n);
  }
  for (int i = 0; i < 40; ++i) lengths.push_back(rng() % 70000);
  for (std::size_t n : lengths) {
    const auto reg = static_cast<std::uint32_t>(rng());
    ASSERT_EQ(crc32_shift(reg, n), shift_by_zeros(reg, n)) << "n " << n;
  }
  EXPECT_EQ(crc32_shift(0, 12345), 0u);  // linear: zero stays zero
}

TEST(Icrc, SplitGivesTheIcrcAndThePayloadCrc) {
  // Every engine, IPv6 and IPv4 heads, payloads from empty to jumbo, 0-3 pad bytes after them,
  // and splits inside the masked head (where it falls back to two passes).
  std::mt19937_64 rng(0x5B17);
  ByteVec pool(9200);
  int checked = 0;
  for (const CrcEngine& e : crc32_engines()) {
    for (int i = 0; i < 600; ++i) {
      const bool v6 = i % 2 == 0;
      const std::size_t ihl = v6 ? 0 : 5 + rng() % 11;
      const std::size_t head_min = v6 ? 40 + 8 + 12 : ihl * 4 + 8 + 12;
      const std::size_t head = i % 10 == 9 ? rng() % head_min : head_min + rng() % 48;
      std::size_t payload = i % 7 == 0 ? rng() % 8 : rng() % 9000;
      if (head < head_min) payload = std::max(payload, head_min);  // the headers are still whole
      const std::size_t pad = rng() % 4;
      const std::size_t n = head + payload + pad;
      for (std::size_t k = 0; k < n; ++k) pool[k] = static_cast<std::uint8_t>(rng());
      pool[0] = v6 ? static_cast<std::uint8_t>(0x60 | (rng() & 0x0F)) : static_cast<std::uint8_t>(0x40 | ihl);
      const Bytes ip(pool.data(), n);
      const IcrcSplit got = e.icrc_split(ip, head, payload);
      ASSERT_EQ(got.icrc, icrc_by_copy(ip)) << e.name << " head " << head << " payload " << payload << " pad " << pad;
      ASSERT_EQ(got.payload_crc, crc32_bitwise(0, ip.subspan(head, payload)))
          << e.name << " head " << head << " payload " << payload;
      ++checked;
    }
  }
  EXPECT_GE(checked, 600);
  const ByteVec vec = from_hex(kVectorHex);  // the wire model's vector: 16 payload bytes, then 16 more
  const IcrcSplit s = icrc_compute_split(vec, 76, 16);
  EXPECT_EQ(s.icrc, 0x41FE4829u);
  EXPECT_EQ(s.payload_crc, crc32(0, Bytes(vec).subspan(76, 16)));
}

TEST(Icrc, ShortOrForeignInputStaysInBounds) {
  // Truncated headers and unknown versions are CRC'd as given, masks applied where they fit.
  const ByteVec base = from_hex(kVectorHex);
  for (std::size_t len = 0; len <= base.size(); ++len) {
    ByteVec exact(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(len));
    (void)icrc_compute(exact);  // ASan build: any read past `exact` fails here
  }
  const ByteVec v4_short = {0x45, 0x00, 0x00};
  const ByteVec masked = {0x45, 0xFF, 0x00};
  EXPECT_EQ(icrc_compute(v4_short), crc32(crc32(0, ByteVec(8, 0xFF)), masked));
  const ByteVec v0 = {0x05, 0x01, 0x02, 0x03};
  EXPECT_EQ(icrc_compute(v0), crc32(crc32(0, ByteVec(8, 0xFF)), v0));
  const ByteVec ihl_too_small = {0x41, 0x00, 0x00};  // IHL 1 is treated as 5 for the masks
  const ByteVec ihl_masked = {0x41, 0xFF, 0x00};
  EXPECT_EQ(icrc_compute(ihl_too_small), crc32(crc32(0, ByteVec(8, 0xFF)), ihl_masked));
}

}  // namespace
}  // namespace mrc::wire
