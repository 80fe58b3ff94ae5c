// SRv6 uSID (NEXT-CSID, RFC 9800) container arithmetic, as switches in the fabric apply it.
#pragma once

#include <cstdint>

#include "reference/wire/headers.hpp"

namespace mrc::wire {

// The uSID layout MRC's examples use: a 32-bit locator block and 16-bit uSIDs, 6 per container.
struct UsidLayout {
  unsigned block_bits = 32;
  unsigned usid_bits = 16;
};

// The active uSID: the one right after the block.
std::uint32_t usid_active(const Ipv6Addr& da, const UsidLayout& l = {});
// True when everything after the active uSID is zero (End-of-Carrier after this hop).
bool usid_end_of_carrier(const Ipv6Addr& da, const UsidLayout& l = {});
// uN shift: move the argument (bits after the active uSID) left by one uSID, zero-fill the tail.
void usid_shift(Ipv6Addr& da, const UsidLayout& l = {});
// How many non-zero uSIDs the container holds after the block.
unsigned usid_count(const Ipv6Addr& da, const UsidLayout& l = {});

}  // namespace mrc::wire
