// One sharded command's share (harness/run/shard.hpp): its units costed and dealt out, the shard
// record (harness/report/merge_record.hpp) that goes into its report folder, and this shard's
// units. Each command (run, campaign, variants, falsefail) builds its unit list and its
// fingerprint text, and calls pick_shard.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/report/merge_record.hpp"
#include "harness/run/shard.hpp"
#include "harness/run/suite_runner.hpp"

namespace mrc::run {

struct ShardPick {
  harness::ShardRecord record;
  std::vector<bool> mine;  // per unit of the command's list: does this shard run it
};

// Deals `units` out over spec.count shards (partition_units) and keeps spec.index's. `kind` is the
// command, `fingerprint_text` every input that changes its results (the record keeps its digest).
// With `progress`, says on it which shard this is, where that came from and what it runs.
ShardPick pick_shard(const std::string& kind, const ShardSpec& spec, const std::vector<ShardUnit>& units,
                     const CaseCosts& costs, const std::string& fingerprint_text, const std::string& command_line,
                     std::ostream* progress);

// Writes `r` as <dir>/shard.json; "" or the error for the user.
std::string write_shard_record(const harness::ShardRecord& r, const std::filesystem::path& dir);

// The cost of one run of each of `cases` summed (a campaign defect, a variant: all its cases).
double cases_cost(const std::vector<const harness::Case*>& cases, const CaseCosts& costs);

// `run`'s fingerprint text: the build, the bindings, the testbed, the seeds, the judging options
// (profile, strict, expectations and their date), what evidence is kept, and every case file.
std::string run_fingerprint_text(const RunOptions& o, const std::vector<const harness::Case*>& cases);

// Keeps the cases of `run`'s shard in `cases` (suite order kept) and returns its record.
harness::ShardRecord shard_run_cases(const RunOptions& o, std::vector<const harness::Case*>& cases, std::ostream& err);

}  // namespace mrc::run
