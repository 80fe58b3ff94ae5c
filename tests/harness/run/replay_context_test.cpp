// The case context file (harness/run/replay_context.hpp): every field the checks read besides the
// frames survives the round trip, the bytes are deterministic, and a damaged file is named.
#include "harness/run/replay_context.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace mrc::run {
namespace {

SessionResult full_session() {
  SessionResult s;
  s.status = harness::Verdict::kPass;
  s.message = "ran";
  s.sim_time_ns = 123456789;
  s.notes = {"virtual time limit reached", "bridge \"x\""};
  s.wire_overrun = "lag 3 us over the budget";
  s.cut_short = "the real-time bridge's queue towards the DUT reached 58 ms (limit 50 ms)";
  s.capture_gap = "the real-time bridge lost 12 frame(s) from the DUT before the harness saw them";
  s.wire_timeout = 10;  // a `timing: scales` case the runner rescaled for its wire
  s.spray_bps = 1'000'000'000;  // and evaluated its times in F at the bridge's rate
  harness::CheckContext& c = s.ctx;
  c.case_id = "spray-v-001";
  c.traffic_start_ns = 1000;
  c.end_ns = 99999999999ULL;
  harness::TapCapture t;
  t.name = "dut.p2.tx";
  t.pcap = "evidence/spray-v-001/dut.p2.tx.pcapng";
  t.host = 0;
  t.port = 2;
  t.from_dut = true;
  t.capture.integrity() = {.offered = 10, .captured = 9, .tap_dropped = 1, .truncated = 2, .ns_timestamps = false};
  c.taps = {t};
  c.faults = {{.at_ns = 5, .kind = "link_down", .target = "plane2/leaf0-spine1", .plane = 2, .affected_evs = {3, 65535}}};
  c.expects = {{.description = "ACK psn=5", .window_start_ns = 1, .window_end_ns = 2, .matched = true, .tap = "dut.p2.tx",
                .packet_index = 7, .matched_at_ns = 3, .mismatch = "bth.psn 4", .control = false},
               {.description = "deny_ev 2 -> ok", .window_start_ns = 0, .window_end_ns = 0, .matched = false, .tap = "",
                .packet_index = -1, .matched_at_ns = 0, .mismatch = "", .control = true}};
  harness::DutObservations& d = c.dut;
  d.completions = {{.at_ns = 10, .wr_id = 1ULL << 60, .status = 12, .is_send = false, .has_imm = true, .imm = 0xdeadbeef, .byte_len = 4096}};
  d.ev_events = {{.at_ns = 11, .ev_index = 3, .port = 2, .state = 6, .drop_count = 9, .controller_change = true}};
  d.evs = {{.index = 3, .port = 2, .echo = 0x1234, .state = 2, .denied = true}};
  d.writes = {{.wr_id = 7, .posted_ns = 8, .length = 65536, .with_imm = true, .data_verified = true, .posted_by_dut = false, .imm = 5}};
  d.injected_writes = {{.psn = 4, .trimmed = true, .offset = 4096, .payload = {0x00, 0xff, 0x10}, .after = {}}};
  d.counters = {{"rx_frames", 42.0}, {"ratio", 0.1}, {"none", std::nan("")}, {"big", INFINITY}};
  d.ev_fmt_mode = 4;
  d.first_psn = 0xFFFFFF;
  d.dut_qpn = 17;
  d.peer_qpn = 18;
  c.peer_qpns = {18, 19};
  c.requester_window_psns = 1024;
  c.responder_window_psns = 2048;
  c.wimm_limit = 8;
  c.ev_min_active = 2;
  c.dut_pkey = 0x8001;
  c.ev_event_mask = 0x7;
  c.ev_precise_drop_count = true;
  harness::WireEvRecord w;
  w.wire[0] = 0xab;
  w.wire[31] = 0x01;
  w.port = 3;
  w.index = 5;
  c.dut_wire_evs = {w};
  c.dut_ev_mode = wire::EvFmtMode::kUdp;
  c.dut_dscp.trimmable = 20;
  c.dut_dscp.trimmed_lasthop = 23;
  c.dut_dscp.control = 40;
  c.timing_budget = {.ns = 250000, .source = "real-time bridge (testbed netns)", .rate_bps = 1000000000};
  c.late_steps = {{100, 250}};
  return s;
}

TEST(ReplayContext, EveryFieldRoundTrips) {
  const SessionResult s = full_session();
  const std::string text = render_case_context(s, 366);
  SessionResult r;
  std::vector<std::vector<std::uint32_t>> bad;
  ASSERT_EQ(parse_case_context(text, "ctx.json", r, bad), "");
  EXPECT_EQ(r.status, s.status);
  EXPECT_EQ(r.message, s.message);
  EXPECT_EQ(r.sim_time_ns, s.sim_time_ns);
  EXPECT_EQ(r.notes, s.notes);
  EXPECT_EQ(r.wire_overrun, s.wire_overrun);
  EXPECT_EQ(r.cut_short, s.cut_short);
  EXPECT_EQ(r.capture_gap, s.capture_gap);
  EXPECT_EQ(r.wire_timeout, std::optional<std::uint8_t>(10));
  EXPECT_EQ(r.spray_bps, std::optional<std::uint64_t>(1'000'000'000));
  const harness::CheckContext& a = s.ctx;
  const harness::CheckContext& b = r.ctx;
  EXPECT_EQ(b.case_id, a.case_id);
  EXPECT_EQ(b.traffic_start_ns, a.traffic_start_ns);
  EXPECT_EQ(b.end_ns, a.end_ns);
  ASSERT_EQ(b.taps.size(), 1u);
  EXPECT_EQ(b.taps[0].name, "dut.p2.tx");
  EXPECT_EQ(b.taps[0].pcap, a.taps[0].pcap);
  EXPECT_EQ(b.taps[0].host, 0);
  EXPECT_EQ(b.taps[0].port, 2);
  EXPECT_TRUE(b.taps[0].from_dut);
  EXPECT_EQ(b.taps[0].capture.integrity().describe(), a.taps[0].capture.integrity().describe());
  EXPECT_FALSE(b.taps[0].capture.integrity().ns_timestamps);
  ASSERT_EQ(b.faults.size(), 1u);
  EXPECT_EQ(b.faults[0].affected_evs, a.faults[0].affected_evs);
  EXPECT_EQ(b.faults[0].target, a.faults[0].target);
  EXPECT_EQ(b.faults[0].plane, 2);
  ASSERT_EQ(b.expects.size(), 2u);
  EXPECT_EQ(b.expects[0].packet_index, 7);
  EXPECT_EQ(b.expects[0].mismatch, "bth.psn 4");
  EXPECT_EQ(b.expects[1].packet_index, -1);
  EXPECT_TRUE(b.expects[1].control);
  ASSERT_EQ(b.dut.completions.size(), 1u);
  EXPECT_EQ(b.dut.completions[0].wr_id, 1ULL << 60);
  EXPECT_EQ(b.dut.completions[0].imm, 0xdeadbeefu);
  EXPECT_FALSE(b.dut.completions[0].is_send);
  ASSERT_EQ(b.dut.ev_events.size(), 1u);
  EXPECT_TRUE(b.dut.ev_events[0].controller_change);
  EXPECT_EQ(b.dut.ev_events[0].drop_count, 9u);
  ASSERT_EQ(b.dut.evs.size(), 1u);
  EXPECT_EQ(b.dut.evs[0].echo, 0x1234u);
  EXPECT_TRUE(b.dut.evs[0].denied);
  ASSERT_EQ(b.dut.writes.size(), 1u);
  EXPECT_FALSE(b.dut.writes[0].posted_by_dut);
  EXPECT_EQ(b.dut.writes[0].imm, 5u);
  ASSERT_EQ(b.dut.injected_writes.size(), 1u);
  EXPECT_EQ(b.dut.injected_writes[0].payload, a.dut.injected_writes[0].payload);
  EXPECT_TRUE(b.dut.injected_writes[0].after.empty());
  ASSERT_EQ(b.dut.counters.size(), 4u);
  EXPECT_EQ(b.dut.counters[1], a.dut.counters[1]);  // 0.1 exactly: the shortest text that reads back
  EXPECT_TRUE(std::isnan(b.dut.counters[2].second));
  EXPECT_EQ(b.dut.counters[3].second, INFINITY);
  EXPECT_EQ(b.dut.ev_fmt_mode, 4);
  EXPECT_EQ(b.dut.first_psn, 0xFFFFFFu);
  EXPECT_EQ(b.dut.dut_qpn, 17u);
  EXPECT_EQ(b.dut.peer_qpn, 18u);
  EXPECT_EQ(b.peer_qpns, a.peer_qpns);
  EXPECT_EQ(b.requester_window_psns, 1024u);
  EXPECT_EQ(b.responder_window_psns, 2048u);
  EXPECT_EQ(b.wimm_limit, 8u);
  EXPECT_EQ(b.ev_min_active, 2u);
  EXPECT_EQ(b.dut_pkey, 0x8001);
  EXPECT_EQ(b.ev_event_mask, 0x7u);
  EXPECT_TRUE(b.ev_precise_drop_count);
  ASSERT_EQ(b.dut_wire_evs.size(), 1u);
  EXPECT_EQ(b.dut_wire_evs[0].wire, a.dut_wire_evs[0].wire);
  EXPECT_EQ(b.dut_wire_evs[0].port, 3);
  EXPECT_EQ(b.dut_wire_evs[0].index, 5);
  EXPECT_EQ(b.dut_ev_mode, wire::EvFmtMode::kUdp);
  EXPECT_EQ(b.dut_dscp.trimmable, 20u);
  EXPECT_EQ(b.dut_dscp.trimmable_retx, wire::DscpConfig{}.trimmable_retx);
  EXPECT_EQ(b.dut_dscp.trimmed_lasthop, 23u);
  EXPECT_EQ(b.dut_dscp.control, 40u);
  EXPECT_EQ(b.timing_budget, a.timing_budget);
  EXPECT_EQ(b.late_steps, a.late_steps);
  // Same context, same bytes; and what was read renders to the same bytes again.
  EXPECT_EQ(render_case_context(full_session(), 366), text);
  EXPECT_EQ(render_case_context(r, 366), text);
}

// W13: a run with the default DSCP values writes none (every older context file reads the same),
// and reading one without them gives the defaults.
TEST(ReplayContext, DefaultDscpValuesAreNotWritten) {
  SessionResult s = full_session();
  s.ctx.dut_dscp = wire::DscpConfig{};
  const std::string text = render_case_context(s, 366);
  EXPECT_EQ(text.find("dut_dscp"), std::string::npos);
  SessionResult r;
  r.ctx.dut_dscp.control = 1;
  std::vector<std::vector<std::uint32_t>> bad;
  ASSERT_EQ(parse_case_context(text, "ctx.json", r, bad), "");
  EXPECT_EQ(r.ctx.dut_dscp.control, wire::DscpConfig{}.control);
  EXPECT_NE(render_case_context(full_session(), 366).find("\"dut_dscp\""), std::string::npos);
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ReplayContext, DamageIsNamedByItsPointer) {
  const std::string text = render_case_context(full_session(), 366);
  SessionResult r;
  std::vector<std::vector<std::uint32_t>> bad;
  EXPECT_EQ(parse_case_context("{\"schema\"", "c.json", r, bad), "c.json: not JSON (a case context file holds one object)");
  EXPECT_EQ(parse_case_context(with(text, "case-context/1", "case-context/9"), "c.json", r, bad),
            "c.json: /schema: 'mrc-conform/case-context/9', this mrc-conform reads mrc-conform/case-context/1");
  EXPECT_EQ(parse_case_context(with(text, "\"end_ns\"", "\"end\""), "c.json", r, bad), "c.json: /end_ns: missing");
  EXPECT_EQ(parse_case_context(with(text, "\"dut_qpn\":17", "\"dut_qpn\":-17"), "c.json", r, bad),
            "c.json: /dut/dut_qpn: expected an unsigned integer");
  EXPECT_EQ(parse_case_context(with(text, "\"port\":3", "\"port\":300"), "c.json", r, bad),
            "c.json: /limits/dut_wire_evs/0/port: out of range (300)");
  EXPECT_EQ(parse_case_context(with(text, "\"00ff10\"", "\"00fg10\""), "c.json", r, bad),
            "c.json: /dut/injected_writes/0/payload: expected lower-case hex digits");
  EXPECT_EQ(parse_case_context(with(text, "\"status\":\"PASS\"", "\"status\":\"OK\""), "c.json", r, bad),
            "c.json: /session/status: expected PASS, FAIL, UNSUPPORTED, INCONCLUSIVE or ERROR");
  EXPECT_EQ(parse_case_context(with(text, "\"dut_ev_mode\":4", "\"dut_ev_mode\":3"), "c.json", r, bad),
            "c.json: /limits/dut_ev_mode: expected 1 (STEV), 2 (SRv6) or 4 (UDP)");
}

}  // namespace
}  // namespace mrc::run
