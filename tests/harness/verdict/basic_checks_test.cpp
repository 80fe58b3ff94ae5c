// positive_control, field and expect checks, the run_check registry, and the frame access
// underneath every check (decode errors as evidence, time-ordered merge of taps).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "harness/case/check_types.hpp"
#include "harness/verdict/checks.hpp"
#include "harness/verdict/field_access.hpp"
#include "harness/verdict/frame_cursor.hpp"
#include "harness/verdict/trace.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Feedback;
using testing::Scenario;
using testing::encode;

TEST(PositiveControl, AnEmptyCaptureFailsAndTrafficPasses) {
  Scenario s(4, 8);
  PositiveControlCheck pc;
  pc.min_packets = 10;
  pc.min_bytes = 2000;
  auto r = run_positive_control(pc, s.finish());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.message.find("did not exercise the DUT"), std::string::npos);
  s.spray(0, 0, 9);
  EXPECT_EQ(run_positive_control(pc, s.finish()).verdict, Verdict::kFail);  // 9 < 10
  s.spray(10'000, 9, 1);
  r = run_positive_control(pc, s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("data_from_dut"), 10);
  EXPECT_EQ(r.metrics.at("payload_bytes_from_dut"), 2560);
  pc.min_bytes = 4000;
  EXPECT_EQ(run_positive_control(pc, s.ctx).verdict, Verdict::kFail);
}

TEST(PositiveControl, ResponderRoleCountsTheTrafficItAnswered) {
  Scenario s(4, 8);
  for (std::uint32_t p = 0; p < 5; ++p) {
    Data d;
    d.psn = p;
    s.dut_receives(p * 100, d, p);
  }
  PositiveControlCheck pc;
  pc.min_packets = 5;
  EXPECT_EQ(run_positive_control(pc, s.finish()).verdict, Verdict::kFail);  // the DUT never answered
  Feedback ack;
  ack.psn = 4;
  s.dut_sends(1000, ack);
  const auto r = run_positive_control(pc, s.finish());
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_NE(r.message.find("to the DUT"), std::string::npos);
  s.rx(1).capture.integrity().tap_dropped = 1;
  EXPECT_EQ(run_positive_control(pc, s.ctx).verdict, Verdict::kInconclusive);
}

FieldCheck field(std::string name, FieldCheck::Equals eq, std::vector<FieldMatch> select = {}) {
  FieldCheck f;
  f.field = std::move(name);
  f.predicate = std::move(eq);
  f.select = std::move(select);
  return f;
}

TEST(FieldCheck, EqualsInAndRangeOnSelectedFrames) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  Feedback ack;
  s.dut_sends(1000, ack, 1);
  s.finish();
  const FieldMatch writes{"bth.opcode", MatchValue{std::uint64_t{0xCA}}, {}};
  EXPECT_EQ(run_field(field("ip.dscp", {MatchValue{std::uint64_t{10}}}, {writes}), s.ctx).verdict, Verdict::kPass);
  auto r = run_field(field("ip.dscp", {MatchValue{std::uint64_t{10}}}), s.ctx);  // the ACK has 46
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].observed, "46");
  EXPECT_EQ(r.evidence[0].display_filter, "frame.number == 3 && mrc.dscp == 46");  // after EVs 0 and 4
  FieldCheck in;
  in.field = "ip.dscp";
  in.predicate = FieldCheck::In{{MatchValue{std::uint64_t{10}}, MatchValue{std::uint64_t{46}}}};
  EXPECT_EQ(run_field(in, s.ctx).verdict, Verdict::kPass);
  FieldCheck range;
  range.field = "bth.psn";
  range.predicate = FieldCheck::Range{0, 6};
  range.select = {writes};
  r = run_field(range, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("violations"), 1);  // PSN 7
  // Addresses, derived fields and the direction selector.
  EXPECT_EQ(run_field(field("ip.src", {MatchValue{std::string("fd00::1")}}, {writes}), s.ctx).verdict, Verdict::kPass);
  EXPECT_EQ(run_field(field("eth.dst", {MatchValue{std::string("02:00:00:00:00:02")}}, {writes}), s.ctx).verdict,
            Verdict::kPass);
  const FieldMatch on_plane3{"plane", MatchValue{std::uint64_t{3}}, {}};
  EXPECT_EQ(run_field(field("ev_index", {MatchValue{std::uint64_t{2}}}, {writes, on_plane3}), s.ctx).verdict,
            Verdict::kFail);  // plane 3 carries EVs 2 and 6
  const FieldMatch to_dut{"direction", MatchValue{std::string("to_dut")}, {}};
  EXPECT_EQ(run_field(field("icrc", {MatchValue{std::string("good")}}, {to_dut}), s.ctx).verdict,
            Verdict::kInconclusive);  // nothing was sent to the DUT
  EXPECT_EQ(run_field(field("no.such", {MatchValue{std::uint64_t{1}}}), s.ctx).verdict, Verdict::kError);
}

// min_count: the selected behaviour happens at all; fewer frames selected is a FAIL, not the
// INCONCLUSIVE of an empty selection.
TEST(FieldCheck, MinCountFailsWhenTooFewFramesAreSelected) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);  // EVs 0..7 over ports 1..4: two data frames leave port 3
  s.finish();
  const FieldMatch on_port3{"port", MatchValue{std::uint64_t{3}}, {}};
  FieldCheck f = field("port", {MatchValue{std::uint64_t{3}}}, {on_port3});
  f.min_count = 2;
  auto r = run_field(f, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  f.min_count = 3;
  r = run_field(f, s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.message.find("at least 3"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("2 observed"), std::string::npos) << r.message;
  const FieldMatch on_port9{"port", MatchValue{std::uint64_t{9}}, {}};
  f.select = {on_port9};
  f.min_count = 0;
  EXPECT_EQ(run_field(f, s.ctx).verdict, Verdict::kInconclusive);  // no floor: nothing to judge
  f.min_count = 1;
  EXPECT_EQ(run_field(f, s.ctx).verdict, Verdict::kFail);
}

TEST(FieldCheck, IncompleteCaptureIsInconclusive) {
  Scenario s(4, 8);
  s.spray(0, 0, 8);
  s.finish();
  s.tx(2).capture.integrity().truncated = 1;
  const auto r = run_field(field("ip.dscp", {MatchValue{std::uint64_t{10}}}), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("dut.p2.tx"), std::string::npos) << r.message;
}

TEST(FieldCheck, SourceRouteFields) {
  Scenario s(2, 4);
  s.ctx.dut.ev_fmt_mode = 2;
  for (std::uint32_t k = 0; k < 4; ++k) s.raw(k * 100, true, s.port_of_ev(k), testing::encode_srv6(k, k));
  s.raw(500, true, 1, testing::encode_srv6(0, 9, 0));
  const auto r = run_field(field("srh.segments_left", {MatchValue{std::uint64_t{1}}}), s.finish());
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.metrics.at("violations"), 1);
  EXPECT_EQ(r.evidence[0].display_filter, "frame.number == 3 && mrc.ev.srh_segments_left == 0");
}

TEST(Expectations, UnmatchedExpectFailsWithItsMismatch) {
  Scenario s(4, 8);
  s.finish();
  EXPECT_EQ(run_expectations(s.ctx).verdict, Verdict::kInconclusive);
  ExpectRecord ok{"ACK psn=5 within 10us of inject #2", 1000, 11000, true, "dut.p1.tx", 3, 4000, ""};
  ExpectRecord missed{"NACK TRIMMED nack_psn=7", 2000, 12000, false, "dut.p1.tx", 4, 0,
                      "closest: packet 4, neth.reason 2 != 1"};
  s.ctx.expects = {ok};
  EXPECT_EQ(run_expectations(s.ctx).verdict, Verdict::kPass);
  s.ctx.expects.push_back(missed);
  const auto r = run_expectations(s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.evidence[0].pcap, "dut.p1.tx.pcapng");
  EXPECT_EQ(r.evidence[0].packet_index, 4);
  EXPECT_EQ(r.evidence[0].observed, "closest: packet 4, neth.reason 2 != 1");
  EXPECT_NE(r.message.find("NACK TRIMMED nack_psn=7"), std::string::npos);
  s.tx(1).capture.integrity().offered = 1;  // the watched tap lost a frame
  EXPECT_EQ(run_expectations(s.ctx).verdict, Verdict::kInconclusive);
}

TEST(CheckRegistry, DispatchesAndLabels) {
  Scenario s(4, 8);
  s.spray(0, 0, 16);
  s.finish();
  Check c;
  c.params = PositiveControlCheck{};
  auto r = run_check(c, s.ctx);
  EXPECT_EQ(r.type, "positive_control");
  EXPECT_EQ(r.name, "positive_control");
  EXPECT_EQ(r.verdict, Verdict::kPass);
  c.name = "traffic-flowed";
  EXPECT_EQ(run_check(c, s.ctx).name, "traffic-flowed");
  c.name.clear();
  c.params = InvariantCheck{"ecn_capable", {}};
  r = run_check(c, s.ctx);
  EXPECT_EQ(r.type, "invariant");
  EXPECT_EQ(r.name, "invariant/ecn_capable");
  EXPECT_EQ(r.verdict, Verdict::kPass);
}

TEST(CheckRegistry, EveryInvariantTheCaseFormatNamesIsImplemented) {
  const auto have = implemented_invariants();
  for (const auto& t : invariant_types()) {
    EXPECT_NE(std::find(have.begin(), have.end(), t.name), have.end()) << t.name;
  }
  // And each one runs on an empty context without crashing, never passing it.
  Scenario s(4, 8);
  s.finish();
  for (auto name : have) {
    const auto r = run_invariant(InvariantCheck{std::string(name), {}}, s.ctx);
    EXPECT_NE(r.verdict, Verdict::kPass) << name << ": " << r.message;
    EXPECT_FALSE(r.message.empty()) << name;
  }
}

// Every display filter names a field the project's Wireshark dissector registers (mrc.*) or a
// Wireshark built-in, so a filter from the evidence always parses in tshark.
TEST(FrameAccess, DisplayFieldsExistInTheDissector) {
  std::ifstream lua(std::string(MRC_SOURCE_DIR) + "/tools/wireshark/mrc.lua");
  ASSERT_TRUE(lua.good());
  const std::string text((std::istreambuf_iterator<char>(lua)), std::istreambuf_iterator<char>());
  for (std::size_t i = 0; i < kFieldCount; ++i) {
    for (bool v4 : {false, true}) {
      const std::string_view f = display_field(static_cast<FieldId>(i), v4);
      if (f.rfind("mrc.", 0) != 0) continue;
      // field("name", ...) registers the older fields, wfield("key", "name", ...) the MRC 1.0 ones.
      const std::string name(f.substr(4));
      const bool registered = text.find("field(\"" + name + "\"") != std::string::npos ||
                              text.find("\", \"" + name + "\", ") != std::string::npos;
      EXPECT_TRUE(registered) << f << " is not registered by mrc.lua";
    }
  }
  EXPECT_EQ(display_field(FieldId::kBthPsn, false), "mrc.bth.psn");
  EXPECT_EQ(display_field(FieldId::kIpSrc, true), "ip.src");
}

TEST(FrameAccess, MalformedFramesAreCountedWithTheirIndexAndForeignOnesSkipped) {
  Scenario s(1, 1);
  Data d;
  s.dut_sends(100, d, 0);
  std::vector<std::uint8_t> arp(60, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;  // ARP: not RoCE at all
  s.raw(200, true, 1, arp);
  auto cut = encode(d);
  cut.resize(20);  // an IPv6 header cut short
  s.raw(300, true, 1, cut);
  s.dut_sends(400, d, 0);
  s.finish();
  FrameCursor cur(s.tx(1), true);
  std::vector<std::size_t> seen;
  while (cur.next()) seen.push_back(cur.index());
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(cur.foreign(), 1u);
  ASSERT_EQ(cur.malformed(), 1u);
  EXPECT_EQ(cur.issues()[0].index, 2u);
  EXPECT_EQ(cur.issues()[0].error, wire::WireError::kTruncated);
  const Trace t = build_trace(s.ctx, select_taps(s.ctx, TapSide::kAll));
  EXPECT_EQ(t.packets.size(), 2u);
  EXPECT_EQ(t.malformed, 1u);
  // Checks carry the malformed frame as evidence instead of failing on it.
  const auto r = run_invariant(InvariantCheck{"ecn_capable", {}}, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(r.evidence[0].packet_index, 2);
  EXPECT_NE(r.evidence[0].observed.find("truncated"), std::string::npos);
}

TEST(FrameAccess, TraceMergesTapsByTimeAndFindsRetransmissions) {
  Scenario s(2, 2);
  Data d;
  d.psn = 1;
  s.dut_sends(300, d, 0);
  d.psn = 2;
  s.dut_sends(100, d, 1);
  d.psn = 1;
  s.dut_sends(200, d, 1);  // same PSN as the one at 300 ns, which is therefore the retransmission
  const Trace t = build_trace(s.finish(), select_taps(s.ctx, TapSide::kFromDut));
  ASSERT_EQ(t.packets.size(), 3u);
  EXPECT_EQ(t.packets[0].ts_ns, 100u);
  EXPECT_EQ(t.packets[2].ts_ns, 300u);
  const auto prev = previous_transmissions(t);
  EXPECT_EQ(prev[0], kNoPacket);
  EXPECT_EQ(prev[1], kNoPacket);
  EXPECT_EQ(prev[2], 1u);
  EXPECT_EQ(psn_diff(2, 0xFFFFFE), 4);
  EXPECT_EQ(psn_add(0xFFFFFF, 1), 0u);
}

}  // namespace
}  // namespace mrc::harness
