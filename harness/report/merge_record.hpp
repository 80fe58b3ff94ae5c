// The shard record (shard.json) a sharded command (`--shard K/N`, harness/run/shard.hpp) writes
// beside its normal reports, and that `mrc-conform merge` reads to put the shards back together
// (merge_reports.hpp): which command and shard this is, the command's full unit list and this
// shard's units, and a fingerprint of the inputs (suite version, case files and seeds, the options
// that change results), so shards of different runs are never merged into one report.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

inline constexpr std::string_view kShardRecordName = "shard.json";
inline constexpr std::string_view kShardRecordSchema = "mrc-conform/shard/1";

struct ShardRecord {
  std::string kind;                // run, campaign, variants, falsefail
  std::uint32_t index = 0;         // K
  std::uint32_t count = 1;         // N
  std::string source;              // --shard, SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX
  std::string cost_basis;          // estimate, or wall-ms:<dir> (--shard-costs)
  std::vector<std::string> units;  // the command's every unit, in the order its report lists them
  std::vector<std::string> mine;   // this shard's units, in the same order
  std::string fingerprint;         // of the inputs (harness/run/shard.hpp, fingerprint_hex)
  std::string command_line;        // of this shard's process
  // `run` only: the suite's edge audit rows, which index.html shows and results.json does not
  // carry (the same in every shard: the audit is of the whole library).
  std::vector<EdgeRef> edges;

  std::string shard_text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// shard.json: 2-space indented, keys in a fixed order.
std::string render_shard_record(const ShardRecord& r);
// Reads <dir>/shard.json. Throws ReportError naming the file (and the key) when it is missing or
// malformed.
ShardRecord read_shard_record(const std::filesystem::path& dir);

}  // namespace mrc::harness
