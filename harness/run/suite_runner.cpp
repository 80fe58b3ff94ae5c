#include "harness/run/suite_runner.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <ctime>
#include <iomanip>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>

#include "harness/case/edge_audit.hpp"
#include "harness/case/expectations.hpp"
#include "harness/dut/agent_wire_text.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/lab/spelling_hints.hpp"
#include "harness/lab/wire_testbed.hpp"
#include "harness/report/report.hpp"
#include "harness/report/report_folder.hpp"
#include "harness/report/run_outcome.hpp"
#include "harness/run/case_pool.hpp"
#include "harness/run/case_result.hpp"
#include "harness/run/case_select.hpp"
#include "harness/run/case_setup.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/interrupt.hpp"
#include "harness/run/run_reports.hpp"
#include "harness/run/shard_plan.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/testbed/testbed.hpp"
#include "reference/wire/wire_revision.hpp"

namespace mrc::run {
namespace {

using harness::CaseResult;
using harness::Verdict;
using Clock = std::chrono::steady_clock;

harness::RunVerdict run_verdict(Verdict v) {
  switch (v) {
    case Verdict::kPass: return harness::RunVerdict::kPass;
    case Verdict::kFail: return harness::RunVerdict::kFail;
    case Verdict::kError: return harness::RunVerdict::kError;
    case Verdict::kInconclusive: return harness::RunVerdict::kInconclusive;
    case Verdict::kUnsupported: return harness::RunVerdict::kUnsupported;
  }
  return harness::RunVerdict::kError;
}

void apply_expectation(CaseResult& r, const harness::ExpectationSet& set, const harness::Date& today) {
  const harness::Classification cl = harness::classify(r.id, run_verdict(r.verdict), set, today);
  switch (cl.triage) {
    case harness::Triage::kExpected: r.expectation = harness::ExpectationOutcome::kExpected; break;
    case harness::Triage::kUnexpectedPass: r.expectation = harness::ExpectationOutcome::kUnexpectedPass; break;
    case harness::Triage::kExpiredEntry: r.expectation = harness::ExpectationOutcome::kExpired; break;
    case harness::Triage::kUnexpected:
      r.expectation = cl.entry ? harness::ExpectationOutcome::kUnexpectedOther : harness::ExpectationOutcome::kNone;
      break;
    default: r.expectation = harness::ExpectationOutcome::kNone; break;
  }
  if (cl.entry) {
    r.expectation_reason = cl.entry->reason;
    r.expectation_link = cl.entry->link;
  }
}

harness::Date system_today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return harness::Date{tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday};
}

// The suite's edge audit (cases/edges.yaml) as report rows, checked against the whole case
// library (`all` when the run loaded the library, else loaded here). No audit: no rows. A
// malformed audit is bad input, like a malformed clauses.yaml.
bool edge_audit(const LoadedSuite& all, bool whole_library, std::vector<harness::EdgeRef>& out, std::ostream& err) {
  if (all.root.empty()) return true;
  const std::filesystem::path file = all.root / "cases" / harness::kEdgeAuditName;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return true;
  harness::CaseSet library;
  if (!whole_library) library = harness::load_cases(all.root / "cases", {}, &all.clauses);
  const std::vector<harness::Case>& cases = whole_library ? all.set.cases : library.cases;
  const harness::EdgeAuditLoadResult audit = harness::load_edge_audit(file, all.clauses, cases);
  if (!audit.ok()) {
    err << audit.diagnostics.to_string();
    return false;
  }
  for (const auto& req : audit.entries) {
    for (const auto& e : req.edges) out.push_back(harness::EdgeRef{req.requirement, e.name, e.what, e.cases});
  }
  return true;
}

// The evidence volume as it stands on disk under `folder` (the staging folder while the run goes).
void count_evidence(harness::RunResult& run, const std::filesystem::path& folder) {
  run.evidence.files = 0;
  run.evidence.bytes = 0;
  for (const CaseResult& c : run.cases) {
    for (const std::string& f : c.evidence_files) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(folder / f, ec);
      if (ec) continue;
      ++run.evidence.files;
      run.evidence.bytes += size;
    }
  }
}

}  // namespace

int run_suite(const RunOptions& o, std::ostream& out, std::ostream& err, harness::RunResult* final_result) {
  const auto run_start = Clock::now();
  // ---- inputs: binding, cases, testbed, expectations (all before any case runs) ----
  std::function<std::unique_ptr<harness::DutBinding>()> factory = o.binding_factory;
  // What a case child (--isolate) needs to make the same bindings: the specs as resolved here (an
  // agent this run started, its wire), their timeouts; the token goes through a pipe.
  std::vector<std::string> child_binding_args;
  std::string child_token = o.agent_token;
  if (factory && o.isolation.enabled) {
    err << "error: isolation runs each case in a child process that makes its DUT binding from a spec; an "
           "in-process binding factory cannot cross into it\n";
    return kExitBadInput;
  }
  // Real interfaces (--testbed netns or a lab file): made once for the whole run, removed at its end.
  std::unique_ptr<WireTestbed> wire;
  std::string fabric = o.testbed;
  unsigned jobs = o.jobs;
  if (!factory && is_wire_testbed(o.testbed)) {
    std::string why;
    wire = open_wire_testbed(WireTestbedRequest{o.testbed, o.dut, o.agent_token, o.peer}, &why);
    if (!wire) {
      err << "error: " << why << '\n';
      return kExitBadInput;
    }
    if (o.progress) err << "testbed: " << wire->describe() << '\n';
    fabric = wire->fabric();
    if (jobs > 1) {
      err << "note: a DUT on real interfaces runs one case at a time; --jobs " << jobs << " ignored\n";
      jobs = 1;
    }
  }
  if (!factory) {
    std::string why;
    harness::BindingOptions binding_options{o.agent_token, o.agent_timeouts, {}, "--dut", o.agent_clock};
    std::string spec = o.dut;
    if (wire) {
      spec = wire->dut().spec;
      binding_options.agent_token = wire->token();
      binding_options.agent_wire = wire->dut().wire;
    }
    if (!harness::valid_binding_spec(spec, &why, binding_options)) {
      err << "error: " << with_binding_hint(why) << '\n';
      return kExitBadInput;
    }
    factory = [spec, binding_options] { return harness::make_binding(spec, nullptr, binding_options); };
    child_token = binding_options.agent_token;
    child_binding_args = {"--dut", spec, "--agent-connect-timeout-ms",
                          std::to_string(o.agent_timeouts.connect_timeout.count()), "--agent-call-timeout-ms",
                          std::to_string(o.agent_timeouts.call_timeout.count()), "--clock",
                          std::string(harness::to_string(o.agent_clock))};
    if (wire) child_binding_args.insert(child_binding_args.end(), {"--dut-wire", harness::encode_agent_wire(wire->dut().wire)});
  }
  // Empty for the default peer: the pool then makes the in-process reference it always made.
  BindingFactory peer_factory;
  if (o.peer != kDefaultPeer) {
    std::string why;
    harness::BindingOptions peer_options{o.agent_token, o.agent_timeouts, {}, "--peer", o.agent_clock};
    std::string spec = o.peer;
    if (wire && wire->peer()) {
      spec = wire->peer()->spec;
      peer_options.agent_token = wire->token();
      peer_options.agent_wire = wire->peer()->wire;
    }
    if (!harness::valid_binding_spec(spec, &why, peer_options)) {
      err << "error: " << with_binding_hint(why) << '\n';
      return kExitBadInput;
    }
    peer_factory = [spec, peer_options] { return harness::make_binding(spec, nullptr, peer_options); };
    child_binding_args.insert(child_binding_args.end(), {"--peer", spec});
    if (wire && wire->peer()) {
      child_binding_args.insert(child_binding_args.end(), {"--peer-wire", harness::encode_agent_wire(wire->peer()->wire)});
    }
  }
  CaseSelection sel = select_cases(o.cases, o.tags, o.exclude_tags, fabric, err);
  if (!sel.ok) return kExitBadInput;
  const LoadedSuite& all = sel.suite;
  std::vector<const harness::Case*> selected = sel.cases;
  if (std::string missing = missing_inputs(selected, all.root); !missing.empty()) {
    err << missing;
    return kExitBadInput;
  }
  // A shard runs its share of the selection; everything else (coverage, edges) is the whole run's.
  std::optional<harness::ShardRecord> shard;
  if (o.shard.active) shard = shard_run_cases(o, selected, err);
  harness::Date today = system_today();
  if (!o.today.empty()) {
    const auto d = harness::Date::parse(o.today);
    if (!d) {
      err << "error: --today '" << o.today << "' is not a YYYY-MM-DD date\n";
      return kExitBadInput;
    }
    today = *d;
  }
  harness::ExpectationSet expectations;
  if (!o.expectations.empty()) {
    auto loaded = harness::load_expectations(o.expectations, all.set.cases, harness::ExpectationOptions{today, 180});
    if (!loaded.ok()) {
      loaded.diagnostics.sort();
      err << loaded.diagnostics.to_string();
      return kExitBadInput;
    }
    expectations = std::move(loaded.set);
  }

  // The edge audit is input too: read before the report folder is touched.
  std::vector<harness::EdgeRef> edges;
  if (!edge_audit(all, o.cases.empty(), edges, err)) return kExitBadInput;
  // Reports and evidence go to <out>.partial, swapped into <out> at the end (report_folder.hpp).
  std::string folder_problem;
  harness::StagedFolder folder = harness::stage_report_folder(o.out, &folder_problem);
  if (folder.staging.empty()) {
    err << "error: " << folder_problem << '\n';
    return kExitBadInput;
  }
  const std::filesystem::path stage = folder.staging;

  // ---- the run ----
  harness::RunResult run;
  run.edges = std::move(edges);
  if (shard) {
    shard->edges = run.edges;
    if (std::string e = write_shard_record(*shard, stage); !e.empty()) {
      err << "error: " << e << '\n';
      harness::discard_staged(folder);
      return kExitHarness;
    }
  }
  std::vector<std::string> ids;
  for (const harness::Case* c : selected) ids.push_back(c->id);
  std::vector<std::optional<CaseResult>> results(selected.size());
  std::mutex mu;  // guards `results`, `running`, the counters, the report files and `err` while cases run
  std::set<std::size_t> running;
  std::size_t finished = 0;
  double wall_total = 0;
  bool snapshot_failed = false;
  // A snapshot of the run so far (marked interrupted: a run that has not ended is partial), under
  // `mu`. A write that fails stops the run: there is no room for what the cases leave.
  auto snapshot = [&] {
    harness::RunResult s = run_snapshot(run, results, ids, /*final=*/false);
    count_evidence(s, stage);
    if (o.wall_clock) s.meta.wall_seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
    try {
      harness::write_reports(s, stage);
    } catch (const std::exception& e) {
      if (!snapshot_failed) err << "error: writing reports: " << e.what() << '\n';
      snapshot_failed = true;
      request_stop(std::string("disk full: ") + e.what());
    }
  };
  const auto report_interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.report_interval_s));
  Clock::time_point next_snapshot = Clock::now() + report_interval;
  // The first stop writes the partial report set at once and says what it waits for.
  std::mutex watch_mu;
  std::condition_variable watch_cv;
  bool watch_done = false;
  bool told = false;  // under watch_mu
  auto watch = [&] {
    std::unique_lock<std::mutex> wl(watch_mu);
    while (!watch_cv.wait_for(wl, std::chrono::milliseconds(20), [&] { return watch_done; })) {
      if (told || !interrupt_flag().load()) continue;
      told = true;
      std::lock_guard<std::mutex> lock(mu);
      snapshot();
      const std::string reason = stop_reason();
      const std::string who = reason == "SIGINT" || reason == "SIGTERM" ? "interrupt" : "stopping (" + reason + ")";
      if (running.empty()) {
        err << who << ": no case in progress; writing the final reports\n" << std::flush;
        continue;
      }
      std::string names;
      for (std::size_t i : running) names += (names.empty() ? "" : ", ") + ids[i];
      err << who << ": waiting up to " << kInterruptGrace.count() << " s for " << names
          << " to finish; press Ctrl-C again to stop now\n"
          << std::flush;
    }
  };
  std::thread watcher;
  // What the run is judged on, known before anything can fail: even the partial reports of a run
  // whose DUT could not be probed name the wire revision.
  run.meta.wire = std::string(wire::kWireRevision);
  try {
    {
      auto probe = factory();
      const harness::DutIdentity id = probe->identity();
      run.meta.dut = id.name;
      run.meta.dut_version = id.version;
      run.meta.dut_capabilities = probe->capabilities();
    }
    if (peer_factory) run.meta.peer = peer_factory()->identity().name;
    run.meta.suite_version = o.suite_version;
    run.meta.git_hash = o.git_hash;
    run.meta.testbed = o.testbed;
    run.meta.seed = o.seed.value_or(0);
    run.meta.command_line = o.command_line;
    if (o.wall_clock) {
      const std::time_t t = std::time(nullptr);
      std::tm tm{};
      gmtime_r(&t, &tm);
      std::ostringstream s;
      s << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
      run.meta.started_at = s.str();
    }
    run.requirements = suite_coverage(all);
    run.evidence.keep = std::string(to_string(o.evidence.keep));
    run.evidence.snaplen = snaplen_spelling(o.evidence);
    run.profile = o.profile;
    run.strict = o.strict;
    // Room kept for the final reports; a disk without it stops the run before its first case.
    if (std::string e = make_report_reserve(stage); !e.empty()) request_stop("disk full: " + e);
    {
      std::lock_guard<std::mutex> lock(mu);
      snapshot();  // so even a run killed in its first case leaves a report saying so
    }
    watcher = std::thread(watch);

    std::vector<CaseTask> tasks;
    for (const harness::Case* c : selected) tasks.push_back(CaseTask{c, o.seed.value_or(c->seed)});
    PoolOptions po;
    po.testbed = fabric;
    po.out = stage;
    po.write_evidence = o.evidence.keep != EvidenceKeep::kNone;
    po.evidence = o.evidence;
    po.jobs = jobs;
    po.watchdog_grace_s = o.watchdog_grace_s;
    po.virtual_limit_ns = o.virtual_limit_ns;
    // A DUT behind the bridge moves data at the bridge's rate, not the fabric's: give its traffic
    // the time that takes (real time here, bounded by each case's timeout_s).
    if (wire) po.virtual_limit_ns = std::max(po.virtual_limit_ns, kWireVirtualLimitNs);
    po.peer_factory = peer_factory;
    po.isolation = o.isolation;
    po.isolation.child_args = child_binding_args;
    po.isolation.child_args.insert(po.isolation.child_args.end(), o.isolation.child_args.begin(),
                                   o.isolation.child_args.end());
    po.isolation.agent_token = child_token;
    po.on_running = [&](std::size_t i, bool now_running) {
      std::lock_guard<std::mutex> lock(mu);
      if (now_running) {
        running.insert(i);
      } else {
        running.erase(i);
      }
    };
    // The pool calls this under its own lock, one finished case at a time. Nothing may escape it
    // (it runs on the pool's threads): a throw is a harness error that stops the run.
    auto on_done = [&](std::size_t i, const CaseResult& done, double wall_s) {
      try {
        CaseResult r = done;
        apply_expectation(r, expectations, today);
        if (o.wall_clock) r.wall_ms = wall_s * 1000.0;
        std::lock_guard<std::mutex> lock(mu);
        // Lost evidence: the disk is full, or the folder broke; the next cases would lose theirs too.
        if (!r.evidence_error.empty()) request_stop("disk full: " + r.evidence_error);
        results[i] = std::move(r);
        ++finished;
        wall_total += wall_s;
        if (o.progress) {
          const std::size_t left = selected.size() - finished;
          const double eta = wall_total / static_cast<double>(finished) * static_cast<double>(left) /
                             static_cast<double>(std::max(1u, jobs));
          const int width = static_cast<int>(std::to_string(selected.size()).size());
          err << '[' << std::setw(width) << finished << '/' << selected.size() << "] " << results[i]->id << ' '
              << harness::to_string(results[i]->verdict) << ' ' << format_seconds(wall_s) << " ETA "
              << format_seconds(eta) << '\n'
              << std::flush;
        }
        // Rewriting the reports costs time in proportion to the cases done so far, so doing it
        // after every case is quadratic in the run. A snapshot at most every report_interval_s
        // keeps a crash from losing more than that much of the run; the final reports are
        // written below.
        if (const auto now = Clock::now(); now >= next_snapshot) {
          snapshot();
          next_snapshot = Clock::now() + report_interval;
        }
      } catch (const std::exception& e) {
        request_stop(std::string("harness error: ") + e.what());
      } catch (...) {
        request_stop("harness error: an unknown exception");
      }
    };
    if (!interrupt_flag().load()) run_case_tasks(tasks, all.root, po, factory, on_done);
  } catch (const std::exception& e) {
    request_stop(std::string("harness error: ") + e.what());
  } catch (...) {
    request_stop("harness error: an unknown exception");
  }
  if (watcher.joinable()) {
    {
      std::lock_guard<std::mutex> lock(watch_mu);
      watch_done = true;
    }
    watch_cv.notify_all();
    watcher.join();
  }
  if (interrupt_flag().load() && !told) {  // the run ended before the watcher's next look
    const std::string reason = stop_reason();
    err << (reason == "SIGINT" || reason == "SIGTERM" ? "interrupt" : "stopping (" + reason + ")")
        << ": no case in progress; writing the final reports\n";
  }
  if (interrupt_flag().load() && stop_reason().starts_with("harness error: ")) {
    err << "error: " << stop_reason() << '\n';
  }

  // ---- the final reports, then the folder into place ----
  harness::RunResult final_run;
  {
    std::lock_guard<std::mutex> lock(mu);
    final_run = run_snapshot(run, results, ids, /*final=*/true);
  }
  if (o.wall_clock) final_run.meta.wall_seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
  count_evidence(final_run, stage);
  ReportsPlaced placed;
  drop_report_reserve(stage);
  placed.write_error = write_final_reports(final_run, stage);
  if (!placed.write_error.empty()) err << "error: writing the final reports: " << placed.write_error << '\n';
  placed.placement = harness::place_staged(folder, !final_run.interrupted);
  if (!placed.placement.error.empty()) err << "error: " << placed.placement.error << '\n';
  if (placed.placement.kept_previous) {
    err << "note: the run ended early (" << final_run.interrupt_reason << "): the previous report in "
        << folder.target.string() << " was kept; this run's partial report is in " << placed.placement.dir.string()
        << '\n';
  }
  for (std::string_view name : {harness::kResultsJsonName, harness::kJunitXmlName, harness::kHtmlReportName}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(placed.placement.dir / name, ec)) placed.written.push_back(placed.placement.dir / name);
  }

  // ---- summary ----
  const auto counts = final_run.counts();
  out << final_run.cases.size() << " case(s): " << counts.at(Verdict::kPass) << " PASS, " << counts.at(Verdict::kFail)
      << " FAIL, " << counts.at(Verdict::kUnsupported) << " UNSUPPORTED, " << counts.at(Verdict::kInconclusive)
      << " INCONCLUSIVE, " << counts.at(Verdict::kError) << " ERROR";
  if (final_run.interrupted) out << " (interrupted: partial report)";
  // The count line above stays as it always was (scripts grep it); what the counts mean for
  // conformance is its own line.
  out << '\n';
  print_run_end(final_run, placed, out);
  for (const harness::Expectation* e : expectations.expired(today)) {
    const bool ran = std::any_of(final_run.cases.begin(), final_run.cases.end(),
                                 [&](const CaseResult& c) { return c.id == e->case_id; });
    if (!ran) out << "  expired expectation (case not run): " << e->case_id << " expired " << e->expires.to_string() << '\n';
  }
  print_early_end(final_run, folder, placed, out);
  const int code = placed.write_error.empty() ? harness::exit_code(final_run) : kExitHarness;
  if (final_result) *final_result = std::move(final_run);
  return code;
}

}  // namespace mrc::run
