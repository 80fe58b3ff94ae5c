// SharedTraces: the checks of one case run share one decoded trace per tap set (trace.hpp), and a
// check judges the same with or without it.
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"
#include "harness/verdict/trace.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Scenario;

CheckContext& sprayed(Scenario& s) {
  s.spray(1000, 100, 64);
  return s.finish();
}

TEST(TraceSharing, WithoutSharedTracesEveryCallDecodesAgain) {
  Scenario s;
  const CheckContext& ctx = sprayed(s);
  const auto taps = select_taps(ctx, TapSide::kAll);
  const auto a = trace_of(ctx, taps);
  const auto b = trace_of(ctx, taps);
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(a->packets.size(), 64u);
}

TEST(TraceSharing, OneTracePerTapSetWhileItLives) {
  Scenario s;
  const CheckContext& ctx = sprayed(s);
  const auto all = select_taps(ctx, TapSide::kAll);
  const auto from = select_taps(ctx, TapSide::kFromDut);
  const SharedTraces shared(ctx);
  const auto a = trace_of(ctx, all);
  EXPECT_EQ(trace_of(ctx, all).get(), a.get());
  const auto f = trace_of(ctx, from);
  EXPECT_NE(f.get(), a.get());
  EXPECT_EQ(trace_of(ctx, from).get(), f.get());
  EXPECT_EQ(shared.built(), 2u);
  // Another context (a copy may be changed) never gets this one's traces.
  const CheckContext other = ctx;
  EXPECT_NE(trace_of(other, all).get(), a.get());
  EXPECT_EQ(shared.built(), 2u);
}

TEST(TraceSharing, EndsWithItsScope) {
  Scenario s;
  const CheckContext& ctx = sprayed(s);
  const auto taps = select_taps(ctx, TapSide::kAll);
  std::shared_ptr<const Trace> inside;
  {
    const SharedTraces shared(ctx);
    inside = trace_of(ctx, taps);
  }
  EXPECT_NE(trace_of(ctx, taps).get(), inside.get());
}

TEST(TraceSharing, ChecksJudgeTheSameWithIt) {
  Scenario s;
  const CheckContext& ctx = sprayed(s);
  const InvariantCheck inv{"reth_every_packet", {}};
  const CheckResult alone = run_invariant(inv, ctx);
  const SharedTraces shared(ctx);
  const CheckResult first = run_invariant(inv, ctx);
  const CheckResult second = run_invariant(inv, ctx);
  EXPECT_EQ(shared.built(), 1u);
  for (const CheckResult* r : {&first, &second}) {
    EXPECT_EQ(r->verdict, alone.verdict);
    EXPECT_EQ(r->message, alone.message);
    EXPECT_EQ(r->metrics, alone.metrics);
  }
}

}  // namespace
}  // namespace mrc::harness
