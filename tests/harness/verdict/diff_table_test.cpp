// The diff table's normalizer parts (diff_table.hpp): ordinals in order of first appearance with
// a hashed index, and PSN spaces found through them; past 64 values, exact marked raw folds.
#include "harness/verdict/diff_table.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace mrc::harness::diffing {
namespace {

TEST(Ordinals, FirstAppearanceOrderThenMarkedFoldsWhenFull) {
  std::mt19937_64 rng(64);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> values;
  for (int i = 0; i < 200; ++i) values.emplace_back(rng(), i % 3 == 0 ? 0 : rng());  // some share hi
  Ordinals<64> o;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint64_t got = o.get(values[i].first, values[i].second);
    if (i < 64) {
      EXPECT_EQ(got, i) << "value " << i;
    } else {
      EXPECT_NE(got >> 63, 0u) << "value " << i << " past the table is a marked fold";
    }
  }
  // Asked again, in another order: the same answers, and no two values share one.
  std::set<std::uint64_t> seen;
  for (std::size_t k = values.size(); k-- > 0;) {
    const std::uint64_t got = o.get(values[k].first, values[k].second);
    if (k < 64) {
      EXPECT_EQ(got, k);
    }
    seen.insert(got);
  }
  EXPECT_EQ(seen.size(), values.size());
}

TEST(Normalizer, SpacesByIdWithTheLowestPsnOffset) {
  Normalizer n;
  EXPECT_EQ(n.space_of(10, 1000), 0);
  EXPECT_EQ(n.space_of(11, 5), 1);
  EXPECT_EQ(n.space_of(10, 998), 0);   // lower PSN of space 0: its base moves down
  EXPECT_EQ(n.space_of(10, 1003), 0);
  EXPECT_EQ(n.space_of(11, 0xFFFFFE), 1);  // wraps below 5: offset -7
  EXPECT_EQ(n.base(0), 998u);
  EXPECT_EQ(n.base(1), 0xFFFFFEu);
  for (std::uint64_t id = 12; id < 12 + 62; ++id) EXPECT_EQ(n.space_of(id, 1), id - 10);
  EXPECT_EQ(n.space_of(500, 1), kNoSpace);  // 65th space: compared raw
  EXPECT_EQ(n.space_of(10, 997), 0);        // known spaces still found
  EXPECT_EQ(n.base(0), 997u);
}

}  // namespace
}  // namespace mrc::harness::diffing
