#include "harness/studies/campaign_kills.hpp"

#include <algorithm>

#include "harness/report/report.hpp"
#include "harness/run/case_evidence.hpp"
#include "harness/run/replay_context.hpp"

namespace mrc::run {

std::string_view to_string(KeptKills k) {
  switch (k) {
    case KeptKills::kNone: return "none";
    case KeptKills::kFirst: return "first";
    case KeptKills::kAll: return "all";
  }
  return "first";
}

std::optional<KeptKills> kept_kills_from(std::string_view s) {
  for (auto k : {KeptKills::kNone, KeptKills::kFirst, KeptKills::kAll}) {
    if (to_string(k) == s) return k;
  }
  return std::nullopt;
}

std::string keep_kill_runs(KeptKills keep, harness::DefectOutcome& d, std::span<const harness::CaseResult> results,
                           const harness::RunResult& base, const std::string& dut, const std::filesystem::path& dir) {
  std::vector<std::string> ids;
  if (keep != KeptKills::kNone) {
    for (const auto& k : d.killers) {
      ids.push_back(k.id);
      if (keep == KeptKills::kFirst) break;
    }
  }
  harness::RunResult run = base;
  run.meta.dut = dut;
  // The command that makes these runs again (each case at its own seed): the same in a shard and
  // in the whole campaign, so merged kills are the single run's to the byte.
  run.meta.command_line = "mrc-conform run --dut " + dut + " --testbed " + base.meta.testbed + " --evidence failures --cases ";
  for (std::size_t i = 0; i < ids.size(); ++i) run.meta.command_line += (i ? " " : "") + ids[i];
  std::error_code ec;
  for (const harness::CaseResult& r : results) {
    if (std::find(ids.begin(), ids.end(), r.id) != ids.end()) {
      run.cases.push_back(r);
      continue;
    }
    std::filesystem::remove(dir / case_evidence_path(r.id), ec);
    std::filesystem::remove(dir / case_context_path(r.id), ec);
  }
  if (run.cases.empty()) {
    std::filesystem::remove_all(dir, ec);
    return "";
  }
  for (const harness::CaseResult& c : run.cases) {
    for (const std::string& f : c.evidence_files) {
      const auto size = std::filesystem::file_size(dir / f, ec);
      if (ec) continue;
      ++run.evidence.files;
      run.evidence.bytes += size;
    }
  }
  try {
    harness::write_reports(run, dir);
  } catch (const std::exception& e) {
    return "keeping the runs that killed " + d.defect.name + ": " + e.what();
  }
  for (const auto& c : run.cases) d.kept_runs.push_back(c.id);
  return "";
}

}  // namespace mrc::run
