// Wire symptom of trim-by-length against a control run: a link trims 5 % of the data, keeping
// 1024 bytes of each trimmed frame (a switch configured for longer stubs than W13's 256). The
// clean responder knows a trim by its DSCP_TRIMMED and NACKs each one; the defective one, which
// takes only short frames for trims, drops these as corrupt and sends no NACK TRIMMED. Cut to
// 256 bytes, the same defect still answers every trim.
#include <gtest/gtest.h>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

struct Seen {
  std::size_t trimmed = 0;     // frames the link trimmed
  std::size_t trim_nacks = 0;  // NACK TRIMMED from B
  bool b_read = false;         // B consulted the trim-by-length switch
};

Seen run(const PairOptions& o, std::size_t keep) {
  Impairment imp;
  imp.trim = 0.05;
  imp.trim_bytes = keep;
  Pair p(o, LinkParams{}, imp);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 60, 16384);
  p.fabric->run_for(2'000'000);
  Seen s;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 1 && is_nack(w) && w.f.neth.nack_reason == wire::nack::kTrimmed) ++s.trim_nacks;
  }
  s.trimmed = p.fabric->trimmed;
  s.b_read = p.b->defects_read().has(Defect::kTrimByLength);
  return s;
}

TEST(TrimDefectSymptoms, LongStubsDrawNoNack) {
  PairOptions o;
  const Seen clean = run(o, 1024);
  ASSERT_GT(clean.trimmed, 0u);
  EXPECT_EQ(clean.trim_nacks, clean.trimmed);  // one NACK TRIMMED per trimmed packet (W7)

  o.defects_b = with(Defect::kTrimByLength);
  const Seen broken = run(o, 1024);
  ASSERT_GT(broken.trimmed, 0u);
  EXPECT_TRUE(broken.b_read);
  EXPECT_EQ(broken.trim_nacks, 0u);
}

TEST(TrimDefectSymptoms, ShortStubsStillDrawTheirNack) {
  PairOptions o;
  o.defects_b = with(Defect::kTrimByLength);
  const Seen s = run(o, wire::kTrimLength);
  ASSERT_GT(s.trimmed, 0u);
  EXPECT_EQ(s.trim_nacks, s.trimmed);
}

}  // namespace
}  // namespace mrc::ref::testing
