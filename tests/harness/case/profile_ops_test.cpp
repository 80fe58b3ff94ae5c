// The profile-operation payloads of control steps (ev_profile_set, cc_profile_set, replace_ev)
// and config.device / config.ev_profile.event_mask: typed values, no profile rules applied, and
// file:line:col errors for payloads of the wrong shape.
#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness::testing {
namespace {

std::string evctl_case(std::string_view id, std::string_view config, std::string_view steps) {
  return "id: " + std::string(id) +
         "\ntitle: Profile ops\nclauses: [EVCTL-PROFILE-VALIDITY]\nlevel: MUST\nbehaviour: invalid\n"
         "rationale: A test fixture.\nrequires: [stev]\nrole: requester\nconfig:\n" +
         std::string(config) +
         "  ev_format: {mode: stev, widths: [16, 16]}\n"
         "  ev_profile: {mode: explicit, fields: [{width: 16, mask: 0xFF, max: 255}], evs: [{value: \"0x01\", port: 1}]}\n"
         "stimulus:\n" +
         std::string(steps) + "checks:\n  - {type: invariant, name: control_results}\n";
}

LoadResult load(std::string_view id, std::string_view config, std::string_view steps) {
  const auto dir = scratch_dir() / "evctl";
  return load_case(write_file(dir / (std::string(id) + ".yaml"), evctl_case(id, config, steps)), project_clauses());
}

TEST(ProfileOps, InvalidProfilesLoadAsWritten) {
  const auto r = load("evctl-i-101", "",
                      "  - control: {at_ns: 1, op: ev_profile_set, expect: E2BIG, profile: {state: offline, mode: explicit,\n"
                      "      count: 1000000, min_active: 9, event_mask: [good, denied], seed: 3,\n"
                      "      fields: [{width: 40, init: 0x1FFFF, mask: 0x1F0, max: 99999}]}}\n"
                      "  - control: {at_ns: 2, op: replace_ev, all_copies: true, from: {value: \"0x00\", port: 0},\n"
                      "      evs: [{value: \"0x11\", port: 1}, {value: \"0x22\", port: 2}]}\n"
                      "  - control: {at_ns: 3, op: cc_profile_set, profile: {state: online, algorithm: x, config: {base_rtt: 5}}}\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  const auto& s = r.value->stimulus;
  const auto& set = std::get<ControlStep>(s[0].body);
  EXPECT_EQ(set.expect, ControlResult::kE2big);
  ASSERT_TRUE(set.ev_profile);
  EXPECT_EQ(set.ev_profile->state, ProfileStateName::kOffline);
  EXPECT_EQ(set.ev_profile->mode, EvMode::kExplicit);
  EXPECT_EQ(set.ev_profile->count, 1000000u);
  EXPECT_EQ(set.ev_profile->min_active, 9u);
  EXPECT_EQ(set.ev_profile->event_mask, (1u << 0) | (1u << 2));
  EXPECT_EQ(set.ev_profile->seed, 3u);
  ASSERT_TRUE(set.ev_profile->fields);
  ASSERT_EQ(set.ev_profile->fields->size(), 1u);
  EXPECT_EQ((*set.ev_profile->fields)[0].width, 40u);
  EXPECT_EQ((*set.ev_profile->fields)[0].init, 0x1FFFFu);
  EXPECT_EQ((*set.ev_profile->fields)[0].max, 99999u);
  const auto& rep = std::get<ControlStep>(s[1].body);
  ASSERT_TRUE(rep.replace);
  EXPECT_TRUE(rep.replace->all_copies);
  ASSERT_TRUE(rep.replace->from);
  EXPECT_EQ(rep.replace->from->port, 0u);
  ASSERT_EQ(rep.replace->evs.size(), 2u);
  EXPECT_EQ(rep.replace->evs[1].value, std::vector<std::uint8_t>{0x22});
  const auto& cc = std::get<ControlStep>(s[2].body);
  ASSERT_TRUE(cc.cc_profile);
  EXPECT_EQ(cc.cc_profile->algorithm, "x");
  ASSERT_EQ(cc.cc_profile->config.size(), 1u);
  EXPECT_EQ(cc.cc_profile->config[0].first, "base_rtt");
  EXPECT_FALSE(set.cc_profile);
  EXPECT_FALSE(set.replace);
}

TEST(ProfileOps, PayloadMistakesHaveLocations) {
  const auto r = load("evctl-i-102", "",
                      "  - control: {at_ns: 1, op: ev_profile_set}\n"
                      "  - control: {at_ns: 2, op: ev_profile_set, profile: {stat: online}}\n"
                      "  - control: {at_ns: 3, op: replace_ev, evs: [{value: \"0x11\"}]}\n"
                      "  - control: {at_ns: 4, op: deny_ev, ev: 0, evs: [{value: \"0x11\", port: 1}]}\n"
                      "  - control: {at_ns: 5, op: ev_profile_set, profile: {fields: [{width: -1}], event_mask: [bad]}}\n");
  ASSERT_FALSE(r.ok());
  const std::string d = r.diagnostics.to_string();
  EXPECT_NE(d.find("evctl-i-102.yaml:13:"), std::string::npos) << d;
  EXPECT_NE(d.find("needs 'profile'"), std::string::npos) << d;
  EXPECT_NE(d.find("unknown key 'stat' (did you mean 'state'?)"), std::string::npos) << d;
  EXPECT_NE(d.find("missing required key 'port'"), std::string::npos) << d;
  EXPECT_NE(d.find("'evs' has no meaning for op 'deny_ev'"), std::string::npos) << d;
  EXPECT_NE(d.find("stimulus[4].control.profile.fields[0].width"), std::string::npos) << d;
  EXPECT_NE(d.find("bad"), std::string::npos) << d;
}

TEST(ProfileOps, DeviceConfigAndEventMask) {
  const auto r = load("evctl-i-103",
                      "  device: {caps_off: [modify_online, precise_drop_count], event_queue_depth: 2, event_poll_ns: 5000}\n",
                      "  - control: {at_ns: 1, op: ev_profile_set, profile: {state: init}}\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  const DeviceConfig& d = r.value->config.device;
  EXPECT_EQ(d.caps_off, (std::vector<Capability>{Capability::kModifyOnline, Capability::kPreciseDropCount}));
  EXPECT_EQ(d.event_queue_depth, 2u);
  EXPECT_EQ(d.event_poll_ns, 5000u);
  EXPECT_EQ(r.value->config.ev_profile->event_mask, 3u);
}

TEST(ProfileOps, CapsOffCannotBeRequiredAndMaskIsMonitorableOnly) {
  auto text = evctl_case("evctl-i-104", "  device: {caps_off: [stev]}\n",
                         "  - control: {at_ns: 1, op: ev_profile_set, profile: {state: init}}\n");
  const auto dir = scratch_dir() / "evctl";
  auto r = load_case(write_file(dir / "evctl-i-104.yaml", text), project_clauses());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.diagnostics.to_string().find("'stev' is required but config.device.caps_off turns it off"), std::string::npos)
      << r.diagnostics.to_string();
  text = evctl_case("evctl-i-105", "", "  - control: {at_ns: 1, op: ev_profile_set, profile: {state: init}}\n");
  text.replace(text.find("evs: [{"), 0, "event_mask: [denied], ");
  r = load_case(write_file(dir / "evctl-i-105.yaml", text), project_clauses());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.diagnostics.to_string().find("only good and assumed_bad can be monitored"), std::string::npos)
      << r.diagnostics.to_string();
}

}  // namespace
}  // namespace mrc::harness::testing
