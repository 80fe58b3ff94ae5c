// RoCEv2 invariant CRC (IBA Annex A17; mrc-wire-model.md §2.5).
//
// CRC-32 (reflected 0x04C11DB7, init/xorout 0xFFFFFFFF) over: 8 x 0xFF (the stand-in LRH), the IP
// header with its variant fields masked to ones, the UDP header with checksum 0xFFFF, the BTH with
// byte 4 = 0xFF, then everything after the BTH up to the ICRC. For SRv6 (MODEL: M1) it covers the
// inner IPv6 packet only. On the wire the value is written least-significant byte first.
//
// The CRC engine is chosen once at run time: carry-less multiply (PCLMULQDQ) folding where the CPU
// has it, slice-by-8 tables otherwise. Both give identical results (tested).
#pragma once

#include <cstddef>
#include <cstdint>

#include "reference/wire/headers.hpp"

namespace mrc::wire {

// Plain CRC-32 (zlib crc32 semantics) continuing from `crc` (pass 0 to start).
std::uint32_t crc32(std::uint32_t crc, Bytes data);

// Which engine crc32() dispatches to on this machine: "pclmul" or "slice8".
const char* crc32_engine();
// The portable engine, exposed so tests can compare both on the same input.
std::uint32_t crc32_portable(std::uint32_t crc, Bytes data);

// ICRC of a RoCEv2 packet. `ip` starts at the IPv4/IPv6 header the ICRC covers and runs to the
// first byte of the ICRC field (exclusive). Returns the CRC value (not byte-swapped).
std::uint32_t icrc_compute(Bytes ip);

// Read / write the 4 ICRC bytes in wire order (least-significant byte first).
std::uint32_t icrc_read(const std::uint8_t* p);
void icrc_write(std::uint8_t* p, std::uint32_t icrc);

}  // namespace mrc::wire
