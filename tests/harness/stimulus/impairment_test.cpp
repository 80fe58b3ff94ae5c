#include <gtest/gtest.h>

#include "harness/stimulus/frame_builder.hpp"
#include "harness/stimulus/impairment.hpp"

namespace mrc::harness::stim {
namespace {

// Frames on EV 0 (V 0x0001C001) and EV 1 (V 0x0002C002), data or ACK.
struct Frames {
  FrameContext ctx;
  Frames() {
    ctx.evs = {WireEv{{0x00, 0x01, 0xC0, 0x01}, 1, 0}, WireEv{{0x00, 0x02, 0xC0, 0x02}, 2, 1}};
    ctx.mtu = 1024;
  }
  std::vector<std::uint8_t> data(std::uint32_t ev, std::uint32_t psn, std::uint32_t len = 1024) const {
    FrameSpec s;
    s.opcode = wire::opcode::kMrcWriteMiddle;
    s.psn = psn;
    s.ev = ev;
    s.payload = PayloadSpec{PayloadPattern::kIncrement, len};
    return build_frame(s, ctx).bytes;
  }
  std::vector<std::uint8_t> retx(std::uint32_t ev, std::uint32_t psn) const {
    FrameSpec s;
    s.opcode = wire::opcode::kMrcWriteMiddle;
    s.psn = psn;
    s.ev = ev;
    s.flags = {FrameFlag::kRtx};
    s.payload = PayloadSpec{PayloadPattern::kIncrement, 1024};
    return build_frame(s, ctx).bytes;
  }
  std::vector<std::uint8_t> probe(std::uint32_t ev) const {
    FrameSpec s;
    s.opcode = wire::opcode::kMrcProbe;
    s.ev = ev;
    return build_frame(s, ctx).bytes;
  }
  std::vector<std::uint8_t> ack(std::uint32_t ev, std::uint32_t psn) const {
    FrameSpec s;
    s.opcode = wire::opcode::kRcAck;
    s.psn = psn;
    s.ev = ev;
    return build_frame(s, ctx).bytes;
  }
};

PacketInfo at(const std::vector<std::uint8_t>& f, std::uint64_t now = 0, bool first_hop = true, std::uint32_t link = 5,
              int plane = 1) {
  return PacketInfo{now, link, plane, first_hop, f.data(), static_cast<std::uint16_t>(f.size())};
}

std::unordered_map<std::uint32_t, std::uint32_t> evs() { return {{0x0001C001u, 0}, {0x0002C002u, 1}}; }

ImpairmentProgram program(std::vector<ImpairStep> steps, std::uint64_t seed = 1) {
  static std::vector<ImpairStep> keep;
  keep = std::move(steps);
  std::vector<std::pair<std::size_t, const ImpairStep*>> v;
  for (std::size_t i = 0; i < keep.size(); ++i) v.emplace_back(i, &keep[i]);
  return ImpairmentProgram(v, wire::EvFmtMode::kStev, evs(), seed);
}

TEST(Impairment, DropSelectsByEvPsnRangeAndTime) {
  ImpairStep s;
  s.kind = ImpairKind::kDrop;
  s.at_ns = 100;
  s.select.evs = {1};
  s.select.psn_range = std::make_pair(10u, 20u);
  s.select.time_window = std::make_pair(std::uint64_t{0}, std::uint64_t{1000});
  auto p = program({s});
  Frames f;
  EXPECT_EQ(p.decide(at(f.data(1, 15), 50)).kind, Decision::Kind::kPass);   // before at_ns
  EXPECT_EQ(p.decide(at(f.data(1, 15), 200)).kind, Decision::Kind::kDrop);
  EXPECT_EQ(p.decide(at(f.data(0, 15), 200)).kind, Decision::Kind::kPass);  // other EV
  EXPECT_EQ(p.decide(at(f.data(1, 21), 200)).kind, Decision::Kind::kPass);  // PSN out of range
  EXPECT_EQ(p.decide(at(f.ack(1, 15), 200)).kind, Decision::Kind::kPass);   // PSN range = data only
  EXPECT_EQ(p.decide(at(f.data(1, 15), 1000)).kind, Decision::Kind::kPass); // window is [start, end)
  EXPECT_EQ(p.decide(at(f.data(1, 15), 200, /*first_hop=*/false)).kind, Decision::Kind::kPass);
  EXPECT_EQ(p.hits()[0], 1u);
}

// `opcode` picks any packet with that BTH opcode (here the reliability probes a timer case drops
// with its data, W9); `rtx` picks data packets by BTH.RTX, so a trim can spare the resend.
// A traffic step whose first write returned late (an external DUT's post takes real time): rules
// timed from it follow it once; a window at its start closes later, a time into it moves.
TEST(Impairment, RulesTimedFromALateTrafficStepFollowIt) {
  ImpairStep first;  // the first packets: [0, 1 ms)
  first.kind = ImpairKind::kDrop;
  first.select.psn_range = std::make_pair(0u, 0u);
  first.select.time_window = std::make_pair(std::uint64_t{0}, std::uint64_t{1'000'000});
  ImpairStep into = first;  // from 100 us into the traffic on
  into.select.time_window.reset();
  into.select.psn_range = std::make_pair(5u, 5u);
  into.at_ns = 100'000;
  ImpairStep untimed = first;
  untimed.select.time_window.reset();
  untimed.select.psn_range = std::make_pair(9u, 9u);
  auto p = program({first, into, untimed});
  Frames f;
  EXPECT_EQ(p.follow_late_traffic(0, 3'000'000), 2u);
  EXPECT_EQ(p.rules()[0].select.time_window, std::make_pair(std::uint64_t{0}, std::uint64_t{4'000'000}));
  EXPECT_EQ(p.rules()[1].at_ns, 3'100'000u);
  EXPECT_EQ(p.rules()[2].at_ns, 0u);
  EXPECT_EQ(p.decide(at(f.data(0, 0), 2'500'000)).kind, Decision::Kind::kDrop);  // the late first packet
  EXPECT_EQ(p.decide(at(f.data(0, 5), 2'500'000)).kind, Decision::Kind::kPass);  // not 100 us into it yet
  EXPECT_EQ(p.decide(at(f.data(0, 5), 3'200'000)).kind, Decision::Kind::kDrop);
  EXPECT_EQ(p.decide(at(f.data(0, 9), 10)).kind, Decision::Kind::kDrop);
  EXPECT_EQ(p.follow_late_traffic(0, 3'000'000), 0u) << "each rule follows once";
  EXPECT_EQ(p.follow_late_traffic(0, 0), 0u);
}

TEST(Impairment, ARuleTimedBeforeALaterTrafficStepStays) {
  ImpairStep early;
  early.kind = ImpairKind::kDrop;
  early.select.time_window = std::make_pair(std::uint64_t{0}, std::uint64_t{1'000'000});
  auto p = program({early});
  EXPECT_EQ(p.follow_late_traffic(500'000, 3'000'000), 0u);
  EXPECT_EQ(p.rules()[0].select.time_window, std::make_pair(std::uint64_t{0}, std::uint64_t{1'000'000}));
}

TEST(Impairment, SelectsByOpcodeAndByRtx) {
  ImpairStep probes;
  probes.kind = ImpairKind::kDrop;
  probes.select.opcode = wire::opcode::kMrcProbe;
  ImpairStep first_tx;
  first_tx.kind = ImpairKind::kDrop;
  first_tx.select.psn_range = std::make_pair(7u, 7u);
  first_tx.select.rtx = false;
  auto p = program({probes, first_tx});
  Frames f;
  EXPECT_EQ(p.decide(at(f.probe(0))).kind, Decision::Kind::kDrop);
  EXPECT_EQ(p.decide(at(f.ack(0, 3))).kind, Decision::Kind::kPass);
  EXPECT_EQ(p.decide(at(f.data(0, 3))).kind, Decision::Kind::kPass);
  EXPECT_EQ(p.decide(at(f.data(0, 7))).kind, Decision::Kind::kDrop);
  EXPECT_EQ(p.decide(at(f.retx(1, 7))).kind, Decision::Kind::kPass);  // the resend of PSN 7
  EXPECT_EQ(p.hits()[0], 1u);
  EXPECT_EQ(p.hits()[1], 1u);
}

// An injection timed by the DUT's packet (InjectStep::after_packet): the trigger fires once, on the
// first packet host 0 sends that it selects, at its first hop, beside whatever rule acts on it.
TEST(Impairment, ATriggerFiresOnceOnTheFirstPacketItsHostSends) {
  ImpairStep drop;
  drop.kind = ImpairKind::kDrop;
  drop.select.psn_range = std::make_pair(7u, 7u);
  drop.select.rtx = false;
  auto p = program({drop});
  ImpairSelect sel;
  sel.psn_range = std::make_pair(7u, 7u);
  sel.rtx = false;
  EXPECT_EQ(p.add_trigger(sel, 3, /*host=*/0), 0u);
  Frames f;
  auto from = [](const std::vector<std::uint8_t>& b, std::uint64_t now, int host, bool first_hop = true) {
    PacketInfo i = at(b, now, first_hop);
    i.from_host = host;
    return i;
  };
  EXPECT_EQ(p.decide(from(f.data(0, 6), 10, 0)).kind, Decision::Kind::kPass);
  EXPECT_TRUE(p.fired().empty());
  EXPECT_EQ(p.decide(from(f.data(0, 7), 20, 1)).kind, Decision::Kind::kDrop) << "the rule acts on any sender's packet";
  EXPECT_TRUE(p.fired().empty()) << "host 1 is not the trigger's host";
  EXPECT_EQ(p.decide(from(f.data(0, 7), 25, 0, /*first_hop=*/false)).kind, Decision::Kind::kPass);
  EXPECT_TRUE(p.fired().empty()) << "only at the packet's first hop";
  EXPECT_EQ(p.decide(from(f.data(0, 7), 30, 0)).kind, Decision::Kind::kDrop) << "the trigger decides nothing";
  ASSERT_EQ(p.fired().size(), 1u);
  EXPECT_EQ(p.fired()[0], 0u);
  EXPECT_EQ(p.trigger_fired_at(0), 30u);
  EXPECT_EQ(p.trigger_step(0), 3u);
  (void)p.decide(from(f.data(0, 8), 40, 0));
  EXPECT_TRUE(p.fired().empty()) << "fired() holds the last packet's";
  (void)p.decide(from(f.data(1, 7), 50, 0));
  EXPECT_TRUE(p.fired().empty()) << "once";
  EXPECT_EQ(p.trigger_fired_at(0), 30u);
}

TEST(Impairment, ATriggerWindowFollowsLateTraffic) {
  auto p = program({});
  ImpairSelect sel;
  sel.opcode = wire::opcode::kMrcProbe;
  sel.time_window = std::make_pair(std::uint64_t{1000}, std::uint64_t{2000});
  p.add_trigger(sel, 1, 0);
  EXPECT_EQ(p.follow_late_traffic(0, 5000), 1u);
  EXPECT_EQ(p.trigger_select(0).time_window, std::make_pair(std::uint64_t{6000}, std::uint64_t{7000}));
  Frames f;
  const std::vector<std::uint8_t> probe = f.probe(0);  // PacketInfo points into it
  PacketInfo early = at(probe, 1500);
  early.from_host = 0;
  (void)p.decide(early);
  EXPECT_TRUE(p.fired().empty());
  PacketInfo late = at(probe, 6500);
  late.from_host = 0;
  (void)p.decide(late);
  EXPECT_EQ(p.fired().size(), 1u);
}

TEST(Impairment, ProbabilityIsSeededAndAboutRight) {
  ImpairStep s;
  s.kind = ImpairKind::kDrop;
  s.select.probability = 0.25;
  Frames f;
  const auto frame = f.data(0, 1);
  auto count = [&](std::uint64_t seed) {
    auto p = program({s}, seed);
    int drops = 0;
    for (int i = 0; i < 4000; ++i) drops += p.decide(at(frame)).kind == Decision::Kind::kDrop;
    return drops;
  };
  const int a = count(9);
  EXPECT_EQ(a, count(9));
  EXPECT_NE(a, count(10));
  EXPECT_GT(a, 850);
  EXPECT_LT(a, 1150);
}

TEST(Impairment, ReorderHoldsBackEveryDepthPlusOnePacket) {
  ImpairStep s;
  s.kind = ImpairKind::kReorder;
  s.params.depth = 3;
  s.params.delay_ns = 3000;
  auto p = program({s});
  Frames f;
  std::vector<int> delayed;
  for (int i = 0; i < 8; ++i) {
    const Decision d = p.decide(at(f.data(0, static_cast<std::uint32_t>(i))));
    if (d.kind == Decision::Kind::kDelay) {
      EXPECT_EQ(d.delay_ns, 3000u);
      delayed.push_back(i);
    }
  }
  EXPECT_EQ(delayed, (std::vector<int>{0, 4}));
}

TEST(Impairment, TrimCutsOnlyLongTrimmableData) {
  ImpairStep s;
  s.kind = ImpairKind::kTrim;
  s.params.bytes = 256;
  auto p = program({s});
  Frames f;
  const Decision d = p.decide(at(f.data(0, 1)));
  EXPECT_EQ(d.kind, Decision::Kind::kTrim);
  EXPECT_EQ(d.trim_bytes, 256u);
  EXPECT_EQ(p.decide(at(f.ack(0, 1))).kind, Decision::Kind::kPass);       // DSCP 46, short
  EXPECT_EQ(p.decide(at(f.data(0, 1, 64))).kind, Decision::Kind::kPass);  // shorter than the cut
}

// W13: the trimmable classes are the run's configured values (the case's config.dscp), not
// W13's defaults: data in DSCP_TRIMMABLE or DSCP_TRIMMABLE_RETX is cut, anything else passes.
TEST(Impairment, TrimCutsTheConfiguredTrimmableClasses) {
  ImpairStep s;
  s.kind = ImpairKind::kTrim;
  auto p = program({s});
  wire::DscpConfig d;
  d.trimmable = 20;
  d.trimmable_retx = 22;
  d.control = 40;
  p.set_dscp(d);
  Frames f;
  auto data_in = [&](std::uint8_t dscp) {
    FrameSpec spec;
    spec.opcode = wire::opcode::kMrcWriteMiddle;
    spec.psn = 1;
    spec.ev = 0;
    spec.dscp = dscp;
    spec.payload = PayloadSpec{PayloadPattern::kIncrement, 1024};
    return build_frame(spec, f.ctx).bytes;
  };
  EXPECT_EQ(p.decide(at(data_in(20))).kind, Decision::Kind::kTrim);
  EXPECT_EQ(p.decide(at(data_in(22))).kind, Decision::Kind::kTrim);  // retransmission class
  EXPECT_EQ(p.decide(at(data_in(10))).kind, Decision::Kind::kPass);  // W13's default is not this run's
  EXPECT_EQ(p.decide(at(data_in(18))).kind, Decision::Kind::kPass);  // e.g. NO_TRIM
  // Unconfigured: W13's defaults, both trimmable classes.
  auto q = program({s});
  EXPECT_EQ(q.decide(at(data_in(10))).kind, Decision::Kind::kTrim);
  EXPECT_EQ(q.decide(at(data_in(12))).kind, Decision::Kind::kTrim);
  EXPECT_EQ(q.decide(at(data_in(20))).kind, Decision::Kind::kPass);
}

TEST(Impairment, LinkRulesActOnTheirLinkOnly) {
  ImpairStep s;
  s.kind = ImpairKind::kCorrupt;
  s.select.link = "plane1/leaf0-spine1";
  s.params.offset = 60;
  s.params.xor_mask = 0x80;
  auto p = program({s});
  Frames f;
  const auto frame = f.data(0, 1);
  EXPECT_EQ(p.decide(at(frame, 0, true, 7)).kind, Decision::Kind::kPass);  // not bound yet
  p.bind_link(0, 7);
  EXPECT_EQ(p.decide(at(frame, 0, true, 5)).kind, Decision::Kind::kPass);
  const Decision d = p.decide(at(frame, 0, false, 7));
  EXPECT_EQ(d.kind, Decision::Kind::kCorrupt);
  EXPECT_EQ(d.offset, 60u);
  EXPECT_EQ(d.xor_mask, 0x80);
}

TEST(Impairment, LinkAndSwitchFaultsBecomeFaultPlans) {
  ImpairStep down;
  down.kind = ImpairKind::kLinkDown;
  down.at_ns = 200000;
  down.select.plane = 2;
  ImpairStep sw;
  sw.kind = ImpairKind::kSwitchDown;
  sw.at_ns = 300000;
  sw.params.target = "plane1/spine0";
  ImpairStep hole;  // a black-hole of EVs is a drop rule, of a plane a fault
  hole.kind = ImpairKind::kBlackhole;
  hole.select.evs = {0};
  auto p = program({down, sw, hole});
  ASSERT_EQ(p.faults().size(), 2u);
  EXPECT_EQ(p.faults()[0].kind, ImpairKind::kLinkDown);
  EXPECT_EQ(p.faults()[0].plane, 2u);
  EXPECT_EQ(p.faults()[1].target_switch, "plane1/spine0");
  ASSERT_EQ(p.rules().size(), 1u);
  Frames f;
  EXPECT_EQ(p.decide(at(f.data(0, 1))).kind, Decision::Kind::kDrop);
  EXPECT_EQ(p.decide(at(f.data(1, 1))).kind, Decision::Kind::kPass);
}

}  // namespace
}  // namespace mrc::harness::stim
