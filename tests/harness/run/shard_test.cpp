// shard: --shard K/N and the schedulers' variables resolve to one shard or a clear error naming
// the option or variable; the partition is deterministic, greedy longest-processing-time by cost
// with ties by id, every unit in exactly one shard (empty shards allowed); the cost estimate
// grows with the packets a case moves; the fingerprint tells inputs apart.
#include "harness/run/shard.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace mrc::run {
namespace {

struct Env {
  std::map<std::string, std::string> vars;
  EnvLookup lookup() const {
    return [this](const char* n) -> const char* {
      const auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

std::string resolve(const std::string& flag, const std::string& count, const Env& env, ShardSpec& s) {
  return resolve_shard(flag, count, env.lookup(), s);
}

TEST(ShardResolve, FlagGivesKOfN) {
  ShardSpec s;
  EXPECT_EQ(resolve("1/2", "", {}, s), "");
  EXPECT_TRUE(s.active);
  EXPECT_EQ(s.index, 1u);
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.source, "--shard");
  EXPECT_EQ(resolve("0/1", "", {}, s), "");
  EXPECT_EQ(s.text(), "0/1");
}

TEST(ShardResolve, BadSpellingsNameTheOption) {
  for (const char* bad : {"2/2", "0/0", "a/b", "1", "-1/2", "1/", "/2", "1/2/3", " 1/2", "1/200000"}) {
    ShardSpec s;
    const std::string e = resolve(bad, "", {}, s);
    EXPECT_NE(e.find("--shard '"), std::string::npos) << bad << ": " << e;
  }
}

TEST(ShardResolve, NothingSetIsUnsharded) {
  ShardSpec s;
  EXPECT_EQ(resolve("", "", {}, s), "");
  EXPECT_FALSE(s.active);
}

TEST(ShardResolve, SlurmArrayIndexFromItsMinimum) {
  ShardSpec s;
  Env env{{{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "4"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}};
  EXPECT_EQ(resolve("", "", env, s), "");
  EXPECT_EQ(s.text(), "1/3");
  EXPECT_EQ(s.source, "SLURM_ARRAY_TASK_ID");
  env.vars.erase("SLURM_ARRAY_TASK_MIN");  // MIN defaults to 0
  env.vars["SLURM_ARRAY_TASK_ID"] = "2";
  EXPECT_EQ(resolve("", "", env, s), "");
  EXPECT_EQ(s.text(), "2/3");
}

TEST(ShardResolve, TheFlagWinsOverTheEnvironment) {
  ShardSpec s;
  Env env{{{"SLURM_ARRAY_TASK_ID", "x"}, {"JOB_COMPLETION_INDEX", "y"}}};
  EXPECT_EQ(resolve("0/2", "", env, s), "");
  EXPECT_EQ(s.source, "--shard");
}

TEST(ShardResolve, BadSlurmValuesNameTheVariable) {
  ShardSpec s;
  EXPECT_NE(resolve("", "", Env{{{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}}, s)
                .find("SLURM_ARRAY_TASK_ID='x'"),
            std::string::npos);
  EXPECT_NE(resolve("", "", Env{{{"SLURM_ARRAY_TASK_ID", "1"}}}, s).find("SLURM_ARRAY_TASK_COUNT is not"),
            std::string::npos);
  EXPECT_NE(resolve("", "", Env{{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "-2"}}}, s)
                .find("SLURM_ARRAY_TASK_COUNT='-2'"),
            std::string::npos);
  EXPECT_NE(resolve("", "", Env{{{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}}, s)
                .find("SLURM_ARRAY_TASK_ID=3 is outside the array"),
            std::string::npos);
  EXPECT_NE(resolve("", "",
                    Env{{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "2"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}},
                    s)
                .find("outside the array"),
            std::string::npos);
  EXPECT_NE(resolve("", "",
                    Env{{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "z"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}},
                    s)
                .find("SLURM_ARRAY_TASK_MIN='z'"),
            std::string::npos);
}

TEST(ShardResolve, IndexedJobTakesItsCountFromTheFlagOrTheEnvironment) {
  ShardSpec s;
  EXPECT_EQ(resolve("", "4", Env{{{"JOB_COMPLETION_INDEX", "3"}}}, s), "");
  EXPECT_EQ(s.text(), "3/4");
  EXPECT_EQ(s.source, "JOB_COMPLETION_INDEX");
  EXPECT_EQ(resolve("", "", Env{{{"JOB_COMPLETION_INDEX", "0"}, {"MRC_SHARD_COUNT", "2"}}}, s), "");
  EXPECT_EQ(s.text(), "0/2");
  // The flag wins over MRC_SHARD_COUNT.
  EXPECT_EQ(resolve("", "5", Env{{{"JOB_COMPLETION_INDEX", "4"}, {"MRC_SHARD_COUNT", "2"}}}, s), "");
  EXPECT_EQ(s.text(), "4/5");
}

TEST(ShardResolve, IndexedJobErrorsNameWhatIsWrong) {
  ShardSpec s;
  EXPECT_NE(resolve("", "", Env{{{"JOB_COMPLETION_INDEX", "1"}}}, s).find("give --shard-count N"), std::string::npos);
  EXPECT_NE(resolve("", "", Env{{{"JOB_COMPLETION_INDEX", "a"}, {"MRC_SHARD_COUNT", "2"}}}, s)
                .find("JOB_COMPLETION_INDEX='a'"),
            std::string::npos);
  EXPECT_NE(resolve("", "", Env{{{"JOB_COMPLETION_INDEX", "1"}, {"MRC_SHARD_COUNT", "two"}}}, s)
                .find("MRC_SHARD_COUNT='two'"),
            std::string::npos);
  EXPECT_NE(resolve("", "2", Env{{{"JOB_COMPLETION_INDEX", "2"}}}, s).find("not below the shard count 2 (--shard-count)"),
            std::string::npos);
  EXPECT_NE(resolve("", "0", Env{{{"JOB_COMPLETION_INDEX", "0"}}}, s).find("--shard-count '0'"), std::string::npos);
  EXPECT_NE(resolve("", "3", {}, s).find("JOB_COMPLETION_INDEX is not set"), std::string::npos);
  EXPECT_NE(resolve("1/2", "3", {}, s).find("disagrees"), std::string::npos);
}

std::vector<ShardUnit> units(std::initializer_list<std::pair<const char*, double>> l) {
  std::vector<ShardUnit> out;
  for (const auto& [id, cost] : l) out.push_back(ShardUnit{id, cost});
  return out;
}

TEST(ShardPartition, GreedyLongestFirstOntoTheLeastLoaded) {
  // LPT: b7 -> s0, d5 -> s1, e4 -> s1 (5 < 7), a3 -> s0 (7 < 9), c1 -> s1 (9 < 10).
  const auto u = units({{"a", 3}, {"b", 7}, {"c", 1}, {"d", 5}, {"e", 4}});
  const auto p = partition_units(u, 2);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], (std::vector<std::size_t>{0, 1}));     // a(3), b(7): 10
  EXPECT_EQ(p[1], (std::vector<std::size_t>{2, 3, 4}));  // c(1), d(5), e(4): 10
}

TEST(ShardPartition, TiesGoByIdThenByLowestShard) {
  const auto u = units({{"z", 1}, {"y", 1}, {"x", 1}, {"w", 1}});
  const auto p = partition_units(u, 3);
  // By id: w -> 0, x -> 1, y -> 2, z -> 0.
  EXPECT_EQ(p[0], (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(p[1], (std::vector<std::size_t>{2}));
  EXPECT_EQ(p[2], (std::vector<std::size_t>{1}));
}

TEST(ShardPartition, EveryUnitExactlyOnceAndEmptyShardsAllowed) {
  const auto u = units({{"a", 2}, {"b", 9}});
  const auto p = partition_units(u, 4);
  ASSERT_EQ(p.size(), 4u);
  std::multiset<std::size_t> all;
  for (const auto& s : p) all.insert(s.begin(), s.end());
  EXPECT_EQ(all, (std::multiset<std::size_t>{0, 1}));
  EXPECT_TRUE(p[2].empty());
  EXPECT_TRUE(p[3].empty());
  EXPECT_EQ(partition_units({}, 3), (std::vector<std::vector<std::size_t>>(3)));
}

TEST(ShardPartition, SameInputsSamePartition) {
  std::vector<ShardUnit> u;
  for (int i = 0; i < 200; ++i) u.push_back(ShardUnit{"case-" + std::to_string(i), static_cast<double>((i * 37) % 11)});
  const auto p = partition_units(u, 7);
  EXPECT_EQ(p, partition_units(u, 7));
  double lo = 1e9;
  double hi = 0;
  for (const auto& s : p) {
    double load = 0;
    for (std::size_t i : s) load += u[i].cost;
    lo = std::min(lo, load);
    hi = std::max(hi, load);
  }
  // LPT keeps the loads within one largest unit of each other.
  EXPECT_LE(hi - lo, 10.0);
}

TEST(ShardCost, EstimateGrowsWithThePacketsACaseMoves) {
  harness::Case small;
  small.stimulus.push_back(harness::StimulusStep{{}, harness::TrafficStep{0, 4, 1024, false, {}, {}, 0}});
  harness::Case large;
  large.stimulus.push_back(harness::StimulusStep{{}, harness::TrafficStep{0, 4, 64 * 1024, false, {}, {}, 0}});
  large.stimulus.push_back(harness::StimulusStep{{}, harness::InjectStep{}});
  EXPECT_EQ(estimated_case_cost(small), 1 + 4);           // set-up + one packet per write
  EXPECT_EQ(estimated_case_cost(large), 1 + 4 * 16 + 1);  // 64 KiB / 4096 MTU = 16 per write, + inject
  CaseCosts recorded;
  recorded.by_case = {{"a", 10.0}, {"b", 30.0}};
  small.id = "a";
  large.id = "c";  // not in the report: the mean
  EXPECT_EQ(case_cost(small, recorded), 10.0);
  EXPECT_EQ(case_cost(large, recorded), 20.0);
}

TEST(ShardFingerprint, DifferentInputsDifferentDigests) {
  EXPECT_EQ(fingerprint_hex("seed 1"), fingerprint_hex("seed 1"));
  EXPECT_NE(fingerprint_hex("seed 1"), fingerprint_hex("seed 2"));
  EXPECT_EQ(fingerprint_hex("").size(), 16u);
}

}  // namespace
}  // namespace mrc::run
