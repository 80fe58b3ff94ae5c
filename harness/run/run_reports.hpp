// The report set of `mrc-conform run` while the run goes and when it ends (suite_runner.cpp):
// what a snapshot or the final report says about an early end (interrupt_reason, not_run), the
// space reserve that keeps the final reports writable on a filling disk, and the closing text,
// which never names a report file that does not exist nor calls an incomplete run conformant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/report/report_folder.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

// Written as <staging>/.reserve when the run starts and deleted right before the final reports,
// so a disk the evidence filled still takes them (the 180-case suite's three reports: ~1.5 MB).
inline constexpr std::uint64_t kReportReserveBytes = 4ull << 20;
inline constexpr std::string_view kReserveName = ".reserve";

// "" or why the reserve could not be made ("<file>: <strerror>"; no partial file is left).
std::string make_report_reserve(const std::filesystem::path& dir);
void drop_report_reserve(const std::filesystem::path& dir);

// `base` with the cases that have a result, in task order. `final` = the run has ended; otherwise
// the snapshot is marked interrupted, with the stop's reason or, while no stop was asked for,
// "unfinished: ..." (what a file left by a killed or crashed run must say).
harness::RunResult run_snapshot(const harness::RunResult& base,
                                const std::vector<std::optional<harness::CaseResult>>& results,
                                const std::vector<std::string>& selected_ids, bool final);

// Every requirement of the suite with the cases of its library that cover it: a report's
// coverage matrix.
std::vector<harness::RequirementRef> suite_coverage(const LoadedSuite& all);

// Writes the final report set into `dir`. When a file cannot be written, the files there are
// removed (none may claim a complete run, and the snapshot's room is freed), `run` becomes
// interrupted with the reason "disk full: <error>" (unless it already had one), and the set is
// written once more. Returns "" when every file is there, else the error of the last attempt,
// which names the file that is missing.
std::string write_final_reports(harness::RunResult& run, const std::filesystem::path& dir);

// Where the reports ended up, for the closing text.
struct ReportsPlaced {
  harness::Placement placement;
  std::vector<std::filesystem::path> written;  // the report files that exist there
  std::string write_error;                     // "" or the final write's error (names the file)
};

// The lines after the verdict count line: the conformance line (an incomplete run's says
// "interrupted", never "conformant: yes"), the report files that exist (none named that does not),
// the final write's error, and every case that needs a look.
void print_run_end(const harness::RunResult& final_run, const ReportsPlaced& placed, std::ostream& out);

// The last line of a run that ended early ("" printed for a complete one): why, how many cases did
// not run, and where the partial report is (or that the previous report was kept).
void print_early_end(const harness::RunResult& final_run, const harness::StagedFolder& folder,
                     const ReportsPlaced& placed, std::ostream& out);

}  // namespace mrc::run
