// junit.xml in the Jenkins/Ant JUnit layout (tests/harness/report/junit.xsd describes it), for CI
// systems that only read JUnit. One <testsuite name="mrc.<area>"> per area, one
// <testcase classname="mrc.<area>" name="<case id>"> per case, in run order.
//
// Each testcase gets exactly one outcome element:
//   FAIL, counts               -> <failure type="non-conformance">
//   FAIL, does not count       -> <failure type="advisory" message="[advisory] ...">
//   FAIL, counts but expected  -> <failure type="expected"> (an accepted expectation)
//   ERROR                      -> <error type="ERROR">
//   INCONCLUSIVE, counts       -> <failure type="not-judged" message="INCONCLUSIVE: ..."> (a MUST
//                                 case the profile judges, left unjudged: the run is not conformant)
//   UNSUPPORTED / INCONCLUSIVE -> <skipped message="UNSUPPORTED: ..."> / "INCONCLUSIVE: ..."
//   PASS, expectation stale    -> <failure type="unexpected-pass"> (the entry must be removed)
//   PASS, expectation expired  -> <error type="expired-expectation">
//   PASS                       -> nothing
// so the counts on <testsuite> and <testsuites> are the counts of those elements. Whether a FAIL
// counts is run_outcome.hpp's (SHOULD/MAY cases, and MUST cases of a basis the --profile does not
// count, are advisories). An advisory stays a <failure>, not a <skipped>: CI dashboards fold
// skipped tests away, and a SHOULD the DUT misses is something its developers must see; the type
// attribute and the `conformant` property of every <testsuite> say what the run means for
// conformance, for a CI that gates on that instead. For the same reason a counted MUST case left
// INCONCLUSIVE is a <failure type="not-judged">: a dashboard that hides skipped tests would show a
// green run that is not conformant.
//
// Every message puts the finding first: the requirement, the field expected against observed, and
// the evidence file and Wireshark frame number, then the check and its full message; a CI log that
// shows one line shows what broke. Every <testcase> has a time: its wall-clock time with
// --wall-clock, else the testbed time it ran for (deterministic, so the file stays byte-identical
// for the same seed).
//
// A run that ended early (RunResult::interrupt_reason) says so in every <testsuite>'s properties
// (interrupt_reason, not_run: how many cases did not run), and its cases that did not run form one
// more suite, "mrc.not-run", each a <testcase> with <skipped message="not run: <reason>"/>: a CI
// that reads only JUnit then counts them instead of seeing a smaller, green run.
#include <map>

#include "harness/report/case_finding.hpp"
#include "harness/report/report.hpp"
#include "harness/report/run_outcome.hpp"
#include "harness/report/run_summary.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness {
namespace {

enum class Outcome { kPassed, kFailure, kError, kSkipped };

Outcome outcome_of(const CaseResult& c, ConformanceProfile profile) {
  switch (c.verdict) {
    case Verdict::kFail: return Outcome::kFailure;
    case Verdict::kError: return Outcome::kError;
    case Verdict::kUnsupported: return Outcome::kSkipped;
    case Verdict::kInconclusive:
      return case_conformance(c, profile).not_judged ? Outcome::kFailure : Outcome::kSkipped;
    case Verdict::kPass: break;
  }
  if (c.expectation == ExpectationOutcome::kUnexpectedPass) return Outcome::kFailure;
  if (c.expectation == ExpectationOutcome::kExpired) return Outcome::kError;
  return Outcome::kPassed;
}

// A case's time in ms: wall-clock when recorded, else the testbed time it ran for.
double case_ms(const CaseResult& c) { return c.wall_ms ? *c.wall_ms : static_cast<double>(c.sim_time_ns) / 1e6; }

struct Tally {
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double ms = 0;
  bool testbed_time = false;  // some case's time is its testbed time (microseconds matter then)
  void add(const CaseResult& c, ConformanceProfile profile) {
    ++tests;
    ms += case_ms(c);
    testbed_time = testbed_time || !c.wall_ms;
    switch (outcome_of(c, profile)) {
      case Outcome::kFailure: ++failures; break;
      case Outcome::kError: ++errors; break;
      case Outcome::kSkipped: ++skipped; break;
      case Outcome::kPassed: break;
    }
  }
};

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

// Seconds: milliseconds of a wall clock, nanoseconds' worth (6 places) of a testbed time.
std::string seconds_attr(double ms, bool testbed_time) { return format_fixed(ms / 1000.0, testbed_time ? 6 : 3); }

void counts_attrs(std::string& out, const Tally& t) {
  out += " tests=\"" + std::to_string(t.tests) + "\" failures=\"" + std::to_string(t.failures) + "\" errors=\"" +
         std::to_string(t.errors) + "\" skipped=\"" + std::to_string(t.skipped) + "\"";
}

void property(std::string& out, std::string_view indent, std::string_view name, std::string_view value) {
  out += indent;
  out += "<property name=\"" + xml_attr(name) + "\" value=\"" + xml_attr(value) + "\"/>\n";
}

// One line per piece of evidence, everything a reader needs to find the packet in Wireshark.
std::string evidence_line(const Evidence& e) {
  std::string s = "    evidence: ";
  s += e.pcap.empty() ? "(no pcap)" : e.pcap;
  if (e.packet_index >= 0) s += " frame " + std::to_string(e.packet_index + 1);  // Wireshark's number
  if (e.ts_ns != 0) s += " at " + std::to_string(e.ts_ns) + " ns";
  if (!e.field.empty()) s += "; field " + e.field;
  if (!e.expected.empty() || !e.observed.empty()) s += "; expected " + e.expected + ", observed " + e.observed;
  if (!e.display_filter.empty()) s += "; filter: " + e.display_filter;
  if (!e.note.empty()) s += "; " + e.note;
  return s + "\n";
}

std::string check_line(const CheckResult& ch) {
  return "[" + std::string(to_string(ch.verdict)) + "] " + ch.name + " (" + ch.type + "): " + ch.message + "\n";
}

// The body of <failure>/<error>/<skipped>: the clause line, then every check with the case's
// verdict, with its evidence; the case message when no check carries that verdict.
std::string outcome_body(const CaseResult& c, Verdict wanted) {
  std::string body = "clauses: " + join(c.clauses, ", ") + " (" + c.level + ")\n";
  bool any = false;
  for (const auto& ch : c.checks) {
    if (ch.verdict != wanted) continue;
    any = true;
    body += check_line(ch);
    for (const auto& e : ch.evidence) body += evidence_line(e);
  }
  if (!any) body += c.message + "\n";
  return body;
}

std::string expectation_note(const CaseResult& c) {
  switch (c.expectation) {
    case ExpectationOutcome::kNone: return {};
    case ExpectationOutcome::kExpected: return "[expected: " + c.expectation_reason + "] ";
    case ExpectationOutcome::kUnexpectedPass: return "[unexpected pass: remove the expectation entry] ";
    case ExpectationOutcome::kUnexpectedOther: return "[not the expected result: " + c.expectation_reason + "] ";
    case ExpectationOutcome::kExpired: return "[expectation entry expired: " + c.expectation_reason + "] ";
  }
  return {};
}

void outcome_element(std::string& out, const CaseResult& c, ConformanceProfile profile) {
  const CaseConformance o = case_conformance(c, profile);
  const std::string note = expectation_note(c) + (o.advisory ? "[advisory] " : "");
  auto element = [&](std::string_view tag, std::string_view type, const std::string& message, Verdict wanted) {
    // Only a FAIL has a finding to lead with: an INCONCLUSIVE check's rows are what it withheld.
    const std::string first = wanted == Verdict::kFail ? case_finding(c, wanted, /*with_requirements=*/true) : std::string();
    out += "      <" + std::string(tag) + " message=\"" + xml_attr(note + (first.empty() ? "" : first + "; ") + message) + "\"";
    if (!type.empty()) out += " type=\"" + xml_attr(type) + "\"";
    out += ">" + xml_text(outcome_body(c, wanted)) + "</" + std::string(tag) + ">\n";
  };
  switch (outcome_of(c, profile)) {
    case Outcome::kPassed: return;
    case Outcome::kFailure:
      if (c.verdict == Verdict::kInconclusive) {
        element("failure", "not-judged", "INCONCLUSIVE: " + c.message, Verdict::kInconclusive);
      } else if (c.verdict == Verdict::kFail) {
        element("failure", o.non_conformance ? "non-conformance" : o.advisory ? "advisory" : "expected", c.message,
                Verdict::kFail);
      } else {
        element("failure", "unexpected-pass", "the case passed: " + c.message, Verdict::kFail);
      }
      return;
    case Outcome::kError:
      if (c.verdict == Verdict::kError) {
        element("error", "ERROR", c.message, Verdict::kError);
      } else {
        element("error", "expired-expectation", c.message, Verdict::kError);
      }
      return;
    case Outcome::kSkipped:
      element("skipped", "", std::string(to_string(c.verdict)) + ": " + c.message, c.verdict);
      return;
  }
}

void testcase(std::string& out, const CaseResult& c, const RunResult& run, const std::string& classname) {
  const RunMetadata& meta = run.meta;
  out += "    <testcase classname=\"" + xml_attr(classname) + "\" name=\"" + xml_attr(c.id) + "\"";
  out += " time=\"" + seconds_attr(case_ms(c), !c.wall_ms) + "\">\n      <properties>\n";
  constexpr std::string_view ind = "        ";
  for (const auto& cl : c.clauses) property(out, ind, "clause", cl);
  property(out, ind, "level", c.level);
  property(out, ind, "basis", to_string(c.basis));
  property(out, ind, "behaviour", c.behaviour);
  property(out, ind, "seed", std::to_string(c.seed));
  property(out, ind, "dut", meta.dut);
  if (meta.peer) property(out, ind, "peer", *meta.peer);
  property(out, ind, "testbed", meta.testbed);
  property(out, ind, "title", c.title);
  property(out, ind, "file", c.file);
  property(out, ind, "verdict", to_string(c.verdict));
  property(out, ind, "sim_time_ns", std::to_string(c.sim_time_ns));
  if (c.expectation != ExpectationOutcome::kNone) {
    property(out, ind, "expectation", expectation_outcome_name(c.expectation));
    property(out, ind, "expectation_reason", c.expectation_reason);
    property(out, ind, "expectation_link", c.expectation_link);
  }
  out += "      </properties>\n";
  outcome_element(out, c, run.profile);
  std::string log;
  for (const auto& ch : c.checks) log += check_line(ch);
  for (const auto& f : c.evidence_files) log += "evidence file: " + f + "\n";
  if (!log.empty()) out += "      <system-out>" + xml_text(log) + "</system-out>\n";
  out += "    </testcase>\n";
}

}  // namespace

std::string render_junit_xml(const RunResult& run) {
  // Areas in name order, cases in run order within an area.
  std::map<std::string, std::vector<const CaseResult*>> by_area;
  for (const auto& c : run.cases) by_area[c.area.empty() ? "none" : c.area].push_back(&c);

  Tally all;
  for (const auto& c : run.cases) all.add(c, run.profile);
  all.tests += run.not_run.size();
  all.skipped += run.not_run.size();
  const RunOutcome outcome = run_outcome(run);
  constexpr std::string_view kNotRunSuite = "mrc.not-run";
  auto suite_properties = [&](std::string& out) {
    constexpr std::string_view ind = "      ";
    property(out, ind, "suite_version", run.meta.suite_version);
    property(out, ind, "git_hash", run.meta.git_hash);
    property(out, ind, "wire", run.meta.wire);
    property(out, ind, "dut", run.meta.dut);
    property(out, ind, "dut_capabilities", join(run.meta.dut_capabilities, ","));
    if (run.meta.peer) property(out, ind, "peer", *run.meta.peer);
    property(out, ind, "testbed", run.meta.testbed);
    property(out, ind, "seed", std::to_string(run.meta.seed));
    property(out, ind, "command_line", run.meta.command_line);
    property(out, ind, "interrupted", run.interrupted ? "true" : "false");
    if (!run.interrupt_reason.empty()) {
      property(out, ind, "interrupt_reason", run.interrupt_reason);
      property(out, ind, "not_run", std::to_string(run.not_run.size()));
    }
    property(out, ind, "conformant", outcome.conformant ? "true" : "false");
    property(out, ind, "profile", to_string(run.profile));
    property(out, ind, "strict", run.strict ? "true" : "false");
    property(out, ind, "conformance", conformance_line(outcome));
    if (run.meta.started_at) property(out, ind, "started_at", *run.meta.started_at);
  };

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mrc-conform\"";
  counts_attrs(out, all);
  out += " time=\"" +
         (run.meta.wall_seconds ? seconds_attr(*run.meta.wall_seconds * 1000.0, false) : seconds_attr(all.ms, all.testbed_time)) +
         "\">\n";
  for (const auto& [area, cases] : by_area) {
    Tally t;
    for (const auto* c : cases) t.add(*c, run.profile);
    const std::string classname = "mrc." + area;
    out += "  <testsuite name=\"" + xml_attr(classname) + "\"";
    counts_attrs(out, t);
    out += " time=\"" + seconds_attr(t.ms, t.testbed_time) + "\">\n    <properties>\n";
    suite_properties(out);
    out += "    </properties>\n";
    for (const auto* c : cases) testcase(out, *c, run, classname);
    out += "  </testsuite>\n";
  }
  if (!run.not_run.empty()) {
    Tally t;
    t.tests = t.skipped = run.not_run.size();
    out += "  <testsuite name=\"" + std::string(kNotRunSuite) + "\"";
    counts_attrs(out, t);
    out += " time=\"0.000000\"";
    out += ">\n    <properties>\n";
    suite_properties(out);
    out += "    </properties>\n";
    const std::string skipped = "not run: " + (run.interrupt_reason.empty() ? "interrupted" : run.interrupt_reason);
    for (const auto& id : run.not_run) {
      out += "    <testcase classname=\"" + std::string(kNotRunSuite) + "\" name=\"" + xml_attr(id) +
             "\" time=\"0.000000\">\n      <skipped message=\"" + xml_attr(skipped) + "\"/>\n    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace mrc::harness
