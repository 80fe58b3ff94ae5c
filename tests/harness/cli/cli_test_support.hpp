// Test support for the runner tests: temporary suites and output folders, and one-call suite runs.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/report/report.hpp"
#include "harness/run/suite_runner.hpp"

namespace mrc::run::testing {

namespace fs = std::filesystem;

inline fs::path source_dir() { return fs::path(MRC_SOURCE_DIR); }
inline fs::path case_file(const std::string& id) {
  const std::string area = id.substr(0, id.find('-'));
  return source_dir() / "cases" / area / (id + ".yaml");
}

// A fresh folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "mrc-run-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
    // A run ended early into this folder leaves its partial report beside it (<out>.partial).
    fs::remove_all(path_.string() + ".partial", ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A suite root of its own: cases/clauses.yaml and the catalog maps (defects.yaml, variants.yaml)
// copied from the repository, case files written in.
class TempSuite : public TempDir {
 public:
  TempSuite() {
    fs::create_directories(path() / "cases");
    for (const char* name : {"clauses.yaml", "defects.yaml", "variants.yaml"}) {
      fs::copy_file(source_dir() / "cases" / name, path() / "cases" / name);
    }
  }
  fs::path write_case(const std::string& id, const std::string& yaml) const {
    const std::string area = id.substr(0, id.find('-'));
    const fs::path f = path() / "cases" / area / (id + ".yaml");
    fs::create_directories(f.parent_path());
    std::ofstream(f) << yaml;
    return f;
  }
  fs::path copy_case(const std::string& id) const {
    std::ifstream in(case_file(id));
    std::stringstream s;
    s << in.rdbuf();
    return write_case(id, s.str());
  }
};

struct SuiteRun {
  int rc = -1;
  std::string out;
  std::string err;
  harness::RunResult result;
  bool has_result = false;
  const harness::CaseResult* find(const std::string& id) const {
    for (const auto& c : result.cases) {
      if (c.id == id) return &c;
    }
    return nullptr;
  }
};

// `runner(options, out, err)` returns the exit code: run_suite, or a subcommand's function.
template <class Runner>
SuiteRun run_with(RunOptions o, Runner runner) {
  SuiteRun r;
  o.progress = false;
  std::ostringstream out, err;
  r.rc = runner(o, out, err);
  r.out = out.str();
  r.err = err.str();
  const fs::path results = o.out / harness::kResultsJsonName;
  if (fs::exists(results)) {
    r.result = harness::read_results_json(results);
    r.has_result = true;
  }
  return r;
}

inline SuiteRun run(RunOptions o) {
  return run_with(std::move(o), [](const RunOptions& x, std::ostream& out, std::ostream& err) {
    return run_suite(x, out, err);
  });
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Two small cases for the campaign and falsefail tests: a spraying transfer whose distribution
// check sees spray-single-ev, and a plain transfer with only a positive control (no statistics,
// blind to a DENIED EV being used).
inline constexpr const char* kTinySprayCase = R"(id: spray-v-001
title: tiny spray
clauses: [SPRAY-PER-PACKET-EV]
level: MUST
behaviour: valid
rationale: command tests
requires: [stev]
role: requester
config:
  ev_format: {mode: stev, widths: [16, 16]}
stimulus:
  - traffic: {writes: 40, size: 65536, window: 8}
checks:
  - {type: positive_control, min_packets: 500}
  - {type: distribution, over: ev, alpha: 0.001, effect_size: 0.3, power: 0.9}
)";

inline constexpr const char* kTinyPlainCase = R"(id: spray-v-002
title: plain transfer
clauses: [EV-DENIED-NEVER-USED]
level: MUST
behaviour: valid
rationale: command tests
requires: [stev]
role: requester
config:
  ev_format: {mode: stev, widths: [16, 16]}
stimulus:
  - traffic: {writes: 4, size: 16384, window: 2}
checks:
  - {type: positive_control, min_packets: 8}
)";

// A small transfer as case spray-v-<n>, with its timeout_s: the runner and isolation tests.
inline constexpr const char* kTinyCase = R"(id: spray-v-{N}
title: A small transfer
clauses: [SPRAY-PER-PACKET-EV]
level: MUST
behaviour: valid
rationale: runner tests
requires: [stev]
role: requester
config:
  ev_format: {mode: stev, widths: [16, 16]}
stimulus:
  - traffic: {writes: 4, size: 16384, window: 2}
checks:
  - {type: positive_control, min_packets: 8}
timeout_s: {T}
)";

inline std::string tiny(const std::string& n, int timeout_s = 30) {
  std::string s = kTinyCase;
  s.replace(s.find("{N}"), 3, n);
  s.replace(s.find("{T}"), 3, std::to_string(timeout_s));
  return s;
}

// Reads `fd` until `marker` has appeared (an empty one: until it ends) or it ends; returns what
// was read.
inline std::string read_until(int fd, const std::string& marker) {
  std::string seen;
  char buf[256];
  while (marker.empty() || seen.find(marker) == std::string::npos) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    seen.append(buf, static_cast<std::size_t>(n));
  }
  return seen;
}

// A subcommand that writes a JSON report into `o.out`, run in-process without progress lines.
struct CommandRun {
  int rc = -1;
  std::string out;
  std::string err;
  std::string json;
};

template <class Options, class Command>
CommandRun run_command(Command command, Options o, const char* json_file) {
  CommandRun r;
  o.progress = false;
  std::ostringstream out, err;
  r.rc = command(o, out, err);
  r.out = out.str();
  r.err = err.str();
  r.json = slurp(o.out / json_file);
  return r;
}

// The real mrc-conform as a child process (the signal tests): stdout to /dev/null, stderr on a
// pipe the test reads.
struct Child {
  pid_t pid = -1;
  int err_fd = -1;
};

inline Child start_conform([[maybe_unused]] const std::vector<std::string>& args) {
  Child c;
#ifdef MRC_CONFORM_BIN
  int err_pipe[2];
  if (::pipe(err_pipe) != 0) return c;
  std::vector<char*> argv{const_cast<char*>(MRC_CONFORM_BIN)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  c.pid = ::fork();
  if (c.pid == 0) {
    ::dup2(err_pipe[1], 2);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::execv(MRC_CONFORM_BIN, argv.data());
    ::_exit(127);
  }
  ::close(err_pipe[1]);
  c.err_fd = err_pipe[0];
#endif
  return c;
}

// Reads the child's stderr until `needle` has appeared or the pipe closed; returns what was read.
inline std::string read_stderr_until(const Child& c, const std::string& needle) { return read_until(c.err_fd, needle); }

#ifdef MRC_CONFORM_BIN
// The isolation tests' spelling of the same child (stdout to /dev/null, stderr on `err_fd`; the
// caller reads it, closes it and waits for `pid`; pid -1: the pipe or fork failed).
using Binary = Child;
inline Binary start_binary(const std::vector<std::string>& args) { return start_conform(args); }
#endif

// Drains the child's stderr and reaps it: its exit status, or -1 when it did not exit normally.
inline int wait_for_exit(const Child& c) {
  char buf[256];
  while (::read(c.err_fd, buf, sizeof(buf)) > 0) {
  }
  ::close(c.err_fd);
  int status = 0;
  if (::waitpid(c.pid, &status, 0) != c.pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace mrc::run::testing
