// A report folder that never replaces a previous report with less (issue 14): a command writes
// its reports and evidence into a fresh sibling `<out>.partial` (same parent, so the same file
// system) and swaps it into place when the run completes (`<out>` -> `<out>.old`, the new folder
// -> `<out>`, `<out>.old` removed). A run that ended early replaces `<out>` only when `<out>` held
// no previous report (absent or empty); otherwise the previous report stays and the partial one is
// left in `<out>.partial`. A stale `<out>.partial` or `<out>.old` from a killed earlier run is
// removed when the next one starts.
//
// A second Ctrl-C ends the process at once; place_staged_from_signal_handler() does, with system
// calls alone, what placing a partial report would (and removes a report's .tmp being written),
// so even then no report file is missing.
#pragma once

#include <filesystem>
#include <string>

namespace mrc::harness {

inline constexpr std::string_view kStagingSuffix = ".partial";
inline constexpr std::string_view kOldSuffix = ".old";

struct StagedFolder {
  std::filesystem::path target;   // where the reports belong (--out)
  std::filesystem::path staging;  // where they are written: <target>.partial
  bool had_previous = false;      // target held something when the run started
  bool registered = false;        // known to the signal handler (until place_staged)
};

// Refuses an <out> that is a file, or a folder holding anything but report files (results.json,
// junit.xml, index.html, evidence/, the campaign/variants/falsefail/interop files, pairs/): a
// complete run replaces the folder whole, which must never take a user's files with it.
// Removes a stale <out>.partial and <out>.old, creates <out>.partial and checks it takes a file.
// On failure returns a StagedFolder with an empty staging path and sets *why ("--out X: ...").
StagedFolder stage_report_folder(const std::filesystem::path& out, std::string* why);

struct Placement {
  std::filesystem::path dir;   // where the report is now (target, or staging when kept aside)
  bool kept_previous = false;  // the run ended early and target's previous report was kept
  std::string error;           // "" or why the swap failed (the report is then in `dir`)
};

// Puts the staged folder in place: always when `complete`; when not, only if there was no previous
// report. Unregisters it from the signal handler.
Placement place_staged(StagedFolder& f, bool complete);

// Removes the staged folder (bad input found after staging: nothing ran) and unregisters it.
void discard_staged(StagedFolder& f);

// For a signal handler (async-signal-safe): removes the report .tmp being written, if any, and
// swaps every registered staged folder without a previous report into place, innermost first.
void place_staged_from_signal_handler() noexcept;

// write_file_atomically() names the .tmp it writes here while it writes it (for the handler).
void note_tmp_in_progress(const std::filesystem::path* tmp) noexcept;

}  // namespace mrc::harness
