// RoCEv2 invariant CRC (IBA Annex A17; mrc-wire-model.md §2.5).
//
// CRC-32 (reflected 0x04C11DB7, init/xorout 0xFFFFFFFF) over: 8 x 0xFF (the stand-in LRH), the IP
// header with its variant fields masked to ones, the UDP header with checksum 0xFFFF, the BTH with
// byte 4 = 0xFF, then everything after the BTH up to the ICRC. For SRv6 (MODEL: M1) it covers the
// inner IPv6 packet only. On the wire the value is written least-significant byte first.
//
// The CRC engine is chosen once at run time, the fastest this CPU and OS can run: 512-bit
// VPCLMULQDQ folding (AVX-512), 128-bit PCLMULQDQ folding, or slice-by-8 tables. All give
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

// Which engine crc32() dispatches to on this machine: "vpclmul", "pclmul" or "slice8".
const char* crc32_engine();
// The portable engine, exposed so tests can compare both on the same input.
std::uint32_t crc32_portable(std::uint32_t crc, Bytes data);

// One CRC engine, callable directly so tests and benchmarks can run every engine on one input.
struct CrcEngine {
  const char* name;                                       // "vpclmul", "pclmul" or "slice8"
  std::uint32_t (*crc32)(std::uint32_t crc, Bytes data);  // same contract as crc32()
  std::uint32_t (*icrc)(Bytes ip);                        // same contract as icrc_compute()
};
// The engines this build has and this CPU/OS can run, fastest first. Element 0 is the one crc32()
// and icrc_compute() use; "slice8" is always there, last.
std::span<const CrcEngine> crc32_engines();
// The named engine when crc32_engines() has it, nullptr otherwise.
const CrcEngine* crc32_engine_by_name(std::string_view name);

// ICRC of a RoCEv2 packet. `ip` starts at the IPv4/IPv6 header the ICRC covers and runs to the
// first byte of the ICRC field (exclusive). Returns the CRC value (not byte-swapped).
std::uint32_t icrc_compute(Bytes ip);

// Read / write the 4 ICRC bytes in wire order (least-significant byte first).
std::uint32_t icrc_read(const std::uint8_t* p);
void icrc_write(std::uint8_t* p, std::uint32_t icrc);

}  // namespace mrc::wire
