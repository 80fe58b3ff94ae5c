// Sharding a suite-wide command over N processes (`--shard K/N`, issue 16): which shard this
// process is (the option, else a scheduler's variables), how the command's units are dealt out
// (deterministic greedy longest-processing-time by cost), what a unit costs, and the fingerprint
// that tells `mrc-conform merge` the shards belong to one run.
//
// A unit is what a shard runs whole: a case for `run` and `falsefail`, a defect for `campaign`, a
// variant (the default reference included) for `variants`. Every process of a sharded command
// computes the same unit list and the same partition from the same inputs, so no coordinator is
// needed: shard K keeps the units the partition gives K and runs nothing else.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"

namespace mrc::run {

struct ShardSpec {
  bool active = false;     // false: not sharded (the whole command runs here)
  std::uint32_t index = 0;  // K, 0-based
  std::uint32_t count = 1;  // N
  // Where K/N came from, for the shard record and the progress line: "--shard",
  // "SLURM_ARRAY_TASK_ID" or "JOB_COMPLETION_INDEX".
  std::string source;
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// The environment as a function (tests pass a map; the CLI passes std::getenv).
using EnvLookup = std::function<const char*(const char* name)>;

// The shard of this process: `shard_text` (--shard K/N) when given; else SLURM_ARRAY_TASK_ID
// (K = ID - SLURM_ARRAY_TASK_MIN, MIN default 0; N = SLURM_ARRAY_TASK_COUNT); else
// JOB_COMPLETION_INDEX (K; N = `count_text` (--shard-count) or MRC_SHARD_COUNT). Nothing set:
// inactive. Returns "" or the error for the user, naming the option or the variable (exit 2).
std::string resolve_shard(const std::string& shard_text, const std::string& count_text, const EnvLookup& env,
                          ShardSpec& out);

// How the units are costed: the source name written in the shard record and the cost per case.
struct CaseCosts {
  // "estimate" (no report given: estimated_case_cost) or "wall-ms:<dir>" (--shard-costs).
  std::string basis = "estimate";
  std::map<std::string, double> by_case;  // from --shard-costs; missing cases: the mean of these
};

// Reads the per-case wall times (`wall_ms`, written by `run --wall-clock`) of a previous report's
// results.json in `dir` (--shard-costs). Returns "" or the error for the user (exit 2).
std::string load_case_costs(const std::filesystem::path& dir, CaseCosts& out);

// What one run of `c` costs, in the unit of `costs`: its recorded wall time when --shard-costs
// has it (the mean recorded time for a case the report lacks), else estimated_case_cost(c).
double case_cost(const harness::Case& c, const CaseCosts& costs);

// A deterministic estimate of the packets one run of `c` simulates, available without running
// it: per traffic step, writes x max(1, ceil(size / MTU)) data packets (each roughly answered),
// plus one per inject step, plus one for the set-up. Simulated time is proportional to the
// frames the fabric moves, so this ranks cases the way their run time does, on any machine.
double estimated_case_cost(const harness::Case& c);

struct ShardUnit {
  std::string id;
  double cost = 0;
};

// Greedy longest-processing-time: units by cost, largest first (ties: by id), each to the shard
// with the least total cost so far (ties: the lowest shard index). Returns per shard the indices
// of its units in `units` order. Every unit lands in exactly one shard; a shard may get none.
std::vector<std::vector<std::size_t>> partition_units(const std::vector<ShardUnit>& units, std::uint32_t count);

// A digest of `text` (FNV-1a 64, 16 hex digits): the fingerprint in a shard record. It
// tells shards of different inputs apart; it is no security measure.
std::string fingerprint_hex(const std::string& text);

// The fingerprint text for the cases a command runs: each case's id, file content digest and seed.
std::string cases_fingerprint_text(const std::vector<const harness::Case*>& cases);

}  // namespace mrc::run
