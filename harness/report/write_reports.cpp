// Writing the report folder. Each file goes to `<name>.tmp`, is flushed to disk, and is renamed
// over `<name>`: rename(2) within one folder is atomic, so a run killed at any point leaves each
// report either as the previous complete file or as the new complete one.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "harness/report/report.hpp"
#include "harness/report/report_folder.hpp"

namespace mrc::harness {
namespace {

[[noreturn]] void io_fail(const std::filesystem::path& path, std::string_view what, int err) {
  throw ReportError(path.string() + ": " + std::string(what) + ": " + std::strerror(err));
}

// Writes all of `content` to a new file and fsyncs it; removes the file again on failure.
void write_and_sync(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) io_fail(path, "cannot create", errno);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(path.c_str());
      io_fail(path, "write failed", err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(path.c_str());
    io_fail(path, "fsync failed", err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    io_fail(path, "close failed", err);
  }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  // A second Ctrl-C waits for this write, or removes its .tmp (report_folder.hpp).
  if (!begin_report_write(&tmp)) throw ReportError(path.string() + ": not written: the process is being stopped");
  try {
    write_and_sync(tmp, content);
  } catch (...) {
    end_report_write();
    throw;
  }
  const int renamed = ::rename(tmp.c_str(), path.c_str());
  const int err = errno;
  end_report_write();
  if (renamed != 0) {
    ::unlink(tmp.c_str());
    io_fail(path, "cannot rename " + tmp.filename().string() + " into place", err);
  }
}

ReportFiles write_reports(const RunResult& run, const std::filesystem::path& out_dir) {
  std::error_code ec;
  if (std::filesystem::exists(out_dir, ec) && !std::filesystem::is_directory(out_dir, ec)) {
    throw ReportError(out_dir.string() + ": not a folder");
  }
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw ReportError(out_dir.string() + ": cannot create the report folder: " + ec.message());

  ReportFiles files{out_dir / kResultsJsonName, out_dir / kJunitXmlName, out_dir / kHtmlReportName};
  // results.json first: it is the primary output, the other two are renderings of it.
  write_file_atomically(files.results_json, render_results_json(run));
  write_file_atomically(files.junit_xml, render_junit_xml(run));
  write_file_atomically(files.index_html, render_html(run));
  return files;
}

ReportFiles write_partial(RunResult run, const std::filesystem::path& out_dir) {
  run.interrupted = true;
  return write_reports(run, out_dir);
}

}  // namespace mrc::harness
