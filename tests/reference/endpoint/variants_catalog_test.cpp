// The catalog of conformant policy variants: names, order, groups, parsing, and the mapping onto
// the layers (each variant changes only its own knob; an empty set changes nothing).
#include "reference/variants.hpp"

#include <gtest/gtest.h>

#include <set>

namespace mrc::ref {
namespace {

TEST(VariantCatalog, EnumOrderUniqueNamesAndChoices) {
  const auto cat = variant_catalog();
  ASSERT_EQ(cat.size(), static_cast<std::size_t>(Variant::kCount));
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(cat[i].id), i);
    EXPECT_TRUE(names.insert(cat[i].name).second) << cat[i].name;
    EXPECT_FALSE(cat[i].choice.empty()) << cat[i].name;
    EXPECT_EQ(variant_by_name(cat[i].name), cat[i].id);
    EXPECT_EQ(&variant_info(cat[i].id), &cat[i]);
  }
  for (const char* n : {"random-ev", "reverse-rotation", "rotation-offset", "retx-any-other-ev",
                        "sack-lazy", "sack-eager", "oor-nack", "skip-timer", "tseth-off", "sack-window-at-trigger", "pdcid-data-direction",
                        "probe-eager", "probe-lazy", "timers-fast", "timers-slow", "ect1"}) {
    EXPECT_TRUE(variant_by_name(n).has_value()) << n;
  }
  EXPECT_FALSE(variant_by_name("spray-single-ev").has_value());  // a defect, not a variant
}

TEST(VariantCatalog, ParseListsInCatalogOrderAndRejectsUnknownOrRivalNames) {
  std::string bad;
  auto s = VariantSet::parse("timers-slow,,random-ev,sack-eager", &bad);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->to_string(), "random-ev,sack-eager,timers-slow");
  EXPECT_EQ(s->list().size(), 3u);
  EXPECT_TRUE(VariantSet::parse("")->empty());
  EXPECT_FALSE(VariantSet::parse("random-ev,bogus", &bad).has_value());
  EXPECT_EQ(bad, "bogus");
  // Two answers to one choice cannot both hold.
  EXPECT_FALSE(VariantSet::parse("sack-eager,sack-lazy", &bad).has_value());
  EXPECT_EQ(bad, "sack-lazy");
  EXPECT_FALSE(VariantSet::parse("random-ev,reverse-rotation", &bad).has_value());
  VariantSet v;
  EXPECT_TRUE(v.add(Variant::kTimersFast));
  EXPECT_TRUE(v.add(Variant::kTimersFast));  // idempotent
  EXPECT_FALSE(v.add(Variant::kTimersSlow));
  EXPECT_EQ(v.to_string(), "timers-fast");
}

TEST(VariantCatalog, EmptySetLeavesEveryLayerAtItsDefaults) {
  ev::SelectorQuirks sq;
  ev::HealthParams hp;
  transport::RequesterConfig rc;
  transport::ResponderConfig pc;
  apply_variants(VariantSet{}, 1, 0x100, sq, hp, rc);
  apply_variants(VariantSet{}, pc);
  EXPECT_EQ(sq.random_seed, 0u);
  EXPECT_FALSE(sq.reverse);
  EXPECT_FALSE(sq.start_at_last);
  EXPECT_EQ(sq.retx_random_seed, 0u);
  EXPECT_EQ(hp.probe_phase, ev::ProbePhase::kAtHoldDownEnd);
  EXPECT_EQ(rc.timer_skew_16ths, 0);
  EXPECT_EQ(hp.skip_ns, 0u);
  EXPECT_TRUE(rc.tseth);
  const transport::ResponderConfig d;
  EXPECT_EQ(pc.sack_gen_threshold, d.sack_gen_threshold);
  EXPECT_EQ(pc.ack_delay_ns, d.ack_delay_ns);
  EXPECT_FALSE(pc.oor_nack);
  EXPECT_FALSE(pc.sack_window_at_trigger);
  EXPECT_FALSE(pc.pdcid_data_direction);
}

TEST(VariantCatalog, EachVariantSetsItsKnob) {
  auto req = [](Variant v) {
    VariantSet s;
    s.add(v);
    struct R {
      ev::SelectorQuirks sq;
      ev::HealthParams hp;
      transport::RequesterConfig rc;
    } r;
    apply_variants(s, 7, 0x200, r.sq, r.hp, r.rc);
    return r;
  };
  auto rsp = [](Variant v) {
    VariantSet s;
    s.add(v);
    transport::ResponderConfig c;
    apply_variants(s, c);
    return c;
  };
  EXPECT_NE(req(Variant::kRandomEv).sq.random_seed, 0u);
  EXPECT_TRUE(req(Variant::kReverseRotation).sq.reverse);
  EXPECT_TRUE(req(Variant::kRotationOffset).sq.start_at_last);
  EXPECT_NE(req(Variant::kRetxAnyOtherEv).sq.retx_random_seed, 0u);
  EXPECT_EQ(req(Variant::kProbeEager).hp.probe_phase, ev::ProbePhase::kFromFailure);
  EXPECT_EQ(req(Variant::kProbeLazy).hp.probe_phase, ev::ProbePhase::kOneIntervalLate);
  EXPECT_EQ(req(Variant::kTimersFast).rc.timer_skew_16ths, -1);
  EXPECT_EQ(req(Variant::kTimersSlow).rc.timer_skew_16ths, 1);
  EXPECT_EQ(req(Variant::kSkipTimer).hp.skip_ns, 10'000u);
  EXPECT_FALSE(req(Variant::kTsethOff).rc.tseth);
  EXPECT_EQ(rsp(Variant::kSackEager).sack_gen_threshold, 0u);
  EXPECT_EQ(rsp(Variant::kSackLazy).sack_gen_threshold, 16u * 1024);
  EXPECT_EQ(rsp(Variant::kSackLazy).ack_delay_ns, 2000u);
  EXPECT_TRUE(rsp(Variant::kOorNack).oor_nack);
  EXPECT_TRUE(rsp(Variant::kSackWindowAtTrigger).sack_window_at_trigger);
  EXPECT_TRUE(rsp(Variant::kPdcidDataDirection).pdcid_data_direction);
  // A requester-side variant leaves the responder alone and the other way round.
  EXPECT_EQ(rsp(Variant::kRandomEv).sack_gen_threshold, transport::ResponderConfig{}.sack_gen_threshold);
  EXPECT_EQ(req(Variant::kSackEager).rc.timer_skew_16ths, 0);
}

}  // namespace
}  // namespace mrc::ref
