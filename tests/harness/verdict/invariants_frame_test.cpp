// Per-frame invariants: per-packet RETH (W4), ICRC, opcodes, DSCP (W13), ECN.
// A DUT frame that does not decode is a violation with its packet index, never a crash.
#include <gtest/gtest.h>

#include "harness/verdict/checks.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Feedback;
using testing::Probe;
using testing::Scenario;
using testing::encode;

InvariantCheck inv(std::string name, std::vector<std::pair<std::string, std::string>> params = {}) {
  return InvariantCheck{std::move(name), std::move(params)};
}

// PSNs 10..12 are one 768-byte message (W4: every RETH names the whole message), 13 one alone.
Data packet(std::uint32_t psn, std::uint8_t op, std::uint64_t va) {
  Data d;
  d.psn = psn;
  d.opcode = op;
  d.va = va;
  d.dma_len = psn >= 10 && psn <= 12 ? 768 : 256;
  return d;
}

TEST(FrameInvariants, RethEveryPacketWithVaContinuity) {
  namespace oc = wire::opcode;
  Scenario s(4, 8);
  // One 3-packet message sprayed out of order: PSN 12 leaves before PSN 11.
  s.dut_sends(100, packet(10, oc::kMrcWriteFirst, 0x1000), 0);
  s.dut_sends(200, packet(12, oc::kMrcWriteLast, 0x1200), 1);
  s.dut_sends(300, packet(11, oc::kMrcWriteMiddle, 0x1100), 2);
  s.dut_sends(400, packet(13, oc::kMrcWriteOnly, 0x9000), 3);
  s.dut_sends(500, packet(11, oc::kMrcWriteMiddle, 0x1100), 4);  // retransmission, same VA
  EXPECT_EQ(run_invariant(inv("reth_every_packet"), s.finish()).verdict, Verdict::kPass);

  Scenario gap(4, 8);
  gap.dut_sends(100, packet(10, oc::kMrcWriteFirst, 0x1000), 0);
  gap.dut_sends(200, packet(11, oc::kMrcWriteMiddle, 0x1180), 1);  // should be 0x1100
  auto r = run_invariant(inv("reth_every_packet"), gap.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "reth.va");
  EXPECT_EQ(r.evidence[0].expected, "0x1100 (VA of PSN 10 + its 256 payload bytes)");
  EXPECT_EQ(r.evidence[0].observed, "0x1180");

  Scenario moved = s;
  moved.dut_sends(600, packet(11, oc::kMrcWriteMiddle, 0x2100), 5);  // a retransmission elsewhere
  EXPECT_EQ(run_invariant(inv("reth_every_packet"), moved.finish()).verdict, Verdict::kFail);

  Scenario bare(4, 8);  // IBA framing: MIDDLE without RETH; MRC framing reads payload as a RETH
  Data middle = packet(11, oc::kMrcWriteMiddle, 0);
  middle.reth = false;
  bare.dut_sends(100, packet(10, oc::kMrcWriteFirst, 0x1000), 0);
  bare.dut_sends(200, middle, 1);
  r = run_invariant(inv("reth_every_packet"), bare.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "reth.va");  // payload bytes read as its VA

  // W4: the message length in every packet (S1), the same in each.
  Scenario short_len(4, 8);
  Data last = packet(12, oc::kMrcWriteLast, 0x1200);
  last.dma_len = 256;  // its own payload, as the old per-packet model had it
  short_len.dut_sends(100, packet(10, oc::kMrcWriteFirst, 0x1000), 0);
  short_len.dut_sends(200, packet(11, oc::kMrcWriteMiddle, 0x1100), 1);
  short_len.dut_sends(300, last, 2);
  r = run_invariant(inv("reth_every_packet"), short_len.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "reth.len");
  EXPECT_EQ(r.evidence[0].expected, "768 (as the message's FIRST packet, PSN 10)");
  EXPECT_EQ(r.evidence[0].observed, "256");

  Scenario all_wrong(4, 8);  // consistent, but not the message's length
  for (std::uint32_t psn : {10u, 11u, 12u}) {
    Data d = packet(psn, psn == 10 ? oc::kMrcWriteFirst : psn == 11 ? oc::kMrcWriteMiddle : oc::kMrcWriteLast,
                    0x1000 + (psn - 10) * 0x100);
    d.dma_len = 1024;
    all_wrong.dut_sends(100 * psn, d, psn % 8);
  }
  r = run_invariant(inv("reth_every_packet"), all_wrong.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].expected, "768 (the payload bytes of its message, S1: W4)");
}

TEST(FrameInvariants, MethNamesTheMessageRetransmissionsIncluded) {
  namespace oc = wire::opcode;
  const auto data = [](std::uint32_t psn, std::uint8_t op, std::uint16_t msn) {
    Data d = packet(psn, op, 0x1000 + (psn - 10) * 0x100);
    d.msn = msn;
    return d;
  };
  Scenario s(4, 8);
  s.dut_sends(100, data(10, oc::kMrcWriteFirst, 4), 0);
  s.dut_sends(200, data(12, oc::kMrcWriteLast, 4), 1);
  s.dut_sends(300, data(11, oc::kMrcWriteMiddle, 4), 2);
  s.dut_sends(400, data(13, oc::kMrcWriteOnly, 5), 3);
  s.dut_sends(500, data(11, oc::kMrcWriteMiddle, 4), 4);  // retransmission, same msn
  EXPECT_EQ(run_invariant(inv("meth_every_packet"), s.finish()).verdict, Verdict::kPass);

  Scenario per_packet(4, 8);  // numbers packets, not messages
  per_packet.dut_sends(100, data(10, oc::kMrcWriteFirst, 10), 0);
  per_packet.dut_sends(200, data(11, oc::kMrcWriteMiddle, 11), 1);
  per_packet.dut_sends(300, data(12, oc::kMrcWriteLast, 12), 2);
  auto r = run_invariant(inv("meth_every_packet"), per_packet.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "meth.msn");
  EXPECT_EQ(r.evidence[0].expected, "10 (the msn of its message, from PSN 10)");

  Scenario skipped(4, 8);  // the next message's msn jumps
  skipped.dut_sends(100, data(10, oc::kMrcWriteFirst, 4), 0);
  skipped.dut_sends(200, data(11, oc::kMrcWriteMiddle, 4), 1);
  skipped.dut_sends(300, data(12, oc::kMrcWriteLast, 4), 2);
  skipped.dut_sends(400, data(13, oc::kMrcWriteOnly, 6), 3);
  r = run_invariant(inv("meth_every_packet"), skipped.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].expected, "5 (the message before, ending at PSN 12, has msn 4)");

  Scenario fresh(4, 8);  // a retransmission with a new msn
  fresh.dut_sends(100, data(13, oc::kMrcWriteOnly, 5), 0);
  fresh.dut_sends(200, data(13, oc::kMrcWriteOnly, 9), 1);
  r = run_invariant(inv("meth_every_packet"), fresh.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].expected, "5 (as in the first transmission of PSN 13)");
}

TEST(FrameInvariants, IcrcValidCountsBadAndUndecodableFrames) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  Feedback ack;
  s.dut_sends(1000, ack, 1);
  EXPECT_EQ(run_invariant(inv("icrc_valid"), s.finish()).verdict, Verdict::kPass);
  Data bad;
  bad.psn = 9;
  bad.corrupt_icrc = true;
  s.dut_sends(2000, bad, 3);
  auto r = run_invariant(inv("icrc_valid"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].observed, "bad");
  EXPECT_EQ(r.evidence[0].pcap, "dut.p4.tx.pcapng");
  Data unknown;  // an opcode with no layout: does not decode
  unknown.opcode = 0x1F;
  unknown.reth = false;
  s.raw(3000, true, 2, encode(unknown));
  r = run_invariant(inv("icrc_valid"), s.finish());
  EXPECT_EQ(r.metrics.at("violations"), 2);
  EXPECT_EQ(r.metrics.at("malformed_frames"), 1);
  bool shown = false;
  for (const auto& e : r.evidence) {
    shown |= e.observed.find("undecodable: bad-opcode") != std::string::npos && e.pcap == "dut.p2.tx.pcapng";
  }
  EXPECT_TRUE(shown);
}

TEST(FrameInvariants, AllowedOpcodes) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  Feedback ack;
  s.dut_sends(1000, ack, 1);
  Probe p;
  p.ev = testing::ev_value(0);
  s.dut_sends(1100, p, 1);
  s.dut_sends(1200, testing::sack(0, 0, 0), 1);
  s.dut_sends(1300, testing::nack(3), 1);
  EXPECT_EQ(run_invariant(inv("allowed_opcodes"), s.finish()).verdict, Verdict::kPass);
  Data read;
  read.opcode = wire::opcode::kRcReadRequest;
  read.len = 0;
  read.psn = 20;
  s.dut_sends(2000, read, 0);
  Data unknown;
  unknown.opcode = 0x1F;
  unknown.reth = false;
  s.raw(3000, true, 2, encode(unknown));
  const auto r = run_invariant(inv("allowed_opcodes"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("violations"), 2);
  EXPECT_EQ(r.evidence[0].observed, "0xc");
}

TEST(FrameInvariants, DscpMarking) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  Feedback ack;
  s.dut_sends(1000, ack, 1);
  Probe p;
  p.ev = testing::ev_value(0);
  p.dscp = 24;  // req_tc
  s.dut_sends(1100, p, 1);
  EXPECT_EQ(run_invariant(inv("dscp_marking"), s.finish()).verdict, Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("dscp_marking", {{"probe", "24"}}), s.ctx).verdict, Verdict::kPass);
  EXPECT_EQ(run_invariant(inv("dscp_marking", {{"probe", "46"}}), s.ctx).verdict, Verdict::kFail);
  Data plain;
  plain.psn = 30;
  plain.dscp = 0;
  s.dut_sends(2000, plain, 2);
  const auto r = run_invariant(inv("dscp_marking"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].field, "ip.dscp");
  EXPECT_EQ(r.evidence[0].expected, "10");
  EXPECT_EQ(r.evidence[0].observed, "0");
}

// W9: a reliability probe travels in the Data class.
TEST(FrameInvariants, DscpMarkingJudgesReliabilityProbesAsData) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  testing::RelProbe rp;
  rp.ev = testing::ev_value(1);
  rp.dqpn = testing::kPeerQpn;
  rp.dscp = wire::DscpConfig{}.trimmable;
  s.tx(2).capture.add(1500, encode(rp));
  EXPECT_EQ(run_invariant(inv("dscp_marking"), s.finish()).verdict, Verdict::kPass);
  rp.dscp = wire::DscpConfig{}.control;  // a reliability probe in the Control class
  s.tx(2).capture.add(1700, encode(rp));
  const auto r = run_invariant(inv("dscp_marking"), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_EQ(r.evidence[0].expected, "10");
  EXPECT_EQ(r.evidence[0].observed, "46");
}

// W13: without params dscp_marking judges against the DSCP values the DUT was configured with
// (CheckContext::dut_dscp, the case's config.dscp); a retransmission may carry DSCP_TRIMMABLE or
// DSCP_TRIMMABLE_RETX.
TEST(FrameInvariants, DscpMarkingDefaultsToTheConfiguredValues) {
  auto run = [](std::uint8_t data_dscp, std::uint8_t retx_dscp, std::uint8_t sack_dscp) {
    Scenario s(4, 8);
    for (std::uint32_t k = 0; k < 4; ++k) {
      Data d;
      d.psn = k;
      d.dscp = data_dscp;
      s.dut_sends(100 + 100 * k, d, k);
    }
    Data r;
    r.psn = 1;
    r.rtx = true;
    r.dscp = retx_dscp;
    s.dut_sends(1000, r, 5);
    Feedback f = testing::sack(3, 0, 3);
    f.dscp = sack_dscp;
    s.dut_sends(1100, f);
    CheckContext& ctx = s.finish();
    ctx.dut_dscp.trimmable = 20;
    ctx.dut_dscp.trimmable_retx = 22;
    ctx.dut_dscp.control = 40;
    return run_invariant(inv("dscp_marking"), ctx);
  };
  EXPECT_EQ(run(20, 20, 40).verdict, Verdict::kPass);
  EXPECT_EQ(run(20, 22, 40).verdict, Verdict::kPass);  // retransmission in TRIMMABLE_RETX
  const auto defaults = run(wire::DscpConfig{}.trimmable, wire::DscpConfig{}.trimmable, wire::DscpConfig{}.control);
  ASSERT_EQ(defaults.verdict, Verdict::kFail);  // W13's built-in values, not the configured ones
  EXPECT_EQ(defaults.evidence[0].expected, "20");
  EXPECT_EQ(defaults.evidence[0].observed, "10");
  const auto retx = run(20, 12, 40);
  ASSERT_EQ(retx.verdict, Verdict::kFail);
  EXPECT_EQ(retx.evidence[0].expected, "20 or 22");
  EXPECT_EQ(run(20, 20, 46).verdict, Verdict::kFail);  // feedback outside the configured Control
}

TEST(FrameInvariants, EcnCapable) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  EXPECT_EQ(run_invariant(inv("ecn_capable"), s.finish()).verdict, Verdict::kPass);
  Data ect1;  // W13: ECT(1) is as ECN-capable as the reference's ECT(0)
  ect1.psn = 8;
  ect1.ecn = wire::kEcnEct1;
  s.dut_sends(1500, ect1, 1);
  EXPECT_EQ(run_invariant(inv("ecn_capable"), s.finish()).verdict, Verdict::kPass);
  Data not_ect;
  not_ect.psn = 9;
  not_ect.ecn = wire::kEcnNotEct;
  s.dut_sends(2000, not_ect, 1);
  EXPECT_EQ(run_invariant(inv("ecn_capable"), s.finish()).verdict, Verdict::kFail);
  Scenario empty(4, 8);
  EXPECT_EQ(run_invariant(inv("ecn_capable"), empty.finish()).verdict, Verdict::kInconclusive);
}

// W13: the classes by consistency, whatever values the DUT is configured with.
TEST(FrameInvariants, TrafficClassesAcceptAnyConfiguredValues) {
  auto run = [](std::uint8_t retx_dscp, std::uint8_t sack1, std::uint8_t sack2) {
    Scenario s(4, 8);
    for (std::uint32_t k = 0; k < 4; ++k) {
      Data d;
      d.psn = k;
      d.dscp = 26;  // not the reference's 10
      s.dut_sends(100 + 100 * k, d, k);
    }
    Data r;
    r.psn = 1;
    r.rtx = true;
    r.dscp = retx_dscp;
    s.dut_sends(1000, r, 5);
    Feedback f1 = testing::sack(3, 0, 3);
    f1.dscp = sack1;
    s.dut_sends(1100, f1);
    Feedback f2 = testing::sack(3, 0, 3);
    f2.dscp = sack2;
    s.dut_sends(1200, f2);
    return run_invariant(inv("traffic_classes"), s.finish());
  };
  EXPECT_EQ(run(28, 48, 48).verdict, Verdict::kPass);  // TRIMMABLE_RETX 28, Control 48
  EXPECT_EQ(run(26, 48, 48).verdict, Verdict::kPass);  // retransmissions in the data class
  const auto mixed = run(28, 48, 46);
  ASSERT_EQ(mixed.verdict, Verdict::kFail);
  EXPECT_EQ(mixed.evidence[0].field, "ip.dscp");
  EXPECT_EQ(mixed.evidence[0].observed, "46");
  const auto shared = run(28, 26, 26);  // feedback in the data class
  ASSERT_EQ(shared.verdict, Verdict::kFail);
  EXPECT_NE(shared.evidence[0].expected.find("a Control DSCP no data packet carries"), std::string::npos);
  EXPECT_EQ(run(28, 28, 28).verdict, Verdict::kFail);  // nor the retransmissions' class
}

TEST(FrameInvariants, IncompleteCaptureIsInconclusive) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  s.finish();
  s.tx(4).capture.integrity().ns_timestamps = false;
  const auto r = run_invariant(inv("icrc_valid"), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("timestamps coarse"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace mrc::harness
