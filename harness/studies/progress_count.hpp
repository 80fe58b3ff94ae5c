// The progress count of the commands that run many cases: "[ 12/300] ... ETA 1m". One count
// across a command's phases (a campaign's baseline, then its defect runs: the total grows when the
// next phase is planned, the count never restarts), and an ETA from the mean wall time of the
// runs done so far, spread over the jobs that run them. Fed from one thread (the pool's callback).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "harness/run/case_pool.hpp"

namespace mrc::run {

class ProgressCount {
 public:
  ProgressCount(std::size_t total, unsigned jobs) : total_(total), jobs_(std::max(1u, jobs)) {}
  // The next phase's runs join the count.
  void add_total(std::size_t n) { total_ += n; }
  // One run done in `wall_s`: the "[n/N] " that opens its line.
  std::string next(double wall_s) {
    ++done_;
    wall_ += wall_s;
    std::string n = std::to_string(done_);
    const std::string of = std::to_string(total_);
    if (n.size() < of.size()) n.insert(0, of.size() - n.size(), ' ');
    return "[" + n + "/" + of + "] ";
  }
  // " ETA 1m" for what is left of the count so far.
  std::string eta() const {
    const std::size_t left = total_ > done_ ? total_ - done_ : 0;
    const double per = done_ == 0 ? 0.0 : wall_ / static_cast<double>(done_);
    return " ETA " + format_seconds(per * static_cast<double>(left) / static_cast<double>(jobs_));
  }
  std::size_t done() const { return done_; }
  std::size_t total() const { return total_; }

 private:
  std::size_t total_;
  unsigned jobs_;
  std::size_t done_ = 0;
  double wall_ = 0;
};

}  // namespace mrc::run
