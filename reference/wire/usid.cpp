// uSID container arithmetic (RFC 9800 NEXT-CSID; mrc-wire-model.md §3.3).
//
// The container is handled as one 128-bit big-endian number: bit 127 is the MSB of byte 0. A
// layout is usable when 1 <= usid_bits <= 32 and block_bits + usid_bits <= 128; for any other
// layout the container has no active uSID: usid_active() = 0, usid_count() = 0,
// usid_end_of_carrier() = true and usid_shift() leaves the address unchanged.
#include "reference/wire/usid.hpp"

namespace mrc::wire {

namespace {

__extension__ typedef unsigned __int128 U128;

U128 load(const Ipv6Addr& a) {
  U128 v = 0;
  for (std::uint8_t b : a) v = (v << 8) | b;
  return v;
}

void store(Ipv6Addr& a, U128 v) {
  for (std::size_t i = a.size(); i-- > 0;) {
    a[i] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}

bool layout_ok(const UsidLayout& l) {
  return l.usid_bits >= 1 && l.usid_bits <= 32 && l.block_bits <= 128 - l.usid_bits;
}

// Mask of the low `n` bits, 0 <= n <= 128.
U128 low_mask(unsigned n) { return n >= 128 ? ~U128{0} : ((U128{1} << n) - 1); }

// Bits below the active uSID: the Argument.
unsigned arg_bits(const UsidLayout& l) { return 128 - l.block_bits - l.usid_bits; }

}  // namespace

std::uint32_t usid_active(const Ipv6Addr& da, const UsidLayout& l) {
  if (!layout_ok(l)) return 0;
  return static_cast<std::uint32_t>((load(da) >> arg_bits(l)) & low_mask(l.usid_bits));
}

bool usid_end_of_carrier(const Ipv6Addr& da, const UsidLayout& l) {
  if (!layout_ok(l)) return true;
  return (load(da) & low_mask(arg_bits(l))) == 0;
}

void usid_shift(Ipv6Addr& da, const UsidLayout& l) {
  if (!layout_ok(l)) return;
  // uN: the Argument moves up by one uSID into the place right after the block (dropping the
  // active uSID); the freed low bits become zero. The block is untouched.
  const U128 below_block = low_mask(128 - l.block_bits);
  const U128 v = load(da);
  const U128 shifted = (v << l.usid_bits) & below_block;
  store(da, (v & ~below_block) | shifted);
}

unsigned usid_count(const Ipv6Addr& da, const UsidLayout& l) {
  if (!layout_ok(l)) return 0;
  // The run of non-zero uSIDs a packet would visit before End-of-Carrier, from the active one.
  // A last, partial slot (when 128 - block is not a multiple of the uSID size) reads as if
  // zero-filled, as it would after the shifts that bring it to the active position.
  const U128 v = load(da);
  unsigned n = 0;
  for (unsigned start = l.block_bits; start < 128; start += l.usid_bits) {
    if (((v << start) >> (128 - l.usid_bits)) == 0) break;
    ++n;
  }
  return n;
}

}  // namespace mrc::wire
