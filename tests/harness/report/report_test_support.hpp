// Shared fixtures of the report tests: a synthetic RunResult that exercises every verdict,
// expectation outcome, chart kind, evidence and the coverage matrix (with an uncovered MUST and a
// covering case that did not run); a hostile variant; field-by-field equality; and small helpers
// to run external tools with a bounded wait.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/verdict/verdict.hpp"
#include "reference/wire/wire_revision.hpp"

namespace mrc::harness::test {

// A chart of `kind` with its title and axis labels, no data yet.
inline Chart chart_head(Chart::Kind kind, std::string title, std::string x_label, std::string y_label) {
  Chart c;
  c.kind = kind;
  c.title = std::move(title);
  c.x_label = std::move(x_label);
  c.y_label = std::move(y_label);
  return c;
}

inline Chart plane_bars(std::vector<double> observed) {
  Chart c = chart_head(Chart::Kind::kBars, "Packets per plane", "plane", "packets");
  c.labels = {"plane 0", "plane 1", "plane 2", "plane 3"};
  c.values = std::move(observed);
  c.expected = {2500, 2500, 2500, 2500};
  return c;
}

inline Chart failover_timeline() {
  Chart c = chart_head(Chart::Kind::kTimeline, "Delivered packets per EV around the link fault", "virtual time",
                       "packets per 100 us");
  for (int i = 0; i < 30; ++i) {
    const double t = 100000.0 * i;
    c.labels.push_back("ev 3");
    c.values.push_back(t);
    c.expected.push_back(t < 1500000 ? 40 : 0);  // the EV behind the failed link stops
    c.labels.push_back("ev 7");
    c.values.push_back(t);
    c.expected.push_back(t < 1500000 ? 40 : (t < 2200000 ? 40 + (t - 1500000) / 17500 : 80));
  }
  c.markers = {1500000, 2200000, 2500000};  // fault, observed recovery, bound
  return c;
}

// A timing check's chart: the duration per trial (one censored) against the bound judged.
inline Chart latency_chart() {
  Chart c = chart_head(Chart::Kind::kLatency, "stop_using_failed per trial against its bound", "trial start", "stop_using_failed");
  const double starts[4] = {1.5e6, 3.5e6, 5.5e6, 7.5e6}, took[4] = {420e3, 655e3, 1210e3, 980e3};
  for (int i = 0; i < 4; ++i) {
    c.labels.emplace_back(i == 3 ? "censored trial (at least)" : "trial");
    c.values.push_back(starts[i]);
    c.expected.push_back(took[i]);
  }
  c.limits = {1e6};
  return c;
}

// A failover timeline of three trials: the third retransmits late, past its bound.
inline Chart failover_events() {
  Chart c = chart_head(Chart::Kind::kEvents, "failover timeline per trial, from its fault", "time since the fault", "trial");
  auto add = [&](double row, const char* what, double at) {
    c.labels.emplace_back(what);
    c.values.push_back(at);
    c.expected.push_back(row);
  };
  for (int row = 0; row < 3; ++row) {
    const double late = row == 2 ? 2.5 : 1.0;
    add(row, "fault", 0);
    add(row, "first loss on a failed EV", 12e3);
    add(row, "last data on a failed EV", 150e3 * late);
    add(row, "first retransmission on a healthy EV", 420e3 * late);
    add(row, "failed EV reported ASSUMED_BAD", 400e3 * late);
    add(row, "bound (from the span's start)", 12e3 + 1e6 / 1.4);
  }
  return c;
}

// The EV raster of a failing EV rule at 256 EVs over 8 planes: EV 0x2a keeps carrying data
// after the fault at 2 ms.
inline Chart ev_raster_256() {
  Chart c = chart_head(Chart::Kind::kRaster, "data packets per EV over time (a cell: the EV carried data in that interval)",
                       "time", "EV, by plane");
  for (int ev = 0; ev < 256; ++ev) {
    c.labels.push_back("ev 0x" + std::to_string(ev));
    c.groups.push_back("plane " + std::to_string(ev / 32 + 1));
  }
  for (int ev = 0; ev < 256; ++ev) {
    for (int bin = 0; bin < 16; ++bin) {
      const bool failed_plane = ev / 32 == 1;
      if (failed_plane && bin >= 8 && ev != 42) continue;  // the plane failed at bin 8
      if ((ev + bin) % 3 == 0) continue;
      c.values.push_back(250e3 * bin);
      c.expected.push_back(ev);
    }
  }
  c.markers = {2e6};
  return c;
}

// A per-EV histogram at 256 EVs, grouped by plane and busiest first within each plane.
inline Chart ev_histogram_256() {
  Chart c = chart_head(Chart::Kind::kBars, "data packets per ev: observed vs uniform", "ev", "packets");
  for (int plane = 0; plane < 8; ++plane) {
    for (int k = 0; k < 32; ++k) {
      c.labels.push_back("ev 0x" + std::to_string(plane * 32 + k) + " (port " + std::to_string(plane + 1) + ")");
      c.values.push_back(plane == 3 ? 40.0 - k / 4 : 64.0 - k / 8);
      c.expected.push_back(60);
      c.groups.push_back("plane " + std::to_string(plane + 1));
    }
  }
  return c;
}

inline Evidence ev(std::string pcap, std::int64_t index, std::string field, std::string expected,
                   std::string observed, std::string note = {}) {
  Evidence e;
  e.pcap = std::move(pcap);
  e.packet_index = index;
  e.ts_ns = index >= 0 ? static_cast<std::uint64_t>(index) * 1250 + 3000 : 0;
  e.field = std::move(field);
  e.expected = std::move(expected);
  e.observed = std::move(observed);
  e.display_filter = index >= 0 ? "frame.number == " + std::to_string(index + 1) : "";
  e.note = std::move(note);
  return e;
}

inline CaseResult make_case(std::string id, std::string area, Verdict v, std::string level = "MUST") {
  CaseResult c;
  c.id = std::move(id);
  c.area = std::move(area);
  c.title = "Case " + c.id;
  c.file = "cases/" + c.area + "/" + c.id + ".yaml";
  c.level = std::move(level);
  c.behaviour = c.id.find("-i-") != std::string::npos ? "invalid" : c.id.find("-o-") != std::string::npos ? "inopportune" : "valid";
  c.seed = 42;
  c.verdict = v;
  c.sim_time_ns = 5000000;
  return c;
}

// Every verdict, every expectation outcome, every chart kind, evidence with and without a packet,
// NaN/inf metrics, markup and control characters in text, and a coverage matrix with an
// uncovered MUST, an uncovered MAY and a covering case that is not in the run.
inline RunResult sample_run() {
  RunResult r;
  r.meta.suite_version = "0.1.0";
  r.meta.git_hash = "8f4f26c0ab12";
  r.meta.wire = std::string(wire::kWireRevision);
  r.meta.dut = "reference:spray-single-ev";
  r.meta.dut_capabilities = {"stev", "udp-ev", "srv6", "trim"};
  r.meta.testbed = "sim:mini";
  r.meta.seed = 42;
  r.meta.command_line = "mrc-conform run --dut reference:spray-single-ev --seed 42 --out reports/latest";

  CaseResult pass = make_case("spray-v-001", "spray", Verdict::kPass);
  pass.title = "Data packets are sprayed per packet over every plane";
  pass.clauses = {"SPRAY-PER-PACKET-EV", "SPRAY-UNIFORM-PLANES"};
  pass.basis = Basis::kModel;  // SPRAY-UNIFORM-PLANES rests on the wire model
  pass.tags = {"smoke", "spraying"};
  pass.message = "all 2 checks passed";
  {
    CheckResult ch{"distribution", "distribution/plane", Verdict::kPass, "chi-square p=0.62 >= alpha 0.001", {}, {}, {}};
    ch.metrics = {{"p_value", 0.6213}, {"n", 10000}, {"effect_size", 0.0123}, {"alpha", 0.001}};
    ch.charts.push_back(plane_bars({2480, 2533, 2491, 2496}));
    pass.checks.push_back(ch);
    pass.checks.push_back({"invariant", "invariant/ev-in-profile", Verdict::kPass, "every EV is in the profile", {}, {}, {}});
  }
  pass.evidence_files = {"evidence/spray-v-001/tap0.pcapng"};
  r.cases.push_back(pass);

  CaseResult fail = make_case("spray-v-002", "spray", Verdict::kFail);
  fail.title = "Every data packet of a message uses a different EV";
  fail.clauses = {"SPRAY-PER-PACKET-EV"};
  fail.message = "distribution/ev: 1 of 16 EVs carried 100% of packets (p < 1e-300)";
  {
    CheckResult ch{"distribution", "distribution/ev", Verdict::kFail, "all packets on EV 0x3 <script>alert(1)</script> & \"q\" 'a'", {}, {}, {}};
    ch.metrics = {{"p_value", 0.0}, {"n", 4096}, {"effect_size", 3.87}, {"p_undefined", std::nan("")},
                  {"bound", INFINITY}, {"floor", -INFINITY}, {"gap_ns", 1234567.0}};
    ch.evidence.push_back(ev("evidence/spray-v-002/dut0.pcapng", 41, "udp.sport", "49152..65535 (hashed EV)", "4791"));
    ch.evidence.push_back(ev("evidence/spray-v-002/dut0.pcapng", 42, "mrc.ev", "!= 0x3", "0x3", "same EV as packet 41"));
    ch.evidence.push_back(ev("", -1, "", "", "", "16 EVs configured, 1 used"));
    Chart bars = plane_bars({10000, 0, 0, 0});
    bars.title = "Packets per EV";
    ch.charts.push_back(bars);
    ch.charts.push_back(ev_histogram_256());
    fail.checks.push_back(ch);
    CheckResult rule{"invariant", "invariant/no_data_on_failed_ev", Verdict::kFail,
                     "no_data_on_failed_ev: 9 violations in 3812 data packets", {}, {}, {}};
    rule.charts.push_back(ev_raster_256());
    fail.checks.push_back(rule);
    fail.checks.push_back({"golden", "golden/headers", Verdict::kPass, "headers match the golden", {}, {}, {}});
  }
  fail.evidence_files = {"evidence/spray-v-002/dut0.pcapng", "evidence/spray-v-002/tap 1.pcapng"};
  r.cases.push_back(fail);

  CaseResult known = make_case("failover-v-001", "failover", Verdict::kFail);
  known.title = "Traffic moves off a failed plane within the bound";
  known.clauses = {"FAILOVER-DETECT-TIME"};
  known.message = "recovery took 700 us, bound 1 ms; but EV 3 kept 1 packet after the fault";
  known.expectation = ExpectationOutcome::kExpected;
  known.expectation_reason = "late retransmit on the failed EV, fixed in fw 2.1";
  known.expectation_link = "https://bugs.example.invalid/mrc/123";
  {
    CheckResult ch{"timing", "timing/failover", Verdict::kFail, "1 packet on EV 3 after the fault", {}, {}, {}};
    ch.metrics = {{"failover_ns", 700000}, {"bound_ns", 1000000}, {"late_packets", 1}};
    ch.evidence.push_back(ev("evidence/failover-v-001/tap0.pcapng", 1201, "mrc.ev", "not 3 after t=1.5 ms", "3"));
    ch.charts.push_back(failover_timeline());
    ch.charts.push_back(latency_chart());
    ch.charts.push_back(failover_events());
    known.checks.push_back(ch);
  }
  r.cases.push_back(known);

  CaseResult unsupported = make_case("srcroute-v-001", "srcroute", Verdict::kUnsupported);
  unsupported.clauses = {"SRCROUTE-SRH-SEGMENTS"};
  unsupported.message = "the DUT does not declare capability srv6-usid";
  r.cases.push_back(unsupported);

  CaseResult inconclusive = make_case("reliab-v-001", "reliab", Verdict::kInconclusive);
  inconclusive.clauses = {"RELIAB-SACK-BITMAP"};
  inconclusive.basis = Basis::kModel;
  inconclusive.message = "capture dropped 3 packets on tap0: cannot judge";
  {
    CheckResult ch{"invariant", "invariant/sack", Verdict::kInconclusive, "capture integrity: 3 drops", {}, {}, {}};
    ch.metrics = {{"capture_drops", 3}};
    inconclusive.checks.push_back(ch);
  }
  r.cases.push_back(inconclusive);

  CaseResult error = make_case("invalid-i-001", "invalid", Verdict::kError);
  error.clauses = {"INVALID-DROP-BAD-OPCODE"};
  error.message = "DUT hung: no completion within 500 ms\nbinding: timeout";
  error.checks.push_back({"golden", "golden/drop", Verdict::kError, "golden file missing: pcaps/invalid/x.pcapng", {}, {}, {}});
  r.cases.push_back(error);

  CaseResult stale = make_case("evctl-o-001", "evctl", Verdict::kPass, "SHOULD");
  stale.clauses = {"EVCTL-DENY-WHILE-BUSY"};
  stale.message = "passed";
  stale.expectation = ExpectationOutcome::kUnexpectedPass;
  stale.expectation_reason = "denied EV reused";
  stale.expectation_link = "https://bugs.example.invalid/mrc/7";
  stale.checks.push_back({"field", "field/state", Verdict::kPass, "state DENIED", {}, {}, {}});
  r.cases.push_back(stale);

  CaseResult hostile = make_case("reorder-v-001", "reorder", Verdict::kFail);
  hostile.title = "<script>alert('x')</script> & \"quoted\" \x01\x07\x1b[31m";
  hostile.clauses = {"REORDER-PLACE-BY-RETH"};
  hostile.message = "]]></failure><script>evil()</script>\ttab\r\nCRLF \x7f del \xc2\x85 nel";
  hostile.tags = {"a&b", "<tag>"};
  {
    CheckResult ch{"field", "field/<psn>", Verdict::kFail, "expected \"<1>\" & got '2'", {}, {}, {}};
    ch.evidence.push_back(ev("javascript:alert(1)", 0, "bth.psn\"><b>", "<1>", "2\x00x", "\x02note"));
    ch.evidence.push_back(ev("/etc/passwd", 1, "f", "e", "o"));
    ch.metrics = {{"a/b~c", 1.5}};
    Chart c = plane_bars({1, 2, 3});  // one observed value short
    c.title = "</svg><script>x</script>";
    c.labels.push_back("<label & more>");
    ch.charts.push_back(c);
    hostile.checks.push_back(ch);
  }
  hostile.evidence_files = {"../outside.pcapng", "evidence/r\"e<o>r&d'er.pcapng"};
  r.cases.push_back(hostile);

  r.requirements = {
      {"SPRAY-PER-PACKET-EV", "Each data packet of a QP is sent on an EV chosen per packet", "MUST", "mrc_ctl.h EV spraying",
       {"spray-v-001", "spray-v-002"}},
      {"SPRAY-UNIFORM-PLANES", "Packets spread evenly over the planes", "SHOULD", "wire model W11", {"spray-v-001"}},
      {"FAILOVER-DETECT-TIME", "Traffic leaves a failed plane within the bound", "MUST", "OCP MRC 1.0 failover",
       {"failover-v-001"}},
      {"SRCROUTE-SRH-SEGMENTS", "SRH segments left is decremented <per hop> & \"checked\"", "MUST", "RFC 8754 \xc2\xa7" "2",
       {"srcroute-v-001"}},
      {"RELIAB-SACK-BITMAP", "The SACK bitmap marks received PSNs", "MUST", "wire model W12",
       {"reliab-v-001", "reliab-v-009"}},
      {"INVALID-DROP-BAD-OPCODE", "A packet with an unknown opcode is dropped", "MUST", "IBTA", {"invalid-i-001"}},
      {"EVCTL-DENY-WHILE-BUSY", "An EV in use cannot be denied", "SHOULD", "mrc_ctl.h", {"evctl-o-001"}},
      {"REORDER-PLACE-BY-RETH", "Out-of-order packets are placed by their RETH", "MUST", "OCP MRC 1.0", {"reorder-v-001"}},
      {"EVCTL-DENIED-NOT-USED", "A DENIED EV is never used", "MUST", "mrc_ctl.h EV states", {}},
      {"WIRE-ICRC-ZERO", "The ICRC may be zero on a trusted fabric", "MAY", "wire model W4", {}},
      {"RELIAB-NOT-RUN", "A requirement whose only case did not run", "MUST", "wire model W16", {"reliab-v-050"}},
      {"SPRAY-EV-IN-PROFILE", "Only EVs of the active profile are used", "MUST", "mrc_ctl.h EV profiles", {"spray-v-001"}},
  };
  for (auto& req : r.requirements) {  // as cases/clauses.yaml judges them: model when the source cites it
    if (req.source.find("wire model") != std::string::npos) req.basis = Basis::kModel;
  }
  return r;
}

// The sample with the wall-clock fields set (as `--wall-clock` would).
inline RunResult sample_run_with_wall_clock() {
  RunResult r = sample_run();
  r.meta.started_at = "2026-07-01T12:00:00Z";
  r.meta.wall_seconds = 12.75;
  for (std::size_t i = 0; i < r.cases.size(); ++i) r.cases[i].wall_ms = 250.0 * static_cast<double>(i + 1);
  return r;
}

// Text no renderer may pass through unescaped: invalid UTF-8, NUL, C0/C1 controls, markup.
inline RunResult hostile_run() {
  RunResult r = sample_run();
  std::string bad = "bad utf8 \xff\xfe \xc0\xaf \xed\xa0\x80 trunc \xe2\x82";
  bad += std::string("nul[") + '\0' + "] bell\x07 <script>alert(1)</script> & \"'";
  r.meta.dut = "dut " + bad;
  r.meta.command_line = bad;
  r.cases[0].message = bad;
  r.cases[0].checks[0].message = bad;
  r.cases[1].checks[0].evidence[0].observed = bad;
  r.cases[1].checks[0].charts[0].labels[0] = bad;
  r.requirements[0].text = bad;
  return r;
}

inline bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

inline void expect_same_doubles(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(same_double(a[i], b[i])) << what << "[" << i << "]";
}

inline void expect_same_run(const RunResult& a, const RunResult& b) {
  EXPECT_EQ(a.interrupted, b.interrupted);
  EXPECT_EQ(a.interrupt_reason, b.interrupt_reason);
  EXPECT_EQ(a.not_run, b.not_run);
  EXPECT_EQ(a.profile, b.profile);
  EXPECT_EQ(a.strict, b.strict);
  EXPECT_EQ(a.meta.suite_version, b.meta.suite_version);
  EXPECT_EQ(a.meta.git_hash, b.meta.git_hash);
  EXPECT_EQ(a.meta.dut, b.meta.dut);
  EXPECT_EQ(a.meta.dut_capabilities, b.meta.dut_capabilities);
  EXPECT_EQ(a.meta.peer, b.meta.peer);
  EXPECT_EQ(a.meta.testbed, b.meta.testbed);
  EXPECT_EQ(a.meta.seed, b.meta.seed);
  EXPECT_EQ(a.meta.command_line, b.meta.command_line);
  EXPECT_EQ(a.meta.started_at, b.meta.started_at);
  EXPECT_EQ(a.meta.wall_seconds.has_value(), b.meta.wall_seconds.has_value());
  if (a.meta.wall_seconds && b.meta.wall_seconds) {
    EXPECT_TRUE(same_double(*a.meta.wall_seconds, *b.meta.wall_seconds));
  }
  ASSERT_EQ(a.requirements.size(), b.requirements.size());
  for (std::size_t i = 0; i < a.requirements.size(); ++i) {
    const auto &x = a.requirements[i], &y = b.requirements[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.text, y.text);
    EXPECT_EQ(x.level, y.level);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.basis, y.basis);
    EXPECT_EQ(x.cases, y.cases);
  }
  ASSERT_EQ(a.cases.size(), b.cases.size());
  for (std::size_t i = 0; i < a.cases.size(); ++i) {
    const auto &x = a.cases[i], &y = b.cases[i];
    SCOPED_TRACE("case " + x.id);
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.title, y.title);
    EXPECT_EQ(x.area, y.area);
    EXPECT_EQ(x.file, y.file);
    EXPECT_EQ(x.clauses, y.clauses);
    EXPECT_EQ(x.level, y.level);
    EXPECT_EQ(x.basis, y.basis);
    EXPECT_EQ(x.behaviour, y.behaviour);
    EXPECT_EQ(x.tags, y.tags);
    EXPECT_EQ(x.seed, y.seed);
    EXPECT_EQ(x.verdict, y.verdict);
    EXPECT_EQ(x.message, y.message);
    EXPECT_EQ(x.evidence_files, y.evidence_files);
    EXPECT_EQ(x.evidence_error, y.evidence_error);
    EXPECT_EQ(x.sim_time_ns, y.sim_time_ns);
    EXPECT_EQ(x.timing_budget.ns, y.timing_budget.ns);
    EXPECT_EQ(x.timing_budget.source, y.timing_budget.source);
    EXPECT_EQ(x.wall_ms.has_value(), y.wall_ms.has_value());
    if (x.wall_ms && y.wall_ms) {
      EXPECT_TRUE(same_double(*x.wall_ms, *y.wall_ms));
    }
    EXPECT_EQ(x.expectation, y.expectation);
    EXPECT_EQ(x.expectation_reason, y.expectation_reason);
    EXPECT_EQ(x.expectation_link, y.expectation_link);
    ASSERT_EQ(x.checks.size(), y.checks.size());
    for (std::size_t k = 0; k < x.checks.size(); ++k) {
      const auto &p = x.checks[k], &q = y.checks[k];
      EXPECT_EQ(p.type, q.type);
      EXPECT_EQ(p.name, q.name);
      EXPECT_EQ(p.verdict, q.verdict);
      EXPECT_EQ(p.message, q.message);
      ASSERT_EQ(p.metrics.size(), q.metrics.size());
      for (auto it = p.metrics.begin(), jt = q.metrics.begin(); it != p.metrics.end(); ++it, ++jt) {
        EXPECT_EQ(it->first, jt->first);
        EXPECT_TRUE(same_double(it->second, jt->second)) << it->first;
      }
      ASSERT_EQ(p.evidence.size(), q.evidence.size());
      for (std::size_t e = 0; e < p.evidence.size(); ++e) {
        const auto &u = p.evidence[e], &w = q.evidence[e];
        EXPECT_EQ(u.pcap, w.pcap);
        EXPECT_EQ(u.packet_index, w.packet_index);
        EXPECT_EQ(u.ts_ns, w.ts_ns);
        EXPECT_EQ(u.field, w.field);
        EXPECT_EQ(u.expected, w.expected);
        EXPECT_EQ(u.observed, w.observed);
        EXPECT_EQ(u.display_filter, w.display_filter);
        EXPECT_EQ(u.note, w.note);
      }
      ASSERT_EQ(p.charts.size(), q.charts.size());
      for (std::size_t c = 0; c < p.charts.size(); ++c) {
        const auto &u = p.charts[c], &w = q.charts[c];
        EXPECT_EQ(u.kind, w.kind);
        EXPECT_EQ(u.title, w.title);
        EXPECT_EQ(u.x_label, w.x_label);
        EXPECT_EQ(u.y_label, w.y_label);
        EXPECT_EQ(u.labels, w.labels);
        expect_same_doubles(u.values, w.values, "values");
        expect_same_doubles(u.expected, w.expected, "expected");
        expect_same_doubles(u.markers, w.markers, "markers");
      }
    }
  }
}

// The folders fresh_dir() made, removed when the test process exits (each CTest test is a
// process of its own, so nothing a test wrote outlives it).
struct FreshDirs {
  std::vector<std::filesystem::path> made;
  ~FreshDirs() {
    for (const auto& d : made) {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  }
};

// A fresh, empty folder for one test (unique per process and test name).
inline std::filesystem::path fresh_dir(const std::string& name) {
  static FreshDirs dirs;
  auto dir = std::filesystem::temp_directory_path() /
             ("mrc-report-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  dirs.made.push_back(dir);
  return dir;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

struct CommandResult {
  int status = -1;  // exit status, or -1 when the command could not run
  std::string output;  // stdout and stderr
};

// Runs `command` through the shell, bounded by `timeout <seconds>` (exit status 124 on timeout).
inline CommandResult run_command(const std::string& command, int timeout_seconds = 60) {
  CommandResult r;
  const std::string full = "timeout -k 5 " + std::to_string(timeout_seconds) + " " + command + " 2>&1";
  FILE* pipe = ::popen(full.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

inline bool have_program(const std::string& name) {
  return run_command("sh -c 'command -v " + name + "' >/dev/null", 10).status == 0;
}

// Single-quotes a path for the shell.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

inline std::filesystem::path source_path(const std::string& rel) { return std::filesystem::path(MRC_SOURCE_DIR) / rel; }

// A schema file of the source tree (harness/report/*.schema.json), parsed.
inline nlohmann::json load_schema(const std::string& rel) { return nlohmann::json::parse(read_file(source_path(rel))); }

// A violation of a JSON Schema, as python3-jsonschema (Draft 2020-12) names it: the JSON pointer
// of the instance location (the object for a missing or an unknown key) and its message.
struct SchemaViolation {
  std::string pointer;
  std::string message;
};

// Every violation of `schema` by `instance`, sorted by pointer: the schema is first checked as a
// 2020-12 schema itself (a bad schema is one violation at "(schema)"). The tests' one validator
// is the Debian package python3-jsonschema (scripts/install-deps); without it the call fails the
// test rather than passing it.
inline std::vector<SchemaViolation> validate_json(const nlohmann::json& schema, const nlohmann::json& instance) {
  static int calls = 0;
  const auto dir = fresh_dir("jsonschema-" + std::to_string(++calls));
  write_file(dir / "schema.json", schema.dump());
  write_file(dir / "doc.json", instance.dump());
  write_file(dir / "check.py", R"py(
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
try:
    jsonschema.Draft202012Validator.check_schema(schema)
except jsonschema.SchemaError as e:
    print("(schema)\t" + e.message.replace("\n", " "))
    sys.exit(0)
v = jsonschema.Draft202012Validator(schema)
rows = []
for e in v.iter_errors(json.load(open(sys.argv[2]))):
    pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in e.absolute_path)
    rows.append((pointer, e.message.replace("\n", " ")))
for pointer, message in sorted(rows):
    print(pointer + "\t" + message)
)py");
  const auto r = run_command("/usr/bin/python3 " + shell_quote((dir / "check.py").string()) + " " +
                                 shell_quote((dir / "schema.json").string()) + " " + shell_quote((dir / "doc.json").string()),
                             60);
  if (r.status != 0) {
    ADD_FAILURE() << "python3-jsonschema could not check the document (scripts/install-deps installs it): " << r.output;
    return {{"(validator)", r.output}};
  }
  std::vector<SchemaViolation> out;
  std::size_t at = 0;
  while (at < r.output.size()) {
    const auto end = r.output.find('\n', at);
    const std::string line = r.output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? r.output.size() : end + 1;
    const auto tab = line.find('\t');
    if (tab != std::string::npos) out.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return out;
}

// Schema violations one per line, for a test's failure message.
inline std::string violations_text(const std::vector<SchemaViolation>& v) {
  std::string s;
  for (const auto& x : v) s += x.pointer + ": " + x.message + "\n";
  return s;
}

}  // namespace mrc::harness::test
