#include "harness/report/merge_reports.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "harness/report/campaign_report.hpp"
#include "harness/report/report.hpp"

namespace mrc::harness {
namespace {

std::string quoted(const std::filesystem::path& p) { return p.string(); }

// For each unit id of the set, the index (into `results`) of the shard that ran it.
std::map<std::string, std::size_t> owner_of(const std::vector<ShardFolder>& shards) {
  std::map<std::string, std::size_t> owner;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    for (const std::string& u : shards[s].record.mine) owner[u] = s;
  }
  return owner;
}

// The unit's item from its shard's list, found by `id_of`; nullopt when that shard did not get
// to it (it was interrupted).
template <typename T, typename IdOf>
std::optional<T> take(std::vector<T>& items, const std::string& id, IdOf id_of) {
  const auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return id_of(x) == id; });
  if (it == items.end()) return std::nullopt;
  return std::move(*it);
}

}  // namespace

std::vector<ShardFolder> collect_shards(const std::vector<std::filesystem::path>& dirs) {
  std::vector<ShardFolder> got;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) throw ReportError(quoted(dir) + " is not a report folder");
    if (!std::filesystem::is_regular_file(dir / kShardRecordName, ec)) {
      throw ReportError(quoted(dir) + " is not a shard: it has no " + std::string(kShardRecordName) +
                        " (write shards with --shard K/N; an unsharded report needs no merge)");
    }
    got.push_back(ShardFolder{dir, read_shard_record(dir)});
  }
  if (got.empty()) throw ReportError("no shard folders given");
  const ShardFolder& first = got.front();
  for (const ShardFolder& s : got) {
    const ShardRecord& a = first.record;
    const ShardRecord& b = s.record;
    if (b.kind != a.kind) {
      throw ReportError(quoted(first.dir) + " is a " + a.kind + " shard, " + quoted(s.dir) + " a " + b.kind +
                        " shard: merge the shards of one command");
    }
    if (b.count != a.count || b.fingerprint != a.fingerprint || b.units != a.units) {
      throw ReportError(quoted(first.dir) + " (shard " + a.shard_text() + ", fingerprint " + a.fingerprint + ") and " +
                        quoted(s.dir) + " (shard " + b.shard_text() + ", fingerprint " + b.fingerprint +
                        ") are shards of different runs: other cases, seeds, options or build");
    }
  }
  std::vector<std::optional<std::size_t>> by_index(first.record.count);
  for (std::size_t i = 0; i < got.size(); ++i) {
    auto& slot = by_index[got[i].record.index];
    if (slot) {
      throw ReportError("shard " + got[i].record.shard_text() + " given twice: " + quoted(got[*slot].dir) + " and " +
                        quoted(got[i].dir));
    }
    slot = i;
  }
  std::vector<ShardFolder> out;
  for (std::size_t k = 0; k < by_index.size(); ++k) {
    if (!by_index[k]) {
      throw ReportError("shard " + std::to_string(k) + "/" + std::to_string(first.record.count) + " missing (" +
                        std::to_string(got.size()) + " of " + std::to_string(first.record.count) + " shards given)");
    }
    out.push_back(got[*by_index[k]]);
  }
  std::map<std::string, std::size_t> seen;
  for (std::size_t k = 0; k < out.size(); ++k) {
    for (const std::string& u : out[k].record.mine) {
      if (std::find(first.record.units.begin(), first.record.units.end(), u) == first.record.units.end()) {
        throw ReportError(quoted(out[k].dir) + ": unit " + u + " is not in the command's unit list");
      }
      if (const auto it = seen.find(u); it != seen.end()) {
        throw ReportError("unit " + u + " ran in two shards: " + quoted(out[it->second].dir) + " and " +
                          quoted(out[k].dir));
      }
      seen[u] = k;
    }
  }
  for (const std::string& u : first.record.units) {
    if (!seen.contains(u)) throw ReportError("unit " + u + " ran in no shard");
  }
  return out;
}

RunResult merge_run_results(const std::vector<ShardFolder>& shards, std::vector<RunResult> results,
                            const std::string& command_line) {
  RunResult m = results.front();
  m.meta.command_line = command_line;
  m.cases.clear();
  m.not_run.clear();
  m.interrupted = false;
  m.interrupt_reason.clear();
  m.evidence.files = 0;
  m.evidence.bytes = 0;
  m.edges = shards.front().record.edges;
  // Wall clock (--wall-clock): the run took as long as its longest shard.
  for (const RunResult& r : results) {
    if (r.meta.wall_seconds) m.meta.wall_seconds = std::max(m.meta.wall_seconds.value_or(0), *r.meta.wall_seconds);
    m.evidence.files += r.evidence.files;
    m.evidence.bytes += r.evidence.bytes;
    if (r.interrupted && !m.interrupted) {
      m.interrupted = true;
      m.interrupt_reason = r.interrupt_reason;
    }
  }
  const auto owner = owner_of(shards);
  for (const std::string& id : shards.front().record.units) {
    const std::size_t s = owner.at(id);
    auto c = take(results[s].cases, id, [](const CaseResult& x) { return x.id; });
    if (c) {
      m.cases.push_back(std::move(*c));
    } else {
      m.not_run.push_back(id);
      m.interrupted = true;
      if (m.interrupt_reason.empty()) m.interrupt_reason = "shard " + shards[s].record.shard_text() + " did not run " + id;
    }
  }
  return m;
}

CampaignResult merge_campaign_results(const std::vector<ShardFolder>& shards, std::vector<CampaignResult> results) {
  CampaignResult m = results.front();
  m.defects.clear();
  // Every shard ran the same baseline (the whole selection on the clean reference): a different
  // one means the reference behaved differently, and the attribution would not be the single run's.
  const std::string baseline = render_campaign_json(CampaignResult{m.testbed, m.relevant_only, m.min_kill_rate, m.cases,
                                                                   m.baseline_problems, {}, false, std::nullopt});
  for (std::size_t s = 0; s < results.size(); ++s) {
    const CampaignResult& r = results[s];
    const std::string other = render_campaign_json(CampaignResult{r.testbed, r.relevant_only, r.min_kill_rate, r.cases,
                                                                  r.baseline_problems, {}, false, std::nullopt});
    if (other != baseline) {
      throw ReportError("the baselines of " + quoted(shards.front().dir) + " and " + quoted(shards[s].dir) +
                        " differ (cases or baseline problems): the reference did not behave the same in both shards");
    }
    m.interrupted = m.interrupted || r.interrupted;
    if (r.wall_seconds) m.wall_seconds = std::max(m.wall_seconds.value_or(0), *r.wall_seconds);
  }
  const auto owner = owner_of(shards);
  for (const std::string& id : shards.front().record.units) {
    const std::size_t s = owner.at(id);
    auto d = take(results[s].defects, id, [](const DefectOutcome& x) { return x.defect.name; });
    if (!d) {
      m.interrupted = true;  // the single run reports no defect after an interrupted one
      break;
    }
    m.defects.push_back(std::move(*d));
  }
  return m;
}

VariantsResult merge_variants_results(const std::vector<ShardFolder>& shards, std::vector<VariantsResult> results) {
  VariantsResult m = results.front();
  m.runs.clear();
  for (const VariantsResult& r : results) {
    m.interrupted = m.interrupted || r.interrupted;
    if (r.wall_seconds) m.wall_seconds = std::max(m.wall_seconds.value_or(0), *r.wall_seconds);
  }
  const auto owner = owner_of(shards);
  for (const std::string& id : shards.front().record.units) {
    const std::size_t s = owner.at(id);
    auto run = take(results[s].runs, id, [](const VariantRun& x) { return x.name; });
    if (!run) throw ReportError(quoted(shards[s].dir) + ": variants.json has no run " + id + " though its shard ran it");
    m.runs.push_back(std::move(*run));
  }
  return m;
}

FalsefailResult merge_falsefail_results(const std::vector<ShardFolder>& shards, std::vector<FalsefailResult> results) {
  FalsefailResult m = results.front();
  m.cases.clear();
  for (const FalsefailResult& r : results) m.interrupted = m.interrupted || r.interrupted;
  const auto owner = owner_of(shards);
  for (const std::string& id : shards.front().record.units) {
    const std::size_t s = owner.at(id);
    auto c = take(results[s].cases, id, [](const FalsefailCase& x) { return x.id; });
    if (!c) throw ReportError(quoted(shards[s].dir) + ": falsefail.json has no case " + id + " though its shard ran it");
    m.cases.push_back(std::move(*c));
  }
  return m;
}

}  // namespace mrc::harness
