// RowMaker (diff_row_maker.hpp): in the one pass a row is finished `lookahead` rows after it is
// made, with the lowest PSN, VA and the earliest time met by then; a value that moves after a row
// used it voids the pass (kMoved). With two passes the source is held to the first pass's count.
#include "harness/verdict/diff_row_maker.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/harness/verdict/verdict_test_support.hpp"

namespace mrc::harness::diffing {
namespace {

using testing::Data;
using testing::encode;

struct Packet {
  std::uint32_t psn;
  std::uint64_t va;
  std::uint64_t ts;
};

// WRITE-only packets of one QP, one per entry.
Capture capture_of(const std::vector<Packet>& packets) {
  Capture c("c");
  for (const Packet& p : packets) {
    Data d;
    d.psn = p.psn;
    d.va = p.va;
    d.len = 64;
    c.add(p.ts, encode(d));
  }
  return c;
}

// PSN 100 + k, VA 0x10000 + 64 k, ts 1000 + k, for k < n.
std::vector<Packet> in_order(std::size_t n) {
  std::vector<Packet> v;
  for (std::size_t k = 0; k < n; ++k) v.push_back({100 + static_cast<std::uint32_t>(k), 0x10000 + 64 * k, 1000 + k});
  return v;
}

struct Made {
  RowMaker::Got end = RowMaker::Got::kRow;
  std::vector<MadeRow> rows;
  std::string error;
  std::uint64_t packets = 0;
};

Made make_all(const Capture& c, std::uint64_t packets, std::uint32_t lookahead) {
  CaptureSource src(c);
  Normalizer norm;
  const DiffOptions opt;
  const MaskSet masks;
  RowMaker maker(src, norm, opt, masks, false, packets, lookahead);
  Made out;
  MadeRow row;
  while ((out.end = maker.next(row)) == RowMaker::Got::kRow) out.rows.push_back(row);
  out.error = maker.error();
  out.packets = maker.packets();
  return out;
}

TEST(RowMaker, OnePassFinishesRowsWithTheLowestValuesMetWithinTheLookahead) {
  std::vector<Packet> v = in_order(40);
  v[5].psn = 90;     // sprayed: the space's lowest PSN comes sixth
  v[6].va = 0x8000;  // the lowest VA seventh
  const Made m = make_all(capture_of(v), RowMaker::kUnknown, 8);
  ASSERT_EQ(m.end, RowMaker::Got::kEnd) << m.error;
  ASSERT_EQ(m.rows.size(), 40u);
  EXPECT_EQ(m.packets, 40u);
  EXPECT_EQ(m.rows[0].row.psn, 10u) << "PSN 100 from the lowest, 90";
  EXPECT_EQ(m.rows[5].row.psn, 0u);
  EXPECT_EQ(m.rows[0].row.va, 0x10000u - 0x8000u);
  EXPECT_EQ(m.rows[39].row.ts, 39u) << "times from the first packet's";
  EXPECT_EQ(m.rows[39].ts_ns, 1039u);
  EXPECT_EQ(m.rows[39].label, 39);
}

TEST(RowMaker, AValueThatMovesAfterARowUsedItVoidsTheOnePass) {
  struct Late {
    std::string what;
    Packet packet;
  };
  for (const Late& late : {Late{"psn", {90, 0x10000, 1030}}, Late{"va", {130, 0x8000, 1030}},
                           Late{"ts", {130, 0x10000, 999}}}) {
    std::vector<Packet> v = in_order(40);
    v[30] = late.packet;  // past the lookahead: rows 0.. were finished without it
    const Made m = make_all(capture_of(v), RowMaker::kUnknown, 8);
    EXPECT_EQ(m.end, RowMaker::Got::kMoved) << late.what;
    EXPECT_LT(m.rows.size(), 30u) << late.what;
    // Within the lookahead of the first row, the same packet is met in time.
    std::vector<Packet> early = in_order(40);
    early[3] = late.packet;
    const Made e = make_all(capture_of(early), RowMaker::kUnknown, 8);
    EXPECT_EQ(e.end, RowMaker::Got::kEnd) << late.what;
    if (late.what == "ts") {
      EXPECT_EQ(e.rows[0].row.ts, 1u) << "times from the earliest packet's";
    }
  }
}

TEST(RowMaker, TwoPassesHoldTheSourceToTheFirstPassCount) {
  const Capture c = capture_of(in_order(5));
  const Made fewer = make_all(c, 10, 0);
  EXPECT_EQ(fewer.end, RowMaker::Got::kError);
  EXPECT_EQ(fewer.rows.size(), 5u);
  EXPECT_NE(fewer.error.find("packet 5 is gone"), std::string::npos) << fewer.error;
  const Made more = make_all(c, 3, 0);
  EXPECT_EQ(more.end, RowMaker::Got::kEnd);
  EXPECT_EQ(more.rows.size(), 3u);
}

}  // namespace
}  // namespace mrc::harness::diffing
