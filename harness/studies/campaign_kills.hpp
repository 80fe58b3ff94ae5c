// The runs that killed a defect, kept beside the campaign's report: for each caught defect,
// <kill_runs>/<defect>/ holds a run report of its killing case runs (index.html with their
// findings, charts and evidence rows; results.json; junit.xml) and their evidence pcaps, so the
// campaign page links a kill to the packet that proves it. The defect runs write evidence for
// every FAIL (CaseTask::evidence_out); what is not kept is removed once the defect is attributed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "harness/report/campaign_result.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

enum class KeptKills : std::uint8_t { kNone, kFirst, kAll };
std::string_view to_string(KeptKills k);                    // "none", "first", "all"
std::optional<KeptKills> kept_kills_from(std::string_view s);

// Keeps the killing runs of `d` (its first killer, or all) under `dir`, writing their report from
// `base` (meta and requirements; meta.dut becomes `dut`), and removes the evidence of every other
// run in `results` (or the whole folder when nothing is kept). Sets d.kept_runs. Returns "" or
// what could not be written; the campaign's verdicts never depend on it.
std::string keep_kill_runs(KeptKills keep, harness::DefectOutcome& d, std::span<const harness::CaseResult> results,
                           const harness::RunResult& base, const std::string& dut, const std::filesystem::path& dir);

}  // namespace mrc::run
