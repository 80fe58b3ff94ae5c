// RoCEv2 invariant CRC (IBA Annex A17; mrc-wire-model.md §2.5).
//
// CRC-32 (reflected 0x04C11DB7, init/xorout 0xFFFFFFFF) over: 8 x 0xFF (the stand-in LRH), the IP
// header with its variant fields masked to ones, the UDP header with checksum 0xFFFF, the BTH with
// byte 4 = 0xFF, then everything after the BTH up to the ICRC. For SRv6 (W1) it covers the
// inner IPv6 packet only. On the wire the value is written least-significant byte first.
//
// The CRC engine is chosen once at run time, the fastest this CPU and OS can run: 512-bit
// VPCLMULQDQ folding (AVX-512), 256-bit VPCLMULQDQ folding (AVX2), 128-bit PCLMULQDQ folding, or
// slice-by-8 tables. All give
// identical results (tested engine against engine).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "reference/wire/headers.hpp"

namespace mrc::wire {

// Plain CRC-32 (zlib crc32 semantics) continuing from `crc` (pass 0 to start).
std::uint32_t crc32(std::uint32_t crc, Bytes data);

// Which engine crc32() dispatches to on this machine: "vpclmul", "vpclmul256", "pclmul" or "slice8".
const char* crc32_engine();
// The portable engine, exposed so tests can compare both on the same input.
std::uint32_t crc32_portable(std::uint32_t crc, Bytes data);

// icrc_compute_split()'s two results.
struct IcrcSplit {
  std::uint32_t icrc = 0;         // icrc_compute(ip)
  std::uint32_t payload_crc = 0;  // crc32(0, the payload)
};

// One CRC engine, callable directly so tests and benchmarks can run every engine on one input.
struct CrcEngine {
  const char* name;                                       // "vpclmul", "vpclmul256", "pclmul", "slice8"
  std::uint32_t (*crc32)(std::uint32_t crc, Bytes data);  // same contract as crc32()
  std::uint32_t (*icrc)(Bytes ip);                        // same contract as icrc_compute()
  IcrcSplit (*icrc_split)(Bytes ip, std::size_t payload_off, std::size_t payload_len);  // icrc_compute_split()
};
// The engines this build has and this CPU/OS can run, fastest first. Element 0 is the one crc32()
// and icrc_compute() use; "slice8" is always there, last.
std::span<const CrcEngine> crc32_engines();
// The named engine when crc32_engines() has it, nullptr otherwise.
const CrcEngine* crc32_engine_by_name(std::string_view name);

// ICRC of a RoCEv2 packet. `ip` starts at the IPv4/IPv6 header the ICRC covers and runs to the
// first byte of the ICRC field (exclusive). Returns the CRC value (not byte-swapped).
std::uint32_t icrc_compute(Bytes ip);

// The ICRC of `ip` and the plain CRC-32 of the payload inside it (ip[payload_off, +payload_len)),
// reading the payload once: for the diff, whose per-packet payload digest is that CRC. The payload
// must lie inside `ip`; it is normally everything between the transport headers and the pad.
IcrcSplit icrc_compute_split(Bytes ip, std::size_t payload_off, std::size_t payload_len);

// The raw CRC-32 register `reg` advanced over n zero bytes (reg * x^(8n) mod P), in a few
// multiplies for any n: what joins the CRCs of two parts of one message.
std::uint32_t crc32_shift(std::uint32_t reg, std::size_t n);

// Read / write the 4 ICRC bytes in wire order (least-significant byte first). icrc_read is inline:
// decode_frame() reads one per packet.
inline std::uint32_t icrc_read(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}
void icrc_write(std::uint8_t* p, std::uint32_t icrc);

}  // namespace mrc::wire
