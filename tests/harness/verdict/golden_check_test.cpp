// The golden check end to end: a golden pcapng written from the DUT's merged taps matches the
// same run, a changed field fails with evidence in the DUT tap's own pcap and frame numbering, an
// incomplete capture is INCONCLUSIVE, and a missing golden is an ERROR of the harness.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <vector>

#include "harness/capture/pcapng.hpp"
#include "harness/verdict/checks.hpp"
#include "harness/verdict/field_class.hpp"
#include "tests/harness/verdict/budget_test_support.hpp"
#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::Data;
using testing::Scenario;

std::filesystem::path scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::path(MRC_BINARY_DIR) / "test-scratch" / "verdict" / info->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "pcaps" / "spray");
  return dir;
}

// A DUT run: 64 packets sprayed over 8 EVs on 4 ports, the last one `last_late_ns` later; packet
// k goes on EV ev_of(k) (round robin by default).
Scenario dut_run(std::uint8_t dscp_of_packet_20 = wire::kDscpTrimmable, std::uint64_t last_late_ns = 0,
                 std::uint32_t (*ev_of)(std::uint32_t) = [](std::uint32_t k) { return k % 8; }) {
  Scenario s(4, 8);
  for (std::uint32_t k = 0; k < 64; ++k) {
    Data d;
    d.psn = 500 + k;
    d.va = 0x4000 + k * 256;
    d.dscp = k == 20 ? dscp_of_packet_20 : wire::kDscpTrimmable;
    s.dut_sends(1000 + k * 100 + (k == 63 ? last_late_ns : 0), d, ev_of(k));
  }
  s.finish();
  return s;
}

// The scenario's eight STEV EVs as the run's session knows them (CheckContext::dut_wire_evs).
void know_evs(Scenario& s) {
  s.ctx.dut_ev_mode = wire::EvFmtMode::kStev;
  for (std::uint32_t i = 0; i < 8; ++i) {
    const std::uint32_t v = testing::ev_value(i);  // W2 V = expanded bytes 0..3
    WireEvRecord r;
    r.wire[0] = static_cast<std::uint8_t>(v >> 24);
    r.wire[1] = static_cast<std::uint8_t>(v >> 16);
    r.wire[2] = static_cast<std::uint8_t>(v >> 8);
    r.wire[3] = static_cast<std::uint8_t>(v);
    r.port = static_cast<std::uint8_t>(s.port_of_ev(i));
    r.index = static_cast<std::uint8_t>(i);
    s.ctx.dut_wire_evs.push_back(r);
  }
}

GoldenCheck golden_spec() {
  GoldenCheck g;
  g.pcap = "pcaps/spray/spray-v-001.pcapng";
  return g;
}

// The golden of dut_run() judged against 64 packets of which packet 9 is `edit`ed (its Data and
// the port it leaves on), the DUT's eligible EVs known.
CheckResult golden_with_packet_9(const std::function<void(Data&, int& port)>& edit) {
  const auto dir = scratch();
  EXPECT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(dut_run().ctx, TapSide::kFromDut)), "");
  Scenario s(4, 8);
  for (std::uint32_t k = 0; k < 64; ++k) {
    Data d;
    d.psn = 500 + k;
    d.va = 0x4000 + k * 256;
    int port = 0;  // 0: the EV's own port
    if (k == 9) edit(d, port);
    s.dut_sends(1000 + k * 100, d, k % 8, port);
  }
  s.finish();
  know_evs(s);
  s.ctx.golden_dir = dir / "pcaps";
  return run_golden(golden_spec(), s.ctx);
}

TEST(GoldenCheck, TheSameRunMatchesItsGolden) {
  const auto dir = scratch();
  Scenario s = dut_run();
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(s.ctx, TapSide::kFromDut)), "");
  s.ctx.golden_dir = dir / "pcaps";
  const auto r = run_golden(golden_spec(), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("pairs"), 64);
  // golden_dir may also be the repository root: "pcaps/..." is then found as written.
  s.ctx.golden_dir = dir;
  EXPECT_EQ(run_golden(golden_spec(), s.ctx).verdict, Verdict::kPass);
}

TEST(GoldenCheck, AChangedFieldFailsWithEvidenceInTheTapsPcap) {
  const auto dir = scratch();
  const Scenario golden = dut_run();
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(golden.ctx, TapSide::kFromDut)), "");
  Scenario s = dut_run(/*dscp_of_packet_20=*/12);
  s.ctx.golden_dir = dir / "pcaps";
  const auto r = run_golden(golden_spec(), s.ctx);
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  ASSERT_FALSE(r.evidence.empty());
  const Evidence& e = r.evidence[0];
  EXPECT_EQ(e.field, "ip.dscp");
  EXPECT_EQ(e.expected, "10");
  EXPECT_EQ(e.observed, "12");
  // Packet 20 went out on EV 4 = port 1, as that tap's 6th packet (k = 0, 4, 8, 12, 16, 20).
  EXPECT_EQ(e.pcap, "dut.p1.tx.pcapng");
  EXPECT_EQ(e.packet_index, 5);
  EXPECT_EQ(e.display_filter, "frame.number == 6 && mrc.bth.psn == 520");
  EXPECT_NE(e.note.find("golden pcaps/spray/spray-v-001.pcapng packet 20"), std::string::npos) << e.note;
  EXPECT_NE(r.message.find("ip.dscp differs (exact): expected 10, observed 12"), std::string::npos) << r.message;
  // Masking the field makes it match.
  auto masked = golden_spec();
  masked.masks = {"ip.dscp"};
  EXPECT_EQ(run_golden(masked, s.ctx).verdict, Verdict::kPass);
}

TEST(GoldenCheck, IncompleteCaptureIsInconclusive) {
  const auto dir = scratch();
  Scenario s = dut_run();
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(s.ctx, TapSide::kFromDut)), "");
  s.ctx.golden_dir = dir / "pcaps";
  s.tx(2).capture.integrity().truncated = 1;
  const auto r = run_golden(golden_spec(), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.message.find("dut.p2.tx"), std::string::npos) << r.message;
}

TEST(GoldenCheck, MissingGoldenOrBadMaskIsAHarnessError) {
  const auto dir = scratch();
  Scenario s = dut_run();
  s.ctx.golden_dir = dir / "pcaps";
  auto r = run_golden(golden_spec(), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.message.find("spray-v-001.pcapng"), std::string::npos) << r.message;
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(s.ctx, TapSide::kFromDut)), "");
  auto bad = golden_spec();
  bad.masks = {"no.such.field"};
  r = run_golden(bad, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.message.find("no.such.field"), std::string::npos);
}

TEST(GoldenCheck, MergedTapsAreInTimeOrderWithTheirOrigin) {
  Scenario s = dut_run();
  std::vector<TapRef> origin;
  const Capture m = merge_taps(s.ctx, TapSide::kFromDut, &origin);
  ASSERT_EQ(m.size(), 64u);
  ASSERT_EQ(origin.size(), 64u);
  for (std::size_t i = 1; i < m.size(); ++i) EXPECT_LE(m.packet(i - 1).ts_ns, m.packet(i).ts_ns);
  EXPECT_EQ(s.ctx.taps[origin[5].tap].port, 2);  // k = 5 is EV 5 on port 2
  EXPECT_EQ(origin[5].index, 1u);
  EXPECT_TRUE(m.integrity().complete());
}


TEST(GoldenCheck, TheTimingBudgetWidensTheTimestampToleranceUnlessTimestampsAreMasked) {
  const auto dir = scratch();
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(dut_run().ctx, TapSide::kFromDut)), "");
  Scenario s = dut_run(wire::kDscpTrimmable, 3000);  // 3 us late against a 1 us tolerance: X = 2 us
  s.ctx.golden_dir = dir / "pcaps";
  auto g = golden_spec();
  g.tolerance_ns = 1000;
  testing::expect_budget_rules(s.ctx, [&](const CheckContext& c) { return run_golden(g, c); }, 1000, 2000);
  // Timestamps masked: nothing timed, nothing widened, nothing said.
  g.masks = {"ts"};
  s.ctx.timing_budget = testing::bridge(5000);
  const auto r = run_golden(g, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.message.find("timing budget"), std::string::npos) << r.message;
  EXPECT_EQ(r.metrics.count("timing_budget_ns"), 0u);
}

// The EV order is the DUT's choice: a run on other eligible EVs (and so other ports, and packets
// merged in another order) matches a round-robin golden once the eligible EVs are known; without
// them the EV fields compare exactly, as `mrc-conform diff` does.
TEST(GoldenCheck, AnotherEligibleEvPassesWhenTheEligibleEvsAreKnown) {
  const auto dir = scratch();
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(dut_run().ctx, TapSide::kFromDut)), "");
  Scenario s = dut_run(wire::kDscpTrimmable, 0, [](std::uint32_t k) { return (k * 5 + k / 8) % 8; });
  s.ctx.golden_dir = dir / "pcaps";
  const auto exact = run_golden(golden_spec(), s.ctx);
  ASSERT_EQ(exact.verdict, Verdict::kFail) << "the EV fields differ from the golden's";
  EXPECT_NE(exact.message.find("ip.flow_label differs (exact)"), std::string::npos) << exact.message;
  know_evs(s);
  const auto r = run_golden(golden_spec(), s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("pairs"), 64);
}

TEST(GoldenCheck, AnEvFieldNoEligibleEvExpandsToFailsNamingTheClass) {
  // EV 1's source port with a flow label no EV has.
  const auto r = golden_with_packet_9([](Data& d, int&) { d.flow_label = 0x1505; });
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(r.evidence[0].field, "ip.flow_label");
  EXPECT_NE(r.message.find("ip.flow_label 0x1505 is not the expansion of any eligible EV"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("(choice)"), std::string::npos) << r.message;
}

TEST(GoldenCheck, EvFieldsOfTwoEvsInOnePacketFail) {
  // EV 6's flow label, EV 1's source port.
  const auto r = golden_with_packet_9([](Data& d, int&) { d.flow_label = testing::ev_value(6) >> 16; });
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.message;
  EXPECT_NE(r.message.find("one packet's EV fields come from one EV"), std::string::npos) << r.message;
  // And an eligible EV sent on another EV's port: the port is EV-derived too.
  const auto port = golden_with_packet_9([](Data&, int& p) { p = 3; });  // EV 1 leaves on port 2, not 3
  ASSERT_EQ(port.verdict, Verdict::kFail) << port.message;
  EXPECT_EQ(port.evidence[0].field, "port");
  EXPECT_NE(port.message.find("port 3 is EV 2's but"), std::string::npos) << port.message;
}

TEST(GoldenCheck, PacketsPairByIdentityNotPosition) {
  const auto dir = scratch();
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(dut_run().ctx, TapSide::kFromDut)), "");
  // PSNs 500..531 and 532..563 sent in swapped halves: every packet 32 positions off, far past
  // the check's window of 1, yet each PSN is the same packet.
  Scenario s(4, 8);
  for (std::uint32_t k = 0; k < 64; ++k) {
    const std::uint32_t psn_k = (k + 32) % 64;
    Data d;
    d.psn = 500 + psn_k;
    d.va = 0x4000 + psn_k * 256;
    s.dut_sends(1000 + k * 100, d, psn_k % 8);
  }
  s.finish();
  know_evs(s);
  s.ctx.golden_dir = dir / "pcaps";
  auto g = golden_spec();
  g.masks = {"ts"};
  const auto r = run_golden(g, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
  EXPECT_EQ(r.metrics.at("reordered_pairs"), 64);
  // Timestamps are bounded: 3.2 ms apart against a 1 us tolerance fails, naming the class.
  g.masks = {};
  g.tolerance_ns = 1000;
  const auto t = run_golden(g, s.ctx);
  ASSERT_EQ(t.verdict, Verdict::kFail) << t.message;
  EXPECT_EQ(t.evidence[0].field, "ts");
  EXPECT_NE(t.message.find("(bounded)"), std::string::npos) << t.message;
}

// The field class `bridged`: each packet no earlier than the one before it plus that one's bits
// at the rate (so moved later by 0, 1000, 2000, 0 and 1500 ns here).
TEST(GoldenCheck, BridgedTimesPaceABurstAtTheRate) {
  const std::vector<std::uint64_t> ts{0, 0, 0, 10'000, 10'500};
  const std::vector<std::uint32_t> bytes{125, 125, 125, 250, 125};  // 1 us, 2 us at 1 Gb/s
  std::vector<std::uint64_t> paced(5);
  bridged_times(ts, bytes, 1'000'000'000, paced);
  EXPECT_EQ(paced, (std::vector<std::uint64_t>{0, 1000, 2000, 10'000, 12'000}));
  std::vector<std::uint64_t> moved(5);
  for (std::size_t i = 0; i < 5; ++i) moved[i] = paced[i] - ts[i];
  EXPECT_EQ(moved, (std::vector<std::uint64_t>{0, 1000, 2000, 0, 1500}));
}

// Two messages of 32 packets (RETH VA 0x4000 and 0x6000, 8 KiB each): the first's packets `gap_ns`
// apart from 1000 ns, the second's from `second_ns`; the last packet `stall_ns` later.
Scenario two_messages(std::uint64_t gap_ns, std::uint64_t second_ns, std::uint64_t stall_ns = 0) {
  Scenario s(4, 8);
  for (std::uint32_t k = 0; k < 64; ++k) {
    Data d;
    d.psn = 500 + k;
    d.va = k < 32 ? 0x4000 : 0x6000;
    d.dma_len = 32 * 256;
    const std::uint64_t at = k < 32 ? 1000 + k * gap_ns : second_ns + (k - 32) * gap_ns;
    s.dut_sends(at + (k == 63 ? stall_ns : 0), d, k % 8);
  }
  s.finish();
  return s;
}

// Across a bridge the golden's bursts (packets 100 ns apart) reach the taps one frame time apart,
// and the second message starts when the host's post across the agent gets there (400 us on):
// bounded, that FAILs; bridged at the declared rate it PASSes (times from their message's start,
// paced), and a DUT that stalls inside a message past the paced time by more than the tolerance
// and budget still FAILs, naming the class.
TEST(GoldenCheck, AcrossABridgeTimesCountFromTheMessageAndArePacedAtItsRate) {
  const auto dir = scratch();
  const Scenario golden = two_messages(100, 5000);
  const Capture gcap = merge_taps(golden.ctx, TapSide::kFromDut);
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", gcap), "");
  const std::uint64_t frame_ns = std::uint64_t{gcap.packet(0).origlen} * 8;  // at 1 Gb/s
  ASSERT_GT(frame_ns, 1000u);
  auto delivered = [&](std::uint64_t stall_ns) {
    Scenario s = two_messages(frame_ns, 400'000, stall_ns);
    s.ctx.golden_dir = dir / "pcaps";
    s.ctx.timing_budget = testing::bridge(1000);
    return s;
  };
  auto g = golden_spec();
  g.tolerance_ns = 1000;
  Scenario s = delivered(0);
  const auto bounded = run_golden(g, s.ctx);  // no rate declared: the times are only bounded
  ASSERT_EQ(bounded.verdict, Verdict::kFail) << bounded.message;
  EXPECT_NE(bounded.message.find("(bounded)"), std::string::npos) << bounded.message;
  s.ctx.timing_budget.rate_bps = 1'000'000'000;
  const auto paced = run_golden(g, s.ctx);
  EXPECT_EQ(paced.verdict, Verdict::kPass) << paced.message;
  EXPECT_NE(paced.message.find("paced at the bridge's 1.00 Gb/s"), std::string::npos) << paced.message;
  Scenario late = delivered(5000);  // 5 us past the paced time: beyond 1 us + 1 us budget
  late.ctx.timing_budget.rate_bps = 1'000'000'000;
  const auto stalled = run_golden(g, late.ctx);
  ASSERT_EQ(stalled.verdict, Verdict::kFail) << stalled.message;
  EXPECT_EQ(stalled.evidence[0].field, "ts");
  EXPECT_NE(stalled.message.find("(bridged)"), std::string::npos) << stalled.message;
}

// Bridged times are never judged earlier than the golden's own: a run as fast as the golden
// (what a bridge faster than it declares delivers) still PASSes.
TEST(GoldenCheck, AcrossABridgeTheGoldensOwnTimesStillPass) {
  const auto dir = scratch();
  Scenario s = two_messages(100, 5000);
  ASSERT_EQ(write_pcapng(dir / "pcaps/spray/spray-v-001.pcapng", merge_taps(s.ctx, TapSide::kFromDut)), "");
  s.ctx.golden_dir = dir / "pcaps";
  s.ctx.timing_budget = testing::bridge(1000);
  s.ctx.timing_budget.rate_bps = 1'000'000'000;
  auto g = golden_spec();
  g.tolerance_ns = 1000;
  const auto r = run_golden(g, s.ctx);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.message;
}

}  // namespace
}  // namespace mrc::harness
