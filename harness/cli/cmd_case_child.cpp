// `mrc-conform case-child` (hidden): one case of `run --isolate`, in the child process the parent
// started (harness/run/case_child.hpp). It loads the case file, makes the bindings from their
// specs (the agent token comes on a pipe, never the command line), runs the case through the same
// run_case_task as the in-process pool and writes the encoded CaseResult on --result-fd.
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "harness/case/case_loader.hpp"
#include "harness/cli/commands.hpp"
#include "harness/dut/agent_wire_text.hpp"
#include "harness/dut/binding_factory.hpp"
#include "harness/dut/reference_binding.hpp"
#include "harness/run/case_pool.hpp"
#include "harness/run/case_result_codec.hpp"
#include "harness/run/child_process.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"

namespace mrc::cli {
namespace {

// Test hook, honoured here and nowhere else in mrc-conform: MRC_CASE_CHILD_FAULT=segv | abort |
// hang | hang-hard | exit:N with MRC_CASE_CHILD_FAULT_CASE=<case id> makes the child of that case
// alone crash, abort, hang (hang-hard also ignores SIGTERM) or exit with N before it runs the case,
// so the isolation tests (tests/harness/cli/isolation_test.cpp) can prove each ending costs one
// ERROR. Returns an exit code for a malformed fault, else nothing (or does not return).
std::optional<int> test_fault(const std::string& case_id, std::ostream& err) {
  const char* fault = std::getenv("MRC_CASE_CHILD_FAULT");
  const char* target = std::getenv("MRC_CASE_CHILD_FAULT_CASE");
  if (fault == nullptr || target == nullptr || case_id != target) return std::nullopt;
  const std::string f = fault;
  err << "case-child: test fault " << f << " for " << case_id << std::endl;
  if (f == "segv") std::raise(SIGSEGV);
  if (f == "abort") std::abort();
  if (f == "hang" || f == "hang-hard") {
    if (f == "hang-hard") std::signal(SIGTERM, SIG_IGN);
    for (;;) ::pause();
  }
  int code = -1;
  if (f.starts_with("exit:")) {
    const auto [end, ec] = std::from_chars(f.data() + 5, f.data() + f.size(), code);
    if (ec == std::errc{} && end == f.data() + f.size() && code >= 0 && code <= 255) std::_Exit(code);
  }
  err << "error: MRC_CASE_CHILD_FAULT=" << f << ": expected segv, abort, hang, hang-hard or exit:N (0..255)\n";
  return run::kExitBadInput;
}

// Reads the token to end-of-file; false when it is longer than a pipe carries unread.
bool read_token(int fd, std::string& token) {
  char buf[512];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0;
    token.append(buf, static_cast<std::size_t>(n));
    if (token.size() > run::kMaxChildInput) return false;
  }
}

bool write_all(int fd, const std::vector<std::uint8_t>& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

int run_case_child(const CaseChildOptions& o, std::ostream& err) {
  run::EvidenceOptions evidence;
  for (const std::string& e : {run::parse_evidence_keep(o.evidence, evidence.keep), run::parse_snaplen(o.snaplen, evidence)}) {
    if (!e.empty()) {
      err << "error: " << e << '\n';
      return run::kExitBadInput;
    }
  }
  std::string token;
  if (o.token_fd >= 0 && !read_token(o.token_fd, token)) {
    err << "error: --token-fd " << o.token_fd << ": unreadable or longer than " << run::kMaxChildInput << " bytes\n";
    return run::kExitBadInput;
  }
  if (const auto rc = test_fault(o.case_id, err)) return *rc;

  const harness::CaseSet set = harness::load_cases(o.case_file, {}, nullptr, run::fallback_clauses(o.suite_root));
  if (!set.ok()) {
    err << set.diagnostics.to_string();
    return run::kExitBadInput;
  }
  const harness::Case* c = set.find(o.case_id);
  if (c == nullptr) {
    err << "error: " << o.case_file.string() << " does not hold case " << o.case_id << '\n';
    return run::kExitBadInput;
  }
  const harness::AgentTimeouts timeouts{std::chrono::milliseconds(o.agent_connect_timeout_ms),
                                        std::chrono::milliseconds(o.agent_call_timeout_ms)};
  const harness::AgentClock clock = harness::parse_agent_clock(o.clock).value_or(harness::AgentClock::kAuto);
  harness::BindingOptions binding_options{token, timeouts, {}, "--dut", clock};
  harness::BindingOptions peer_options{token, timeouts, {}, "--peer", clock};
  std::string why;
  for (const auto& [text, into] : {std::pair{&o.dut_wire, &binding_options}, std::pair{&o.peer_wire, &peer_options}}) {
    if (text->empty()) continue;
    auto w = harness::decode_agent_wire(*text, &why);
    if (!w) {
      err << "error: " << into->option << "-wire: " << why << '\n';
      return run::kExitBadInput;
    }
    into->agent_wire = std::move(*w);
  }
  if (!harness::valid_binding_spec(o.dut, &why, binding_options) ||
      (!o.peer.empty() && !harness::valid_binding_spec(o.peer, &why, peer_options))) {
    err << "error: " << why << '\n';
    return run::kExitBadInput;
  }
  const run::BindingFactory factory = [&] { return harness::make_binding(o.dut, nullptr, binding_options); };
  run::PoolOptions po;
  po.testbed = o.testbed;
  po.out = o.out;
  po.write_evidence = evidence.keep != run::EvidenceKeep::kNone;
  po.evidence = evidence;
  po.watchdog_grace_s = o.watchdog_grace_s;
  po.virtual_limit_ns = o.virtual_limit_ns;
  if (!o.peer.empty()) po.peer_factory = [&] { return harness::make_binding(o.peer, nullptr, peer_options); };

  double wall_s = 0;
  const harness::CaseResult r = run::run_case_task(run::CaseTask{c, o.seed}, o.suite_root, po, factory, wall_s);
  try {
    if (!write_all(o.result_fd, run::encode_case_result(r))) {
      err << "error: --result-fd " << o.result_fd << ": the result cannot be written\n";
      return run::kExitHarness;
    }
  } catch (const std::length_error& e) {
    err << "error: " << e.what() << '\n';
    return run::kExitHarness;
  }
  ::close(o.result_fd);
  return 0;
}

}  // namespace mrc::cli
