// pcapng files with nanosecond timestamps: the format of every evidence file and golden.
//
// The writer is our own (libpcap writes only classic pcap). A golden is one capture: a Section
// Header Block, one Interface Description Block (if_tsresol = 9, ns; if_name = the tap) and one
// Enhanced Packet Block per packet. A case's evidence is one file for all its taps
// (write_evidence_pcapng): one IDB per tap, named, described and with its direction, and the
// packets of every tap in one timestamp order. Neither writes a host name, OS or wall-clock time,
// so the same captures always give the same bytes. libpcap reads the files we write
// (tests/harness/capture/), and tshark reads the evidence files (tests/tools/wireshark/).
//
// The reader (capture_stream.hpp, which pcapng_read.cpp collects through) parses pcapng itself,
// since libpcap neither says which interface a packet came from nor reads interfaces of different
// link types; classic pcap goes through libpcap.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/observe/capture.hpp"

namespace mrc::harness {

inline constexpr std::uint16_t kLinktypeEthernet = 1;
// The snap length a file declares when frames are kept whole (Wireshark's own largest).
inline constexpr std::uint32_t kFullSnaplen = 262144;

// Writes `bytes` as the file `path` (its folder made if missing). A failed write (a full disk) leaves
// no torn file: it is removed. "" on success, else "<path>: <strerror>".
std::string write_whole_file(const std::filesystem::path& path, std::string_view bytes);

// Writes the whole capture. Returns "" on success, otherwise an error naming the file.
std::string write_pcapng(const std::filesystem::path& path, const Capture& cap,
                         std::uint16_t linktype = kLinktypeEthernet);

// The same bytes write_pcapng() would put in a file.
std::string pcapng_bytes(const Capture& cap, std::uint16_t linktype = kLinktypeEthernet);

// One interface of a multi-interface file: a tap and what it observes.
struct PcapngInterface {
  const Capture* capture = nullptr;
  std::string name;         // if_name, e.g. "dut.p3.tx"
  std::string description;  // if_description, e.g. "host 0 (DUT) port 3, transmit, plane 3"
  bool outbound = false;    // epb_flags direction of every packet: outbound (tx) or inbound (rx)
};

// (interface, packet index) in file order: by timestamp, equal timestamps by interface order then
// by packet order (a stable merge). The taps' packets must each be in timestamp order.
std::vector<std::pair<std::uint32_t, std::uint32_t>> merge_order(std::span<const PcapngInterface> ifaces);

// One file for every interface, packets in merge_order(). A packet longer than `snaplen` is cut
// to it and keeps its original length; every IDB declares `snaplen`.
std::string multi_pcapng_bytes(std::span<const PcapngInterface> ifaces, std::uint32_t snaplen);

// Writes multi_pcapng_bytes() to `path`. On a failed write (disk full, ...) the partial file is
// removed; returns "" on success, else "<path>: <strerror>".
std::string write_multi_pcapng(const std::filesystem::path& path, std::span<const PcapngInterface> ifaces,
                               std::uint32_t snaplen);

// One interface of a file as read: its name ("" when the IDB has none) and its packets (as
// Ethernet), with each packet's index in the whole file (frame number - 1).
struct ReadInterface {
  std::string name;
  Capture capture;
  std::vector<std::uint32_t> file_index;
};

// Reads every interface of a pcapng or classic pcap file (a classic pcap is one interface, named
// after the file's stem). Timestamps in ns whatever the resolution. Ethernet, Linux cooked v1/v2
// and raw IPv4/IPv6 interfaces are stored as Ethernet frames (link_layer.hpp); any other link type
// is an error naming the file, the interface and the link type. Returns "" on success, otherwise
// an error naming the file and, for a damaged record, the packet index.
std::string read_capture_file(const std::filesystem::path& path, std::vector<ReadInterface>& out);

// Reads a file of one interface into `out` (tap = the file's stem). A file of several interfaces
// is an error listing their names (pick one with read_capture_file()).
std::string read_capture(const std::filesystem::path& path, Capture& out);

// "frame.number == K[ && rest]" with K replaced by `index` + 1 (the rest kept); a filter that
// does not start with a frame number gets one in front.
std::string retarget_frame_filter(const std::string& filter, std::int64_t index);

}  // namespace mrc::harness
