// A report folder that never replaces a previous report with less (issue 14): a command writes
// its reports and evidence into a fresh sibling `<out>.partial` (same parent, so the same file
// system) and swaps it into place when the run completes (`<out>` -> `<out>.old`, the new folder
// -> `<out>`, `<out>.old` removed). A run that ended early replaces `<out>` only when `<out>` held
// no previous report (absent or empty); otherwise the previous report stays and the partial one is
// left in `<out>.partial`. A stale `<out>.partial` or `<out>.old` from a killed earlier run is
// removed when the next one starts.
//
// One command at a time writes a report folder: stage_report_folder() takes `<out>.lock`
// (folder_lock.hpp) before it touches anything, and refuses a folder another run is writing,
// naming that run; place_staged() and discard_staged() let go.
//
// A second Ctrl-C ends the process at once; place_staged_from_signal_handler() does, with system
// calls alone, what placing a partial report would (and removes a report's .tmp being written),
// so even then no report file is missing.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "harness/report/folder_lock.hpp"

namespace mrc::harness {

inline constexpr std::string_view kStagingSuffix = ".partial";
inline constexpr std::string_view kOldSuffix = ".old";

struct StagedFolder {
  std::filesystem::path target;   // where the reports belong (--out)
  std::filesystem::path staging;  // where they are written: <target>.partial
  bool had_previous = false;      // target held something when the run started
  bool registered = false;        // known to the signal handler (until place_staged)
  std::shared_ptr<FolderLock> lock;  // held from staging until placed or discarded
};

// Refuses an <out> another run is writing (its lock held: "in use by another run (pid ...)"), an <out> that is a file, or a folder holding anything but report files (results.json,
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
// report. Unregisters it from the signal handler once it is in place.
Placement place_staged(StagedFolder& f, bool complete);

// Removes the staged folder (bad input found after staging: nothing ran) and unregisters it.
void discard_staged(StagedFolder& f);

// For a signal handler (async-signal-safe): waits (up to 2 s) for report files other threads are
// writing, removes the .tmp of a write the signal interrupted on its own thread, and swaps every
// registered staged folder without a previous report into place, innermost first. Once it has
// run, no report write starts (begin_report_write returns false).
void place_staged_from_signal_handler() noexcept;

// write_file_atomically() brackets each file it writes (its .tmp named) with these, and
// place_staged its renames (no .tmp), so the handler never moves a folder while a .tmp in it is
// half written or a placement is half done. false: the process is being ended by a second signal
// (after a bounded wait); write nothing.
bool begin_report_write(const std::filesystem::path* tmp) noexcept;
void end_report_write() noexcept;

}  // namespace mrc::harness
