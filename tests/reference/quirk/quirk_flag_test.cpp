// reference/quirk/quirk_flag.hpp: a defect switch notes each read in its log, a copy in the log of
// the original, and a switch made from a plain bool in none.
#include "reference/quirk/quirk_flag.hpp"

#include <gtest/gtest.h>

#include "reference/defects.hpp"

namespace mrc::quirk::testing {
namespace {

TEST(QuirkFlag, AReadIsLoggedOnOrOff) {
  ReadLog log;
  const Flag off(false, 3, &log);
  const Flag on(true, 100, &log);
  EXPECT_FALSE(log.was_read(3));
  EXPECT_FALSE(static_cast<bool>(off));
  EXPECT_TRUE(log.was_read(3));
  EXPECT_FALSE(log.was_read(100));
  EXPECT_TRUE(static_cast<bool>(on));
  EXPECT_TRUE(log.was_read(100));
  EXPECT_FALSE(log.was_read(4));
}

TEST(QuirkFlag, ACopyLogsToTheOriginalsLogAndABoolToNone) {
  ReadLog log;
  const Flag original(false, 7, &log);
  struct Holder {
    Flag f;
  };
  const Holder copied{original};  // as a layer keeps the struct the endpoint made
  if (copied.f) ADD_FAILURE();
  EXPECT_TRUE(log.was_read(7));

  const Flag plain = true;  // tests set switches so: no log to mark
  EXPECT_TRUE(static_cast<bool>(plain));
}

TEST(QuirkFlag, DefectReadsLogEveryConsultationAndNameTheDefects) {
  ReadLog log;
  ref::DefectSet on;
  on.add(ref::Defect::kWrongIcrc);
  const ref::DefectReads reads(on, &log);
  EXPECT_FALSE(reads.has(ref::Defect::kSackOffByOne));  // off, but consulted
  const Flag later = reads.flag(ref::Defect::kWrongIcrc);
  EXPECT_EQ(ref::DefectSet::read_in(log).to_string(), "sack-off-by-one");
  EXPECT_TRUE(static_cast<bool>(later));
  EXPECT_EQ(ref::DefectSet::read_in(log).to_string(), "sack-off-by-one,wrong-icrc");
  // Made from a plain set (the quirk maps' tests), nothing is logged anywhere.
  const ref::DefectReads unlogged(on);
  EXPECT_TRUE(unlogged.has(ref::Defect::kWrongIcrc));
}

}  // namespace
}  // namespace mrc::quirk::testing
