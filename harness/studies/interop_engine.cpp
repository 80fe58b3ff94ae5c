#include "harness/studies/interop_engine.hpp"

#include <chrono>
#include <ostream>
#include <sstream>

#include "harness/report/run_summary.hpp"
#include "harness/report/text_escape.hpp"
#include "harness/run/case_pool.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/studies/progress_count.hpp"

namespace mrc::run {
namespace {

using Clock = std::chrono::steady_clock;

// A spec as a file-name piece: agent:[::1]:7411 -> agent---1--7411. Only for reading the folder
// list; uniqueness comes from the indices in front.
std::string safe_spec(const std::string& spec) {
  constexpr std::size_t kMax = 40;
  return harness::safe_name(std::string_view(spec).substr(0, kMax), '-');
}

}  // namespace

std::string pair_folder(std::size_t row, const std::string& dut, std::size_t col, const std::string& peer) {
  return std::to_string(row) + "_" + safe_spec(dut) + "--" + std::to_string(col) + "_" + safe_spec(peer);
}

InteropRun run_interop_matrix(const InteropPlan& plan, const std::vector<std::string>& case_ids, std::ostream& err) {
  InteropRun out;
  harness::InteropResult& r = out.result;
  const RunOptions& base = plan.base;
  r.impls = plan.impls;
  r.case_inputs = base.cases;
  r.tags = split_lists(base.tags);
  r.exclude_tags = split_lists(base.exclude_tags);
  r.cases = case_ids;
  r.testbed = base.testbed;
  r.seed = base.seed;
  r.suite_version = base.suite_version;
  r.git_hash = base.git_hash;
  r.command_line = base.command_line;

  const std::size_t n = plan.impls.size();
  ProgressCount count(n * n, 1);  // pairs run one after the other
  for (std::size_t k = 0; k < n * n && !interrupt_flag().load(); ++k) {
    const std::size_t row = k / n;
    const std::size_t col = k % n;
    const std::string folder = pair_folder(row, plan.impls[row], col, plan.impls[col]);
    RunOptions o = base;
    o.dut = plan.impls[row];
    o.peer = plan.impls[col];
    o.out = base.out / "pairs" / folder;
    o.progress = false;
    // run_suite's own stdout summary is the pair's report in words; the matrix has its own.
    std::ostringstream pair_summary;
    harness::RunResult run;
    const auto start = Clock::now();
    const int code = run_suite(o, pair_summary, err, &run);
    const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    if (code == kExitBadInput) {
      out.bad_input = true;
      return out;
    }
    harness::InteropCell c;
    c.row = row;
    c.col = col;
    c.dut = plan.impls[row];
    c.peer = plan.impls[col];
    c.report_dir = "pairs/" + folder;
    c.counts = harness::count_all(run);
    c.exit_code = code;
    c.interrupted = run.interrupted;
    if (base.wall_clock) c.wall_seconds = wall_s;
    r.cells.push_back(c);
    const std::string at = count.next(wall_s);
    if (plan.progress) {  // one write, so a reader never sees half a line
      const auto worst = c.worst();
      *plan.progress << (at + "DUT " + c.dut + " x peer " + c.peer + ": " +
                         (worst ? std::string(harness::to_string(*worst)) : "no case ran") + " (" + c.counts.text() + ") " +
                         format_seconds(wall_s) + (c.interrupted ? " interrupted" : "") + count.eta() + '\n')
                     << std::flush;
    }
    if (plan.on_pair_done) plan.on_pair_done(r.cells.back());
  }
  r.interrupted = r.cells.size() < n * n || (!r.cells.empty() && r.cells.back().interrupted);
  return out;
}

}  // namespace mrc::run
