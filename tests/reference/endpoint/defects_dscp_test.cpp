// Wire symptom of dscp-hardcoded against a control run. Both endpoints are configured with DSCP
// values other than W13's defaults and the link trims some data (re-marking it with the
// configured DSCP_TRIMMED): the clean endpoints send data, retransmissions and feedback in the
// configured classes and answer the trims; the defective ones send W13's defaults (10, 46).
#include <gtest/gtest.h>

#include <set>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

wire::DscpConfig configured() {
  wire::DscpConfig d;
  d.trimmable = 20;
  d.trimmable_retx = 22;
  d.no_trim = 18;
  d.trimmed = 21;
  d.trimmed_lasthop = 23;
  d.control = 40;
  return d;
}

struct Classes {
  std::set<unsigned> data;      // DSCPs of A's first transmissions
  std::set<unsigned> retx;      // ... of A's retransmissions
  std::set<unsigned> feedback;  // ... of B's SACKs, NACKs and Transport ACKs
  std::size_t trim_nacks = 0;   // NACK TRIMMED from B
  std::size_t trimmed = 0;      // frames the link trimmed
  bool a_read = false;          // A consulted the dscp-hardcoded switch
};

Classes run(const PairOptions& o) {
  Impairment imp;
  imp.trim = 0.05;
  imp.dscp = o.dscp;  // the fabric trims and re-marks by the same values
  Pair p(o, LinkParams{}, imp);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 100, 8192);
  p.fabric->run_for(2'000'000);
  Classes c;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0 && is_data_frame(w)) (w.f.bth.rtx ? c.retx : c.data).insert(w.f.ip6.dscp);
    if (w.from() == 1 && is_feedback(w)) c.feedback.insert(w.f.ip6.dscp);
    if (w.from() == 1 && is_nack(w) && w.f.neth.nack_reason == wire::nack::kTrimmed) ++c.trim_nacks;
  }
  c.trimmed = p.fabric->trimmed;
  c.a_read = p.a->defects_read().has(Defect::kDscpHardcoded);
  return c;
}

TEST(DscpDefectSymptoms, DscpHardcoded) {
  PairOptions o;
  o.dscp = configured();
  const Classes clean = run(o);
  ASSERT_GT(clean.trimmed, 0u);
  EXPECT_GT(clean.trim_nacks, 0u);  // B recognised the trims by the configured DSCP_TRIMMED
  EXPECT_EQ(clean.data, std::set<unsigned>{20});
  EXPECT_EQ(clean.retx, std::set<unsigned>{20});  // the reference resends in TRIMMABLE (endpoint_qp.cpp)
  EXPECT_EQ(clean.feedback, std::set<unsigned>{40});

  o.defects_a = with(Defect::kDscpHardcoded);
  o.defects_b = with(Defect::kDscpHardcoded);
  const Classes broken = run(o);
  EXPECT_TRUE(broken.a_read);
  EXPECT_EQ(broken.data, std::set<unsigned>{wire::DscpConfig{}.trimmable});
  EXPECT_EQ(broken.feedback, std::set<unsigned>{wire::DscpConfig{}.control});
  EXPECT_EQ(broken.trimmed, 0u);  // the fabric trims only what is in its trimmable classes
}

// With W13's defaults configured the defect cannot change anything, and its switch is never read:
// the campaign takes the clean run for it (reference/quirk/quirk_flag.hpp).
TEST(DscpDefectSymptoms, DefaultValuesNeverReadTheSwitch) {
  PairOptions o;
  o.defects_a = with(Defect::kDscpHardcoded);
  const Classes c = run(o);
  EXPECT_FALSE(c.a_read);
  EXPECT_EQ(c.data, std::set<unsigned>{wire::DscpConfig{}.trimmable});
}

}  // namespace
}  // namespace mrc::ref::testing
