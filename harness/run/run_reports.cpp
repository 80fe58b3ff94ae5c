#include "harness/run/run_reports.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "harness/report/report.hpp"
#include "harness/report/run_outcome.hpp"
#include "harness/run/interrupt.hpp"

namespace mrc::run {
namespace {

bool is_signal_reason(const std::string& r) { return r == "SIGINT" || r == "SIGTERM" || r.starts_with("signal "); }

bool cut_short(const harness::CaseResult& c) { return c.message.starts_with("interrupted:"); }

}  // namespace

std::string make_report_reserve(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kReserveName;
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return file.string() + ": " + std::strerror(errno);
  // Zeros written, not fallocate(): every file system takes them, and tmpfs counts them.
  static const std::vector<char> zeros(1 << 16, 0);
  std::uint64_t done = 0;
  int err = 0;
  while (done < kReportReserveBytes) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(zeros.size(), kReportReserveBytes - done));
    const ssize_t w = ::write(fd, zeros.data(), n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<std::uint64_t>(w);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0) return "";
  ::unlink(file.c_str());
  return file.string() + ": " + std::strerror(err);
}

void drop_report_reserve(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::remove(dir / kReserveName, ec);
}

harness::RunResult run_snapshot(const harness::RunResult& base,
                                const std::vector<std::optional<harness::CaseResult>>& results,
                                const std::vector<std::string>& selected_ids, bool final) {
  harness::RunResult s = base;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i]) {
      s.cases.push_back(*results[i]);
    } else if (i < selected_ids.size()) {
      s.not_run.push_back(selected_ids[i]);
    }
  }
  const std::string reason = stop_reason();
  if (!final) {
    s.interrupted = true;
    s.interrupt_reason = !reason.empty() ? reason
                                         : "unfinished: the run stopped before writing its final report (killed or "
                                           "crashed) after " +
                                               std::to_string(s.cases.size()) + " of " +
                                               std::to_string(selected_ids.size()) + " case(s)";
    return s;
  }
  // A stop that came after every case had its result changes nothing, unless it was not a signal
  // (a lost evidence file, a harness error) or it cut a case short.
  s.interrupted = !reason.empty() && (!s.not_run.empty() || !is_signal_reason(reason) ||
                                      std::any_of(s.cases.begin(), s.cases.end(), cut_short));
  if (s.interrupted) {
    s.interrupt_reason = reason;
  } else {
    s.not_run.clear();
  }
  return s;
}

std::string write_final_reports(harness::RunResult& run, const std::filesystem::path& dir) {
  try {
    harness::write_reports(run, dir);
    return "";
  } catch (const std::exception& e) {
    const std::string first = e.what();
    std::error_code ec;
    for (std::string_view name : {harness::kResultsJsonName, harness::kJunitXmlName, harness::kHtmlReportName}) {
      std::filesystem::remove(dir / name, ec);
    }
    if (!run.interrupted) {
      run.interrupted = true;
      run.interrupt_reason = "disk full: " + first;
    }
    try {
      harness::write_reports(run, dir);
    } catch (const std::exception& again) {
      return again.what();  // the file that is missing now (what exists says interrupted)
    }
    return "";  // all there now, each saying why the run is incomplete
  }
}

void print_run_end(const harness::RunResult& final_run, const ReportsPlaced& placed, std::ostream& out) {
  out << harness::conformance_line(harness::run_outcome(final_run)) << '\n';
  out << harness::exit_reason(final_run) << '\n';
  if (!final_run.evidence.keep.empty()) {
    out << "evidence: " << final_run.evidence.files << " files, " << std::fixed << std::setprecision(1)
        << static_cast<double>(final_run.evidence.bytes) / 1e6 << std::defaultfloat << " MB (--evidence "
        << final_run.evidence.keep << ", --snaplen " << final_run.evidence.snaplen << ")\n";
  }
  if (!placed.written.empty()) {
    out << "reports: ";
    for (std::size_t i = 0; i < placed.written.size(); ++i) out << (i ? ", " : "") << placed.written[i].string();
    out << '\n';
  }
  if (!placed.write_error.empty()) out << "reports NOT written: " << placed.write_error << '\n';
  for (const auto& c : final_run.cases) {
    if (c.verdict != harness::Verdict::kPass && c.expectation != harness::ExpectationOutcome::kExpected) {
      const bool advisory = harness::case_conformance(c, final_run.profile).advisory;
      out << "  " << harness::to_string(c.verdict) << (advisory ? " (advisory) " : " ") << c.id << ": " << c.message
          << '\n';
    }
    if (c.expectation == harness::ExpectationOutcome::kUnexpectedPass) {
      out << "  unexpected pass: " << c.id << " passes, remove its expectation entry\n";
    } else if (c.expectation == harness::ExpectationOutcome::kExpired) {
      out << "  expired expectation: the entry for " << c.id << " is past its expiry date\n";
    }
  }
}

void print_early_end(const harness::RunResult& final_run, const harness::StagedFolder& folder,
                     const ReportsPlaced& placed, std::ostream& out) {
  if (!final_run.interrupted) return;
  out << "interrupted (" << final_run.interrupt_reason << "): " << final_run.not_run.size() << " of "
      << final_run.cases.size() + final_run.not_run.size() << " selected case(s) did not run; ";
  if (placed.placement.kept_previous) {
    out << "the previous report in " << folder.target.string() << " was kept, this run's partial report is in "
        << placed.placement.dir.string() << '\n';
  } else {
    out << "partial report in " << placed.placement.dir.string() << '\n';
  }
}

std::vector<harness::RequirementRef> suite_coverage(const LoadedSuite& all) {
  std::vector<harness::RequirementRef> out;
  for (const harness::Clause& cl : all.clauses.all()) {
    harness::RequirementRef r;
    r.id = cl.id;
    r.text = cl.text;
    r.level = std::string(harness::to_string(cl.level));
    r.source = cl.source;
    r.basis = cl.basis;
    for (const auto& c : all.set.cases) {
      if (std::find(c.clauses.begin(), c.clauses.end(), cl.id) != c.clauses.end()) r.cases.push_back(c.id);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mrc::run
