// Wire symptoms of nscc-exceed-max-cwnd, honour-ghost-ack and ghost-ack-boundary through two
// endpoints, each against
// a control run. (nscc-md-below-target and nscc-no-quick-adapt need a marking or starved fabric:
// tests/reference/cc/nscc_quirks_test.cpp pins their rules, cases reliab-v-152/153 their wire.)
#include <gtest/gtest.h>

#include <algorithm>

#include "reference/wire/icrc.hpp"
#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

// A's largest count of un-ACKed PSNs while it writes 64 KiB messages with max_cwnd = 16 KiB
// (16 packets of 1 KiB).
std::uint32_t max_unacked(DefectSet defects_a) {
  PairOptions o;
  o.nscc_config = "base_rtt=12000,max_cwnd=16384";
  o.defects_a = defects_a;
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  Traffic t = setup_traffic(p);
  post_writes(p, t, 16, 65536);
  p.fabric->run_for(3'000'000);
  return max_unacked_on_wire(decode_taps(*p.fabric), 0x100);
}

TEST(CcDefectWire, ExceedMaxCwndPutsMoreThanTheCeilingInFlight) {
  EXPECT_LE(max_unacked({}), 16u);
  EXPECT_GT(max_unacked(with(Defect::kNsccExceedMaxCwnd)), 32u);
}

// B drops A's PSN 0x105 until 100 us; at 5 us A receives a forged ACK for PSN 0x5000, far past
// anything sent, or (`one_past_last`) for the PSN after the last one A has sent. Returns how many
// times A sent PSN 0x105.
std::size_t sends_of_lost_psn(DefectSet defects_a, bool one_past_last = false) {
  PairOptions o;
  o.defects_a = defects_a;
  Pair p(o);
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  p.fabric->filter = [](int side, transport::TxFrame& f, std::uint64_t now) {
    wire::DecodedFrame d;
    return !(side == 0 && now < 100'000 && wire::decode_frame(f.view(), d).ok() && is_data(d) && d.bth.psn == 0x105);
  };
  Traffic t = setup_traffic(p);
  post_writes(p, t, 4, 16384);
  p.fabric->run_for(5'000);  // before A could infer the loss and resend
  // The forged ACK: a copy of B's latest SACK with its cumulative PSN (BTH and SETH) moved ahead.
  const auto frames = decode_taps(*p.fabric);
  const WireFrame* last = nullptr;
  std::uint32_t ghost_psn = 0x5000;
  std::uint32_t last_sent = 0;
  for (const auto& w : frames) {
    if (w.from() == 1 && is_sack(w)) last = &w;
    if (w.from() == 0 && is_data_frame(w)) last_sent = std::max(last_sent, w.f.bth.psn);
  }
  if (one_past_last) ghost_psn = last_sent + 1;
  EXPECT_NE(last, nullptr);
  if (last == nullptr) return 0;
  std::vector<std::uint8_t> ghost = last->tap->bytes;
  std::uint8_t* bth = ghost.data() + last->f.bth_offset;
  for (std::uint8_t* psn : {bth + 9, bth + wire::kBthLen + 13}) {  // BTH.PSN, SETH cack_psn (W5)
    psn[0] = static_cast<std::uint8_t>(ghost_psn >> 16);
    psn[1] = static_cast<std::uint8_t>(ghost_psn >> 8);
    psn[2] = static_cast<std::uint8_t>(ghost_psn);
  }
  const std::size_t ip = last->f.roce_ip_offset;
  const std::size_t end = last->f.frame_length - 4;
  wire::icrc_write(ghost.data() + end, wire::icrc_compute(wire::Bytes(ghost.data() + ip, end - ip)));
  p.a->on_frame(last->tap->port, wire::Bytes(ghost.data(), ghost.size()), p.fabric->now());
  p.fabric->run_for(2'000'000);
  std::size_t n = 0;
  for (const auto& w : decode_taps(*p.fabric)) {
    if (w.from() == 0 && is_data_frame(w) && w.f.bth.psn == 0x105) ++n;
  }
  return n;
}

TEST(CcDefectWire, HonourGhostAckNeverResendsTheLostPsn) {
  EXPECT_GE(sends_of_lost_psn({}), 2u);  // lost until 100 us, then resent and delivered
  EXPECT_EQ(sends_of_lost_psn(with(Defect::kHonourGhostAck)), 1u);
}

TEST(CcDefectWire, GhostAckBoundaryBelievesAnAckOneAheadOnly) {
  EXPECT_GE(sends_of_lost_psn({}, /*one_past_last=*/true), 2u);  // a conformant A ignores it
  EXPECT_EQ(sends_of_lost_psn(with(Defect::kGhostAckBoundary), true), 1u);
  EXPECT_GE(sends_of_lost_psn(with(Defect::kGhostAckBoundary), false), 2u);  // a far ghost it still ignores
}

}  // namespace
}  // namespace mrc::ref::testing
