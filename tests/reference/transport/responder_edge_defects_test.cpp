// The responder-side defects that show only at the edges of their requirement (issue 13 item 6):
// tail-bytes-unplaced, region-end-off-by-one, region-end-exclusive, sack-no-wrap and
// sack-no-last-bit. Each test runs the edge with and without the quirk; the clean responder's
// behaviour at the same edge is the control, and a run in the middle of the requirement shows the
// quirk does not change it there (which is why the middle-only cases missed it).
#include "tests/reference/transport/responder_fixture.hpp"

namespace mrc::transport::test {
namespace {

namespace op = wire::opcode;

std::vector<std::uint8_t> ramp(std::size_t len) {
  std::vector<std::uint8_t> v(len);
  for (std::size_t i = 0; i < len; ++i) v[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return v;
}

TEST_F(ResponderTest, DefectTailBytesUnplacedLosesThePartialLastBlock) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.tail_bytes_unplaced = quirk;
    make({}, q);
    DataPacket middle = data(op::kMrcWriteOnly, 0, 0, 128);  // a multiple of 64: placed whole either way
    middle.payload = ramp(128);
    DataPacket edge = data(op::kMrcWriteOnly, 1, 1024, 100);  // 100 = 64 + 36 bytes
    edge.payload = ramp(100);
    EXPECT_EQ(deliver(middle, 10), RxOutcome::kPlaced);
    EXPECT_EQ(deliver(edge, 20), RxOutcome::kPlaced);  // acknowledged either way
    EXPECT_EQ(memory(0, 128), ramp(128));
    const auto landed = memory(1024, 100);
    if (quirk) {
      EXPECT_EQ(std::vector<std::uint8_t>(landed.begin(), landed.begin() + 64), std::vector<std::uint8_t>(ramp(64)));
      EXPECT_EQ(std::vector<std::uint8_t>(landed.begin() + 64, landed.end()), filled(36, 0));
    } else {
      EXPECT_EQ(landed, ramp(100));
    }
  }
}

TEST_F(ResponderTest, DefectRegionEndOffByOneAcceptsAWriteOneBytePastTheEnd) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.region_end_off_by_one = quirk;
    sink_.clear();
    make({}, q);
    // Middle: far past the end is refused either way.
    DataPacket far = data(op::kMrcWriteOnly, 0, 64 * 1024 + 4096, 64);
    EXPECT_EQ(deliver(far, 10), RxOutcome::kNakRemoteAccess);
    make({}, q);
    // Edge: 64 bytes whose last byte is one past the region's last byte.
    DataPacket past = data(op::kMrcWriteOnly, 0, 64 * 1024 - 63, 64, 0x5A);
    EXPECT_EQ(deliver(past, 20), quirk ? RxOutcome::kPlaced : RxOutcome::kNakRemoteAccess);
    EXPECT_EQ(memory(64 * 1024 - 63, 63), quirk ? filled(63, 0x5A) : filled(63, 0));
  }
}

TEST_F(ResponderTest, DefectRegionEndExclusiveRefusesAWriteEndingAtTheEnd) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.region_end_exclusive = quirk;
    make({}, q);
    EXPECT_EQ(deliver(data(op::kMrcWriteOnly, 0, 0, 64), 10), RxOutcome::kPlaced);  // middle: fine either way
    DataPacket at_end = data(op::kMrcWriteOnly, 1, 64 * 1024 - 64, 64, 0x5A);
    EXPECT_EQ(deliver(at_end, 20), quirk ? RxOutcome::kNakRemoteAccess : RxOutcome::kPlaced);
  }
}

TEST_F(ResponderTest, DefectSackNoWrapDropsBitsPastTheWrap) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.sack_no_wrap = quirk;
    ResponderConfig cfg;
    cfg.rq_psn = 0xFFFFFE;  // ePSN two below the wrap
    sink_.clear();
    make(cfg, q);
    DataPacket a = data(op::kMrcWriteOnly, 0xFFFFFF, 64);  // hole at 0xFFFFFE; bit 1 (before the wrap)
    a.ack_req = true;
    deliver(a, 10);
    EXPECT_EQ(sink_.last_of(&SentFeedback::is_sack).seth().sack_bitmap, wire::Seth::sack_mask(1));  // the same either way
    DataPacket b = data(op::kMrcWriteOnly, 0x000001, 128);  // PSN 1: bit 3, past the wrap
    b.ack_req = true;
    deliver(b, 20);
    const std::uint64_t both = wire::Seth::sack_mask(1) | wire::Seth::sack_mask(3);
    EXPECT_EQ(sink_.last_of(&SentFeedback::is_sack).seth().sack_bitmap, quirk ? wire::Seth::sack_mask(1) : both);
  }
}

TEST_F(ResponderTest, DefectSackNoLastBitNeverNamesBasePlus63) {
  for (bool quirk : {false, true}) {
    SCOPED_TRACE(quirk);
    ResponderQuirks q;
    q.sack_no_last_bit = quirk;
    sink_.clear();
    make({}, q);
    DataPacket a = data(op::kMrcWriteOnly, 5, 64);  // hole at 0: bit 5
    a.ack_req = true;
    deliver(a, 10);
    EXPECT_EQ(sink_.last_of(&SentFeedback::is_sack).seth().sack_bitmap, wire::Seth::sack_mask(5));  // the same either way
    DataPacket b = data(op::kMrcWriteOnly, 63, 128);  // base 0: PSN 63 is the last bit
    b.ack_req = true;
    deliver(b, 20);
    EXPECT_EQ(sink_.last_of(&SentFeedback::is_sack).seth().sack_offset, 1);
    const std::uint64_t both = wire::Seth::sack_mask(5) | wire::Seth::sack_mask(63);
    EXPECT_EQ(sink_.last_of(&SentFeedback::is_sack).seth().sack_bitmap, quirk ? wire::Seth::sack_mask(5) : both);
  }
}

}  // namespace
}  // namespace mrc::transport::test
