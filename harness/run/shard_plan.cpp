#include "harness/run/shard_plan.hpp"

#include <ostream>

#include "harness/report/file_digest.hpp"
#include "harness/report/report.hpp"

namespace mrc::run {

ShardPick pick_shard(const std::string& kind, const ShardSpec& spec, const std::vector<ShardUnit>& units,
                     const CaseCosts& costs, const std::string& fingerprint_text, const std::string& command_line,
                     std::ostream* progress) {
  ShardPick pick;
  harness::ShardRecord& r = pick.record;
  r.kind = kind;
  r.index = spec.index;
  r.count = spec.count;
  r.source = spec.source;
  r.cost_basis = costs.basis;
  r.fingerprint = fingerprint_hex(kind + '\n' + fingerprint_text);
  r.command_line = command_line;
  pick.mine.assign(units.size(), false);
  const auto shards = partition_units(units, spec.count);
  for (std::size_t u : shards[spec.index]) pick.mine[u] = true;
  double cost = 0;
  double total = 0;
  for (std::size_t u = 0; u < units.size(); ++u) {
    r.units.push_back(units[u].id);
    total += units[u].cost;
    if (!pick.mine[u]) continue;
    r.mine.push_back(units[u].id);
    cost += units[u].cost;
  }
  if (progress) {
    *progress << "shard " << r.shard_text() << " (from " << spec.source << "): " << r.mine.size() << " of "
              << units.size() << ' ' << kind << " unit(s), cost " << cost << " of " << total << " (" << costs.basis
              << ")\n"
              << std::flush;
  }
  return pick;
}

std::string write_shard_record(const harness::ShardRecord& r, const std::filesystem::path& dir) {
  try {
    harness::write_file_atomically(dir / harness::kShardRecordName, harness::render_shard_record(r));
  } catch (const std::exception& e) {
    return std::string("writing the shard record: ") + e.what();
  }
  return "";
}

double cases_cost(const std::vector<const harness::Case*>& cases, const CaseCosts& costs) {
  double sum = 0;
  for (const harness::Case* c : cases) sum += case_cost(*c, costs);
  return sum;
}

std::string run_fingerprint_text(const RunOptions& o, const std::vector<const harness::Case*>& cases) {
  std::string s = "suite " + o.suite_version + ' ' + o.git_hash + "\ndut " + o.dut + "\npeer " + o.peer + "\ntestbed " +
                  o.testbed + "\nseed " + (o.seed ? std::to_string(*o.seed) : "own") + "\nprofile " +
                  std::string(harness::to_string(o.profile)) + "\nstrict " + (o.strict ? "1" : "0") + "\nwall_clock " +
                  (o.wall_clock ? "1" : "0") + "\nevidence " + std::string(to_string(o.evidence.keep)) + ' ' +
                  snaplen_spelling(o.evidence) + "\nvirtual_limit_ns " + std::to_string(o.virtual_limit_ns) + '\n';
  if (!o.expectations.empty()) {
    s += "expectations " + harness::sha256_file_hex(o.expectations).value_or("unreadable") + " today " +
         (o.today.empty() ? "system" : o.today) + '\n';
  }
  return s + cases_fingerprint_text(cases);
}

harness::ShardRecord shard_run_cases(const RunOptions& o, std::vector<const harness::Case*>& cases, std::ostream& err) {
  std::vector<ShardUnit> units;
  for (const harness::Case* c : cases) units.push_back(ShardUnit{c->id, case_cost(*c, o.shard_costs)});
  ShardPick pick =
      pick_shard("run", o.shard, units, o.shard_costs, run_fingerprint_text(o, cases), o.command_line, o.progress ? &err : nullptr);
  std::vector<const harness::Case*> kept;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (pick.mine[i]) kept.push_back(cases[i]);
  }
  cases = std::move(kept);
  return std::move(pick.record);
}

}  // namespace mrc::run
