// `mrc-conform merge`: the report folders of one sharded command (harness/run/shard.hpp) checked
// to form one complete set, and their results put back together in the order the single-process
// command writes them. Rendering the merged result gives the single process's files byte for
// byte, except for results.json's (and junit.xml's, index.html's) command line, which is the
// merge's.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/report/campaign_result.hpp"
#include "harness/report/falsefail_result.hpp"
#include "harness/report/merge_record.hpp"
#include "harness/report/variants_result.hpp"

namespace mrc::harness {

struct ShardFolder {
  std::filesystem::path dir;
  ShardRecord record;
};

// Reads every folder's shard record and checks they are one complete set: the same kind, count,
// fingerprint and unit list, each shard exactly once, each unit in exactly one shard. Returns
// the folders in shard order, or throws ReportError naming the folder(s): "X is not a shard",
// "shard 1/3 missing", "shard 0/2 given twice: A and B", "A and B are shards of different runs",
// "A is a run shard, B a campaign shard".
std::vector<ShardFolder> collect_shards(const std::vector<std::filesystem::path>& dirs);

// The shards' results (results[i] read from shards[i]) as the single process's. Each throws
// ReportError when the shards disagree where they must not (campaign: the baselines).
RunResult merge_run_results(const std::vector<ShardFolder>& shards, std::vector<RunResult> results,
                            const std::string& command_line);
CampaignResult merge_campaign_results(const std::vector<ShardFolder>& shards, std::vector<CampaignResult> results);
VariantsResult merge_variants_results(const std::vector<ShardFolder>& shards, std::vector<VariantsResult> results);
FalsefailResult merge_falsefail_results(const std::vector<ShardFolder>& shards, std::vector<FalsefailResult> results);

}  // namespace mrc::harness
