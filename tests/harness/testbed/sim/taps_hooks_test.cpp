// Taps (wire vs arrival timestamps, integrity and drop counts), the impairment hook's actions,
// external hosts (inject / inject_to), port admin faults and run control.
#include <gtest/gtest.h>

#include "harness/capture/pcapng.hpp"
#include "harness/testbed/sim/host_setup.hpp"
#include "harness/testbed/sim/sim_write.hpp"
#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

using testing::Received;

TEST(SimTaps, WireAndArrivalTimestampsDifferBySerializationAndPropagation) {
  Simulator sim(testing::mini());
  auto log = std::make_shared<std::vector<Received>>();
  testing::make_external(sim, {0, 1}, log);
  const EvSpec ev = srv6_evs(sim.topology(), 0, 1)[0];
  const DirId d = sim.topology().host_tx_dir(0, ev.port);
  const TapId wire_tap = sim.add_tap({d, TapPoint::kWire, "h0.tx"});
  const TapId arrive_tap = sim.add_tap({d, TapPoint::kArrival, "leaf.rx", 64});
  EXPECT_EQ(sim.add_tap({999'999}), kNone);
  const auto f = testing::frame_for(0, 1, ev, false, 1000);
  ASSERT_EQ(sim.inject(0, ev.port, f, 5000), SimError::kOk);
  ASSERT_EQ(sim.inject(0, ev.port, f, 5000), SimError::kOk);  // queued behind the first
  sim.run_until_idle(1'000'000);
  const harness::Capture& w = sim.capture(wire_tap);
  const harness::Capture& a = sim.capture(arrive_tap);
  ASSERT_EQ(w.size(), 2u);
  ASSERT_EQ(a.size(), 2u);
  // 100 Gb/s: 80 ps per byte, with 24 bytes of preamble, FCS and gap per frame; 500 ns of fibre.
  const std::uint64_t ser_ps = (f.size() + 24) * 80;
  EXPECT_EQ(w.packet(0).ts_ns, 5000u);
  EXPECT_EQ(w.packet(1).ts_ns, (5'000'000 + ser_ps) / 1000);  // back to back
  EXPECT_EQ(a.packet(0).ts_ns, (5'000'000 + ser_ps + 999) / 1000 + 500);
  EXPECT_EQ(a.packet(1).ts_ns, (5'000'000 + 2 * ser_ps + 999) / 1000 + 500);
  EXPECT_EQ(a.packet(0).caplen, 64u);  // snaplen
  EXPECT_EQ(a.packet(0).origlen, f.size());
  EXPECT_EQ(w.tap(), "h0.tx");
  EXPECT_TRUE(w.integrity().complete());
  EXPECT_FALSE(a.integrity().complete());  // truncated by its snaplen
  EXPECT_EQ(sim.tap_counters(wire_tap).offered, 2u);
  EXPECT_EQ(sim.tap_counters(wire_tap).delivered, 2u);
  // The frames as captured are the frames as sent.
  EXPECT_TRUE(std::equal(f.begin(), f.end(), w.bytes(0).begin()));
  EXPECT_EQ(harness::pcapng_bytes(w).substr(0, 4), std::string("\x0a\x0d\x0d\x0a", 4));
}

TEST(SimTaps, FaultDropsAreCountedOnTheTap) {
  Simulator sim(testing::mini());
  testing::make_external(sim, {0, 1}, std::make_shared<std::vector<Received>>());
  const EvSpec ev = srv6_evs(sim.topology(), 0, 1)[0];
  const DirId d = sim.topology().host_tx_dir(0, ev.port);
  const TapId t = sim.add_tap({d});
  ASSERT_EQ(sim.blackhole(Topology::link_of(d), 0), SimError::kOk);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(sim.inject(0, ev.port, testing::frame_for(0, 1, ev), 100), SimError::kOk);
  sim.run_until_idle(1'000'000);
  const TapCounters c = sim.tap_counters(t);
  EXPECT_EQ(c.captured, 5u);  // the DUT sent them: on the wire, then lost
  EXPECT_EQ(c.dropped_fault, 5u);
  EXPECT_EQ(c.delivered, 0u);
}

TEST(SimHook, EveryActionIsAppliedAndRecorded) {
  Simulator sim(testing::mini());
  auto log = std::make_shared<std::vector<Received>>();
  testing::make_external(sim, {0, 1}, log);
  const EvSpec ev = srv6_evs(sim.topology(), 0, 1)[0];
  const PathTrace tr = path_of(sim, 0, 1, ev);
  const DirId spine_down = tr.dirs[2];
  std::vector<Impairment::Action> plan = {Impairment::Action::kDrop, Impairment::Action::kTrim,
                                          Impairment::Action::kDuplicate, Impairment::Action::kDelay,
                                          Impairment::Action::kCorrupt, Impairment::Action::kPass};
  std::size_t n = 0;
  sim.set_impairment_hook(
      [&](std::uint64_t, DirId d, wire::MutBytes, std::uint16_t&) {
        EXPECT_EQ(d, spine_down);  // registered for this direction only
        Impairment imp;
        imp.action = plan[n++ % plan.size()];
        imp.delay_ns = 50'000;
        imp.copies = 2;
        return imp;
      },
      {spine_down});
  for (std::size_t i = 0; i < plan.size(); ++i) {
    ASSERT_EQ(sim.inject(0, ev.port, testing::frame_for(0, 1, ev, false, 1024), i * 10'000), SimError::kOk);
  }
  sim.run_until_idle(10'000'000);
  EXPECT_EQ(n, plan.size());
  ASSERT_EQ(log->size(), 1u + 3u + 1u + 1u + 1u);  // drop 0, trim 1, duplicate 1+2, delay, corrupt, pass
  std::size_t trimmed = 0, bad_icrc = 0;
  for (const Received& r : *log) {
    wire::DecodedFrame f;
    ASSERT_TRUE(testing::decode(r.bytes, f));
    // Trimmed to 256 bytes on the spine's link, then decapsulated (40 bytes less) by the leaf.
    trimmed += r.bytes.size() == 256 - 40 && f.trimmed && f.ip6.dscp == wire::kDscpTrimmed;
    bad_icrc += !f.icrc_ok;
  }
  EXPECT_EQ(trimmed, 1u);
  EXPECT_EQ(bad_icrc, 2u);  // the trimmed stub and the corrupted frame
  EXPECT_GT(log->back().t, 50'000u + 30'000u);  // the delayed frame arrives last
  std::vector<FaultKind> kinds;
  for (const FaultRecord& r : sim.fault_log()) {
    EXPECT_TRUE(r.per_packet);
    EXPECT_EQ(r.dir, spine_down);
    EXPECT_EQ(r.plane, ev.port);
    kinds.push_back(r.kind);
  }
  EXPECT_EQ(kinds, (std::vector<FaultKind>{FaultKind::kDrop, FaultKind::kTrim, FaultKind::kDuplicate,
                                           FaultKind::kDelay, FaultKind::kCorrupt}));
  EXPECT_STREQ(to_string(FaultKind::kTrim), "trim");
}

TEST(SimHosts, InjectToReachesTheHostAndItsTaps) {
  Simulator sim(testing::mini());
  auto log = std::make_shared<std::vector<Received>>();
  testing::make_external(sim, {1}, log);
  const TapId t = sim.add_tap({sim.topology().host_rx_dir(1, 4), TapPoint::kWire, "dut.p4.rx"});
  const auto f = testing::frame_for(0, 1, srv6_evs(sim.topology(), 0, 1)[3]);
  ASSERT_EQ(sim.inject_to(1, 4, f, 777), SimError::kOk);
  EXPECT_EQ(sim.inject_to(1, 9, f, 777), SimError::kBadPort);
  EXPECT_EQ(sim.inject_to(2, 1, f, 777), SimError::kBadHost);
  EXPECT_EQ(sim.inject_to(1, 1, wire::Bytes(f.data(), 10), 777), SimError::kBadFrame);
  sim.run_until(1000);
  EXPECT_EQ(sim.inject(0, 1, f, 999), SimError::kInPast);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ(log->front().t, 777u);
  EXPECT_EQ(log->front().port, 4);
  EXPECT_EQ(log->front().bytes, f);
  ASSERT_EQ(sim.capture(t).size(), 1u);
  EXPECT_EQ(sim.capture(t).packet(0).ts_ns, 777u);
  EXPECT_EQ(sim.set_external(1, nullptr), SimError::kHostTaken);
  EXPECT_EQ(sim.port_admin(1, 1, false, 2000), SimError::kNotEndpoint);
}

TEST(SimRunControl, StepRunUntilAndBoundedIdle) {
  Simulator sim(testing::mini());
  ConnectOptions o;
  Connection c;
  ASSERT_EQ(connect_hosts(sim, 0, 1, o, c), "");
  EXPECT_EQ(sim.now(), 0u);
  EXPECT_TRUE(sim.run_until_idle(1'000'000));  // nothing to send, no timers armed
  WriteTransfer x;
  WriteJob job;
  job.bytes = 1u << 20;
  ASSERT_EQ(x.start(sim, c, job), "");
  ASSERT_TRUE(sim.step());
  const std::uint64_t t1 = sim.now();
  sim.run_until(t1 + 3000);
  EXPECT_EQ(sim.now(), t1 + 3000);
  sim.run_until(10);  // the past: nothing happens
  EXPECT_EQ(sim.now(), t1 + 3000);
  // The transfer needs ~15 us; a 2 us bound stops early, a generous one finishes.
  EXPECT_FALSE(sim.run_until_idle(sim.now() + 2000));
  EXPECT_FALSE(x.poll());
  sim.run_until_idle(sim.now() + 10'000'000);
  EXPECT_TRUE(x.poll());
  EXPECT_TRUE(x.verify());
  EXPECT_GT(sim.stats().events, 1000u);
  EXPECT_EQ(sim.stats().deadline_stalls, 0u);
  // Steady state: a second, identical transfer reuses the pool's buffers (no growth).
  const std::size_t buffers = sim.stats().pool_buffers;
  const WriteOutcome again = run_write(sim, c, job);
  EXPECT_EQ(again.failure, "");
  EXPECT_EQ(sim.stats().pool_buffers, buffers);
  EXPECT_LE(sim.stats().pool_high_water, buffers);
}

TEST(SimHosts, PortAdminDownMovesTrafficOffThePlane) {
  Simulator sim(testing::mini());
  ConnectOptions o;
  Connection c;
  ASSERT_EQ(connect_hosts(sim, 0, 1, o, c), "");
  ASSERT_EQ(sim.port_admin(0, 2, false, 0), SimError::kOk);
  sim.run_until(1);
  EXPECT_FALSE(c.a->port_up(2));
  WriteJob job;
  job.bytes = 2u << 20;
  const DirId p2 = sim.topology().host_tx_dir(0, 2);
  const std::uint64_t before = sim.dir_counters(p2).tx_frames;
  const WriteOutcome w = run_write(sim, c, job);
  EXPECT_EQ(w.failure, "");
  EXPECT_EQ(sim.dir_counters(p2).tx_frames, before);
  EXPECT_EQ(sim.fault_log().front().kind, FaultKind::kPortDown);
  EXPECT_EQ(sim.fault_target(sim.fault_log().front()), "host0.p2");
}

// A host on a real interface (a bridge) knows when each frame crossed it; the taps at that host
// keep it beside the fabric's time (port): a frame to the host once the host took it, a frame
// from it as it came out. Taps elsewhere, and in-process hosts, keep 0.
class TimedPort final : public harness::FramePort {
 public:
  explicit TimedPort(std::vector<std::uint8_t> reply, std::uint8_t port) : reply_(std::move(reply)), port_(port) {}
  void on_frame(std::uint8_t, std::span<const std::uint8_t>, std::uint64_t now_ns) override {
    last_ = {1'000'000 + now_ns, 700};  // "handed to the kernel" 1 ms after the fabric's time
    owed_ = true;
  }
  void advance(std::uint64_t) override {}
  bool poll_frame(transport::TxFrame& out) override {
    if (!owed_) return false;
    owed_ = false;
    out.port = port_;
    out.len = static_cast<std::uint16_t>(reply_.size());
    std::copy(reply_.begin(), reply_.end(), out.bytes.begin());
    last_ = {2'000'000, 0};  // "captured by the kernel"
    return true;
  }
  std::uint64_t next_deadline() const override { return UINT64_MAX; }
  int set_port_up(std::uint8_t, bool) override { return 0; }
  harness::PortTime port_time() const override { return last_; }

 private:
  std::vector<std::uint8_t> reply_;
  std::uint8_t port_;
  harness::PortTime last_;
  bool owed_ = false;
};

TEST(SimTaps, ABridgedHostsPortTimesGoOnTheTapsAtThatHost) {
  Simulator sim(testing::mini());
  testing::make_external(sim, {1}, std::make_shared<std::vector<Received>>());
  const EvSpec ev = srv6_evs(sim.topology(), 0, 1)[0];
  TimedPort host(testing::frame_for(0, 1, ev), ev.port);
  ASSERT_EQ(sim.attach_port(0, host), SimError::kOk);
  const TapId to_host = sim.add_tap({sim.topology().host_rx_dir(0, ev.port), TapPoint::kArrival, "h0.rx"});
  const TapId from_host = sim.add_tap({sim.topology().host_tx_dir(0, ev.port), TapPoint::kWire, "h0.tx"});
  const TapId at_peer = sim.add_tap({sim.topology().host_rx_dir(1, ev.port), TapPoint::kArrival, "h1.rx"});
  ASSERT_EQ(sim.inject_to(0, ev.port, testing::frame_for(1, 0, ev), 5000), SimError::kOk);
  sim.run_until_idle(1'000'000);
  ASSERT_EQ(sim.capture(to_host).size(), 1u);
  EXPECT_EQ(sim.capture(to_host).packet(0).ts_ns, 5000u);
  EXPECT_EQ(sim.capture(to_host).packet(0).port, (harness::PortTime{1'005'000, 700}));
  ASSERT_EQ(sim.capture(from_host).size(), 1u);
  EXPECT_EQ(sim.capture(from_host).packet(0).port, (harness::PortTime{2'000'000, 0}));
  // The same frame at the far end carries it too: it is the frame's crossing of host 0's port.
  ASSERT_EQ(sim.capture(at_peer).size(), 1u);
  EXPECT_EQ(sim.capture(at_peer).packet(0).port.ns, 2'000'000u);
  // A frame injected at the peer never crossed a timed port.
  Simulator plain(testing::mini());
  testing::make_external(plain, {0, 1}, std::make_shared<std::vector<Received>>());
  const TapId t = plain.add_tap({plain.topology().host_rx_dir(0, ev.port), TapPoint::kArrival, "h0.rx"});
  ASSERT_EQ(plain.inject_to(0, ev.port, testing::frame_for(1, 0, ev), 5000), SimError::kOk);
  plain.run_until_idle(1'000'000);
  ASSERT_EQ(plain.capture(t).size(), 1u);
  EXPECT_FALSE(plain.capture(t).packet(0).port.known());
}

}  // namespace
}  // namespace mrc::sim
