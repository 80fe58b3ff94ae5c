// uSID (NEXT-CSID, RFC 9800) container arithmetic: the §3.3 worked example, the EV example-2
// container, other layouts against a bit-by-bit reference, and unusable layouts.
#include <gtest/gtest.h>

#include "reference/wire/usid.hpp"
#include "tests/reference/wire/wire_test_support.hpp"

namespace mrc::wire::test {
namespace {

Ipv6Addr addr(std::initializer_list<std::uint16_t> groups) {
  Ipv6Addr a{};
  std::size_t i = 0;
  for (std::uint16_t g : groups) {
    a[i++] = static_cast<std::uint8_t>(g >> 8);
    a[i++] = static_cast<std::uint8_t>(g);
  }
  return a;
}

// Reference model, one bit at a time: bit k is bit (7 - k % 8) of byte k / 8.
bool bit(const Ipv6Addr& a, unsigned k) { return (a[k / 8] >> (7 - k % 8)) & 1u; }
void set_bit(Ipv6Addr& a, unsigned k, bool v) {
  const auto m = static_cast<std::uint8_t>(1u << (7 - k % 8));
  a[k / 8] = static_cast<std::uint8_t>(v ? (a[k / 8] | m) : (a[k / 8] & ~m));
}
Ipv6Addr ref_shift(const Ipv6Addr& a, const UsidLayout& l) {
  Ipv6Addr o = a;
  for (unsigned k = l.block_bits; k < 128; ++k) {
    const unsigned from = k + l.usid_bits;
    set_bit(o, k, from < 128 ? bit(a, from) : false);
  }
  return o;
}
std::uint32_t ref_active(const Ipv6Addr& a, const UsidLayout& l) {
  std::uint32_t v = 0;
  for (unsigned k = l.block_bits; k < l.block_bits + l.usid_bits; ++k) v = (v << 1) | bit(a, k);
  return v;
}
bool ref_eoc(const Ipv6Addr& a, const UsidLayout& l) {
  for (unsigned k = l.block_bits + l.usid_bits; k < 128; ++k) {
    if (bit(a, k)) return false;
  }
  return true;
}

TEST(Usid, Rfc9800WorkedExample) {  // §3.3: fc00:0000:0010:0021:e009:d001::
  Ipv6Addr da = addr({0xfc00, 0x0000, 0x0010, 0x0021, 0xe009, 0xd001});
  EXPECT_EQ(usid_count(da), 4u);
  EXPECT_EQ(usid_active(da), 0x0010u);
  EXPECT_FALSE(usid_end_of_carrier(da));
  usid_shift(da);
  EXPECT_EQ(da, addr({0xfc00, 0x0000, 0x0021, 0xe009, 0xd001}));
  EXPECT_EQ(usid_active(da), 0x0021u);
  usid_shift(da);
  EXPECT_EQ(da, addr({0xfc00, 0x0000, 0xe009, 0xd001}));
  usid_shift(da);
  EXPECT_EQ(da, addr({0xfc00, 0x0000, 0xd001}));
  EXPECT_EQ(usid_active(da), 0xd001u);
  EXPECT_TRUE(usid_end_of_carrier(da));  // the last uSID: the Argument is zero
  EXPECT_EQ(usid_count(da), 1u);
}

TEST(Usid, EvExample2Container) {  // §1.5 worked example 2: 1313:1313:109:20b:307:409::
  Ipv6Addr da = addr({0x1313, 0x1313, 0x0109, 0x020b, 0x0307, 0x0409});
  EXPECT_EQ(usid_count(da), 4u);
  const std::uint32_t hops[] = {0x0109, 0x020b, 0x0307, 0x0409};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(usid_active(da), hops[i]);
    EXPECT_EQ(usid_end_of_carrier(da), i == 3);
    if (i < 3) usid_shift(da);
  }
  EXPECT_EQ(da, addr({0x1313, 0x1313, 0x0409}));  // block untouched, tail zero-filled
}

TEST(Usid, FullContainerShiftsOutToBlockOnly) {
  Ipv6Addr da = addr({0xfc00, 0x0001, 1, 2, 3, 4, 5, 6});
  EXPECT_EQ(usid_count(da), 6u);
  for (int i = 0; i < 6; ++i) usid_shift(da);
  EXPECT_EQ(da, addr({0xfc00, 0x0001}));
  EXPECT_EQ(usid_count(da), 0u);
  EXPECT_EQ(usid_active(da), 0u);
  EXPECT_TRUE(usid_end_of_carrier(da));
}

TEST(Usid, MatchesBitReferenceOnOtherLayouts) {
  Rng r(42);
  const UsidLayout layouts[] = {{32, 16}, {48, 16}, {40, 8}, {16, 32}, {64, 32}, {0, 16},
                                {112, 16}, {127, 1}, {96, 32}, {33, 7}};
  for (const UsidLayout& l : layouts) {
    for (int i = 0; i < 2000; ++i) {
      Ipv6Addr a;
      fill_random(r, a);
      // Zero a random tail so End-of-Carrier and short runs occur.
      const std::size_t keep = uni(r, 0, 16);
      std::fill(a.begin() + static_cast<std::ptrdiff_t>(keep), a.end(), 0);
      ASSERT_EQ(usid_active(a, l), ref_active(a, l)) << l.block_bits << "/" << l.usid_bits;
      ASSERT_EQ(usid_end_of_carrier(a, l), ref_eoc(a, l));
      Ipv6Addr s = a;
      usid_shift(s, l);
      ASSERT_EQ(s, ref_shift(a, l)) << l.block_bits << "/" << l.usid_bits;
      // usid_count = shifts until End-of-Carrier, counting the active uSID, while non-zero.
      unsigned n = 0;
      Ipv6Addr w = a;
      while (n < 128 && ref_active(w, l) != 0) {
        ++n;
        if (ref_eoc(w, l)) break;
        w = ref_shift(w, l);
      }
      ASSERT_EQ(usid_count(a, l), n) << l.block_bits << "/" << l.usid_bits;
    }
  }
}

TEST(Usid, UnusableLayoutsAreInert) {
  Ipv6Addr da = addr({0xfc00, 0, 1, 2});
  const Ipv6Addr before = da;
  for (const UsidLayout& l : {UsidLayout{32, 0}, UsidLayout{32, 33}, UsidLayout{120, 16},
                              UsidLayout{200, 16}}) {
    EXPECT_EQ(usid_active(da, l), 0u);
    EXPECT_TRUE(usid_end_of_carrier(da, l));
    EXPECT_EQ(usid_count(da, l), 0u);
    usid_shift(da, l);
    EXPECT_EQ(da, before);
  }
}

}  // namespace
}  // namespace mrc::wire::test
