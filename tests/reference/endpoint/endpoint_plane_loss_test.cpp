// Seven of eight planes dead (the 8-plane `mini` testbed with planes 2..8 cut in both directions):
// the requester must retire the dead planes' EVs, keep spraying on the surviving plane, never blame
// the surviving plane's EVs, and finish every write. When the ev_min_active floor keeps dead EVs
// GOOD ("forced active", W11), a retransmission must not go back into them while a live EV
// is eligible, or one PSN bounces between black holes while its backoff grows and the QP stalls.
#include <gtest/gtest.h>

#include "tests/reference/endpoint/wire_view.hpp"
#include "tests/reference/endpoint/write_workload.hpp"

namespace mrc::ref::testing {
namespace {

struct Scenario {
  std::uint32_t ev_count = 32;
  std::uint32_t ev_min_active = 1;
  std::uint64_t cut_ns = 0;  // planes 2..8 carry nothing from here on
  bool nscc = true;
  enum ibv_mtu mtu = IBV_MTU_1024;
  std::uint32_t max_len = 8192;
  std::uint32_t max_outstanding = 64;
  std::uint64_t limit_ns = 1'000'000'000ull;
};

struct Outcome {
  std::uint32_t completed = 0;
  std::size_t good_live = 0;     // plane 1 EVs GOOD at the end
  std::size_t good_dead = 0;     // EVs of planes 2..8 GOOD at the end (forced active)
  std::size_t live_blamed = 0;   // ASSUMED_BAD events for plane 1 EVs
  std::size_t dead_marked = 0;   // ASSUMED_BAD events for the other planes' EVs
  std::uint64_t end_ns = 0;      // virtual time the workload took
};

Outcome run(const Scenario& s, std::uint32_t writes = 1000) {
  PairOptions o;
  o.timeout = 6;
  o.ev_count = s.ev_count;
  o.ev_min_active = s.ev_min_active;
  o.nscc = s.nscc;
  o.mtu = s.mtu;
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->filter = [cut = s.cut_ns](int, transport::TxFrame& f, std::uint64_t now) {
    return f.port == 1 || now < cut;
  };
  WorkloadOptions w;
  w.writes = writes;
  w.max_len = s.max_len;
  w.max_outstanding = s.max_outstanding;
  w.limit_ns = s.limit_ns;
  const WorkloadResult r = run_random_writes(p, w);
  EXPECT_EQ(r.failure, "");
  Outcome out;
  out.completed = r.completed;
  out.end_ns = r.end_ns;
  const auto states = p.a->ev_states(p.qp.qpn_a);
  const auto arr = p.a->controller().ev_array(0);
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (states[i] != ev::EvState::kGood) continue;
    (arr[i].port == 1 ? out.good_live : out.good_dead) += 1;
  }
  ev::EvEvent e;
  while (p.a->poll_ev_event(e)) {
    if (e.state != ev::EvState::kAssumedBad) continue;
    (e.ev.port == 1 ? out.live_blamed : out.dead_marked) += 1;
  }
  return out;
}

TEST(EndpointPlaneLoss, SevenOfEightPlanesDownFromTheStart) {
  const Outcome o = run({});
  EXPECT_EQ(o.completed, 1000u);
  EXPECT_EQ(o.good_live, 4u);  // 32 EVs over 8 planes: plane 1's four
  EXPECT_EQ(o.live_blamed, 0u);
  EXPECT_EQ(o.good_dead, 0u);
  EXPECT_EQ(o.dead_marked, 28u);
}

TEST(EndpointPlaneLoss, SevenOfEightPlanesDieMidTransfer) {
  Scenario s;
  s.cut_ns = 200'000;
  const Outcome o = run(s);
  EXPECT_EQ(o.completed, 1000u);
  EXPECT_EQ(o.good_live, 4u);
  EXPECT_EQ(o.live_blamed, 0u);
}

// The `mini` case failover-v-022: large writes (4 KiB MTU, up to 64 KiB each) and no
// ev_min_active floor, planes 2..8 dying mid-transfer. The losses collapse the NSCC window to
// about one packet, so retransmissions leave one per ACK timeout, and a dead EV is reported only
// once the PSN it lost goes out elsewhere (W11). Before the fix each lone retransmission went to the
// next EV in the rotation, seven times in eight a dead one not yet reported, and the backoff
// doubled faster than the dead EVs were retired: the QP stalled with the live plane idle (38 and
// 42 of 300 writes done after 50 ms). Suspect EVs (a timeout not yet reported) now take no
// retransmission while a live EV is left: both runs end in under 1 ms.
TEST(EndpointPlaneLoss, SevenOfEightPlanesDieUnderLargeWritesWithoutAFloor) {
  struct Shape {
    std::uint64_t cut_ns;
    std::uint32_t max_outstanding;
  };
  for (const Shape& sh : {Shape{10'000, 8}, Shape{3'000, 64}}) {
    Scenario s;
    s.ev_min_active = 0;
    s.cut_ns = sh.cut_ns;
    s.mtu = IBV_MTU_4096;
    s.max_len = 65536;
    s.max_outstanding = sh.max_outstanding;
    s.limit_ns = 50'000'000;
    const Outcome o = run(s, 300);
    EXPECT_EQ(o.completed, 300u) << sh.cut_ns;
    EXPECT_LT(o.end_ns, 5'000'000u) << sh.cut_ns;
    EXPECT_EQ(o.good_live, 4u) << sh.cut_ns;
    EXPECT_EQ(o.live_blamed, 0u) << sh.cut_ns;
  }
}

TEST(EndpointPlaneLoss, OneEvPerPlane) {
  for (std::uint32_t floor : {1u, 4u}) {
    Scenario s;
    s.ev_count = 8;
    s.ev_min_active = floor;
    const Outcome o = run(s, 500);
    EXPECT_EQ(o.completed, 500u) << floor;
    EXPECT_EQ(o.good_live, 1u) << floor;
    EXPECT_EQ(o.live_blamed, 0u) << floor;
    EXPECT_EQ(o.good_live + o.good_dead, floor) << floor;  // the floor holds, dead EVs forced
  }
}

TEST(EndpointPlaneLoss, MinActiveFloorAboveTheLivePlaneStillCompletes) {
  // The floor (8) is larger than the four live EVs: four dead EVs stay forced active and keep
  // their share of new data, yet what they lose is retransmitted on the live plane.
  for (bool nscc : {true, false}) {
    Scenario s;
    s.ev_min_active = 8;
    s.nscc = nscc;
    const Outcome o = run(s, 500);
    EXPECT_EQ(o.completed, 500u) << nscc;
    EXPECT_EQ(o.good_live, 4u) << nscc;
    EXPECT_EQ(o.good_live + o.good_dead, 8u) << nscc;
    EXPECT_EQ(o.live_blamed, 0u) << nscc;
  }
}

}  // namespace
}  // namespace mrc::ref::testing
