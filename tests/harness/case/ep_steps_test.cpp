// Loader support for endpoint operations (W10): `inject` frames with an `ep` block (ERTH / EETH),
// `config.qp.count: 0` (connectionless probes only), `control: probe_ev` with `tc`, and the
// req_id_not_reused invariant's params.
#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

// A responder case of clause EP-PROBE-CONNECTIONLESS with the given config, steps and checks.
std::string ep_case(std::string_view config, std::string_view steps,
                    std::string_view checks = "  - {type: field, select: {opcode: ep_rsp}, field: ep.id, equals: 5}\n") {
  return "id: reliab-v-101\ntitle: EP fixture\nclauses: [EP-PROBE-CONNECTIONLESS]\nlevel: MUST\nbehaviour: valid\n"
         "rationale: A test fixture.\nrequires: [stev, ev_probe]\nrole: responder\nconfig:\n"
         "  ev_format: {mode: stev, widths: [16, 16]}\n" +
         std::string(config) + "stimulus:\n" + std::string(steps) + "checks:\n" + std::string(checks);
}

LoadResult load_text(const std::string& text) {
  return load_case(write_file(scratch_dir() / "reliab" / "reliab-v-101.yaml", text), project_clauses());
}

const InjectStep& inject_at(const Case& c, std::size_t i) { return std::get<InjectStep>(c.stimulus.at(i).body); }

TEST(EpInject, HeaderFieldsAreTyped) {
  const auto r = load_text(ep_case("  qp: {count: 0}\n",
                                   "  - inject:\n      at_ns: 100\n      frame:\n        opcode: ep_req\n        psn: 0\n"
                                   "        ep: {op: port_status_update, id: 0xBEEF, port_status_mask: 0x16, tx_timestamp: 0x1234}\n"));
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  EXPECT_EQ(r.value->config.qp.count, 0u);
  const FrameSpec& f = inject_at(*r.value, 0).frame;
  EXPECT_EQ(f.opcode, 0xD8);
  ASSERT_TRUE(f.ep);
  EXPECT_EQ(f.ep->op, 0);  // the wire value of PORT_STATUS_UPDATE (S1: W10)
  EXPECT_EQ(f.ep->id, 0xBEEF);
  EXPECT_EQ(f.ep->port_status_mask, 0x16u);
  EXPECT_EQ(f.ep->tx_timestamp, 0x1234);
}

TEST(EpInject, RawOpValueAndDefaults) {
  const auto r = load_text(ep_case("", "  - inject: {at_ns: 100, frame: {opcode: ep_rsp, psn: 0, ep: {op: 3}}}\n"
                                       "  - inject: {at_ns: 200, frame: {opcode: ep_req, psn: 0, ep: {}}}\n"
                                       "  - inject: {at_ns: 300, frame: {opcode: ep_req, psn: 0}}\n"));
  ASSERT_TRUE(r.ok()) << r.diagnostics.to_string();
  const FrameSpec& raw = inject_at(*r.value, 0).frame;
  ASSERT_TRUE(raw.ep);
  EXPECT_EQ(raw.ep->op, 3);
  EXPECT_FALSE(raw.ep->id);
  const FrameSpec& empty = inject_at(*r.value, 1).frame;
  ASSERT_TRUE(empty.ep);
  EXPECT_EQ(empty.ep->op, 1);  // default: EV_PROBE
  EXPECT_EQ(empty.ep->tx_timestamp, 0);
  EXPECT_FALSE(inject_at(*r.value, 2).frame.ep);  // a bare probe: the builder's default ERTH
}

TEST(EpInject, MistakesAreReported) {
  const auto r = load_text(ep_case("  qp: {count: 0}\n",
                                   "  - inject: {at_ns: 100, frame: {opcode: write_only, psn: 0, ep: {id: 1}}}\n"
                                   "  - inject: {at_ns: 200, frame: {opcode: ep_req, psn: 0, ep: {id: 70000, op: 4}}}\n"
                                   "  - inject: {at_ns: 300, frame: {opcode: ep_rsp, psn: 0, ep: {op: probe, port_status_mask: 1, ids: 1}}}\n"));
  ASSERT_FALSE(r.ok());
  const std::string d = r.diagnostics.to_string();
  EXPECT_NE(d.find("stimulus[0].inject.frame.ep: an 'ep' header needs opcode ep_req or ep_rsp"), std::string::npos) << d;
  EXPECT_NE(d.find("stimulus[0].inject.frame: config.qp.count is 0, so a non-endpoint frame needs an explicit 'dqpn'"),
            std::string::npos) << d;
  EXPECT_NE(d.find("stimulus[1].inject.frame.ep.id: value 70000 is out of range [0, 65535]"), std::string::npos) << d;
  EXPECT_NE(d.find("stimulus[1].inject.frame.ep.op:"), std::string::npos) << d;
  EXPECT_NE(d.find("stimulus[2].inject.frame.ep.op:"), std::string::npos) << d;
  EXPECT_NE(d.find("stimulus[2].inject.frame.ep.port_status_mask: only a request (ep_req, ERTH) carries a port_status_mask"),
            std::string::npos) << d;
  EXPECT_NE(d.find("unknown key 'ids' (did you mean 'id'?)"), std::string::npos) << d;
}

TEST(EpInject, NoQpRefusesTrafficButAllowsExplicitDqpn) {
  const auto traffic = load_text(ep_case("  qp: {count: 0}\n", "  - traffic: {writes: 1, size: 64}\n",
                                         "  - {type: positive_control}\n"));
  ASSERT_FALSE(traffic.ok());
  EXPECT_NE(traffic.diagnostics.to_string().find("QP index 0 but config.qp.count is 0"), std::string::npos)
      << traffic.diagnostics.to_string();
  const auto explicit_qp = load_text(ep_case("  qp: {count: 0}\n",
                                             "  - inject: {at_ns: 100, frame: {opcode: write_only, psn: 0, dqpn: 0x123}}\n"));
  EXPECT_TRUE(explicit_qp.ok()) << explicit_qp.diagnostics.to_string();
}

TEST(EpControl, ProbeTcIsTypedAndOnlyForProbes) {
  const auto ok = load_text(ep_case("", "  - control: {at_ns: 10, op: probe_ev, ev: 0, tc: 26}\n"
                                        "  - control: {at_ns: 20, op: probe_ev, ev: 1}\n"));
  ASSERT_TRUE(ok.ok()) << ok.diagnostics.to_string();
  EXPECT_EQ(std::get<ControlStep>(ok.value->stimulus[0].body).tc, 26);
  EXPECT_FALSE(std::get<ControlStep>(ok.value->stimulus[1].body).tc);

  const auto bad = load_text(ep_case("", "  - control: {at_ns: 10, op: probe_ev, ev: 0, tc: 64}\n"
                                         "  - control: {at_ns: 20, op: deny_ev, ev: 0, tc: 10}\n"));
  ASSERT_FALSE(bad.ok());
  const std::string d = bad.diagnostics.to_string();
  EXPECT_NE(d.find("stimulus[0].control.tc: value 64 is out of range [0, 63]"), std::string::npos) << d;
  EXPECT_NE(d.find("stimulus[1].control.tc: 'tc' (the probe's DSCP) applies only to op probe_ev"), std::string::npos) << d;
}

TEST(EpInvariant, ReqIdNotReusedParams) {
  const std::string steps = "  - control: {at_ns: 10, op: probe_ev, ev: 0}\n";
  const auto ok = load_text(ep_case("", steps, "  - {type: invariant, name: req_id_not_reused, params: {in_flight_ns: 50000}}\n"));
  ASSERT_TRUE(ok.ok()) << ok.diagnostics.to_string();
  const auto& inv = std::get<InvariantCheck>(ok.value->checks[0].params);
  EXPECT_EQ(inv.params, (std::vector<std::pair<std::string, std::string>>{{"in_flight_ns", "50000"}}));

  const auto bad = load_text(ep_case("", steps, "  - {type: invariant, name: req_id_not_reused, params: {in_flight: 5}}\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.diagnostics.to_string().find("unknown key 'in_flight' (did you mean 'in_flight_ns'?)"), std::string::npos)
      << bad.diagnostics.to_string();
}

}  // namespace
}  // namespace mrc::harness
