// --out of the commands that write a report folder (campaign, variants, falsefail, interop; `run`
// does the same inside the runner): staged in `<out>.partial` before the run, put in place after
// it (harness/report/report_folder.hpp), so a run that ended early never replaces a previous
// report with less.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>

#include "harness/report/report_folder.hpp"

namespace mrc::cli {

// The staged folder, or nullopt after printing "error: --out ...: why" (bad input, exit 2).
std::optional<harness::StagedFolder> open_out(const std::filesystem::path& out, std::ostream& err);

// Puts the report in place (always when `complete`; when not, only over an empty or absent
// <out>) and returns the folder it is in now; says on `err` when the previous report was kept or
// the swap failed.
std::filesystem::path place_out(harness::StagedFolder& folder, bool complete, std::ostream& err);

}  // namespace mrc::cli
