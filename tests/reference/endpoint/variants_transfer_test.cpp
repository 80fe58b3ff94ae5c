// Every conformant policy variant (reference/variants.hpp) still moves 10,000 random writes
// byte-exact, lossless and under drops, reordering, duplicates and trims at once: a variant is a
// different legal choice, never a broken endpoint.
#include <gtest/gtest.h>

#include "tests/reference/endpoint/write_workload.hpp"

namespace mrc::ref::testing {
namespace {

struct Case {
  Variant variant;
  bool lossy;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n(variant_info(info.param.variant).name);
  for (char& c : n) c = c == '-' ? '_' : c;
  return n + (info.param.lossy ? "_lossy" : "_lossless");
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (const VariantInfo& v : variant_catalog()) {
    out.push_back({v.id, false});
    out.push_back({v.id, true});
  }
  return out;
}

class VariantTransfer : public ::testing::TestWithParam<Case> {};

TEST_P(VariantTransfer, TenThousandWritesByteExact) {
  PairOptions o;
  o.variants.add(GetParam().variant);
  Impairment imp;
  if (GetParam().lossy) {  // the mix of RandomWrites.EverythingAtOnce
    imp.drop = 0.005;
    imp.reorder = 0.1;
    imp.duplicate = 0.02;
    imp.trim = 0.02;
  }
  Pair p(o, {}, imp);
  ASSERT_EQ(p.error, "");
  WorkloadOptions w;
  w.writes = 10000;
  const WorkloadResult r = run_random_writes(p, w);
  EXPECT_EQ(r.failure, "");
  EXPECT_EQ(r.completed, w.writes);
}

INSTANTIATE_TEST_SUITE_P(Catalog, VariantTransfer, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace mrc::ref::testing
