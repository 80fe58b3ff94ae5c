// The progress line of the commands that move bytes rather than run cases (`merge` copying a
// report's evidence, `bundle` reading and hashing it): "bundle: 120.0 of 800.0 MB, ETA 4s". Shown
// only on a terminal, rewritten in place at most twice a second and cleared at the end, so logs
// and CI output stay as they were.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace mrc::cli {

// The line for `done` of `total` bytes after `elapsed_s` seconds (ETA from the rate so far).
std::string byte_progress_line(const std::string& what, std::uint64_t done, std::uint64_t total, double elapsed_s);

class ByteProgress {
 public:
  // Shows nothing unless `enabled` (the callers pass isatty(stderr)).
  ByteProgress(std::ostream& err, std::string what, bool enabled);
  ~ByteProgress();
  ByteProgress(const ByteProgress&) = delete;
  ByteProgress& operator=(const ByteProgress&) = delete;
  void update(std::uint64_t done, std::uint64_t total);

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream& err_;
  std::string what_;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_{};
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace mrc::cli
