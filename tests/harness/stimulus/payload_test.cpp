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

}  // namespace
}  // namespace mrc::harness::stim
