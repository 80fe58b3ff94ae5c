// Registered memory regions: deterministic keys and addresses, bounds and access checks.
#include <gtest/gtest.h>

#include "reference/transport/memory.hpp"

namespace mrc::transport {
namespace {

constexpr int kRw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

TEST(MemoryTable, KeysAndAddressesAreDeterministic) {
  MemoryTable a;
  MemoryTable b;
  for (MemoryTable* t : {&a, &b}) {
    const auto r1 = t->register_region(100, kRw);
    const auto r2 = t->register_region(5000, kRw);
    ASSERT_EQ(r1.status, MemStatus::kOk);
    ASSERT_EQ(r2.status, MemStatus::kOk);
    EXPECT_EQ(r1.mr.addr, 0x10000000u);
    EXPECT_EQ(r1.mr.rkey, 0x101u);  // slot 1, generation 1
    EXPECT_EQ(r1.mr.lkey, r1.mr.rkey);
    // Next page after the region, plus a one-page guard.
    EXPECT_EQ(r2.mr.addr, 0x10000000u + 2 * 4096);
    EXPECT_EQ(r2.mr.rkey, 0x201u);
    EXPECT_EQ(r2.mr.length, 5000u);
  }
}

TEST(MemoryTable, StaleKeyStopsMatchingAfterDeregistration) {
  MemoryTable t;
  const auto r1 = t.register_region(64, kRw);
  ASSERT_EQ(t.deregister(r1.mr.lkey), MemStatus::kOk);
  EXPECT_EQ(t.deregister(r1.mr.lkey), MemStatus::kBadKey);
  const auto r2 = t.register_region(64, kRw);
  EXPECT_EQ(r2.mr.rkey, 0x102u);  // same slot, next generation
  const std::uint8_t b[4] = {1, 2, 3, 4};
  EXPECT_EQ(t.remote_write(r1.mr.rkey, r2.mr.addr, b), MemStatus::kBadKey);
  EXPECT_EQ(t.remote_write(r2.mr.rkey, r2.mr.addr, b), MemStatus::kOk);
  EXPECT_EQ(t.find(r1.mr.rkey), nullptr);
  ASSERT_NE(t.find(r2.mr.rkey), nullptr);
}

TEST(MemoryTable, BoundsAreExact) {
  MemoryTable t;
  const auto r = t.register_region(256, kRw, 0x5000);
  ASSERT_EQ(r.status, MemStatus::kOk);
  EXPECT_EQ(r.mr.addr, 0x5000u);
  EXPECT_EQ(t.check_remote_write(r.mr.rkey, 0x5000, 256), MemStatus::kOk);
  EXPECT_EQ(t.check_remote_write(r.mr.rkey, 0x50FF, 1), MemStatus::kOk);
  EXPECT_EQ(t.check_remote_write(r.mr.rkey, 0x5100, 1), MemStatus::kOutOfBounds);
  EXPECT_EQ(t.check_remote_write(r.mr.rkey, 0x4FFF, 2), MemStatus::kOutOfBounds);
  EXPECT_EQ(t.check_remote_write(r.mr.rkey, 0x5001, 256), MemStatus::kOutOfBounds);
  EXPECT_EQ(t.check_remote_write(r.mr.rkey, ~std::uint64_t{0}, 2), MemStatus::kOutOfBounds);
  EXPECT_EQ(t.check_remote_write(0, 0, 0), MemStatus::kOk);  // zero length checks nothing
  EXPECT_EQ(t.check_remote_write(0, 0x5000, 1), MemStatus::kBadKey);
}

TEST(MemoryTable, RemoteWriteNeedsRemoteWriteAccess) {
  MemoryTable t;
  const auto ro = t.register_region(64, IBV_ACCESS_LOCAL_WRITE);
  ASSERT_EQ(ro.status, MemStatus::kOk);
  const std::uint8_t b[4] = {1, 2, 3, 4};
  EXPECT_EQ(t.remote_write(ro.mr.rkey, ro.mr.addr, b), MemStatus::kNoAccess);
  wire::Bytes v;
  ASSERT_EQ(t.local_view(ro.mr.lkey, ro.mr.addr, 4, v), MemStatus::kOk);
  EXPECT_EQ(v[0], 0);
}

TEST(MemoryTable, WritesLandWhereRethSays) {
  MemoryTable t;
  const auto r = t.register_region(64, kRw);
  const std::uint8_t b[3] = {7, 8, 9};
  ASSERT_EQ(t.remote_write(r.mr.rkey, r.mr.addr + 10, b), MemStatus::kOk);
  wire::Bytes v;
  ASSERT_EQ(t.local_view(r.mr.lkey, r.mr.addr + 9, 5, v), MemStatus::kOk);
  EXPECT_EQ(std::vector<std::uint8_t>(v.begin(), v.end()), (std::vector<std::uint8_t>{0, 7, 8, 9, 0}));
  wire::MutBytes m;
  ASSERT_EQ(t.local_mut(r.mr.lkey, r.mr.addr, 1, m), MemStatus::kOk);
  m[0] = 0x42;
  ASSERT_EQ(t.local_view(r.mr.lkey, r.mr.addr, 1, v), MemStatus::kOk);
  EXPECT_EQ(v[0], 0x42);
}

// Region bytes are defined a page at a time (memory.hpp, Slot): whatever the allocator hands back
// must never show. The region is registered over memory a region before it filled with 0xAA (a heap
// chunk of the same size comes back), and every read must still see zeros where nothing was written.
TEST(MemoryTable, NoByteShowsBeforeItIsZeroOrWritten) {
  constexpr std::size_t kLen = 3 * MemoryTable::kPage + 100;
  MemoryTable t;
  {
    const auto dirty = t.register_region(kLen, kRw);
    wire::MutBytes m;
    ASSERT_EQ(t.local_mut(dirty.mr.lkey, dirty.mr.addr, kLen, m), MemStatus::kOk);
    std::fill(m.begin(), m.end(), 0xAA);
    ASSERT_EQ(t.deregister(dirty.mr.lkey), MemStatus::kOk);
  }
  const auto r = t.register_region(kLen, kRw);
  const std::uint64_t base = r.mr.addr;
  // A write inside page 0, an overwrite from the middle of page 1 to the middle of page 2, and
  // a write that covers page 3 (the region's short last page) whole.
  const std::vector<std::uint8_t> small(10, 0x11);
  ASSERT_EQ(t.remote_write(r.mr.rkey, base + 100, small), MemStatus::kOk);
  wire::MutBytes span;
  ASSERT_EQ(t.local_overwrite(r.mr.lkey, base + MemoryTable::kPage + 1000, MemoryTable::kPage, span), MemStatus::kOk);
  std::fill(span.begin(), span.end(), 0x22);
  const std::vector<std::uint8_t> tail(100, 0x33);
  ASSERT_EQ(t.remote_write(r.mr.rkey, base + 3 * MemoryTable::kPage, tail), MemStatus::kOk);

  wire::Bytes all;
  ASSERT_EQ(t.local_view(r.mr.lkey, base, kLen, all), MemStatus::kOk);
  for (std::size_t i = 0; i < kLen; ++i) {
    std::uint8_t want = 0;
    if (i >= 100 && i < 110) want = 0x11;
    if (i >= MemoryTable::kPage + 1000 && i < 2 * MemoryTable::kPage + 1000) want = 0x22;
    if (i >= 3 * MemoryTable::kPage) want = 0x33;
    ASSERT_EQ(all[i], want) << "byte " << i;
  }
}

TEST(MemoryTable, RegistrationArgumentsAreChecked) {
  MemoryTable t({0x1000, 2});
  EXPECT_EQ(t.register_region(0, kRw).status, MemStatus::kBadArgument);
  EXPECT_EQ(t.register_region(64, IBV_ACCESS_REMOTE_WRITE).status, MemStatus::kBadArgument);
  EXPECT_EQ(t.register_region(64, 1 << 30).status, MemStatus::kBadArgument);
  EXPECT_EQ(t.register_region(64, kRw, ~std::uint64_t{0} - 10).status, MemStatus::kBadArgument);
  EXPECT_EQ(t.register_region(64, kRw).status, MemStatus::kOk);
  EXPECT_EQ(t.register_region(64, kRw).status, MemStatus::kOk);
  EXPECT_EQ(t.register_region(64, kRw).status, MemStatus::kTableFull);
  EXPECT_EQ(t.region_count(), 2u);
}

}  // namespace
}  // namespace mrc::transport
