#include "harness/cli/byte_progress.hpp"

#include <unistd.h>

#include <ostream>

#include "harness/report/text_escape.hpp"  // format_fixed
#include "harness/run/case_pool.hpp"      // format_seconds

namespace mrc::cli {
namespace {

std::string megabytes(std::uint64_t bytes) { return harness::format_fixed(static_cast<double>(bytes) / 1e6, 1); }

}  // namespace

std::string byte_progress_line(const std::string& what, std::uint64_t done, std::uint64_t total, double elapsed_s) {
  std::string line = what + ": " + megabytes(done) + " of " + megabytes(total) + " MB";
  if (done > 0 && total > done && elapsed_s > 0) {
    const double left_s = elapsed_s * static_cast<double>(total - done) / static_cast<double>(done);
    line += ", ETA " + run::format_seconds(left_s);
  }
  return line;
}

ByteProgress::ByteProgress(std::ostream& err, std::string what, bool enabled)
    : err_(err), what_(std::move(what)), enabled_(enabled) {}

ByteProgress::~ByteProgress() {
  if (shown_) err_ << "\r\033[K" << std::flush;  // the terminal line is cleared: the result follows
}

void ByteProgress::update(std::uint64_t done, std::uint64_t total) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (shown_ && now - last_ < std::chrono::milliseconds(500)) return;
  last_ = now;
  shown_ = true;
  err_ << "\r\033[K" << byte_progress_line(what_, done, total, std::chrono::duration<double>(now - start_).count())
       << std::flush;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace mrc::cli
