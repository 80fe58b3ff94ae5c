// The registries that make the format extensible stay consistent with the typed model.
#include <set>

#include <gtest/gtest.h>

#include "harness/case/check_types.hpp"
#include "harness/case/frame_fields.hpp"
#include "harness/case/stimulus_kinds.hpp"

namespace mrc::harness {
namespace {

TEST(Registry, StimulusKindsMatchTheStepVariant) {
  const auto kinds = stimulus_kinds();
  ASSERT_EQ(kinds.size(), std::variant_size_v<StepBody>);
  const std::vector<std::string_view> expected{"traffic", "inject", "expect", "impair", "control"};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(kinds[i].name, expected[i]);
    ASSERT_NE(kinds[i].schema, nullptr);
    EXPECT_NE(kinds[i].build, nullptr);
    EXPECT_EQ(find_stimulus_kind(kinds[i].name), &kinds[i]);
  }
  EXPECT_EQ(find_stimulus_kind("trafic"), nullptr);
  StimulusStep s{{}, ImpairStep{}};
  EXPECT_EQ(s.kind(), "impair");
}

TEST(Registry, CheckTypesMatchTheParamsVariantAndShareCommonKeys) {
  const auto types = check_types();
  ASSERT_EQ(types.size(), std::variant_size_v<CheckParams>);
  const std::vector<std::string_view> expected{"golden", "distribution", "timing", "invariant", "positive_control", "field"};
  for (std::size_t i = 0; i < types.size(); ++i) {
    EXPECT_EQ(types[i].name, expected[i]);
    ASSERT_NE(types[i].schema, nullptr);
    EXPECT_NE(types[i].schema->find("type"), nullptr) << types[i].name;
    EXPECT_NE(types[i].schema->find("clauses"), nullptr) << types[i].name;
  }
  EXPECT_NE(common_check_schema().find("name"), nullptr);
  Check c{{}, "", {}, FieldCheck{}, Level::kMust};
  EXPECT_EQ(c.type(), "field");
}

TEST(Registry, InvariantsAreUniqueAndHaveParamSchemas) {
  std::set<std::string_view> names;
  for (const auto& inv : invariant_types()) {
    EXPECT_TRUE(names.insert(inv.name).second) << inv.name;
    ASSERT_NE(inv.params, nullptr);
    EXPECT_FALSE(inv.help.empty());
    EXPECT_EQ(find_invariant_type(inv.name), &inv);
  }
  EXPECT_GE(names.size(), 25u);
  EXPECT_NE(find_invariant_type("sack_triggers")->params->find("max_delay_ns"), nullptr);
}

TEST(Registry, EveryImpairmentKindHasAnEntry) {
  ASSERT_EQ(impairment_kinds().size(), kImpairKindNames.size());
  for (std::size_t i = 0; i < kImpairKindNames.size(); ++i) {
    const auto k = static_cast<ImpairKind>(i);
    EXPECT_EQ(impairment_kind(k).kind, k);
    EXPECT_NE(impairment_kind(k).params, nullptr);
  }
  EXPECT_NE(impairment_kind(ImpairKind::kTrim).params->find("bytes"), nullptr);
  EXPECT_TRUE(impairment_kind(ImpairKind::kDrop).params->keys.empty());
}

TEST(FrameFields, NamesAliasesAndOpcodes) {
  std::set<std::string_view> names;
  for (const auto& f : frame_fields()) EXPECT_TRUE(names.insert(f.name).second) << f.name;
  EXPECT_EQ(find_frame_field("psn")->name, "bth.psn");
  EXPECT_EQ(find_frame_field("bth.psn")->max, 0xFFFFFFu);
  EXPECT_EQ(find_frame_field("opcode")->kind, FieldValueKind::kOpcode);
  EXPECT_EQ(find_frame_field("bth.psm"), nullptr);
  EXPECT_EQ(frame_field_spellings().size(), frame_fields().size() + 9);
  EXPECT_EQ(opcode_by_name("write_only"), 0xCA);  // W3
  EXPECT_EQ(opcode_by_name("rc_write_only"), 0x0A);
  EXPECT_EQ(opcode_by_name("write_last_imm"), 0xC9);
  EXPECT_EQ(opcode_by_name("ack"), 0xD1);  // W3 Transport ACK
  EXPECT_EQ(opcode_by_name("rc_ack"), 0x11);
  EXPECT_EQ(opcode_by_name("sack"), 0xDC);
  EXPECT_EQ(opcode_by_name("nack"), 0xDD);
  EXPECT_EQ(opcode_by_name("probe"), 0xDE);
  EXPECT_EQ(opcode_by_name("ep_req"), 0xD8);  // W10
  EXPECT_EQ(opcode_by_name("ep_rsp"), 0xD9);
  EXPECT_FALSE(opcode_by_name("write"));
  std::set<std::uint8_t> values;
  for (const auto& o : opcode_names()) EXPECT_TRUE(values.insert(o.value).second) << o.name;
}

TEST(Vocabulary, NamesRoundTrip) {
  for (std::size_t i = 0; i < kCapabilityNames.size(); ++i) {
    const auto c = parse_enum<Capability>(kCapabilityNames, kCapabilityNames[i]);
    ASSERT_TRUE(c);
    EXPECT_EQ(to_string(*c), kCapabilityNames[i]);
  }
  EXPECT_EQ(behaviour_letter(Behaviour::kInopportune), 'o');
  EXPECT_EQ(capability_for(EvFormatMode::kUdp), Capability::kUdpMode);
  EXPECT_LT(Level::kMust, Level::kShould);  // stronger sorts first
  EXPECT_FALSE(parse_enum<Area>(kAreaNames, "sprays"));
}

}  // namespace
}  // namespace mrc::harness
