#include "harness/run/case_child.hpp"

#include <charconv>
#include <chrono>
#include <csignal>

#include "harness/run/case_result.hpp"
#include "harness/run/case_result_codec.hpp"
#include "harness/run/child_process.hpp"
#include "harness/run/interrupt.hpp"
#include "harness/run/suite_runner.hpp"

namespace mrc::run {
namespace {

using harness::CaseResult;
using harness::Verdict;
using Clock = std::chrono::steady_clock;

std::string shortest(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

// Why the child gave no usable result, in one line.
std::string what_happened(const ChildOutcome& out, const harness::Case& c, const PoolOptions& o) {
  using End = ChildOutcome::End;
  switch (out.end) {
    case End::kTimedOut: {
      std::string m = "case child exceeded timeout_s=" + std::to_string(c.timeout_s) + " + " +
                      format_seconds(o.watchdog_grace_s) + " grace + " +
                      format_seconds(o.isolation.report_allowance_s) + " to report";
      m += out.signal == SIGKILL ? " (killed with SIGKILL: SIGTERM was ignored for " +
                                       format_seconds(o.isolation.term_wait_s) + ")"
                                 : " (killed)";
      if (!out.error.empty()) m += "; " + out.error;
      return m;
    }
    case End::kSignaled:
      return "the case's child process died of signal " + std::to_string(out.signal) + " (" + signal_name(out.signal) +
             ")";
    case End::kExited:
      return "the case's child process exited with code " + std::to_string(out.exit_code) + " without a result";
    case End::kOverflow:
      return "the case's child process wrote " + std::to_string(out.result.size()) + " bytes of result, over the limit of " +
             std::to_string(ChildSpec{}.max_result) + " (killed)";
    case End::kNotStarted:
      return "the case's child process could not be started: " + out.error;
    case End::kStopped:
      return "the case's child process was stopped by an interrupt";
  }
  return "the case's child process ended in an unknown way";
}

}  // namespace

std::vector<std::string> case_child_args(const CaseTask& t, const std::filesystem::path& root, const PoolOptions& o) {
  return {"--suite-root",
          root.string(),
          "--case",
          t.c->file.string(),
          "--case-id",
          t.c->id,
          "--seed",
          std::to_string(t.seed),
          "--testbed",
          o.testbed,
          "--out",
          o.out.string(),
          "--evidence",
          std::string(o.write_evidence ? to_string(o.evidence.keep) : "none"),
          "--snaplen",
          snaplen_spelling(o.evidence),
          "--virtual-limit-ns",
          std::to_string(o.virtual_limit_ns),
          "--watchdog-grace-s",
          shortest(o.watchdog_grace_s),
          "--result-fd",
          std::to_string(kChildResultFd),
          "--token-fd",
          std::to_string(kChildInputFd)};
}

std::optional<CaseResult> run_case_in_child(const CaseTask& t, const std::filesystem::path& root, const PoolOptions& o,
                                            double& wall_s) {
  const harness::Case& c = *t.c;
  ChildSpec spec;
  spec.executable = o.isolation.executable;
  spec.argv = {o.isolation.executable, kCaseChildCommand};
  for (auto& a : case_child_args(t, root, o)) spec.argv.push_back(std::move(a));
  spec.argv.insert(spec.argv.end(), o.isolation.child_args.begin(), o.isolation.child_args.end());
  spec.input = o.isolation.agent_token;
  const double bound_s = c.timeout_s + o.watchdog_grace_s + o.isolation.report_allowance_s;
  spec.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(bound_s));
  spec.term_wait_s = o.isolation.term_wait_s;
  // A stopped run gives the child kInterruptGrace to finish (the pool sets this flag after it).
  spec.stop = &interrupt_grace_flag();

  const ChildOutcome out = run_child(spec);
  wall_s = out.wall_s;
  CaseResult r = case_header(c, root, t.seed);
  r.verdict = Verdict::kError;
  if (out.end == ChildOutcome::End::kStopped) {
    r.message = interrupted_case_message() + "; its child process was stopped";
    return r;
  }
  if (out.end == ChildOutcome::End::kExited && out.exit_code == 0 && !out.result.empty()) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(out.result.data());
    DecodedCaseResult d = decode_case_result({bytes, out.result.size()});
    if (d.ok() && d.result.id == c.id) return std::move(d.result);
    r.message = d.ok() ? "the case's child process answered for case '" + d.result.id + "'"
                       : "the case's child process sent a result that does not decode: " + d.error;
  } else {
    r.message = what_happened(out, c, o);
  }
  if (!out.reaped) {
    r.message += "; it did not end within " + format_seconds(std::chrono::duration<double>(kChildReapWait).count()) +
                 " of SIGKILL and is left behind";
  }
  if (const std::string tail = last_lines(out.output_tail); !tail.empty()) r.message += "; its last output: " + tail;
  return r;
}

}  // namespace mrc::run
