// The link types a capture may come in, and how each becomes the Ethernet frame the wire decoder
// reads (reference/wire/frame.hpp starts at an Ethernet header).
//
// A tap on a real interface gives Ethernet; `tcpdump -i any` gives Linux cooked captures (SLL v1,
// and SLL2 since libpcap 1.10); tools that capture at L3 give raw IPv4/IPv6. Each is rewritten to
// Ethernet once, when the file is read: dst MAC 00:00:00:00:00:00 (a cooked header does not keep
// it), src MAC the cooked header's sender address when it is 6 bytes long (else zero), EtherType
// the cooked header's protocol (for raw IP: from the link type, or the IP version nibble). The
// bytes after the link header are kept as they are. Any other link type is refused.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mrc::harness {

// LINKTYPE_* values as pcap and pcapng files carry them (tcpdump.org/linktypes.html).
inline constexpr int kLinkEthernet = 1;
inline constexpr int kLinkRaw = 101;
inline constexpr int kLinkLinuxSll = 113;
inline constexpr int kLinkIpv4 = 228;
inline constexpr int kLinkIpv6 = 229;
inline constexpr int kLinkLinuxSll2 = 276;

inline constexpr std::size_t kSllHeaderLen = 16;
inline constexpr std::size_t kSll2HeaderLen = 20;

// A human name for a link type ("Linux cooked v2 (SLL2)"), or "" when read_capture() refuses it.
std::string link_type_name(int linktype);

// Rewrites one packet of `linktype` as an Ethernet frame into `out` (which keeps its capacity
// between calls). Returns "" on success, else why the packet cannot be (shorter than its link
// header). `linktype` must be one link_type_name() names.
std::string to_ethernet(int linktype, std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out);

// The packet as Ethernet into `out`: an Ethernet capture's bytes as they are (no copy), others
// rewritten through `eth` (to_ethernet). "" or why not.
std::string ethernet_view(int linktype, std::span<const std::uint8_t> in, std::vector<std::uint8_t>& eth,
                          std::span<const std::uint8_t>& out);

// What a refusal of another link type says the suite reads.
std::string supported_link_types();

// Bytes the link header of one packet of `linktype` takes beyond Ethernet's 14 (negative: fewer),
// for the on-the-wire length of a packet the tap truncated.
long link_header_delta(int linktype);

}  // namespace mrc::harness
