// Wire symptoms of the invalid-input defects (answer-read, accept-bad-rkey, accept-wrong-pkey,
// accept-bad-icrc, and the near misses rkey-index-only, qpn-low-16 and pkey-full-compare), seen
// through two endpoints. A's first data packet (its first PSN, kFirstPsn)
// is rewritten on its way to B into the invalid frame; each defect run is compared with a control
// run.
#include <gtest/gtest.h>

#include "reference/wire/icrc.hpp"
#include "tests/reference/endpoint/wire_view.hpp"

namespace mrc::ref::testing {
namespace {

constexpr std::uint32_t kFirstPsn = 0x100;  // the pair's initial send PSN

enum class Mutation { kRead, kBadRkey, kWrongPkey, kBadIcrc, kRkeyKeyByte, kQpnBit16, kPkeyMembership };

void rewrite(transport::TxFrame& f, Mutation m) {
  wire::DecodedFrame d;
  if (!wire::decode_frame(f.view(), d).ok()) return;
  std::uint8_t* bth = f.bytes.data() + d.bth_offset;
  std::uint8_t* icrc = f.bytes.data() + d.frame_length - 4;
  switch (m) {
    case Mutation::kRead: bth[0] = wire::opcode::kRcReadRequest; break;
    case Mutation::kBadRkey:  // RETH: VA (8), R_Key (4), DMALength (4), right after the BTH (W4)
      bth[12 + 8] ^= 0x5A;
      bth[12 + 9] ^= 0xA5;
      break;
    case Mutation::kWrongPkey:
      bth[2] = 0x12;
      bth[3] = 0x34;
      break;
    case Mutation::kRkeyKeyByte: {  // the R_Key's key byte, lowest bit: RETH after METH [+ TSETH] (W4)
      std::uint8_t* reth = bth + wire::kBthLen + wire::kMethLen + (d.has_tseth ? wire::kTsethLen : 0);
      reth[11] ^= 0x01;
      break;
    }
    case Mutation::kQpnBit16: bth[5] ^= 0x01; break;            // DestQP (BTH bytes 5..7), bit 16
    case Mutation::kPkeyMembership: bth[2] ^= 0x80; break;      // P_Key bit 15: a valid frame still
    case Mutation::kBadIcrc: wire::icrc_write(icrc, ~wire::icrc_read(icrc)); return;
  }
  const std::size_t ip = d.roce_ip_offset;
  wire::icrc_write(icrc, wire::icrc_compute(wire::Bytes(f.bytes.data() + ip, d.frame_length - 4 - ip)));
}

struct WireRun {
  std::unique_ptr<Pair> pair;
  std::vector<WireFrame> frames;
};

WireRun run(Mutation m, DefectSet defects_b) {
  PairOptions o;
  o.defects_b = defects_b;
  WireRun r;
  r.pair = std::make_unique<Pair>(o);
  Pair& p = *r.pair;
  EXPECT_EQ(p.error, "");
  p.fabric->record = true;
  auto done = std::make_shared<bool>(false);
  p.fabric->filter = [done, m](int side, transport::TxFrame& f, std::uint64_t) {
    wire::DecodedFrame d;
    if (side != 0 || *done || !wire::decode_frame(f.view(), d).ok() || !is_data(d) || d.bth.psn != kFirstPsn) return true;
    *done = true;
    rewrite(f, m);
    return true;
  };
  Traffic t = setup_traffic(p);
  post_writes(p, t, 4, 512);
  p.fabric->run_for(2'000'000);
  r.frames = decode_taps(*p.fabric);
  return r;
}

std::size_t feedback_with_syndrome(const std::vector<WireFrame>& frames, std::uint8_t syndrome) {
  std::size_t n = 0;
  for (const auto& w : frames) {
    if (w.from() == 1 && is_feedback(w) && w.f.has_aeth && w.f.aeth.syndrome == syndrome) ++n;
  }
  return n;
}

// Copies of the first PSN that A had to send: 1 when B took the rewritten frame as good data.
std::size_t sends_of_first(const std::vector<WireFrame>& frames) {
  std::size_t n = 0;
  for (const auto& w : frames) {
    if (w.from() == 0 && is_data_frame(w) && w.f.bth.psn == kFirstPsn) ++n;
  }
  return n;
}

// A SACK from B naming the first PSN (ack_psn), or a Transport ACK covering it.
bool acked_first(const std::vector<WireFrame>& frames) {
  for (const auto& w : frames) {
    if (w.from() != 1) continue;
    if (is_sack(w) && !w.f.seth.pr && w.f.seth.ack_psn() == kFirstPsn) return true;
    if (is_transport_ack(w) && w.f.aeth.syndrome == 0x1F && w.f.bth.psn == kFirstPsn) return true;
  }
  return false;
}

TEST(InvalidDefectWire, AnswerReadAcksInsteadOfNak61) {
  const WireRun good = run(Mutation::kRead, {});
  EXPECT_GE(feedback_with_syndrome(good.frames, 0x61), 1u);
  const WireRun bad = run(Mutation::kRead, with(Defect::kAnswerRead));
  EXPECT_EQ(feedback_with_syndrome(bad.frames, 0x61), 0u);
  EXPECT_TRUE(acked_first(bad.frames));
}

TEST(InvalidDefectWire, AcceptBadRkeyAcksInsteadOfNak62) {
  const WireRun good = run(Mutation::kBadRkey, {});
  EXPECT_GE(feedback_with_syndrome(good.frames, 0x62), 1u);
  const WireRun bad = run(Mutation::kBadRkey, with(Defect::kAcceptBadRkey));
  EXPECT_EQ(feedback_with_syndrome(bad.frames, 0x62), 0u);
  EXPECT_TRUE(acked_first(bad.frames));
}

TEST(InvalidDefectWire, AcceptWrongPkeyTakesTheFrame) {
  // Control: the frame is dropped silently, so A must send the first PSN again after its ACK timeout.
  const WireRun good = run(Mutation::kWrongPkey, {});
  EXPECT_GE(sends_of_first(good.frames), 2u);
  const WireRun bad = run(Mutation::kWrongPkey, with(Defect::kAcceptWrongPkey));
  EXPECT_EQ(sends_of_first(bad.frames), 1u);
  EXPECT_TRUE(acked_first(bad.frames));
}

TEST(InvalidDefectWire, AcceptBadIcrcTakesTheFrame) {
  const WireRun good = run(Mutation::kBadIcrc, {});
  EXPECT_GE(sends_of_first(good.frames), 2u);
  const WireRun bad = run(Mutation::kBadIcrc, with(Defect::kAcceptBadIcrc));
  EXPECT_EQ(sends_of_first(bad.frames), 1u);
  EXPECT_TRUE(acked_first(bad.frames));
}

TEST(InvalidDefectWire, RkeyIndexOnlyTakesAWrongKeyByte) {
  WireRun good = run(Mutation::kRkeyKeyByte, {});
  EXPECT_GE(feedback_with_syndrome(good.frames, 0x62), 1u);
  EXPECT_GE(drain_completions(*good.pair).second, 1);  // the NAK ends the write in error
  WireRun bad = run(Mutation::kRkeyKeyByte, with(Defect::kRkeyIndexOnly));
  EXPECT_EQ(feedback_with_syndrome(bad.frames, 0x62), 0u);
  EXPECT_EQ(sends_of_first(bad.frames), 1u);  // taken as it was: placed and acknowledged
  EXPECT_EQ(drain_completions(*bad.pair), std::make_pair(4, 0));
}

TEST(InvalidDefectWire, QpnLow16TakesANeighbouringQpn) {
  const WireRun good = run(Mutation::kQpnBit16, {});
  EXPECT_GE(sends_of_first(good.frames), 2u);  // dropped: no QP has that number
  const WireRun bad = run(Mutation::kQpnBit16, with(Defect::kQpnLow16));
  EXPECT_EQ(sends_of_first(bad.frames), 1u);
  EXPECT_TRUE(acked_first(bad.frames));
}

TEST(InvalidDefectWire, PkeyFullCompareDropsALimitedMember) {
  // Control: the membership bit takes no part in the match, so the frame is taken at once.
  const WireRun good = run(Mutation::kPkeyMembership, {});
  EXPECT_EQ(sends_of_first(good.frames), 1u);
  EXPECT_TRUE(acked_first(good.frames));
  const WireRun bad = run(Mutation::kPkeyMembership, with(Defect::kPkeyFullCompare));
  EXPECT_GE(sends_of_first(bad.frames), 2u);  // dropped: A has to send it again
}

}  // namespace
}  // namespace mrc::ref::testing
