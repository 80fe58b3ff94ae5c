// Endpoint::defects_read(): which defect switches a clean endpoint read in a run (the campaign
// takes a case's clean run for every defect it never read: reference/quirk/quirk_flag.hpp).
#include <gtest/gtest.h>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

TEST(DefectsRead, AFreshEndpointHasReadNoSwitch) {
  EndpointConfig cfg;
  const Endpoint ep(cfg);
  EXPECT_TRUE(ep.defects_read().empty());
}

TEST(DefectsRead, ATransferReadsTheDataPathSwitchesAndNothingItNeverMeets) {
  Pair p;
  ASSERT_EQ(p.error, "");
  const DefectSet before = p.a->defects_read();
  EXPECT_FALSE(before.has(Defect::kSpraySingleEv)) << before.to_string();
  EXPECT_FALSE(before.has(Defect::kWrongIcrc)) << before.to_string();
  Traffic t = setup_traffic(p);
  post_writes(p, t, 16, 4096);
  p.fabric->run_for(2'000'000);
  EXPECT_EQ(drain_completions(p).first, 16);

  const DefectSet a = p.a->defects_read();  // the requester
  const DefectSet b = p.b->defects_read();  // the responder
  // What the sender consulted for every data packet, and the receiver for every feedback.
  EXPECT_TRUE(a.has(Defect::kSpraySingleEv)) << a.to_string();
  EXPECT_TRUE(a.has(Defect::kWrongIcrc)) << a.to_string();
  EXPECT_TRUE(a.has(Defect::kNoFlowLabelEv)) << a.to_string();  // STEV frames
  EXPECT_TRUE(b.has(Defect::kSackOffByOne)) << b.to_string();
  // Never met on a lossless STEV link with no probe, no SRv6, no READ, no bad key.
  for (const Defect d : {Defect::kDropEncapsulated, Defect::kUsidReverse, Defect::kProbeReqidMangled,
                         Defect::kAnswerRead, Defect::kAcceptBadRkey, Defect::kNoTrimNack}) {
    EXPECT_FALSE(a.has(d)) << defect_info(d).name << " in " << a.to_string();
    EXPECT_FALSE(b.has(d)) << defect_info(d).name << " in " << b.to_string();
  }
}

}  // namespace
}  // namespace mrc::ref::testing
