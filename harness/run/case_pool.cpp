#include "harness/run/case_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iomanip>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "harness/dut/reference_binding.hpp"
#include "harness/observe/capture_pool.hpp"
#include "harness/run/case_child.hpp"
#include "harness/run/case_evidence.hpp"
#include "harness/run/case_result.hpp"
#include "harness/run/case_session.hpp"
#include "harness/run/interrupt.hpp"
#include "harness/run/suite_runner.hpp"

namespace mrc::run {
namespace {

using harness::CaseResult;
using harness::Verdict;
using Clock = std::chrono::steady_clock;
constexpr auto kInterruptPoll = std::chrono::milliseconds(50);

// One case on its own thread. Shared with that thread, so a hung binding call can be abandoned
// without leaving it anything dangling.
struct CaseJob {
  harness::Case c;
  SessionOptions opts;
  std::unique_ptr<harness::DutBinding> dut;
  std::unique_ptr<harness::DutBinding> peer;
  std::atomic<const char*> activity{"start"};
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  SessionResult result;
  std::optional<ref::DefectSet> defects_read;
  std::string exception;
};

}  // namespace

std::string format_seconds(double s) {
  std::ostringstream o;
  if (s < 10) {
    o << std::fixed << std::setprecision(1) << s << 's';
  } else if (s < 600) {
    o << static_cast<long>(s + 0.5) << 's';
  } else {
    o << static_cast<long>(s / 60 + 0.5) << 'm';
  }
  return o.str();
}

CaseResult run_case_task(const CaseTask& t, const std::filesystem::path& root, const PoolOptions& o,
                         const BindingFactory& factory, double& wall_s) {
  const harness::Case& c = *t.c;
  const auto start = Clock::now();
  auto job = std::make_shared<CaseJob>();
  job->c = c;
  job->opts.testbed = o.testbed;
  job->opts.seed = t.seed;
  const std::filesystem::path& out = t.evidence_out ? *t.evidence_out : o.out;
  const bool write_evidence = t.evidence_out || o.write_evidence;
  job->opts.out_dir = out;
  job->opts.golden_dir = root.empty() ? std::filesystem::path("pcaps") : root / "pcaps";
  job->opts.virtual_limit_ns = o.virtual_limit_ns;
  job->opts.deadline = start + std::chrono::seconds(c.timeout_s);
  job->opts.activity = &job->activity;
  try {
    job->dut = t.factory ? (*t.factory)() : factory();
    job->peer = o.peer_factory ? o.peer_factory() : std::make_unique<harness::ReferenceBinding>();
  } catch (const std::exception& e) {
    job->exception = e.what();
  }
  if (!job->dut || !job->peer) {
    CaseResult r = case_header(c, root, t.seed);
    r.verdict = Verdict::kError;
    r.message = std::string(job->dut ? "the peer binding" : "the DUT binding") + " could not be created" +
                (job->exception.empty() ? "" : ": " + job->exception);
    wall_s = 0;
    return r;
  }
  if (write_evidence) {  // a file from an earlier run must not pass for this one's
    std::error_code ec;
    std::filesystem::remove(out / case_evidence_path(c.id), ec);
  }

  std::thread worker([job] {
    try {
      job->result = run_session(job->c, *job->dut, *job->peer, job->opts);
      job->defects_read = job->dut->defects_read();
    } catch (const std::exception& e) {
      job->exception = e.what();
    } catch (...) {
      job->exception = "an unknown exception";
    }
    try {
      job->dut->reset();
    } catch (...) {
    }
    std::lock_guard<std::mutex> lock(job->m);
    job->done = true;
    job->cv.notify_all();
  });
  const auto limit = job->opts.deadline + std::chrono::milliseconds(static_cast<long>(o.watchdog_grace_s * 1000));
  bool finished = false;
  bool interrupted = false;
  {
    // Woken every kInterruptPoll to see whether a stopped run's grace has passed: the session
    // loop then ends the case; one stuck in a binding call is abandoned kInterruptAbandon later.
    std::optional<Clock::time_point> abandon_at;
    std::unique_lock<std::mutex> lock(job->m);
    while (!finished) {
      const auto now = Clock::now();
      if (now >= limit) break;
      if (!abandon_at && interrupt_grace_over()) abandon_at = now + kInterruptAbandon;
      if (abandon_at && now >= *abandon_at) {
        interrupted = true;
        break;
      }
      finished = job->cv.wait_until(lock, std::min(limit, now + kInterruptPoll), [&] { return job->done; });
    }
  }
  wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (interrupted) {
    worker.detach();  // as below: the thread keeps what it is stuck in
    CaseResult r = case_header(c, root, t.seed);
    r.verdict = Verdict::kError;
    r.message = interrupted_case_message() + ", stuck in " + job->activity.load();
    return r;
  }
  if (!finished) {
    worker.detach();  // the job (and the binding it is stuck in) stays alive with the thread
    CaseResult r = case_header(c, root, t.seed);
    r.verdict = Verdict::kError;
    r.message = std::string("the DUT binding hung: no return from ") + job->activity.load() + " within " +
                std::to_string(c.timeout_s) + " s (+" + format_seconds(o.watchdog_grace_s) + " grace)";
    return r;
  }
  worker.join();
  if (!job->exception.empty()) {
    CaseResult r = case_header(c, root, t.seed);
    r.verdict = Verdict::kError;
    r.message = "the harness or DUT binding threw during " + std::string(job->activity.load()) + ": " + job->exception;
    return r;
  }
  if (t.defects_read) *t.defects_read = job->defects_read;
  CaseResult r = judge_case(c, job->result, root, t.seed);
  keep_evidence(r, c, job->result, out, write_evidence, o.evidence);
  // Judged and written: the next case's taps reuse these arenas (capture_pool.hpp).
  for (harness::TapCapture& tap : job->result.ctx.taps) harness::capture_pool::recycle(std::move(tap.capture));
  return r;
}

std::vector<std::optional<CaseResult>> run_case_tasks(std::span<const CaseTask> tasks,
                                                      const std::filesystem::path& root, const PoolOptions& o,
                                                      const BindingFactory& factory, const TaskDone& on_done) {
  std::vector<std::optional<CaseResult>> results(tasks.size());
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    while (!interrupt_flag().load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= tasks.size()) return;
      if (o.on_running) o.on_running(i, true);
      double wall_s = 0;
      std::optional<CaseResult> r = o.isolation.enabled && !tasks[i].factory
                                        ? run_case_in_child(tasks[i], root, o, wall_s)
                                        : run_case_task(tasks[i], root, o, factory, wall_s);
      if (r) {
        std::lock_guard<std::mutex> lock(mu);
        results[i] = std::move(r);
        if (on_done) on_done(i, *results[i], wall_s);
      }
      if (o.on_running) o.on_running(i, false);
    }
  };
  // Turns a stop's grace into interrupt_grace_flag(), which an isolated child's wait polls.
  std::mutex watch_mu;
  std::condition_variable watch_cv;
  bool all_done = false;
  std::thread watcher([&] {
    std::unique_lock<std::mutex> lock(watch_mu);
    while (!watch_cv.wait_for(lock, kInterruptPoll, [&] { return all_done; })) (void)interrupt_grace_over();
  });
  const unsigned jobs =
      std::max(1u, std::min<unsigned>(o.jobs, static_cast<unsigned>(std::max<std::size_t>(1, tasks.size()))));
  std::vector<std::thread> pool;
  for (unsigned j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  {
    std::lock_guard<std::mutex> lock(watch_mu);
    all_done = true;
  }
  watch_cv.notify_all();
  watcher.join();
  return results;
}

}  // namespace mrc::run
