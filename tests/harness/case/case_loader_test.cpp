#include "harness/case/case_loader.hpp"

#include <gtest/gtest.h>

#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::case_tests_dir;
using testing::minimal_case;
using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

LoadResult load_valid(std::string_view name) {
  LoadResult r = load_case(case_tests_dir() / "valid" / name, project_clauses());
  EXPECT_TRUE(r.ok()) << r.diagnostics.to_string();
  return r;
}

TEST(CaseId, ParsesAreaLetterNumber) {
  const auto id = parse_case_id("srcroute-o-042");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->area, Area::kSrcroute);
  EXPECT_EQ(id->behaviour, Behaviour::kInopportune);
  EXPECT_EQ(id->number, 42u);
  for (const char* bad : {"spray-v-01", "spray-v-0001", "spray-x-001", "sprays-v-001", "spray-v-000",
                          "spray-v-00a", "spray_v_001", "", "spray", "spray-v"}) {
    EXPECT_FALSE(parse_case_id(bad)) << bad;
  }
}

// A case's basis is derived from its clauses: published only when every clause is.
TEST(LoadCase, BasisComesFromTheClauses) {
  const auto dir = scratch_dir() / "invalid";
  std::string published = minimal_case("invalid-i-012");
  published.replace(published.find("clauses: [SPRAY-PER-PACKET-EV]"), 30, "clauses: [INVALID-WRONG-QPN]");
  published.replace(published.find("behaviour: valid"), 16, "behaviour: invalid");
  const auto p = load_case(write_file(dir / "invalid-i-012.yaml", published), project_clauses());
  ASSERT_TRUE(p.ok()) << p.diagnostics.to_string();
  EXPECT_EQ(p.value->basis, Basis::kPublished);
  std::string mixed = published;
  mixed.replace(mixed.find("clauses: [INVALID-WRONG-QPN]"), 28, "clauses: [INVALID-WRONG-QPN, INVALID-TRUNCATED]");
  const auto m = load_case(write_file(dir / "invalid-i-012.yaml", mixed), project_clauses());
  ASSERT_TRUE(m.ok()) << m.diagnostics.to_string();
  EXPECT_EQ(m.value->basis, Basis::kSpec);  // INVALID-TRUNCATED: METH and RETH on every data packet (W4)
}

TEST(LoadCase, EveryTopLevelAndConfigKeyIsTyped) {
  const auto r = load_valid("spray-v-001.yaml");
  ASSERT_TRUE(r.value);
  const Case& c = *r.value;
  EXPECT_EQ(c.id, "spray-v-001");
  EXPECT_EQ(c.id_loc.line, 2);
  EXPECT_EQ(c.area, Area::kSpray);
  EXPECT_EQ(c.number, 1u);
  EXPECT_EQ(c.behaviour, Behaviour::kValid);
  EXPECT_EQ(c.level, Level::kMust);
  EXPECT_EQ(c.clauses, (std::vector<std::string>{"SPRAY-PER-PACKET-EV", "SPRAY-UNIFORM-PLANES", "EV-DENIED-NEVER-USED"}));
  EXPECT_EQ(c.basis, Basis::kModel);  // from the clauses, not a key: SPRAY-UNIFORM-PLANES is model
  EXPECT_TRUE(c.rationale.starts_with("MRC's defining behaviour"));
  EXPECT_TRUE(c.has_tag("smoke"));
  EXPECT_FALSE(c.has_tag("nightly"));
  EXPECT_TRUE(c.requires_cap(Capability::kStev));
  EXPECT_FALSE(c.requires_cap(Capability::kSrv6));
  EXPECT_EQ(c.role, Role::kRequester);
  EXPECT_EQ(c.timeout_s, 60u);
  EXPECT_EQ(c.seed, 42u);

  EXPECT_EQ(c.testbed.preset, "mini");
  EXPECT_EQ(c.testbed.planes, 4u);
  EXPECT_EQ(c.testbed.hosts, 2u);
  EXPECT_EQ(c.testbed.link_gbps, 100u);
  EXPECT_EQ(c.testbed.mtu, 4200u);
  EXPECT_EQ(c.testbed.trim_bytes, 256u);
  ASSERT_EQ(c.testbed.overrides.size(), 1u);
  EXPECT_EQ(c.testbed.overrides[0], (std::pair<std::string, std::string>{"queue_bytes", "262144"}));

  ASSERT_TRUE(c.config.ev_format);
  EXPECT_EQ(c.config.ev_format->mode, EvFormatMode::kStev);
  EXPECT_EQ(c.config.ev_format->widths, (std::vector<std::uint32_t>{16, 16}));
  ASSERT_TRUE(c.config.ev_profile);
  const EvProfileConfig& p = *c.config.ev_profile;
  EXPECT_EQ(p.mode, EvMode::kExplicit);
  ASSERT_EQ(p.fields.size(), 2u);
  EXPECT_EQ(p.fields[0].init, 0x1000u);
  EXPECT_EQ(p.fields[0].mask, 0x0F0Fu);
  EXPECT_EQ(p.fields[1].init, 0x2000u);
  ASSERT_EQ(p.evs.size(), 4u);
  EXPECT_EQ(p.evs[0].value, (std::vector<std::uint8_t>{0x33, 0x12}));
  EXPECT_EQ(p.evs[3].port, 4u);
  EXPECT_EQ(p.ev_count(), 4u);
  EXPECT_EQ(p.ev_min_active, 2u);
  EXPECT_EQ(p.denied, (std::vector<std::uint32_t>{3}));
  ASSERT_TRUE(c.config.cc_profile);
  EXPECT_EQ(c.config.cc_profile->algorithm, "uet-1.0-nscc");
  EXPECT_EQ(c.config.cc_profile->base_rtt, 12000u);
  EXPECT_DOUBLE_EQ(c.config.cc_profile->gamma, 0.8);
  EXPECT_EQ(c.config.cc_profile->qa_gate, 3u);
  EXPECT_EQ(c.config.qp.count, 2u);
  EXPECT_EQ(c.config.qp.retry.linear, 7u);
  EXPECT_EQ(c.config.qp.retry.exp, 25u);

  ASSERT_EQ(c.stimulus.size(), 2u);
  EXPECT_EQ(c.stimulus[0].kind(), "traffic");
  EXPECT_EQ(c.stimulus[0].loc.line, 47);
  const auto& t0 = std::get<TrafficStep>(c.stimulus[0].body);
  EXPECT_EQ(t0.writes, 2000u);
  EXPECT_EQ(t0.size, 65536u);
  EXPECT_EQ(t0.window, 16u);
  EXPECT_FALSE(t0.rate_gbps);
  const auto& t1 = std::get<TrafficStep>(c.stimulus[1].body);
  EXPECT_EQ(t1.qp, 1u);
  EXPECT_TRUE(t1.with_imm);
  EXPECT_DOUBLE_EQ(*t1.rate_gbps, 50.0);
  EXPECT_EQ(t1.start_ns, 1000u);

  ASSERT_EQ(c.checks.size(), 4u);
  EXPECT_EQ(c.checks[0].type(), "positive_control");
  EXPECT_EQ(std::get<PositiveControlCheck>(c.checks[0].params).min_bytes, 1000000u);
  const auto& d = std::get<DistributionCheck>(c.checks[1].params);
  EXPECT_EQ(d.over, DistributionOver::kEv);
  EXPECT_DOUBLE_EQ(d.alpha, 0.001);
  EXPECT_EQ(d.qp, 0u);
  EXPECT_EQ(c.checks[1].clauses, (std::vector<std::string>{"SPRAY-PER-PACKET-EV"}));
  EXPECT_EQ(std::get<DistributionCheck>(c.checks[2].params).test, GofTest::kG);
  EXPECT_EQ(c.checks[2].clauses, (std::vector<std::string>{"SPRAY-UNIFORM-PLANES"}));  // lone word
  EXPECT_EQ(std::get<InvariantCheck>(c.checks[3].params).name, "no_denied_ev");
}

// W13: config.dscp names any of the six classes; the ones left out stay unset (the runner fills in
// the reference's defaults), and an absent key sets none.
TEST(LoadCase, DscpClassesAreOptionalEach) {
  const auto dir = scratch_dir();
  const auto f = write_file(dir / "spray-v-500.yaml",
                            minimal_case("spray-v-500", "config:\n  dscp: {trimmable: 20, trimmable_retx: 22, control: 0}\n"));
  const LoadResult r = load_case(f, project_clauses());
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  const DscpCaseConfig& d = r.value->config.dscp;
  EXPECT_EQ(d.trimmable, 20u);
  EXPECT_EQ(d.trimmable_retx, 22u);
  EXPECT_EQ(d.control, 0u);
  EXPECT_FALSE(d.no_trim);
  EXPECT_FALSE(d.trimmed);
  EXPECT_FALSE(d.trimmed_lasthop);
  EXPECT_TRUE(d.any());
  const auto plain = write_file(dir / "spray-v-501.yaml", minimal_case("spray-v-501"));
  const LoadResult p = load_case(plain, project_clauses());
  ASSERT_TRUE(p.ok()) << p.diagnostics.to_string();
  EXPECT_FALSE(p.value->config.dscp.any());
}

TEST(LoadCase, DscpValueOutOfRangeNamesFileLineAndKey) {
  const auto dir = scratch_dir();
  const auto f = write_file(dir / "spray-v-502.yaml",
                            minimal_case("spray-v-502", "config:\n  dscp:\n    trimmed: 11\n    trimmed_lasthop: 99\n"));
  const LoadResult r = load_case(f, project_clauses());
  EXPECT_FALSE(r.ok());
  const std::string text = r.diagnostics.to_string();
  EXPECT_NE(text.find("spray-v-502.yaml:15:22: config.dscp.trimmed_lasthop: value 99 is out of range [0, 63]"),
            std::string::npos)
      << text;
}

TEST(LoadCase, ImpairmentKindsAndTheirParams) {
  const auto r = load_valid("failover-v-001.yaml");
  ASSERT_TRUE(r.value);
  const Case& c = *r.value;
  EXPECT_EQ(c.testbed.preset, "rack");
  EXPECT_FALSE(c.config.ev_profile);
  ASSERT_EQ(c.stimulus.size(), 12u);
  const auto& down = std::get<ImpairStep>(c.stimulus[1].body);
  EXPECT_EQ(down.kind, ImpairKind::kLinkDown);
  EXPECT_EQ(down.at_ns, 200000u);
  EXPECT_EQ(down.select.plane, 2u);
  const auto& drop = std::get<ImpairStep>(c.stimulus[2].body);
  EXPECT_EQ(drop.select.evs, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(drop.select.psn_range, (std::pair<std::uint32_t, std::uint32_t>{100, 200}));
  EXPECT_EQ(drop.select.time_window, (std::pair<std::uint64_t, std::uint64_t>{0, 500000}));
  EXPECT_DOUBLE_EQ(drop.select.probability, 0.5);
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[3].body).params.bytes, 256u);
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[4].body).params.depth, 4u);
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[5].body).params.copies, 1u);
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[6].body).params.xor_mask, 0x80u);
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[7].body).params.jitter_ns, 500u);
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[8].body).select.link, "h0-p2");
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[9].body).params.target, "leaf-3");
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[10].body).params.port, 1u);
  EXPECT_EQ(std::get<ImpairStep>(c.stimulus[11].body).select.evs, (std::vector<std::uint32_t>{3}));
  const auto& timing = std::get<TimingCheck>(c.checks[1].params);
  EXPECT_EQ(c.checks[1].name, "failover-time");
  EXPECT_EQ(timing.metric, TimingMetric::kStopUsingFailed);
  EXPECT_EQ(timing.trials, 30u);
  EXPECT_DOUBLE_EQ(timing.percentile, 99.0);
  const auto& inv = std::get<InvariantCheck>(c.checks[2].params);
  EXPECT_EQ(inv.params, (std::vector<std::pair<std::string, std::string>>{{"grace_ns", "300000"}}));
}

TEST(LoadCase, InjectExpectAndFieldChecks) {
  const auto r = load_valid("invalid-i-001.yaml");
  ASSERT_TRUE(r.value);
  const Case& c = *r.value;
  const auto& in = std::get<InjectStep>(c.stimulus[0].body);
  EXPECT_EQ(in.frame.opcode, 0xCAu);  // W3 write_only
  EXPECT_EQ(in.frame.psn, 0x10u);
  EXPECT_EQ(in.frame.dqpn, 0x123u);
  ASSERT_TRUE(in.frame.reth);
  EXPECT_EQ(in.frame.reth->rkey, 0xDEADu);
  EXPECT_EQ(in.frame.flags, (std::vector<FrameFlag>{FrameFlag::kAckReq}));
  EXPECT_EQ(in.frame.payload->len, 64u);
  EXPECT_EQ(in.frame.icrc, IcrcMode::kGood);
  const auto& ex = std::get<ExpectStep>(c.stimulus[1].body);
  EXPECT_EQ(ex.within_ns, 100000u);
  EXPECT_DOUBLE_EQ(ex.tolerance_pct, 10.0);
  ASSERT_EQ(ex.match.size(), 4u);
  EXPECT_EQ(ex.match[0].field, "bth.opcode");  // alias resolved
  EXPECT_EQ(ex.match[0].value, MatchValue{std::uint64_t{0xD1}});  // opcode name resolved (W3 Transport ACK)
  EXPECT_EQ(ex.match[1].field, "aeth.syndrome");
  EXPECT_EQ(ex.match[3].value, MatchValue{Wildcard{}});
  EXPECT_TRUE(std::get<ExpectStep>(c.stimulus[2].body).absent);
  const auto& f = std::get<FieldCheck>(c.checks[1].params);
  EXPECT_EQ(f.field, "aeth.syndrome");
  EXPECT_EQ(std::get<FieldCheck::Equals>(f.predicate).value, MatchValue{std::uint64_t{0x62}});
  ASSERT_EQ(f.select.size(), 1u);
}

TEST(LoadCase, SrcrouteGoldenAndTestbedFile) {
  const auto r = load_valid("srcroute-v-001.yaml");
  ASSERT_TRUE(r.value);
  const Case& c = *r.value;
  EXPECT_TRUE(c.testbed.preset.empty());
  EXPECT_EQ(c.testbed.file, case_tests_dir() / "valid" / "../testbeds/two-plane.yaml");
  EXPECT_EQ(c.config.ev_profile->ev_count(), 64u);
  EXPECT_EQ(c.config.ev_profile->generate->seed, 7u);
  const auto& g = std::get<GoldenCheck>(c.checks[1].params);
  EXPECT_EQ(g.pcap, "pcaps/srcroute/srcroute-v-001.pcapng");
  EXPECT_EQ(g.masks, (std::vector<std::string>{"ip.hop_limit", "udp.sport", "icrc"}));
  EXPECT_EQ(g.window, 8u);
  EXPECT_EQ(g.tolerance_ns, 1000u);
  const auto& in = std::get<FieldCheck>(c.checks[2].params);
  EXPECT_EQ(std::get<FieldCheck::In>(in.predicate).values.size(), 1u);
  const auto& range = std::get<FieldCheck::Range>(std::get<FieldCheck>(c.checks[3].params).predicate);
  EXPECT_EQ(range.hi, 0xFFFFFFu);
}

TEST(LoadCase, ControlStepsAndFeedbackInjection) {
  const auto ev = load_valid("evctl-o-001.yaml");
  ASSERT_TRUE(ev.value);
  const auto& deny = std::get<ControlStep>(ev.value->stimulus[1].body);
  EXPECT_EQ(deny.op, ControlOp::kDenyEv);
  EXPECT_EQ(deny.ev, 1u);
  EXPECT_EQ(std::get<ControlStep>(ev.value->stimulus[4].body).expect, ControlResult::kEinval);
  const auto tr = load_valid("reliab-v-001.yaml");
  ASSERT_TRUE(tr.value);
  const auto& stub = std::get<InjectStep>(tr.value->stimulus[1].body).frame;
  EXPECT_EQ(stub.opcode, 0xC9u);
  EXPECT_EQ(stub.dscp, 11u);
  EXPECT_EQ(stub.truncate, 128u);
  EXPECT_EQ(stub.ev, 5u);
  const auto& sack = std::get<InjectStep>(tr.value->stimulus[3].body).frame;
  EXPECT_EQ(sack.opcode, 0xDCu);  // W3 SACK
  ASSERT_TRUE(sack.sack);
  EXPECT_EQ(sack.sack->m, 1u);
  EXPECT_EQ(sack.sack->bitmap, 0x1u);
  EXPECT_EQ(sack.sack->ack_psn, 0u);
  EXPECT_EQ(sack.sack->entropy, 0x13032102u);
  EXPECT_EQ(sack.sack->rcvd_bytes, 16u);
  EXPECT_EQ(tr.value->config.qp.caps, (std::vector<QpCap>{QpCap::kSvcTimeDestUnsupported}));
}

TEST(LoadCase, FindsClausesYamlAboveTheCase) {
  const auto dir = scratch_dir();
  std::filesystem::copy_file(testing::source_dir() / "cases/clauses.yaml", dir / "clauses.yaml");
  const auto file = write_file(dir / "spray" / "spray-v-001.yaml", minimal_case("spray-v-001"));
  const auto r = load_case(file);
  EXPECT_TRUE(r.ok()) << r.diagnostics.to_string();
}

TEST(LoadCase, WithoutAClauseIndexNothingLoads) {
  const auto dir = scratch_dir();
  const auto file = write_file(dir / "a" / "b" / "c" / "d" / "spray-v-001.yaml", minimal_case("spray-v-001"));
  const auto r = load_case(file);
  EXPECT_FALSE(r.value);
  EXPECT_TRUE(r.diagnostics.contains("no clauses.yaml")) << r.diagnostics.to_string();
}

TEST(LoadCase, MissingFileIsADiagnosticNotAThrow) {
  const auto r = load_case(scratch_dir() / "spray-v-404.yaml", project_clauses());
  EXPECT_FALSE(r.value);
  EXPECT_TRUE(r.diagnostics.contains("spray-v-404.yaml: cannot read")) << r.diagnostics.to_string();
}

TEST(LoadCases, LoadsAFolderSortedAndFiltersByTag) {
  const std::filesystem::path valid = case_tests_dir() / "valid";
  const CaseSet all = load_cases(valid, {}, &project_clauses());
  EXPECT_TRUE(all.ok()) << all.diagnostics.to_string();
  EXPECT_EQ(all.files, 6u);
  ASSERT_EQ(all.cases.size(), 6u);
  EXPECT_TRUE(std::is_sorted(all.cases.begin(), all.cases.end(), [](const Case& a, const Case& b) { return a.id < b.id; }));
  ASSERT_NE(all.find("reliab-v-001"), nullptr);
  EXPECT_EQ(all.find("reliab-v-999"), nullptr);

  const CaseSet smoke = load_cases(valid, CaseFilter{{"smoke", "golden"}, {}}, &project_clauses());
  ASSERT_EQ(smoke.cases.size(), 2u);
  EXPECT_EQ(smoke.cases[0].id, "spray-v-001");
  EXPECT_EQ(smoke.cases[1].id, "srcroute-v-001");
  EXPECT_EQ(smoke.filtered_out, 4u);

  const CaseSet rest = load_cases(valid, CaseFilter{{}, {"smoke", "failover"}}, &project_clauses());
  EXPECT_EQ(rest.cases.size(), 4u);
  EXPECT_EQ(rest.find("spray-v-001"), nullptr);
}

TEST(LoadCases, DuplicateIdsAcrossFilesAreReported) {
  const auto dir = scratch_dir();
  std::filesystem::copy_file(testing::source_dir() / "cases/clauses.yaml", dir / "clauses.yaml");
  write_file(dir / "a" / "spray-v-001.yaml", minimal_case("spray-v-001"));
  write_file(dir / "b" / "spray-v-001.yaml", minimal_case("spray-v-001"));
  write_file(dir / "spray" / "spray-v-002.yaml", minimal_case("spray-v-002"));
  const std::vector<std::filesystem::path> inputs{dir / "a", dir / "b", dir / "spray"};
  const CaseSet set = load_cases(inputs);  // each file finds dir/clauses.yaml
  EXPECT_EQ(set.files, 3u);
  ASSERT_EQ(set.cases.size(), 2u);
  ASSERT_EQ(set.diagnostics.size(), 1u) << set.diagnostics.to_string();
  const std::string msg = set.diagnostics.items()[0].to_string();
  EXPECT_EQ(msg, (dir / "b" / "spray-v-001.yaml").string() + ":1:5: id: duplicate case id 'spray-v-001' (also defined at " +
                     (dir / "a" / "spray-v-001.yaml").string() + ":1:5)");
}

TEST(LoadCases, ErrorsInOneFileDoNotHideOthers) {
  const auto dir = scratch_dir();
  write_file(dir / "spray-v-001.yaml", minimal_case("spray-v-001", "seed: x\n"));
  write_file(dir / "spray-v-002.yaml", minimal_case("spray-v-002"));
  write_file(dir / ".hidden" / "spray-v-003.yaml", "not: [valid");
  const CaseSet set = load_cases(dir, {}, &project_clauses());
  EXPECT_EQ(set.files, 2u);
  ASSERT_EQ(set.cases.size(), 1u);
  EXPECT_EQ(set.cases[0].id, "spray-v-002");
  EXPECT_TRUE(set.diagnostics.contains("spray-v-001.yaml:12:7: seed: expected an unsigned integer")) << set.diagnostics.to_string();
}

}  // namespace
}  // namespace mrc::harness
