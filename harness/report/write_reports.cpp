// Writing the report folder. Each file goes to `<name>.tmp`, is flushed to disk, and is renamed
// over `<name>`: rename(2) within one folder is atomic, so a run killed at any point leaves each
// report either as the previous complete file or as the new complete one.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string_view>
#include <system_error>
#include <vector>

#include "harness/report/atomic_file.hpp"
#include "harness/report/report.hpp"
#include "harness/report/report_folder.hpp"

namespace mrc::harness {
namespace {

[[noreturn]] void io_fail(const std::filesystem::path& path, std::string_view what, int err) {
  throw ReportError(path.string() + ": " + std::string(what) + ": " + std::strerror(err));
}

// Writes all of `chunk` to `fd`; `path` names it in the error.
void write_all(int fd, const std::filesystem::path& path, std::string_view chunk) {
  std::size_t done = 0;
  while (done < chunk.size()) {
    const ssize_t n = ::write(fd, chunk.data() + done, chunk.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      io_fail(path, "write failed", errno);
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_through_tmp(const std::filesystem::path& path, const std::function<void(int fd)>& fill) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  // A second Ctrl-C waits for this write, or removes its .tmp (report_folder.hpp).
  if (!begin_report_write(&tmp)) throw ReportError(path.string() + ": not written: the process is being stopped");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    end_report_write();
    io_fail(tmp, "cannot create", err);
  }
  try {
    fill(fd);
    if (::fsync(fd) != 0) io_fail(tmp, "fsync failed", errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    end_report_write();
    throw;
  }
  const int closed = ::close(fd);
  const int close_err = errno;
  const int renamed = closed == 0 ? ::rename(tmp.c_str(), path.c_str()) : -1;
  const int rename_err = errno;
  end_report_write();
  if (closed != 0) {
    ::unlink(tmp.c_str());
    io_fail(tmp, "close failed", close_err);
  }
  if (renamed != 0) {
    ::unlink(tmp.c_str());
    io_fail(path, "cannot rename " + tmp.filename().string() + " into place", rename_err);
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  write_through_tmp(path, [&](int fd) { write_all(fd, tmp, content); });
}

void copy_file_atomically(const std::filesystem::path& from, const std::filesystem::path& to,
                          const std::function<void(std::uint64_t)>& copied) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) io_fail(from, "cannot read", errno);
  // A chunk at a time: an evidence file can be hundreds of MB.
  std::vector<char> buf(1 << 20);
  std::filesystem::path tmp = to;
  tmp += ".tmp";
  try {
    write_through_tmp(to, [&](int fd) {
      for (;;) {
        const ssize_t n = ::read(in, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) io_fail(from, "cannot read", errno);
        if (n == 0) return;
        write_all(fd, tmp, std::string_view(buf.data(), static_cast<std::size_t>(n)));
        if (copied) copied(static_cast<std::uint64_t>(n));
      }
    });
  } catch (...) {
    ::close(in);
    throw;
  }
  ::close(in);
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
