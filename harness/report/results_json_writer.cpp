// results.json writer. The layout is documented field by field in results.schema.json; keys are
// emitted in a fixed order (ordered_json keeps insertion order) and doubles in nlohmann's
// shortest round-trip form, so the same RunResult always gives the same bytes.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "harness/report/report.hpp"
#include "harness/report/run_outcome.hpp"
#include "harness/report/run_summary.hpp"

namespace mrc::harness {
namespace {

using Json = nlohmann::ordered_json;

// JSON has no NaN or infinity; nlohmann would print them as null and lose them. They are written
// as the strings "NaN", "Infinity", "-Infinity" (the schema's "real" type), which the reader maps
// back, so a metric that could not be computed survives a round trip as what it was.
Json real(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

Json reals(const std::vector<double>& vs) {
  Json a = Json::array();
  for (double v : vs) a.push_back(real(v));
  return a;
}

Json strings(const std::vector<std::string>& vs) {
  Json a = Json::array();
  for (const auto& v : vs) a.push_back(v);
  return a;
}

void put_counts(Json& j, const VerdictCounts& c) {
  j["total"] = c.total;
  for (auto v : kReportVerdicts) j[std::string(to_string(v))] = c.of(v);
  j["expected"] = c.expected;
}

Json meta_json(const RunMetadata& m) {
  Json j;
  j["suite_version"] = m.suite_version;
  j["git_hash"] = m.git_hash;
  j["wire"] = m.wire;
  j["dut"] = m.dut;
  j["dut_version"] = m.dut_version;
  j["dut_capabilities"] = strings(m.dut_capabilities);
  if (m.peer) j["peer"] = *m.peer;
  j["testbed"] = m.testbed;
  j["seed"] = m.seed;
  j["command_line"] = m.command_line;
  if (m.started_at) j["started_at"] = *m.started_at;
  if (m.wall_seconds) j["wall_seconds"] = real(*m.wall_seconds);
  return j;
}

Json summary_json(const RunResult& run) {
  Json j;
  put_counts(j, count_all(run));
  j["exit_code"] = exit_code(run);
  Json areas = Json::array();
  for (const auto& a : count_by_area(run)) {
    Json row;
    row["area"] = a.area;
    put_counts(row, a.counts);
    areas.push_back(std::move(row));
  }
  j["areas"] = std::move(areas);
  return j;
}

Json basis_counts_json(const BasisCounts& b) {
  Json j;
  j["total"] = b.total();
  for (std::size_t i = 0; i < kBasisNames.size(); ++i) j[std::string(kBasisNames[i])] = b.by[i];
  return j;
}

// Conformance by the one rule of run_outcome.hpp: non-conformances and unjudged counted cases by
// basis, advisories by why they do not count, and every verdict by level and basis.
Json outcome_json(const RunOutcome& o) {
  Json j;
  j["must_failures"] = basis_counts_json(o.must_failures);
  j["must_not_judged"] = basis_counts_json(o.must_not_judged);
  Json adv;
  adv["total"] = o.advisories;
  adv["should_may"] = o.advisories_should_may;
  adv["must_outside_profile"] = o.advisories_must_outside_profile;
  j["advisories"] = std::move(adv);
  Json levels;
  for (std::size_t l = 0; l < kLevelNames.size(); ++l) {
    Json bases;
    for (std::size_t b = 0; b < kBasisNames.size(); ++b) {
      const OutcomeCell& cell = o.cell(static_cast<Level>(l), static_cast<Basis>(b));
      Json c;
      put_counts(c, cell.verdicts);
      c["non_conformance"] = cell.non_conformance;
      c["advisory"] = cell.advisory;
      bases[std::string(kBasisNames[b])] = std::move(c);
    }
    levels[std::string(kLevelNames[l])] = std::move(bases);
  }
  j["by_level"] = std::move(levels);
  return j;
}

Json coverage_json(const RunResult& run) {
  const CoverageMatrix m = build_coverage(run);
  const auto& s = m.summary;
  Json j;
  j["requirements"] = s.requirements;
  j["covered"] = s.covered;
  j["covered_percent"] = s.covered_percent();
  j["must"] = s.must;
  j["must_covered"] = s.must_covered;
  j["must_covered_percent"] = s.must_covered_percent();
  j["must_passed"] = s.must_passed;
  j["uncovered_must"] = strings(s.uncovered_must);
  Json rows = Json::array();
  for (const auto& row : m.rows) {
    const auto& req = *row.requirement;
    Json r;
    r["id"] = req.id;
    r["level"] = req.level;
    r["basis"] = to_string(req.basis);
    r["text"] = req.text;
    r["source"] = req.source;
    Json cases = Json::array();
    for (const auto& cc : row.cases) {
      Json c;
      c["id"] = cc.id;
      c["verdict"] = cc.verdict ? std::string(to_string(*cc.verdict)) : "NOT-RUN";
      cases.push_back(std::move(c));
    }
    r["cases"] = std::move(cases);
    r["verdict"] = !row.covered() ? "UNCOVERED" : row.verdict ? std::string(to_string(*row.verdict)) : "NOT-RUN";
    rows.push_back(std::move(r));
  }
  j["matrix"] = std::move(rows);
  return j;
}

Json evidence_json(const Evidence& e) {
  Json j;
  j["pcap"] = e.pcap;
  j["packet_index"] = e.packet_index;
  j["ts_ns"] = e.ts_ns;
  j["field"] = e.field;
  j["expected"] = e.expected;
  j["observed"] = e.observed;
  j["display_filter"] = e.display_filter;
  j["note"] = e.note;
  return j;
}

Json chart_json(const Chart& c) {
  Json j;
  j["kind"] = chart_kind_name(c.kind);
  j["title"] = c.title;
  j["x_label"] = c.x_label;
  j["y_label"] = c.y_label;
  j["labels"] = strings(c.labels);
  j["values"] = reals(c.values);
  j["expected"] = reals(c.expected);
  j["markers"] = reals(c.markers);
  j["limits"] = reals(c.limits);
  j["groups"] = strings(c.groups);
  return j;
}

Json check_json(const CheckResult& c) {
  Json j;
  j["type"] = c.type;
  j["name"] = c.name;
  j["verdict"] = to_string(c.verdict);
  j["message"] = c.message;
  Json metrics = Json::object();
  for (const auto& [k, v] : c.metrics) metrics[k] = real(v);
  j["metrics"] = std::move(metrics);
  Json ev = Json::array();
  for (const auto& e : c.evidence) ev.push_back(evidence_json(e));
  j["evidence"] = std::move(ev);
  Json charts = Json::array();
  for (const auto& ch : c.charts) charts.push_back(chart_json(ch));
  j["charts"] = std::move(charts);
  return j;
}

Json case_json(const CaseResult& c, ConformanceProfile profile) {
  Json j;
  j["id"] = c.id;
  j["title"] = c.title;
  j["area"] = c.area;
  j["file"] = c.file;
  j["clauses"] = strings(c.clauses);
  j["level"] = c.level;
  if (!c.fail_level.empty()) j["fail_level"] = c.fail_level;
  j["basis"] = to_string(c.basis);
  j["behaviour"] = c.behaviour;
  j["tags"] = strings(c.tags);
  j["seed"] = c.seed;
  j["verdict"] = to_string(c.verdict);
  j["advisory"] = case_conformance(c, profile).advisory;
  j["message"] = c.message;
  Json exp;
  exp["outcome"] = expectation_outcome_name(c.expectation);
  exp["reason"] = c.expectation_reason;
  exp["link"] = c.expectation_link;
  j["expectation"] = std::move(exp);
  j["sim_time_ns"] = c.sim_time_ns;
  if (c.timing_budget.ns != 0) {  // schema 1.1
    Json b;
    b["ns"] = c.timing_budget.ns;
    b["source"] = c.timing_budget.source;
    if (c.timing_budget.rate_bps != 0) b["rate_bps"] = c.timing_budget.rate_bps;  // schema 1.7
    j["timing_budget"] = std::move(b);
  }
  if (c.bridge) {  // schema 1.5, a DUT behind a real-time bridge only
    Json b;
    b["to_dut"] = c.bridge->to_dut;
    b["from_dut"] = c.bridge->from_dut;
    b["lost"] = c.bridge->lost;
    b["lag_p99_ns"] = c.bridge->lag_p99_ns;
    b["lag_max_ns"] = c.bridge->lag_max_ns;
    b["entry_p99_ns"] = c.bridge->entry_p99_ns;
    j["bridge"] = std::move(b);
  }
  if (c.wall_ms) j["wall_ms"] = real(*c.wall_ms);
  j["evidence_files"] = strings(c.evidence_files);
  if (!c.evidence_error.empty()) j["evidence_error"] = c.evidence_error;  // schema 1.3
  Json checks = Json::array();
  for (const auto& ch : c.checks) checks.push_back(check_json(ch));
  j["checks"] = std::move(checks);
  return j;
}

}  // namespace

std::string_view results_schema_id(const RunResult&) {
  // The oldest version the file conforms to: every file carries 1.6's chart fields (and 1.5's
  // meta.dut_version, 1.4's meta.wire and four bases); 1.7's timing_budget.rate_bps only comes
  // with a bridge, but one id for every file keeps a reader's refusal the same for any run.
  return kResultsSchemaId;
}

std::string render_results_json(const RunResult& run) {
  Json j;
  j["schema"] = results_schema_id(run);
  j["interrupted"] = run.interrupted;
  j["interrupt_reason"] = run.interrupt_reason;  // since 1.3: why the run ended early
  j["not_run"] = strings(run.not_run);
  const RunOutcome outcome = run_outcome(run);
  j["conformant"] = outcome.conformant;
  j["profile"] = to_string(run.profile);
  j["strict"] = run.strict;
  j["meta"] = meta_json(run.meta);
  j["summary"] = summary_json(run);
  j["outcome"] = outcome_json(outcome);
  j["coverage"] = coverage_json(run);
  if (!run.evidence.keep.empty()) {  // schema 1.3
    Json e;
    e["keep"] = run.evidence.keep;
    e["snaplen"] = run.evidence.snaplen;
    e["files"] = run.evidence.files;
    e["bytes"] = run.evidence.bytes;
    j["evidence"] = std::move(e);
  }
  Json cases = Json::array();
  for (const auto& c : run.cases) cases.push_back(case_json(c, run.profile));
  j["cases"] = std::move(cases);
  // Invalid UTF-8 from a DUT would make nlohmann throw; it is replaced by U+FFFD instead.
  std::string out = j.dump(2, ' ', false, Json::error_handler_t::replace);
  out += '\n';
  return out;
}

}  // namespace mrc::harness
