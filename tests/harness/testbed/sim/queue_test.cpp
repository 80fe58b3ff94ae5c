// Switch queues: ECN CE marking above the threshold (ECT only), strict priority for control
// traffic, trimming to 256 bytes with DSCP 11 on overflow (W13) or drops when trimming is
// off; and an 8-to-1 incast of reference endpoints on `rack` that trims and still completes.
#include <gtest/gtest.h>

#include "harness/testbed/sim/frame_edit.hpp"
#include "harness/testbed/sim/host_setup.hpp"
#include "harness/testbed/sim/sim_write.hpp"
#include "tests/harness/testbed/sim/sim_test_support.hpp"

namespace mrc::sim {
namespace {

using testing::Received;

constexpr std::uint32_t kSink = 0;  // rack: host 0 on leaf 0; senders 8..15 on leaf 1

// Sets DSCP / ECN of the outer IP header (the ICRC masks both, so the frame stays valid).
void set_tos(std::vector<std::uint8_t>& f, std::uint8_t dscp, std::uint8_t ecn) {
  FrameLayout l;
  ASSERT_TRUE(parse_layout(f.data(), static_cast<std::uint16_t>(f.size()), l));
  const std::uint8_t tc = static_cast<std::uint8_t>((dscp << 2) | ecn);
  for (std::uint16_t off : {l.l3, l.inner}) {
    if (off == 0) continue;
    f[off] = static_cast<std::uint8_t>(0x60 | (tc >> 4));
    f[off + 1] = static_cast<std::uint8_t>(((tc & 0x0F) << 4) | (f[off + 1] & 0x0F));
  }
}

// A full-size (4 KiB payload) data frame from `src` to the sink on plane 1.
std::vector<std::uint8_t> big_frame(const Simulator& sim, std::uint32_t src, std::uint32_t k) {
  const auto evs = srv6_evs(sim.topology(), src, kSink);
  return testing::frame_for(src, kSink, evs[(k * sim.topology().planes()) % evs.size()], false, 4096);  // plane 1
}

struct Incast {
  explicit Incast(TopologyConfig cfg = testing::rack()) : sim(cfg) {
    testing::make_external(sim, {kSink, 8, 9, 10, 11, 12, 13, 14, 15}, log);
  }
  // `per` frames from each of the 8 senders, each sender at its 100 Gb/s line rate.
  void blast(std::uint32_t per, std::uint8_t ecn = wire::kEcnEct0) {
    for (std::uint32_t i = 0; i < per; ++i) {
      for (std::uint32_t s = 8; s < 16; ++s) {
        auto f = big_frame(sim, s, i);
        set_tos(f, wire::kDscpTrimmable, ecn);
        ASSERT_EQ(sim.inject(s, 1, f, std::uint64_t{i} * 342), SimError::kOk);
      }
    }
  }
  DirId sink_dir() const { return sim.topology().host_rx_dir(kSink, 1); }
  Simulator sim;
  std::shared_ptr<std::vector<Received>> log = std::make_shared<std::vector<Received>>();
};

std::uint8_t ecn_of(const Received& r) {
  FrameLayout l;
  if (!parse_layout(r.bytes.data(), static_cast<std::uint16_t>(r.bytes.size()), l)) return 0xFF;
  return outer_ecn(r.bytes.data(), l);
}

TEST(SimQueues, EcnMarksAboveThresholdOnlyEctTraffic) {
  Incast x;
  x.blast(12);  // ~400 KB peak queue: above the 64 KiB ECN threshold, below the 512 KiB limit
  x.sim.run_until_idle(100'000'000);
  ASSERT_EQ(x.log->size(), 96u);
  std::uint64_t ce = 0;
  for (std::size_t i = 0; i < x.log->size(); ++i) {
    const std::uint8_t e = ecn_of((*x.log)[i]);
    ce += e == wire::kEcnCe;
    if (i < 8) {
      EXPECT_EQ(e, wire::kEcnEct0) << i;  // the queue was short when these arrived
    }
  }
  const DirCounters& c = x.sim.dir_counters(x.sink_dir());
  EXPECT_GT(ce, 40u);
  EXPECT_EQ(ce, c.ecn_marked);
  EXPECT_EQ(c.trimmed, 0u);
  EXPECT_EQ(c.dropped_queue, 0u);
  EXPECT_GT(c.max_queue_bytes, 300'000u);

  Incast y;
  y.blast(12, wire::kEcnNotEct);
  y.sim.run_until_idle(100'000'000);
  for (const Received& r : *y.log) EXPECT_EQ(ecn_of(r), wire::kEcnNotEct);
  EXPECT_EQ(y.sim.dir_counters(y.sink_dir()).ecn_marked, 0u);
}

TEST(SimQueues, ControlTrafficOvertakesQueuedData) {
  Incast x;
  x.blast(12);
  auto ctl = testing::frame_for(9, kSink, srv6_evs(x.sim.topology(), 9, kSink)[0]);
  set_tos(ctl, wire::kDscpControl, wire::kEcnNotEct);
  ASSERT_EQ(x.sim.inject(9, 1, ctl, 12 * 342), SimError::kOk);  // behind ~350 KB of data
  x.sim.run_until_idle(100'000'000);
  ASSERT_EQ(x.log->size(), 97u);
  std::size_t pos = 0;
  while (pos < x.log->size() && (*x.log)[pos].bytes.size() > 1000) ++pos;
  ASSERT_LT(pos, x.log->size());
  EXPECT_LT(pos, 40u) << "the DSCP 46 frame waited behind the data queue";
}

// The incast queue is the sink's leaf -> host link, the last hop: W13 TRIMMED_LASTHOP (13 by
// default, MODEL: W13), lengths fixed to the 256 bytes kept.
TEST(SimQueues, OverflowTrimsTo256BytesWithTheLastHopDscp) {
  Incast x;
  x.blast(40);  // ~1.3 MB offered at 8x the drain rate: past the 512 KiB data queue
  x.sim.run_until_idle(100'000'000);
  ASSERT_EQ(x.log->size(), 320u);  // trimmed, not dropped
  std::uint64_t trimmed = 0;
  for (const Received& r : *x.log) {
    if (r.bytes.size() != 256) continue;
    ++trimmed;
    wire::DecodedFrame f;
    ASSERT_TRUE(testing::decode(r.bytes, f));
    EXPECT_TRUE(f.trimmed);
    EXPECT_TRUE(f.trim_lasthop);
    EXPECT_FALSE(f.icrc_ok);
    EXPECT_EQ(f.ip6.dscp, wire::DscpConfig{}.trimmed_lasthop);
    EXPECT_EQ(f.ip6.payload_length, 256u - 14 - 40);
    EXPECT_EQ(f.udp.length, 256u - 14 - 40);
    EXPECT_TRUE(f.has_reth);  // everything through the RETH survives the cut
  }
  const DirCounters& c = x.sim.dir_counters(x.sink_dir());
  EXPECT_GT(trimmed, 50u);
  EXPECT_EQ(trimmed, c.trimmed);
  EXPECT_EQ(c.dropped_queue, 0u);
  EXPECT_LE(c.max_queue_bytes, 512u * 1024 + 256u * 1024);

  TopologyConfig no_trim = testing::rack();
  no_trim.sw.trim = false;
  Incast y(no_trim);
  y.blast(40);
  y.sim.run_until_idle(100'000'000);
  const DirCounters& d = y.sim.dir_counters(y.sink_dir());
  EXPECT_EQ(d.trimmed, 0u);
  EXPECT_GT(d.dropped_queue, 50u);  // dropped instead of trimmed
  EXPECT_EQ(y.log->size() + d.dropped_queue, 320u);
  for (const Received& r : *y.log) EXPECT_GT(r.bytes.size(), 4096u);
}

TEST(SimQueues, EightToOneIncastOfEndpointsTrimsAndCompletes) {
  Simulator sim(testing::rack());
  ConnectOptions o;
  o.mode = wire::EvFmtMode::kSrv6;
  std::vector<Connection> conns(8);
  std::vector<WriteTransfer> xfers(8);
  WriteJob job;
  job.bytes = 6u << 20;
  job.chunk = 512 * 1024;
  for (std::uint32_t i = 0; i < 8; ++i) {
    ASSERT_EQ(connect_hosts(sim, 8 + i, kSink, o, conns[i]), "");
    job.seed = 100 + i;
    ASSERT_EQ(xfers[i].start(sim, conns[i], job), "");
  }
  auto all_done = [&] {
    bool done = true;
    for (auto& x : xfers) done = x.poll() && done;
    return done;
  };
  while (!all_done() && sim.now() < 200'000'000) sim.run_until(sim.now() + 2000);
  std::uint64_t trim_nacks = 0;
  for (std::uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(xfers[i].failure(), "") << i;
    EXPECT_TRUE(xfers[i].done()) << i;
    EXPECT_TRUE(xfers[i].verify()) << "sender " << 8 + i;
    trim_nacks += conns[i].a->requester(conns[i].qpn_a)->stats().trim_nacks;
  }
  std::uint64_t trimmed = 0;
  for (std::uint32_t p = 1; p <= sim.topology().planes(); ++p) {
    trimmed += sim.dir_counters(sim.topology().host_rx_dir(kSink, p)).trimmed;
  }
  EXPECT_GT(trimmed, 0u);
  EXPECT_GT(trim_nacks, 0u);  // the receiver turned stubs into TRIM NACKs (W7, W13)
  std::printf("incast: 8 x %llu MiB in %.3f ms, %llu trimmed at the sink's leaf, %llu TRIM NACKs\n",
              static_cast<unsigned long long>(job.bytes >> 20), static_cast<double>(sim.now()) / 1e6,
              static_cast<unsigned long long>(trimmed), static_cast<unsigned long long>(trim_nacks));
}

}  // namespace
}  // namespace mrc::sim
