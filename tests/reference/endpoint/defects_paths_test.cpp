// Wire symptoms of the defects in what a requester learns about its paths and how a responder
// names its QPs, each against a control run: peer-port-status-ignored (A keeps sending on a plane
// whose far port B reported down), pdcid-zero (B's SACKs and NACKs carry PDC ids 0), and
// nscc-zero-literal (NSCC fields configured 0 taken literally: the window never shrinks).
// skip-ignored is pinned in tests/reference/ev/health_test.cpp, rtt-any-sack by case reliab-v-155.
#include <gtest/gtest.h>

#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

// B's port 3 goes down and B tells A in a port-status update; A writes before and after it.
// Returns A's data frames on port 3 sent more than 5 us after the update reached A.
std::size_t data_on_reported_down_port(const PairOptions& o) {
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 8, 16384);
  p.fabric->run_for(20'000);
  EXPECT_EQ(p.b->modify_port(3, false), 0);
  const EpRequest r = request_to(*p.a, 5, 1);  // port_status 0: B's own up ports
  EXPECT_EQ(p.b->ep_send(46, wire::EpOp::kPortStatusUpdate, std::span<const EpRequest>(&r, 1), 50'000), 0);
  p.fabric->run_for(20'000);
  post_writes(p, t, 8, 16384);
  p.fabric->run_for(2'000'000);
  std::uint64_t arrived = 0;
  std::size_t n = 0;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 1 && w.f.bth.opcode == wire::opcode::kMrcEndpointReq && arrived == 0) arrived = w.t();
    if (arrived != 0 && w.from() == 0 && is_data_frame(w) && w.port() == 3 && w.t() > arrived + 5'000) ++n;
  }
  EXPECT_NE(arrived, 0u);
  return n;
}

TEST(PathDefectSymptoms, PeerPortStatusIgnored) {
  PairOptions o;
  EXPECT_EQ(data_on_reported_down_port(o), 0u);
  o.variants = VariantSet{};
  ASSERT_TRUE(o.variants.add(Variant::kPortMaskBit0));  // both ends read bit N-1 = port N
  EXPECT_EQ(data_on_reported_down_port(o), 0u);
  PairOptions broken;
  broken.defects_a = with(Defect::kPeerPortStatusIgnored);
  EXPECT_GT(data_on_reported_down_port(broken), 0u);
}

// B's SACKs and NACKs (one data packet in 10 trimmed): their (spdcid, dpdcid) pairs.
std::vector<std::pair<std::uint16_t, std::uint16_t>> pdc_ids(const PairOptions& o) {
  Impairment imp;
  imp.trim = 0.1;
  Pair p(o, LinkParams{}, imp);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 8, 16384);
  p.fabric->run_for(2'000'000);
  std::vector<std::pair<std::uint16_t, std::uint16_t>> out;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() != 1) continue;
    if (is_sack(w)) out.emplace_back(w.f.seth.spdcid, w.f.seth.dpdcid);
    if (is_nack(w)) out.emplace_back(w.f.neth.spdcid, w.f.neth.dpdcid);
  }
  EXPECT_FALSE(out.empty());
  return out;
}

TEST(PathDefectSymptoms, PdcidZero) {
  PairOptions o;
  for (const auto& [s, d] : pdc_ids(o)) {
    EXPECT_NE(s, 0u);  // W5: the QPNs' low 16 bits (the responder's first, MODEL: W5)
    EXPECT_NE(d, 0u);
    EXPECT_NE(s, d);
  }
  o.defects_b = with(Defect::kPdcidZero);
  for (const auto& [s, d] : pdc_ids(o)) {
    EXPECT_EQ(s, 0u);
    EXPECT_EQ(d, 0u);
  }
}

// A writes for 400 us with every data frame CE-marked and 20 us of propagation each way, far
// above the 2 us target: the data frames it sends.
std::size_t data_sent_under_marks(const DefectSet& defects_a) {
  PairOptions o;
  o.nscc_config = "base_rtt=2000,target_delay=2000,max_cwnd=131072,max_md_jump=0,gamma=0,qa_gate=0";
  o.defects_a = defects_a;
  Impairment imp;
  imp.ecn = 1.0;
  Pair p(o, LinkParams{20'000, 100.0}, imp);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 64, 65536);
  p.fabric->run_for(400'000);
  std::size_t n = 0;
  for (const auto& w : decode_taps(*p.fabric)) n += w.from() == 0 && is_data_frame(w);
  return n;
}

TEST(PathDefectSymptoms, NsccZeroLiteral) {
  const std::size_t clean = data_sent_under_marks({});
  const std::size_t broken = data_sent_under_marks(with(Defect::kNsccZeroLiteral));
  EXPECT_GT(clean, 0u);
  EXPECT_GT(broken, 2 * clean);  // the defaults (max_md_jump 0.5) cut the window, zeros do not
}

}  // namespace
}  // namespace mrc::ref::testing
