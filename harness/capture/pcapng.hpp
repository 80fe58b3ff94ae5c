// pcapng files with nanosecond timestamps: the format of every evidence file and golden.
//
// The writer is our own (libpcap writes only classic pcap); it emits a Section Header Block, one
// Interface Description Block with if_tsresol = 9 (ns) and if_name = the tap, and one Enhanced
// Packet Block per packet. It writes no host name, OS or wall-clock time, so the same capture
// always gives the same bytes. The reader goes through libpcap, so every file we write is proved
// readable by a third-party parser (tests/harness/capture/).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "harness/observe/capture.hpp"

namespace mrc::harness {

inline constexpr std::uint16_t kLinktypeEthernet = 1;

// Writes the whole capture. Returns "" on success, otherwise an error naming the file.
std::string write_pcapng(const std::filesystem::path& path, const Capture& cap,
                         std::uint16_t linktype = kLinktypeEthernet);

// The same bytes write_pcapng() would put in a file.
std::string pcapng_bytes(const Capture& cap, std::uint16_t linktype = kLinktypeEthernet);

// Reads a pcapng or classic pcap file (any timestamp precision, scaled to ns). Ethernet, Linux
// cooked v1/v2 and raw IPv4/IPv6 captures are stored as Ethernet frames (link_layer.hpp); any
// other link type is an error naming the file, the interface and the link type. Returns "" on
// success, otherwise an error naming the file and, for a damaged record, the packet index.
std::string read_capture(const std::filesystem::path& path, Capture& out);

}  // namespace mrc::harness
