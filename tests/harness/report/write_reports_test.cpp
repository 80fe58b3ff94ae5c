// write_reports: the three files land complete (through .tmp + rename), identical runs give
// byte-identical folders, a partial run is marked, and I/O problems are typed errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/report/report.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

class WriteReports : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(WriteReports, WritesTheThreeRenderingsAndNoTemporaries) {
  const RunResult run = test::sample_run();
  const auto out = dir_ / "reports" / "latest";  // created, with its parent
  const ReportFiles files = write_reports(run, out);
  EXPECT_EQ(files.results_json, out / "results.json");
  EXPECT_EQ(files.junit_xml, out / "junit.xml");
  EXPECT_EQ(files.index_html, out / "index.html");
  EXPECT_EQ(names_in(out), (std::vector<std::string>{"index.html", "junit.xml", "results.json"}));
  EXPECT_EQ(test::read_file(files.results_json), render_results_json(run));
  EXPECT_EQ(test::read_file(files.junit_xml), render_junit_xml(run));
  EXPECT_EQ(test::read_file(files.index_html), render_html(run));
  test::expect_same_run(run, read_results_json(files.results_json));
}

TEST_F(WriteReports, IdenticalRunsGiveByteIdenticalFolders) {
  write_reports(test::sample_run(), dir_ / "a");
  write_reports(test::sample_run(), dir_ / "b");
  for (const char* name : {"results.json", "junit.xml", "index.html"}) {
    const std::string a = test::read_file(dir_ / "a" / name);
    EXPECT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, test::read_file(dir_ / "b" / name)) << name;
  }
}

TEST_F(WriteReports, ReplacesOldReportsAndLeftoverTemporaries) {
  test::write_file(dir_ / "results.json", "old");
  test::write_file(dir_ / "index.html.tmp", "torn write of an earlier, killed run");
  RunResult run = test::sample_run();
  run.cases.resize(2);
  write_reports(run, dir_);
  EXPECT_EQ(names_in(dir_), (std::vector<std::string>{"index.html", "junit.xml", "results.json"}));
  EXPECT_EQ(read_results_json(dir_ / "results.json").cases.size(), 2u);
}

TEST_F(WriteReports, PartialRunIsMarkedInEveryFile) {
  const ReportFiles files = write_partial(test::sample_run(), dir_);
  const auto json = nlohmann::json::parse(test::read_file(files.results_json));
  EXPECT_EQ(json["interrupted"], true);
  EXPECT_EQ(json["summary"]["exit_code"], 3);
  EXPECT_NE(test::read_file(files.index_html).find("id=\"partial-run\""), std::string::npos);
  EXPECT_NE(test::read_file(files.junit_xml).find("<property name=\"interrupted\" value=\"true\"/>"),
            std::string::npos);
  EXPECT_TRUE(read_results_json(files.results_json).interrupted);
}

TEST_F(WriteReports, IoProblemsAreTypedErrorsNamingThePath) {
  test::write_file(dir_ / "plain-file", "x");
  auto expect_error = [](const std::filesystem::path& out, const std::string& needle) {
    try {
      write_reports(test::sample_run(), out);
      ADD_FAILURE() << "wrote into " << out;
    } catch (const ReportError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(dir_ / "plain-file", "not a folder");
  expect_error(dir_ / "plain-file" / "sub", "cannot create the report folder");
  // A folder squatting on the target name: the rename fails and the temporary is cleaned up.
  std::filesystem::create_directories(dir_ / "squat" / "results.json" / "inside");
  expect_error(dir_ / "squat", "cannot rename results.json.tmp into place");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "squat" / "results.json.tmp"));
}

TEST_F(WriteReports, WriteFileAtomicallyReplacesContent) {
  const auto p = dir_ / "f.txt";
  write_file_atomically(p, "first");
  write_file_atomically(p, "second, longer");
  EXPECT_EQ(test::read_file(p), "second, longer");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "f.txt.tmp"));
}

// A copy runs a chunk at a time (1 MiB): 3.5 chunks arrive whole and in order, the progress hears
// every byte, no .tmp is left; a source that is not there is named, and nothing is written.
TEST_F(WriteReports, CopyFileAtomicallyStreamsInChunksAndNamesAMissingSource) {
  std::string big(3 * (1 << 20) + (1 << 19), '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 % 251);
  write_file_atomically(dir_ / "from.bin", big);
  std::uint64_t heard = 0;
  int calls = 0;
  copy_file_atomically(dir_ / "from.bin", dir_ / "to.bin", [&](std::uint64_t n) {
    heard += n;
    ++calls;
  });
  EXPECT_EQ(test::read_file(dir_ / "to.bin"), big);
  EXPECT_EQ(heard, big.size());
  EXPECT_GE(calls, 4);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "to.bin.tmp"));
  try {
    copy_file_atomically(dir_ / "nothing.bin", dir_ / "copy.bin");
    FAIL() << "a missing source was copied";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("nothing.bin: cannot read"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "copy.bin"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "copy.bin.tmp"));
}

}  // namespace
}  // namespace mrc::harness
