// merge_reports / merge_record / merge_readers: the shard set a merge takes must be one complete
// set (each refusal names the folder and the shard), the shard record and campaign.json read
// back to what was written, and merged results follow the command's unit order, not the shards'.
#include "harness/report/merge_reports.hpp"

#include <gtest/gtest.h>

#include "harness/report/campaign_report.hpp"
#include "harness/report/merge_readers.hpp"
#include "harness/report/report.hpp"
#include "tests/harness/report/report_test_support.hpp"

namespace mrc::harness {
namespace {

namespace fs = std::filesystem;

class MergeShards : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { fs::remove_all(dir_); }

  // A shard folder of a 3-unit run in `count` shards holding `mine`.
  fs::path shard(const std::string& name, std::uint32_t index, std::uint32_t count, std::vector<std::string> mine,
                 const std::string& kind = "run", const std::string& fingerprint = "00000000000000aa") const {
    ShardRecord r;
    r.kind = kind;
    r.index = index;
    r.count = count;
    r.source = "--shard";
    r.cost_basis = "estimate";
    r.units = {"a", "b", "c"};
    r.mine = std::move(mine);
    r.fingerprint = fingerprint;
    r.command_line = "mrc-conform run --shard " + r.shard_text();
    r.edges = {EdgeRef{"REQ-1", "zero", "the zero edge", {"a"}}};
    const fs::path d = dir_ / name;
    fs::create_directories(d);
    test::write_file(d / kShardRecordName, render_shard_record(r));
    return d;
  }
  std::string error_of(const std::vector<fs::path>& dirs) const {
    try {
      collect_shards(dirs);
    } catch (const ReportError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(MergeShards, ACompleteSetComesBackInShardOrder) {
  const auto s1 = shard("one", 1, 2, {"b"});
  const auto s0 = shard("zero", 0, 2, {"a", "c"});
  const auto got = collect_shards({s1, s0});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].dir, s0);
  EXPECT_EQ(got[1].dir, s1);
  EXPECT_EQ(got[0].record.edges.size(), 1u);
  EXPECT_EQ(got[0].record.edges[0].cases, (std::vector<std::string>{"a"}));
}

TEST_F(MergeShards, AShardWithNoUnitsIsPartOfTheSet) {
  EXPECT_EQ(error_of({shard("0", 0, 3, {"a", "b", "c"}), shard("1", 1, 3, {}), shard("2", 2, 3, {})}), "");
}

TEST_F(MergeShards, AMissingShardIsNamed) {
  EXPECT_NE(error_of({shard("0", 0, 3, {"a"}), shard("2", 2, 3, {"c"})}).find("shard 1/3 missing"), std::string::npos);
}

TEST_F(MergeShards, AShardGivenTwiceNamesBothFolders) {
  const auto a = shard("A", 0, 2, {"a", "c"});
  const auto b = shard("B", 0, 2, {"a", "c"});
  const std::string e = error_of({a, shard("1", 1, 2, {"b"}), b});
  EXPECT_NE(e.find("shard 0/2 given twice: " + a.string() + " and " + b.string()), std::string::npos) << e;
}

TEST_F(MergeShards, ShardsOfDifferentRunsAreRefused) {
  const std::string e =
      error_of({shard("0", 0, 2, {"a", "c"}), shard("1", 1, 2, {"b"}, "run", "00000000000000bb")});
  EXPECT_NE(e.find("are shards of different runs"), std::string::npos) << e;
  EXPECT_NE(error_of({shard("x", 0, 2, {"a", "c"}), shard("y", 1, 3, {"b"})}).find("different runs"), std::string::npos);
}

TEST_F(MergeShards, MixedKindsAreRefused) {
  const std::string e = error_of({shard("0", 0, 2, {"a", "c"}), shard("1", 1, 2, {"b"}, "campaign")});
  EXPECT_NE(e.find("is a run shard"), std::string::npos) << e;
  EXPECT_NE(e.find("a campaign shard"), std::string::npos) << e;
}

TEST_F(MergeShards, AnUnshardedFolderIsNamed) {
  fs::create_directories(dir_ / "plain");
  test::write_file(dir_ / "plain" / "results.json", "{}");
  const std::string e = error_of({dir_ / "plain"});
  EXPECT_NE(e.find((dir_ / "plain").string() + " is not a shard"), std::string::npos) << e;
}

TEST_F(MergeShards, AUnitInTwoShardsOrNoneIsRefused) {
  EXPECT_NE(error_of({shard("0", 0, 2, {"a", "b"}), shard("1", 1, 2, {"b", "c"})}).find("unit b ran in two shards"),
            std::string::npos);
  EXPECT_NE(error_of({shard("0", 0, 2, {"a"}), shard("1", 1, 2, {"b"})}).find("unit c ran in no shard"),
            std::string::npos);
}

TEST_F(MergeShards, MergedRunCasesFollowTheUnitOrder) {
  const auto shards = collect_shards({shard("0", 0, 2, {"a", "c"}), shard("1", 1, 2, {"b"})});
  RunResult r0;
  r0.cases.resize(2);
  r0.cases[0].id = "a";
  r0.cases[1].id = "c";
  r0.evidence.files = 2;
  RunResult r1;
  r1.cases.resize(1);
  r1.cases[0].id = "b";
  r1.evidence.files = 1;
  const RunResult m = merge_run_results(shards, {r0, r1}, "mrc-conform merge");
  ASSERT_EQ(m.cases.size(), 3u);
  EXPECT_EQ(m.cases[0].id, "a");
  EXPECT_EQ(m.cases[1].id, "b");
  EXPECT_EQ(m.cases[2].id, "c");
  EXPECT_EQ(m.evidence.files, 3u);
  EXPECT_EQ(m.meta.command_line, "mrc-conform merge");
  EXPECT_FALSE(m.interrupted);
  EXPECT_EQ(m.edges.size(), 1u);  // from the record: results.json does not carry them
  // A case its shard did not get to: the merged run is interrupted and says which.
  r1.cases.clear();
  const RunResult partial = merge_run_results(shards, {r0, r1}, "");
  EXPECT_TRUE(partial.interrupted);
  EXPECT_EQ(partial.not_run, (std::vector<std::string>{"b"}));
}

TEST_F(MergeShards, CampaignJsonReadsBackToTheSameBytes) {
  CampaignResult r;
  r.testbed = "mini";
  r.min_kill_rate = 0.9;
  r.cases = {"spray-v-001", "spray-v-002"};
  r.baseline_problems = {CaseOutcome{"spray-v-002", Verdict::kError, "broke", {}}};
  DefectOutcome d;
  d.defect = CampaignDefect{"spray-single-ev", "one EV only", {"SPRAY-1"}};
  d.cases_run = {"spray-v-001"};
  d.caught = true;
  d.killers = {CaseOutcome{"spray-v-001", Verdict::kFail, "m", {FailingCheck{"distribution/ev", {"SPRAY-1"}, "x"}}}};
  d.baseline_excluded = {"spray-v-002"};
  r.defects = {d};
  r.wall_seconds = 1.25;
  const std::string text = render_campaign_json(r);
  test::write_file(dir_ / "campaign.json", text);
  EXPECT_EQ(render_campaign_json(read_campaign_json(dir_ / "campaign.json")), text);
  EXPECT_EQ(render_campaign_html(read_campaign_json(dir_ / "campaign.json")), render_campaign_html(r));
  test::write_file(dir_ / "bad.json", R"({"schema": "mrc-conform/campaign/1", "testbed": 3})");
  try {
    read_campaign_json(dir_ / "bad.json");
    FAIL() << "read a bad campaign.json";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: /testbed: wrong type"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mrc::harness
