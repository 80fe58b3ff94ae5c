// Endpoint-operation invariants (W10): req_id_not_reused on synthetic captures of the DUT's
// endpoint requests (0xD8) and the responses (0xD9) it receives, the id in PSN[15:0]; and
// peer_port_status on the DUT's data around the port-status updates it receives.
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Probe;
using testing::Scenario;

InvariantCheck req_ids(std::vector<std::pair<std::string, std::string>> params = {}) {
  return InvariantCheck{"req_id_not_reused", std::move(params)};
}

Probe probe(std::uint16_t id) {
  Probe p;
  p.req_id = id;
  return p;
}

// A response (0xD9) for request `id`; from the peer to the DUT unless `from_dut`.
std::vector<std::uint8_t> response(std::uint16_t id, bool from_dut = false) {
  wire::FrameSpec s = from_dut ? testing::detail::base_spec(testing::ev_value(0), wire::kDscpControl, wire::kEcnNotEct)
                               : testing::detail::base_spec(testing::ev_value(0), wire::kDscpControl, wire::kEcnNotEct, 2, 1);
  s.bth.opcode = wire::opcode::kMrcEndpointRsp;
  s.bth.dest_qp = wire::kEndpointQpn;
  s.bth.psn = id;
  s.has_eeth = true;
  return testing::detail::finish(s);
}
std::vector<std::uint8_t> reply(std::uint16_t id) { return response(id); }

TEST(EpInvariants, DistinctOrAnsweredIdsPass) {
  Scenario s(4, 8);
  s.dut_sends(1000, probe(1), 1);
  s.dut_sends(1000, probe(2), 2);  // concurrent, distinct
  s.raw(4000, false, 1, reply(1));
  s.dut_sends(5000, probe(1), 3);  // id 1 was answered: free again
  const auto r = run_invariant(req_ids(), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("judged"), 3.0);
}

TEST(EpInvariants, ReuseWhileOutstandingFails) {
  Scenario s(4, 8);
  s.dut_sends(1000, probe(7), 1);
  s.dut_sends(1200, probe(7), 2);  // the first is unanswered and 200 ns old
  s.raw(4000, false, 1, reply(7));
  const auto r = run_invariant(req_ids(), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(r.evidence[0].field, "ep.id");
  EXPECT_NE(r.evidence[0].observed.find("7 again"), std::string::npos) << r.evidence[0].observed;
  EXPECT_EQ(r.metrics.at("violations"), 1.0);
}

TEST(EpInvariants, UnansweredIdIsFreeAfterTheInFlightBound) {
  Scenario s(4, 8);
  s.dut_sends(1000, probe(9), 1);
  s.dut_sends(1000, probe(2), 2);            // alongside: the rule is tested
  s.dut_sends(1000 + 100'000, probe(9), 1);  // never answered, exactly the default bound later
  EXPECT_EQ(run_invariant(req_ids(), s.finish()).verdict, Verdict::kPass);
  // A longer bound from the case makes the same reuse a violation.
  EXPECT_EQ(run_invariant(req_ids({{"in_flight_ns", "200000"}}), s.finish()).verdict, Verdict::kFail);
  // Just inside the default bound: a violation.
  Scenario t(4, 8);
  t.dut_sends(1000, probe(9), 1);
  t.dut_sends(1000 + 99'999, probe(9), 1);
  EXPECT_EQ(run_invariant(req_ids(), t.finish()).verdict, Verdict::kFail);
}

TEST(EpInvariants, RepliesSentByTheDutDoNotFreeItsIds) {
  Scenario s(4, 8);
  s.dut_sends(1000, probe(4), 1);
  s.raw(2000, true, 1, response(4, true));  // the DUT answering the peer's request 4: not an answer to its own
  s.dut_sends(3000, probe(4), 1);
  EXPECT_EQ(run_invariant(req_ids(), s.finish()).verdict, Verdict::kFail);
}

TEST(EpInvariants, NoRequestsIsInconclusiveAndBadParamIsError) {
  Scenario s(4, 8);
  s.raw(1000, false, 1, reply(1));
  EXPECT_EQ(run_invariant(req_ids(), s.finish()).verdict, Verdict::kInconclusive);
  Scenario t(4, 8);
  t.dut_sends(1000, probe(1), 1);
  EXPECT_EQ(run_invariant(req_ids({{"in_flight_ns", "soon"}}), t.finish()).verdict, Verdict::kError);
}


// Requests each answered before the next leave the rule untested, and so does a timing budget past
// in_flight_ns: nothing to judge, not a PASS (across an agent every control call is a round trip).
TEST(EpInvariants, RequestsNeverOutstandingTogetherAreInconclusive) {
  Scenario s(4, 8);
  s.dut_sends(1000, probe(1), 1);
  s.raw(2000, false, 1, reply(1));
  s.dut_sends(5000, probe(1), 2);  // the same id, answered before: legal, and untested
  s.raw(6000, false, 1, reply(1));
  const auto r = run_invariant(req_ids(), s.finish());
  EXPECT_EQ(r.verdict, Verdict::kInconclusive) << r.message;
  EXPECT_NE(r.message.find("nothing to judge: no request from the DUT was sent while another was unanswered"),
            std::string::npos)
      << r.message;
  EXPECT_EQ(r.metrics.at("requests_while_another_unanswered"), 0.0);
}

TEST(EpInvariants, TheTimingBudgetShrinksTheInFlightBound) {
  Scenario s(4, 8);
  s.dut_sends(1000, probe(9), 1);
  s.dut_sends(1000, probe(3), 2);    // alongside: the rule is tested
  s.dut_sends(61'000, probe(9), 1);  // reused unanswered after 60 us: 40 us before in_flight_ns
  s.finish();
  const auto check = req_ids();
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_invariant(check, c); }, 30'000, 40'000,
                               "of the last 100.000 us - 30.000 us timing budget");
  // Never below zero: a budget past the bound forgives every reuse, and leaves nothing judged.
  s.ctx.timing_budget = testing::bridge(1'000'000);
  EXPECT_EQ(run_invariant(check, s.ctx).verdict, Verdict::kInconclusive);
}

// Four ports, EV i on port (i % 4) + 1. The peer reports `mask` at 10 us and every port up
// (0x1F, either reading) at 50 us; the DUT sends on the EVs `during` names between the updates,
// and on every EV before and after.
Scenario port_status_run(std::uint32_t mask, std::vector<std::uint32_t> during) {
  Scenario s(4, 8);
  testing::Data d;
  std::uint32_t psn = 0;
  auto send = [&](std::uint64_t t, std::uint32_t ev) {
    d.psn = psn++;
    s.dut_sends(t, d, ev);
  };
  for (std::uint32_t ev = 0; ev < 8; ++ev) send(1000 + 100 * ev, ev);
  Probe update;
  update.op = wire::EpOp::kPortStatusUpdate;
  update.req_id = 1;
  update.port_status_mask = mask;
  s.dut_receives(10'000, update, 1);
  for (std::size_t k = 0; k < 16; ++k) send(20'000 + 100 * k, during[k % during.size()]);
  update.req_id = 2;
  update.port_status_mask = 0x1F;
  s.dut_receives(50'000, update, 1);
  for (std::uint32_t ev = 0; ev < 8; ++ev) send(60'000 + 100 * ev, ev);
  return s;
}

InvariantCheck peer_ports(std::vector<std::pair<std::string, std::string>> params = {}) {
  return InvariantCheck{"peer_port_status", std::move(params)};
}

TEST(EpInvariants, PeerPortStatusAcceptsEitherMaskNumbering) {
  // 0x16: port 3 down (bit N = port N), or ports 1 and 4 down (bit N-1 = port N).
  Scenario bit_n = port_status_run(0x16, {0, 1, 3, 4, 5, 7});  // EVs on ports 1, 2, 4
  EXPECT_EQ(run_invariant(peer_ports(), bit_n.finish()).verdict, Verdict::kPass);
  Scenario bit_n_minus_1 = port_status_run(0x16, {1, 2, 5, 6});  // EVs on ports 2, 3
  EXPECT_EQ(run_invariant(peer_ports(), bit_n_minus_1.finish()).verdict, Verdict::kPass);
}

TEST(EpInvariants, PeerPortStatusFailsDataOnAPortEveryReadingReportsDown) {
  Scenario ignored = port_status_run(0x16, {0, 1, 2, 3, 4, 5, 6, 7});
  const auto r = run_invariant(peer_ports(), ignored.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "port");
  EXPECT_NE(r.evidence[0].expected.find("bit N = port N"), std::string::npos) << r.evidence[0].expected;
  EXPECT_EQ(r.metrics.at("violations_bit_n"), 4.0);        // the 4 packets on port 3
  EXPECT_EQ(r.metrics.at("violations_bit_n_minus_1"), 8.0);  // the 8 on ports 1 and 4
}

TEST(EpInvariants, PeerPortStatusLeavesTheReactionTimeAndNeedsAnUpdate) {
  // Data on ports 1 and 3 (each down in one reading) 10 us after the update: judged by default,
  // not with reaction_ns 15000.
  Scenario s = port_status_run(0x16, {0, 2});
  EXPECT_EQ(run_invariant(peer_ports(), s.finish()).verdict, Verdict::kFail);
  Scenario slow = port_status_run(0x16, {0, 2});
  EXPECT_EQ(run_invariant(peer_ports({{"reaction_ns", "15000"}}), slow.finish()).verdict, Verdict::kPass);
  Scenario none(4, 8);
  none.spray(0, 0, 8);
  EXPECT_EQ(run_invariant(peer_ports(), none.finish()).verdict, Verdict::kError);
}

}  // namespace
}  // namespace mrc::harness
