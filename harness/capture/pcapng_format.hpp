// pcapng block types and option codes, shared by the evidence writer (pcapng.cpp) and the reader
// (pcapng_read.cpp). Values from the pcapng specification (IETF draft-ietf-opsawg-pcapng).
#pragma once

#include <cstdint>
#include <string_view>

namespace mrc::harness::pcapng_format {

inline constexpr std::uint32_t kShb = 0x0A0D0D0A;             // section header block
inline constexpr std::uint32_t kIdb = 0x00000001;             // interface description block
inline constexpr std::uint32_t kObsoletePacket = 0x00000002;  // packet block (obsolete)
inline constexpr std::uint32_t kSpb = 0x00000003;             // simple packet block
inline constexpr std::uint32_t kEpb = 0x00000006;             // enhanced packet block
inline constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;

inline constexpr std::uint16_t kOptEnd = 0;
inline constexpr std::uint16_t kOptComment = 1;        // any block
inline constexpr std::uint16_t kOptIfName = 2;         // IDB
inline constexpr std::uint16_t kOptIfDescription = 3;  // IDB
inline constexpr std::uint16_t kOptIfTsresol = 9;      // IDB
inline constexpr std::uint16_t kOptIfTsoffset = 14;    // IDB
inline constexpr std::uint16_t kOptEpbFlags = 2;       // EPB

// Ours: a packet's port time (CapturedPacket::port, observe/port_time.hpp) travels as its
// opt_comment, which Wireshark shows and the reader takes back: this prefix, then the
// CLOCK_REALTIME ns in decimal, then for a frame to the DUT "+" and the span of the send in ns,
// for one from the DUT kEntryComment and its entry delay in ns (PortTime::entry_ns), when not 0:
// "mrc.port_ns=1764680000123456789 entry_ns=2201000".
inline constexpr std::string_view kPortTimeComment = "mrc.port_ns=";
inline constexpr std::string_view kEntryComment = " entry_ns=";

}  // namespace mrc::harness::pcapng_format
