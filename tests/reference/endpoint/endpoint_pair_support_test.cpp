// Compiles the two-endpoint test driver into the `reference` test binary (the test glob only takes
// *_test.cpp files) and checks the driver itself: a quiet pair stays quiet, frames cross the
// links, and impairments do what they say.
#include "tests/reference/endpoint/endpoint_pair.cpp"     // NOLINT(bugprone-suspicious-include)
#include "tests/reference/endpoint/write_workload.cpp"    // NOLINT(bugprone-suspicious-include)

#include <gtest/gtest.h>

namespace mrc::ref::testing {
namespace {

TEST(EndpointPairDriver, BringUpAndIdle) {
  Pair p;
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.a->qp_state(p.qp.qpn_a), transport::QpState::kRts);
  EXPECT_EQ(p.b->qp_state(p.qp.qpn_b), transport::QpState::kRts);
  // Nothing posted: nothing is sent and nothing is scheduled.
  EXPECT_TRUE(p.fabric->run_until([] { return false; }, 1'000'000) == false);
  EXPECT_EQ(p.fabric->sent[0] + p.fabric->sent[1], 0u);
  EXPECT_EQ(p.a->next_deadline(), UINT64_MAX);
}

TEST(EndpointPairDriver, TrimImpairmentCutsDataAndRewritesDscp) {
  Impairment imp;
  imp.trim = 1.0;
  Pair p({}, {}, imp);
  ASSERT_EQ(p.error, "");
  WorkloadOptions w;
  w.writes = 4;
  w.max_len = 2048;
  w.imm_fraction = 0;
  w.limit_ns = 5'000'000;
  run_random_writes(p, w);  // every data frame trimmed: nothing completes
  EXPECT_GT(p.fabric->trimmed, 0u);
  EXPECT_GT(p.b->responder(p.qp.qpn_b)->stats().trimmed_stubs, 0u);
  EXPECT_EQ(p.b->responder(p.qp.qpn_b)->stats().stub_bytes_placed, 0u);
  EXPECT_GT(p.a->requester(p.qp.qpn_a)->stats().trim_nacks, 0u);
}

}  // namespace
}  // namespace mrc::ref::testing
