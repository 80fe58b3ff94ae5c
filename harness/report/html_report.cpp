// index.html: one self-contained page (inline CSS and SVG, one small inline script for the case
// filter, no external URL) that opens offline from the report folder. Sections, in order: run
// header with the conformance panel and summary counts, findings (failures first), conformance by
// level and basis, per-area table, requirement coverage matrix (a row per requirement, id
// "req-<ID>", which every case's clause ids link to), edge audit, case index (failures first,
// filterable), one section per case.
#include <algorithm>

#include "harness/report/html_edges.hpp"
#include "harness/report/html_parts.hpp"
#include "harness/report/report.hpp"
#include "harness/report/run_outcome.hpp"
#include "harness/report/run_summary.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness {
namespace {

using html::badge;
using html::verdict_class;

// The exit status of run_outcome.hpp, in words.
std::string exit_text(int code) {
  switch (code) {
    case 0: return "exit 0: conformant; nothing INCONCLUSIVE or unexpected (advisories allowed)";
    case 1: return "exit 1: not conformant, a case INCONCLUSIVE, a stale expectation, or a FAIL under --strict";
    case 3: return "exit 3: harness error, expired expectation or partial run";
    default: return "exit " + std::to_string(code);
  }
}

// "87.5% (7 of 8)", or "n/a" when there is nothing to count.
std::string percent_phrase(std::size_t part, std::size_t total, const std::string& percent) {
  if (total == 0) return "n/a";
  return percent + "% (" + std::to_string(part) + " of " + std::to_string(total) + ")";
}

std::string with_percent_sign(const std::string& percent) { return percent == "n/a" ? percent : percent + "%"; }

void meta_row(std::string& out, std::string_view name, const std::string& value_html) {
  out += "<dt>" + std::string(name) + "</dt><dd>" + value_html + "</dd>";
}

void header(std::string& out, const RunResult& run, const RunOutcome& outcome, const CoverageSummary& cov) {
  const auto& m = run.meta;
  out += "<header class=\"top\" id=\"summary\">\n<div class=\"title-row\"><h1>MRC conformance report</h1>"
         "<span class=\"dut\">DUT <strong>" +
         html_escape(m.dut) + "</strong>" +
         (m.peer ? " against peer <strong id=\"peer\">" + html_escape(*m.peer) + "</strong>" : std::string()) +
         " on testbed <strong>" + html_escape(m.testbed) + "</strong></span></div>\n";
  if (run.interrupted) {
    out += "<div class=\"banner partial\" id=\"partial-run\" role=\"alert\"><strong>Partial run.</strong> The run "
           "was interrupted before every case finished";
    if (!run.interrupt_reason.empty()) {
      out += " (<span id=\"interrupt-reason\">" + html_escape(run.interrupt_reason) + "</span>)";
    }
    out += "; " + std::to_string(run.cases.size()) + " case(s) are reported below, ";
    if (run.not_run.empty()) {
      out += "the rest did not run.";
    } else {
      out += "<span id=\"not-run-count\">" + std::to_string(run.not_run.size()) +
             "</span> selected case(s) did not run: " + html::join_escaped(run.not_run) + ".";
    }
    out += " Do not use this report as a verdict.</div>\n";
  }
  html::conformance_panel(out, outcome);
  const VerdictCounts all = count_all(run);
  out += "<div class=\"counts\">";
  for (auto v : kReportVerdicts) {
    const std::size_t n = all.of(v);
    out += "<div class=\"count v-" + std::string(verdict_class(v)) + (n == 0 ? " zero" : "") + "\"><span class=\"n\">" +
           std::to_string(n) + "</span><span class=\"label\">" + std::string(to_string(v)) + "</span></div>";
  }
  out += "<div class=\"count total\"><span class=\"n\">" + std::to_string(all.total) +
         "</span><span class=\"label\">CASES</span></div></div>\n";
  const int code = exit_code(run);
  out += "<p class=\"run-status\">Run: <strong class=\"" + std::string(code == 0 ? "ok" : "bad") + "\">" +
         html_escape(exit_text(code)) + "</strong>";
  if (code != 0) out += " <span class=\"exit-why\">(" + html_escape(exit_causes(run)) + ")</span>";
  if (all.expected > 0) out += " &middot; " + std::to_string(all.expected) + " expected (known) result(s)";
  out += " &middot; MUST coverage " + percent_phrase(cov.must_covered, cov.must, cov.must_covered_percent()) + "</p>\n";
  html::bridge_health(out, run);
  out += "<dl class=\"run-meta\">";
  meta_row(out, "DUT capabilities", html::join_escaped(m.dut_capabilities));
  meta_row(out, "Seed", std::to_string(m.seed));
  meta_row(out, "Suite version", html_escape(m.suite_version) + " <span class=\"dim\">(git " +
                                     html_escape(m.git_hash) + ")</span>");
  meta_row(out, "Wire", m.wire.empty() ? std::string("not recorded (results before schema 1.4)") : html_escape(m.wire));
  meta_row(out, "Command line", "<code>" + html_escape(m.command_line) + "</code>");
  if (m.started_at) meta_row(out, "Started", html_escape(*m.started_at));
  if (m.wall_seconds) meta_row(out, "Wall time", html_escape(format_number(*m.wall_seconds)) + " s");
  out += "</dl>\n</header>\n";
}

std::string count_cell(std::size_t n) {
  return n == 0 ? "<td class=\"num zero\">0</td>" : "<td class=\"num\">" + std::to_string(n) + "</td>";
}

void areas_table(std::string& out, const RunResult& run) {
  out += "<section id=\"areas\"><h2>Areas</h2>\n<table class=\"areas\"><thead><tr><th>area</th><th class=\"num\">"
         "cases</th>";
  for (auto v : kReportVerdicts) out += "<th class=\"num\">" + badge(v) + "</th>";
  out += "<th class=\"num\">expected</th></tr></thead><tbody>\n";
  for (const auto& a : count_by_area(run)) {
    out += "<tr><td class=\"area\">" + html_escape(a.area) + "</td>" + count_cell(a.counts.total);
    for (auto v : kReportVerdicts) out += count_cell(a.counts.of(v));
    out += count_cell(a.counts.expected) + "</tr>\n";
  }
  const VerdictCounts all = count_all(run);
  out += "<tr><th>all</th>" + count_cell(all.total);
  for (auto v : kReportVerdicts) out += count_cell(all.of(v));
  out += count_cell(all.expected) + "</tr>\n</tbody></table></section>\n";
}

void coverage_table(std::string& out, const CoverageMatrix& m, const html::Anchors& anchors) {
  const auto& s = m.summary;
  out += "<section id=\"coverage\"><h2>Requirement coverage</h2>\n";
  if (s.requirements > 0) {
    out += "<p class=\"coverage-summary\"><strong>" + std::to_string(s.covered) + " of " +
           std::to_string(s.requirements) + "</strong> requirements have at least one case (" +
           with_percent_sign(s.covered_percent()) + "); <strong>" + std::to_string(s.must_covered) + " of " + std::to_string(s.must) +
           "</strong> MUST requirements (" + with_percent_sign(s.must_covered_percent()) + "), " + std::to_string(s.must_passed) +
           " of them passed in this run.</p>\n";
  }
  if (!s.uncovered_must.empty()) {
    out += "<p class=\"warn\" id=\"uncovered-must\">MUST requirements without any case: ";
    for (std::size_t i = 0; i < s.uncovered_must.size(); ++i) {
      out += (i ? ", " : "") + std::string("<code>") + html_escape(s.uncovered_must[i]) + "</code>";
    }
    out += "</p>\n";
  }
  if (m.rows.empty()) {
    out += "<p class=\"note\">This run carries no requirement index.</p></section>\n";
    return;
  }
  out += "<table class=\"coverage\"><thead><tr><th>requirement</th><th>level</th><th>basis</th>"
         "<th>requirement text</th><th>covering cases</th><th>verdict</th></tr></thead><tbody>\n";
  for (const auto& row : m.rows) {
    const auto& req = *row.requirement;
    std::string cls = row.is_must() ? "req req-must" : "req";
    if (!row.covered()) cls += row.is_must() ? " uncovered uncovered-must" : " uncovered";
    out += "<tr class=\"" + cls + "\" id=\"req-" + html_escape(req.id) + "\"><td class=\"req-id\"><code>" + html_escape(req.id) + "</code></td><td>" +
           html_escape(req.level) + "</td><td class=\"basis basis-" + std::string(to_string(req.basis)) + "\">" +
           std::string(to_string(req.basis)) + "</td><td class=\"req-text\">" + html_escape(req.text);
    if (!req.source.empty()) out += "<br><span class=\"dim\">" + html_escape(req.source) + "</span>";
    out += "</td><td>";
    for (const auto& cc : row.cases) {
      const std::string anchor = anchors.of_id(cc.id);
      out += "<span class=\"covering\">";
      out += anchor.empty() ? "<code>" + html_escape(cc.id) + "</code>"
                            : "<a href=\"#" + anchor + "\"><code>" + html_escape(cc.id) + "</code></a>";
      out += " " + (cc.verdict ? badge(*cc.verdict) : html::not_run_badge()) + "</span>";
    }
    if (row.cases.empty()) out += "<span class=\"dim\">none</span>";
    out += "</td><td>";
    out += !row.covered() ? html::uncovered_badge() : row.verdict ? badge(*row.verdict) : html::not_run_badge();
    out += "</td></tr>\n";
  }
  out += "</tbody></table></section>\n";
}

// Failures first (html::failure_rank), run order within a rank; each row carries what the filter
// reads (data-verdict, -area, -tags, -clauses: space-separated words).
void case_index(std::string& out, const RunResult& run, const html::Anchors& anchors) {
  html::case_filter(out, run);
  out += "<table class=\"case-index\"><thead><tr><th>case</th><th>area</th><th>level</th><th>basis</th><th>verdict</th>"
         "<th>title / message</th></tr></thead><tbody>\n";
  std::vector<std::size_t> order(run.cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return html::failure_rank(run.cases[a], case_conformance(run.cases[a], run.profile)) <
           html::failure_rank(run.cases[b], case_conformance(run.cases[b], run.profile));
  });
  auto words = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& w : v) s += (s.empty() ? "" : " ") + w;
    return html_escape(s);
  };
  for (const std::size_t i : order) {
    const auto& c = run.cases[i];
    const CaseConformance o = case_conformance(c, run.profile);
    const std::string row_class = o.non_conformance ? " class=\"non-conformance\"" : o.advisory ? " class=\"advisory\"" : "";
    out += "<tr" + row_class + " data-verdict=\"" + std::string(to_string(c.verdict)) + "\" data-area=\"" +
           html_escape(c.area) + "\" data-tags=\"" + words(c.tags) + "\" data-clauses=\"" + words(c.clauses) + "\"><td><a class=\"case-id\" href=\"#" + anchors.of_index(i) + "\">" + html_escape(c.id) +
           "</a></td><td>" + html_escape(c.area) + "</td><td>" + html_escape(c.level) + "</td><td>" +
           std::string(to_string(c.basis)) + "</td><td>" + html::case_badge(c, o) + html::outcome_tag(o);
    if (c.expectation != ExpectationOutcome::kNone) {
      out += " <span class=\"dim\">" + std::string(expectation_outcome_name(c.expectation)) + "</span>";
    }
    out += "</td><td>" + html_escape(c.title);
    if (!c.message.empty()) out += "<br><span class=\"dim\">" + html_escape(c.message) + "</span>";
    out += "</td></tr>\n";
  }
  out += "</tbody></table>\n";
  html::case_filter_script(out);
}

}  // namespace

std::string render_html(const RunResult& run) {
  const CoverageMatrix coverage = build_coverage(run);
  const RunOutcome outcome = run_outcome(run);
  const html::Anchors anchors(run);
  std::string out;
  out.reserve(64 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"mrc-conform\">\n<title>";
  out += run.interrupted ? "[partial] " : "";
  out += "MRC conformance report: " + html_escape(run.meta.dut) + "</title>\n<style>";
  out += html::stylesheet();
  out += "</style>\n</head>\n<body>\n";
  header(out, run, outcome, coverage.summary);
  out += "<nav class=\"toc\"><a href=\"#summary\">Summary</a><a href=\"#findings\">Findings</a><a href=\"#outcome\">Conformance</a><a href=\"#areas\">Areas</a>"
         "<a href=\"#coverage\">Coverage</a><a href=\"#cases\">Cases</a></nav>\n<main>\n";
  html::findings_list(out, run, anchors);
  html::outcome_table(out, outcome);
  areas_table(out, run);
  coverage_table(out, coverage, anchors);
  html::render_edges(out, run, anchors);
  out += "<section id=\"cases\"><h2>Cases</h2>\n";
  if (run.cases.empty()) {
    out += "<p class=\"note\">No case ran.</p>\n";
  } else {
    case_index(out, run, anchors);
    for (std::size_t i = 0; i < run.cases.size(); ++i) {
      html::render_case(out, run.cases[i], case_conformance(run.cases[i], run.profile), anchors.of_index(i));
    }
  }
  out += "</section>\n</main>\n<footer>Generated by mrc-conform " + html_escape(run.meta.suite_version) + " (git " +
         html_escape(run.meta.git_hash) + ") from " + std::string(kResultsJsonName) +
         " (schema " + std::string(results_schema_id(run)) + "). Evidence links are relative to this file; open the pcaps "
         "in Wireshark and paste the display filter.</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace mrc::harness
