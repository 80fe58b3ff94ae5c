// The check keys the verdict engine reads are accepted by the schema, with their params: the
// EV / delivery invariants and aliases, max_outstanding, golden masks on ts / payload / ev, the
// throughput_recovered rate keys, and the NSCC window invariants.
#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "harness/case/check_types.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::minimal_case;
using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

LoadResult load_with_check(std::string_view check) {
  const auto path = write_file(scratch_dir() / "spray-v-900.yaml",
                               minimal_case("spray-v-900", "  - " + std::string(check) + "\n"));
  return load_case(path, project_clauses());
}

const Check& last_check(const LoadResult& r) { return r.value->checks.back(); }

TEST(CheckSchemaGaps, InvariantsTheVerdictImplementsAreAccepted) {
  for (const char* name : {"no_assumed_bad_ev", "data_verified", "mpr_window", "trim_nack_for_stub",
                           "per_packet_ev_variation"}) {
    const auto r = load_with_check("{type: invariant, name: " + std::string(name) + "}");
    ASSERT_TRUE(r.ok()) << name << ": " << r.diagnostics.to_string();
    EXPECT_EQ(std::get<InvariantCheck>(last_check(r).params).name, name);
  }
}

TEST(CheckSchemaGaps, PerPacketEvVariationTakesItsParams) {
  const auto r = load_with_check("{type: invariant, name: per_packet_ev_variation, params: {min_distinct: 3, window: 16}}");
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  const auto& p = std::get<InvariantCheck>(last_check(r).params).params;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], (std::pair<std::string, std::string>{"min_distinct", "3"}));
  EXPECT_EQ(p[1], (std::pair<std::string, std::string>{"window", "16"}));
  const auto bad = load_with_check("{type: invariant, name: per_packet_ev_variation, params: {min_distinct: 0, windw: 4}}");
  EXPECT_FALSE(bad.ok());
  const std::string d = bad.diagnostics.to_string();
  EXPECT_NE(d.find("min_distinct"), std::string::npos) << d;
  EXPECT_NE(d.find("did you mean 'window'"), std::string::npos) << d;
}

TEST(CheckSchemaGaps, WindowInvariantsTakeMaxOutstanding) {
  for (const char* name : {"requester_window", "mpr_window", "wimm_limit"}) {
    const auto r = load_with_check("{type: invariant, name: " + std::string(name) + ", params: {max_outstanding: 64}}");
    ASSERT_TRUE(r.ok()) << name << ": " << r.diagnostics.to_string();
    const auto& p = std::get<InvariantCheck>(last_check(r).params).params;
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].first, "max_outstanding");
  }
  EXPECT_FALSE(load_with_check("{type: invariant, name: wimm_limit, params: {max_outstanding: 0}}").ok());
  EXPECT_FALSE(load_with_check("{type: invariant, name: no_rnr, params: {max_outstanding: 4}}").ok());
}

TEST(CheckSchemaGaps, GoldenMasksAcceptTsPayloadAndEv) {
  const auto r = load_with_check("{type: golden, pcap: pcaps/spray/x.pcapng, masks: [ts, payload, ev, psn]}");
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  const auto& g = std::get<GoldenCheck>(last_check(r).params);
  EXPECT_EQ(g.masks, (std::vector<std::string>{"ts", "payload", "ev", "bth.psn"}));
  const auto bad = load_with_check("{type: golden, pcap: pcaps/spray/x.pcapng, masks: [tss]}");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.diagnostics.to_string().find("did you mean 'ts'"), std::string::npos) << bad.diagnostics.to_string();
}

TEST(CheckSchemaGaps, ThroughputRecoveredRateKeys) {
  const auto def = load_with_check("{type: timing, metric: throughput_recovered, bound_ns: 1000000}");
  ASSERT_TRUE(def.ok()) << def.diagnostics.to_string();
  EXPECT_EQ(std::get<TimingCheck>(last_check(def).params).window_ns, 20'000u);
  EXPECT_DOUBLE_EQ(std::get<TimingCheck>(last_check(def).params).recovered_pct, 90.0);
  const auto set = load_with_check(
      "{type: timing, metric: throughput_recovered, bound_ns: 1000000, window_ns: 50000, recovered_pct: 75.5}");
  ASSERT_TRUE(set.ok()) << set.diagnostics.to_string();
  EXPECT_EQ(std::get<TimingCheck>(last_check(set).params).window_ns, 50'000u);
  EXPECT_DOUBLE_EQ(std::get<TimingCheck>(last_check(set).params).recovered_pct, 75.5);
  const auto other = load_with_check("{type: timing, metric: ack_timeout, bound_ns: 1000000, window_ns: 50000}");
  EXPECT_FALSE(other.ok());
  EXPECT_NE(other.diagnostics.to_string().find("applies only to metric throughput_recovered"), std::string::npos);
  EXPECT_FALSE(load_with_check("{type: timing, metric: throughput_recovered, bound_ns: 1, recovered_pct: 0}").ok());
}

TEST(CheckSchemaGaps, NsccWindowInvariantsNeedTheirConfiguredValues) {
  EXPECT_TRUE(load_with_check("{type: invariant, name: inflight_bounds, params: {max_bytes: 32768}}").ok());
  const auto no_md = load_with_check("{type: invariant, name: no_md_below_target, params: {window_ns: 1000}}");
  EXPECT_FALSE(no_md.ok());
  EXPECT_NE(no_md.diagnostics.to_string().find("target_ns"), std::string::npos) << no_md.diagnostics.to_string();
  EXPECT_TRUE(load_with_check("{type: invariant, name: quick_adapt, params: {max_cwnd: 65536, epoch_ns: 4000, qa_gate: 3}}").ok());
  EXPECT_FALSE(load_with_check("{type: invariant, name: quick_adapt, params: {max_cwnd: 65536}}").ok());
}

}  // namespace
}  // namespace mrc::harness
