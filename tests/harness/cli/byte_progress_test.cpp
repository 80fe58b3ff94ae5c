// The progress line of merge and bundle: bytes done of the total and an ETA from the rate so far,
// drawn only on a terminal and cleared when the command's own output follows.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/cli/byte_progress.hpp"

namespace mrc::cli {
namespace {

TEST(ByteProgress, LineGivesBytesAndAnEtaFromTheRateSoFar) {
  EXPECT_EQ(byte_progress_line("merge: copying evidence", 200'000'000, 800'000'000, 10.0),
            "merge: copying evidence: 200.0 of 800.0 MB, ETA 30s");
  EXPECT_EQ(byte_progress_line("bundle: hashing", 0, 5'000'000, 1.0), "bundle: hashing: 0.0 of 5.0 MB");  // no rate yet
  EXPECT_EQ(byte_progress_line("bundle: hashing", 5'000'000, 5'000'000, 1.0), "bundle: hashing: 5.0 of 5.0 MB");
}

TEST(ByteProgress, DrawnOnlyWhenEnabledAndClearedAtTheEnd) {
  std::ostringstream off;
  {
    ByteProgress p(off, "merge", false);
    p.update(1, 2);
  }
  EXPECT_EQ(off.str(), "");
  std::ostringstream on;
  {
    ByteProgress p(on, "merge", true);
    p.update(1'000'000, 2'000'000);
    p.update(1'500'000, 2'000'000);  // within half a second: not drawn again
  }
  EXPECT_EQ(on.str().rfind("\r\033[Kmerge: 1.0 of 2.0 MB", 0), 0u) << on.str();
  EXPECT_EQ(on.str().find("1.5 of"), std::string::npos);
  EXPECT_EQ(on.str().substr(on.str().size() - 4), "\r\033[K");
}

}  // namespace
}  // namespace mrc::cli
