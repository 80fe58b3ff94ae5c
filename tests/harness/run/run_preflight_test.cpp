// missing_inputs (run/run_preflight.cpp) builds each testbed a case names before anything runs; a
// file named with nothing else is built once for every case that names it, and a case that
// changes it (an override, a plane count) is built on its own.
#include <gtest/gtest.h>

#include <fstream>

#include "harness/run/suite_runner.hpp"
#include "tests/harness/cli/cli_test_support.hpp"

namespace mrc::run::testing {
namespace {

harness::Case naming(const fs::path& dir, const std::string& id, const fs::path& testbed) {
  harness::Case c;
  c.id = id;
  c.file = dir / (id + ".yaml");
  c.testbed.file = testbed;
  c.testbed.loc = harness::SourceLoc{7, 10};
  return c;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(RunPreflight, ATestbedFileIsBuiltOnceUnlessTheCaseChangesIt) {
  TempDir dir;
  const fs::path bad = dir.path() / "bad.yaml";
  const fs::path good = dir.path() / "good.yaml";
  std::ofstream(bad) << "preset: campus\n";
  std::ofstream(good) << "preset: mini\n";
  harness::Case a = naming(dir.path(), "spray-v-901", bad);
  harness::Case b = naming(dir.path(), "spray-v-902", bad);
  harness::Case changed = naming(dir.path(), "spray-v-903", good);
  changed.testbed.overrides = {{"queue_bites", "1"}};
  harness::Case plain = naming(dir.path(), "spray-v-904", good);
  harness::Case again = naming(dir.path(), "spray-v-905", good);
  harness::Case planes = naming(dir.path(), "spray-v-906", good);
  planes.testbed.planes = 2;

  const std::string out = missing_inputs({&a, &b, &changed, &plain, &again, &planes}, dir.path());
  // Both cases naming the bad file are told, at the line of their `testbed` key.
  EXPECT_EQ(count(out, "unknown preset 'campus'"), 2u) << out;
  EXPECT_NE(out.find("spray-v-901.yaml:7:10: testbed: "), std::string::npos) << out;
  EXPECT_NE(out.find("spray-v-902.yaml:7:10: testbed: "), std::string::npos) << out;
  // The override is refused for the case that writes it, and not for the others naming that file.
  EXPECT_NE(out.find("spray-v-903.yaml:7:10: testbed: "), std::string::npos) << out;
  EXPECT_EQ(out.find("spray-v-904"), std::string::npos) << out;
  EXPECT_EQ(out.find("spray-v-905"), std::string::npos) << out;
  EXPECT_EQ(out.find("spray-v-906"), std::string::npos) << out;
}

}  // namespace
}  // namespace mrc::run::testing
