// Times written in units of the case's timers (harness/case/time_expr.hpp) and the loader's
// rescaling of them (LoadOptions::timeout).
#include "harness/case/time_expr.hpp"

#include <gtest/gtest.h>

#include <variant>

#include "harness/case/case_loader.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::minimal_case;
using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

TEST(TimeExpr, PlainIntegersAreNanoseconds) {
  const TimeValue v = parse_time("144000", TimeUnits{6});
  ASSERT_TRUE(v.ns) << v.error;
  EXPECT_EQ(*v.ns, 144000u);
  EXPECT_FALSE(v.uses_t);
  EXPECT_EQ(parse_time("1_000", {}).ns, 1000u);
  EXPECT_EQ(parse_time("0x10", {}).ns, 16u);
}

TEST(TimeExpr, TermsSumWithUnitsAndT) {
  const TimeUnits u{6};  // T = 65536 ns
  EXPECT_EQ(parse_time("T", u).ns, 65536u);
  EXPECT_EQ(parse_time("2 T + 12.928 us", u).ns, 144000u);
  EXPECT_EQ(parse_time("2T+12928ns", u).ns, 144000u);
  EXPECT_EQ(parse_time("3 T - 10 us", u).ns, 3 * 65536u - 10000u);
  EXPECT_EQ(parse_time("1.5 ms", u).ns, 1'500'000u);
  EXPECT_EQ(parse_time("0.5 T", u).ns, 32768u);
  EXPECT_EQ(parse_time("1 s", u).ns, 1'000'000'000u);
  EXPECT_TRUE(parse_time("2 T", u).uses_t);
  EXPECT_FALSE(parse_time("20 us", u).uses_t);
  // T follows the exponent: a bound in T grows with a raised timeout, the absolute part stays.
  EXPECT_EQ(parse_time("2 T + 12.928 us", TimeUnits{9}).ns, 2 * (1024u << 9) + 12928u);
}

TEST(TimeExpr, FrameTimesFollowTheRateAndTheMtu) {
  // F: a 4096-byte payload and 100 bytes of headers at the built-in fabric's 800 Gb/s, 41.96 ns.
  const TimeUnits sim{6};
  EXPECT_DOUBLE_EQ(sim.f_ns(), 4196.0 * 8 / 800.0);
  EXPECT_EQ(parse_time("100 F", sim).ns, 4196u);
  EXPECT_TRUE(parse_time("100 F", sim).uses_f);
  EXPECT_FALSE(parse_time("100 F", sim).uses_t);
  EXPECT_FALSE(parse_time("2 T + 1 us", sim).uses_f);
  // Across a 1 Gb/s bridge the same 100 frames take 800 times as long; T and absolute units stay.
  const TimeUnits wire{6, 4096, 1'000'000'000};
  EXPECT_EQ(parse_time("100 F", wire).ns, 3'356'800u);
  EXPECT_EQ(parse_time("T + 100 F + 1 us", wire).ns, 65536u + 3'356'800u + 1000u);
  // A smaller path MTU, a shorter frame: (1024 + 100) x 8 bits at 800 Gb/s.
  EXPECT_EQ(parse_time("1000 F", TimeUnits{6, 1024}).ns, 11240u);
  EXPECT_NE(parse_time("3 f", sim).error.find("F (one data frame at the testbed's rate)"), std::string::npos);
}

TEST(TimeExpr, MistakesSayWhat) {
  const TimeUnits u{6};
  EXPECT_NE(parse_time("3 T + 20 uS", u).error.find("unknown unit 'uS'"), std::string::npos);
  EXPECT_NE(parse_time("2 T + 20", u).error.find("the term '20' has no unit"), std::string::npos);
  EXPECT_NE(parse_time("T - 70 us", u).error.find("negative"), std::string::npos);
  EXPECT_NE(parse_time("2 T 3 us", u).error.find("expected + or -"), std::string::npos);
  EXPECT_NE(parse_time("+", u).error.find("expected a number and a unit"), std::string::npos);
  EXPECT_FALSE(parse_time("", u).ns);
  EXPECT_NE(parse_time("9999999999 s", u).error.find("too large"), std::string::npos);
  EXPECT_FALSE(parse_time("1e3 us", u).ns);
}

const TimingCheck& timing_of(const Case& c) { return std::get<TimingCheck>(c.checks.at(1).params); }

TEST(TimeExpr, LoaderEvaluatesAndRescales) {
  const auto dir = scratch_dir();
  const std::string body =
      "id: failover-v-001\ntitle: t\nclauses: [FAILOVER-STOP-USING-FAILED]\nlevel: SHOULD\nbehaviour: valid\n"
      "rationale: r\nrole: requester\ntiming: scales\nconfig:\n  qp: {timeout: 6}\nstimulus:\n"
      "  - traffic: {writes: 20, size: 65536}\n  - impair: {kind: link_down, at_ns: 20 us, select: {plane: 2}}\n"
      "  - expect: {within_ns: 3 T, absent: true, grace_ns: 2 us, match: {port: 2}}\n"
      "checks:\n  - {type: positive_control}\n  - {type: timing, name: f, metric: stop_using_failed, bound_ns: 2 T + 12.928 us}\n"
      "  - {type: invariant, name: no_data_on_failed_ev, params: {grace_ns: T}}\n";
  const auto file = write_file(dir / "failover-v-001.yaml", body);
  const LoadResult as_written = load_case(file, project_clauses());
  ASSERT_TRUE(as_written.ok()) << as_written.diagnostics.to_string();
  const Case& c = *as_written.value;
  EXPECT_TRUE(c.timing_scales);
  EXPECT_EQ(c.config.qp.timeout, 6);
  EXPECT_EQ(timing_of(c).bound_ns, 144000u);
  const auto& inv = std::get<InvariantCheck>(c.checks.at(2).params);
  ASSERT_EQ(inv.params.size(), 1u);
  EXPECT_EQ(inv.params[0].second, "65536");  // evaluated, so checks read nanoseconds
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus.at(1).body).at_ns, 20000u);
  EXPECT_EQ(std::get<ExpectStep>(c.stimulus.at(2).body).within_ns, 3 * 65536u);

  const LoadResult scaled = load_case(file, project_clauses(), LoadOptions{.timeout = 9, .spray_bps = std::nullopt});
  ASSERT_TRUE(scaled.ok()) << scaled.diagnostics.to_string();
  const Case& s = *scaled.value;
  const std::uint64_t t9 = 1024u << 9;
  EXPECT_EQ(s.config.qp.timeout, 9);
  EXPECT_EQ(timing_of(s).bound_ns, 2 * t9 + 12928u);
  EXPECT_EQ(std::get<InvariantCheck>(s.checks.at(2).params).params[0].second, std::to_string(t9));
  EXPECT_EQ(std::get<ImpairStep>(s.stimulus.at(1).body).at_ns, 20000u);  // absolute: unchanged
  EXPECT_EQ(std::get<ExpectStep>(s.stimulus.at(2).body).within_ns, 3 * t9);
  EXPECT_EQ(std::get<ExpectStep>(s.stimulus.at(2).body).grace_ns, 2000u);
}

TEST(TimeExpr, LoaderEvaluatesFrameTimesAtTheRateItIsGiven) {
  const auto dir = scratch_dir();
  const std::string body =
      "id: reliab-v-001\ntitle: t\nclauses: [RETX-SELECTIVE]\nlevel: SHOULD\nbehaviour: valid\n"
      "rationale: r\nrole: requester\ntiming: scales\nconfig:\n  qp: {timeout: 6, mtu: 1024}\nstimulus:\n"
      "  - traffic: {writes: 20, size: 65536}\n"
      "  - impair: {kind: drop, select: {probability: 0.1, time_window: [100 F, 2000 F + 1 us]}}\n"
      "  - expect: {within_ns: 2 T, absent: true, match: {opcode: nack}}\n"
      "checks:\n  - {type: positive_control}\n";
  const auto file = write_file(dir / "reliab-v-001.yaml", body);
  const LoadResult as_written = load_case(file, project_clauses());
  ASSERT_TRUE(as_written.ok()) << as_written.diagnostics.to_string();
  EXPECT_TRUE(as_written.value->frame_timed);
  EXPECT_EQ(as_written.value->spray_bps, kDefaultSprayBps);
  using Window = std::pair<std::uint64_t, std::uint64_t>;
  const auto window = [](const Case& c) { return *std::get<ImpairStep>(c.stimulus.at(1).body).select.time_window; };
  EXPECT_EQ(window(*as_written.value), Window(1124, 22480 + 1000));

  const LoadResult slow = load_case(file, project_clauses(), LoadOptions{.timeout = std::nullopt, .spray_bps = 1'000'000'000});
  ASSERT_TRUE(slow.ok()) << slow.diagnostics.to_string();
  EXPECT_EQ(slow.value->spray_bps, 1'000'000'000u);
  EXPECT_EQ(window(*slow.value), Window(899'200, 17'984'000 + 1000));
  EXPECT_EQ(std::get<ExpectStep>(slow.value->stimulus.at(2).body).within_ns, 2 * 65536u);  // T: unchanged
  EXPECT_EQ(slow.value->config.qp.timeout, 6);

  // An open-loop traffic slower than the testbed: F is a frame at its rate, here and on the wire.
  const std::string paced = std::string(body).replace(body.find("{writes: 20, size: 65536}"), 25,
                                                      "{writes: 20, size: 65536, rate_gbps: 100}");
  const auto paced_file = write_file(dir / "reliab-v-002.yaml",
                                     std::string(paced).replace(paced.find("reliab-v-001"), 12, "reliab-v-002"));
  const LoadResult at_100 = load_case(paced_file, project_clauses());
  ASSERT_TRUE(at_100.ok()) << at_100.diagnostics.to_string();
  EXPECT_EQ(at_100.value->traffic_bps, 100'000'000'000u);
  EXPECT_EQ(window(*at_100.value), Window(8992, 179840 + 1000));  // 100 F, 2000 F + 1 us at 100 Gb/s
  const LoadResult paced_slow =
      load_case(paced_file, project_clauses(), LoadOptions{.timeout = std::nullopt, .spray_bps = 1'000'000'000});
  ASSERT_TRUE(paced_slow.ok());
  EXPECT_EQ(window(*paced_slow.value), window(*slow.value));  // the bridge is slower than the traffic

  const LoadResult plain = load_case(write_file(dir / "spray-v-001.yaml", minimal_case("spray-v-001")), project_clauses());
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain.value->frame_timed);
}

TEST(TimeExpr, WithoutTheKeyACaseScalesOnlyWhenItWritesNoTime) {
  const auto dir = scratch_dir();
  const auto load = [&](const std::string& name, const std::string& extra) {
    const LoadResult r = load_case(write_file(dir / (name + ".yaml"), minimal_case(name, extra)), project_clauses());
    EXPECT_TRUE(r.ok()) << r.diagnostics.to_string();
    return r.ok() && r.value->timing_scales;
  };
  EXPECT_TRUE(load("spray-v-001", ""));  // nothing timed: a raised timeout changes nothing it judges
  EXPECT_FALSE(load("spray-v-002", "  - {type: timing, name: f, metric: stop_using_failed, bound_ns: 500000}\n"));
  EXPECT_FALSE(load("spray-v-003", "timing: fixed\n"));
  EXPECT_TRUE(load("spray-v-004", "timing: scales\n"));
}

}  // namespace
}  // namespace mrc::harness
