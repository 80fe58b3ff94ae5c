#include <gtest/gtest.h>

#include <vector>

#include "harness/stimulus/payload.hpp"

namespace mrc::harness::stim {
namespace {

TEST(Payload, PatternsAreWhatTheCaseFormatSays) {
  std::vector<std::uint8_t> b(300, 0xEE);
  fill_pattern(PayloadPattern::kZero, 1, b);
  for (auto x : b) EXPECT_EQ(x, 0);
  fill_pattern(PayloadPattern::kIncrement, 1, b);
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[255], 255);
  EXPECT_EQ(b[256], 0);
  EXPECT_EQ(b[299], 43);
}

TEST(Payload, PrbsIsSeededAndDeterministic) {
  std::vector<std::uint8_t> a(1000), b(1000), c(1000);
  fill_pattern(PayloadPattern::kPrbs, 7, a);
  fill_pattern(PayloadPattern::kPrbs, 7, b);
  fill_pattern(PayloadPattern::kPrbs, 8, c);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Not a constant or trivially repeating stream.
  std::size_t distinct = 0;
  std::vector<bool> seen(256);
  for (auto x : a) distinct += seen[x] ? 0 : (seen[x] = true, 1);
  EXPECT_GT(distinct, 200u);
}

TEST(Payload, WriteDataVerifiesAndNamesTheFirstBadByte) {
  std::vector<std::uint8_t> w(4096);
  fill_write_data(42, 1, 17, w);
  std::size_t bad = 0;
  EXPECT_TRUE(check_write_data(42, 1, 17, w, &bad));
  EXPECT_FALSE(check_write_data(42, 1, 18, w));  // another write's data
  EXPECT_FALSE(check_write_data(42, 2, 17, w));  // another program's
  EXPECT_FALSE(check_write_data(43, 1, 17, w));  // another seed's
  w[1234] ^= 0x01;
  EXPECT_FALSE(check_write_data(42, 1, 17, w, &bad));
  EXPECT_EQ(bad, 1234u);
  std::vector<std::uint8_t> zeros(4096, 0);
  EXPECT_FALSE(check_write_data(42, 1, 17, zeros));  // an untouched destination never verifies
}

// The stream's definition, byte by byte (splitmix64-seeded xorshift64*, little-endian): the
// word-wise generator and checker must give exactly these bytes at every length and alignment,
// since goldens and evidence pin them.
std::vector<std::uint8_t> prbs_by_definition(std::uint64_t seed, std::size_t n) {
  std::uint64_t x = seed + 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  std::uint64_t s = x != 0 ? x : 0x2545F4914F6CDD1Dull;
  std::vector<std::uint8_t> out;
  while (out.size() < n) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    const std::uint64_t v = s * 0x2545F4914F6CDD1Dull;
    for (unsigned b = 0; b < 8 && out.size() < n; ++b) out.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
  }
  return out;
}

TEST(Payload, WordWiseStreamEqualsTheByteDefinitionAtEveryLength) {
  for (std::size_t n = 0; n <= 70; ++n) {
    std::vector<std::uint8_t> got(n);
    fill_pattern(PayloadPattern::kPrbs, 99, got);
    EXPECT_EQ(got, prbs_by_definition(99, n)) << "length " << n;
  }
}

// Long writes go through the interleaved block generator (four chains a jump apart): every length
// around its block edges, and a whole 64 KiB write, must still be the one stream.
TEST(Payload, BlockGeneratorEqualsTheByteDefinitionAcrossBlockEdges) {
  for (std::size_t n : {1016u, 1023u, 1024u, 1025u, 1031u, 2047u, 2048u, 2049u, 3077u, 8192u, 65536u, 65541u}) {
    std::vector<std::uint8_t> got(n);
    fill_pattern(PayloadPattern::kPrbs, 0xC0FFEE, got);
    EXPECT_EQ(got, prbs_by_definition(0xC0FFEE, n)) << "length " << n;
  }
}

TEST(Payload, CheckerFindsAFlippedByteAcrossBlocks) {
  std::vector<std::uint8_t> w(5000);
  fill_write_data(8, 2, 6, w);
  EXPECT_TRUE(check_write_data(8, 2, 6, w));
  for (std::size_t i : {0u, 7u, 1023u, 1024u, 1025u, 2048u, 4095u, 4096u, 4999u}) {
    w[i] ^= 0x10;
    std::size_t bad = 0;
    EXPECT_FALSE(check_write_data(8, 2, 6, w, &bad));
    EXPECT_EQ(bad, i);
    w[i] ^= 0x10;
  }
}

TEST(Payload, CheckerFindsAFlippedByteAtEveryPosition) {
  std::vector<std::uint8_t> w(37);
  fill_write_data(5, 3, 11, w);
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] ^= 0x80;
    std::size_t bad = 0;
    EXPECT_FALSE(check_write_data(5, 3, 11, w, &bad));
    EXPECT_EQ(bad, i);
    w[i] ^= 0x80;
  }
  std::size_t bad = 0;
  EXPECT_TRUE(check_write_data(5, 3, 11, w, &bad));
  EXPECT_EQ(bad, w.size());
}

}  // namespace
}  // namespace mrc::harness::stim
