// One case section of index.html: what the case claims (clauses, level, behaviour), what it
// concluded, and for every check the evidence a stranger needs to act: expected versus observed
// per field, the pcap and packet index, the Wireshark display filter, metrics and charts.
#include <cmath>

#include "harness/report/html_parts.hpp"
#include "harness/report/run_summary.hpp"
#include "harness/report/svg_chart.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness::html {
namespace {

constexpr std::string_view kDash = "\xE2\x80\x94";

// An evidence file as a link relative to the report (or as plain text when it is not a relative
// path: the report never points outside its folder).
std::string file_link(const std::string& path) {
  if (path.empty()) return std::string(kDash);
  const std::string href = relative_href(path);
  if (href.empty()) return "<code>" + html_escape(path) + "</code>";
  return "<a class=\"file\" href=\"" + href + "\">" + html_escape(path) + "</a>";
}

std::string_view expectation_text(ExpectationOutcome o) {
  switch (o) {
    case ExpectationOutcome::kNone: return "";
    case ExpectationOutcome::kExpected: return "Expected by the DUT's expectation file";
    case ExpectationOutcome::kUnexpectedPass: return "Unexpected pass: the expectation entry is stale, remove it";
    case ExpectationOutcome::kUnexpectedOther: return "Not the result the expectation file names";
    case ExpectationOutcome::kExpired: return "The expectation entry has expired";
  }
  return "";
}

void meta_row(std::string& out, std::string_view name, const std::string& value_html) {
  out += "<dt>" + std::string(name) + "</dt><dd>" + value_html + "</dd>";
}

// Each requirement id links to its row (and text) in the coverage matrix.
std::string requirement_links(const std::vector<std::string>& ids) {
  if (ids.empty()) return std::string(kDash);
  std::string out;
  for (const auto& s : ids) out += "<a href=\"#req-" + html_escape(s) + "\"><code>" + html_escape(s) + "</code></a> ";
  out.pop_back();
  return out;
}

std::string metric_value(const std::string& name, double v) {
  std::string s = html_escape(format_number(v));
  // Durations are stored in ns; show the readable form beside the exact one.
  if (name.size() > 3 && name.ends_with("_ns") && std::isfinite(v) && std::fabs(v) >= 1000) {
    s += " <span class=\"dim\">(" + html_escape(format_duration_ns(v)) + ")</span>";
  }
  return s;
}

// <code> for a value, a dash for an empty one (an empty code box reads as a rendering glitch).
std::string code_or_dash(const std::string& s, std::string_view cls = {}) {
  if (s.empty()) return std::string(kDash);
  const std::string open = cls.empty() ? "<code>" : "<code class=\"" + std::string(cls) + "\">";
  return open + html_escape(s) + "</code>";
}

void metrics_table(std::string& out, const CheckResult& ch) {
  if (ch.metrics.empty()) return;
  out += "<table class=\"metrics\"><thead><tr><th>metric</th><th>value</th></tr></thead><tbody>";
  for (const auto& [name, v] : ch.metrics) {
    out += "<tr><td><code>" + html_escape(name) + "</code></td><td class=\"num\">" + metric_value(name, v) +
           "</td></tr>";
  }
  out += "</tbody></table>";
}

// A line to paste in a shell in the report folder: `wireshark -r FILE -Y FILTER`, each word quoted
// for the shell; "" when the row names no file or filter.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
std::string wireshark_command(const Evidence& e) {
  if (e.pcap.empty() || e.display_filter.empty()) return "";
  return "<br><code class=\"cmd\">" + html_escape("wireshark -r " + shell_quote(e.pcap) + " -Y " + shell_quote(e.display_filter)) +
         "</code>";
}

void evidence_table(std::string& out, const CheckResult& ch) {
  if (ch.evidence.empty()) return;
  out += "<table class=\"evidence\"><thead><tr><th>pcap</th><th>frame</th><th>time</th><th>field</th>"
         "<th>expected</th><th>observed</th><th>display filter</th><th>note</th></tr></thead><tbody>";
  for (const auto& e : ch.evidence) {
    out += "<tr><td>" + file_link(e.pcap) + "</td>";
    if (e.packet_index >= 0) {
      // One numbering everywhere: Wireshark's frame number (the 0-based index + 1).
      out += "<td class=\"num\">" + std::to_string(e.packet_index + 1) + "</td>";
      out += "<td class=\"num\">" + html_escape(format_duration_ns(static_cast<double>(e.ts_ns))) + "</td>";
    } else {
      out += "<td>" + std::string(kDash) + "</td><td>" + std::string(kDash) + "</td>";
    }
    out += "<td>" + code_or_dash(e.field) + "</td>";
    out += "<td class=\"expected\">" + code_or_dash(e.expected) + "</td>";
    out += "<td class=\"observed\">" + code_or_dash(e.observed) + "</td>";
    out += "<td>" + code_or_dash(e.display_filter, "filter") + wireshark_command(e) + "</td>";
    out += "<td>" + html_escape(e.note) + "</td></tr>";
  }
  out += "</tbody></table>";
}

void render_check(std::string& out, const CheckResult& ch) {
  out += "<section class=\"check check-" + std::string(verdict_class(ch.verdict)) + "\">";
  out += "<h4>" + badge(ch.verdict) + " <span class=\"check-name\">" + html_escape(ch.name) +
         "</span> <span class=\"check-type\">" + html_escape(ch.type) + "</span></h4>";
  if (!ch.message.empty()) out += "<p class=\"message\">" + html_escape(ch.message) + "</p>";
  metrics_table(out, ch);
  evidence_table(out, ch);
  for (const auto& chart : ch.charts) {
    // The chart's title is drawn inside the SVG, so the figure needs no caption.
    out += "<figure class=\"chart\">" + render_svg_chart(chart) + "</figure>";
  }
  out += "</section>\n";
}

}  // namespace

void render_case(std::string& out, const CaseResult& c, const CaseConformance& o, const std::string& anchor) {
  out += "<article class=\"case case-" + std::string(verdict_class(c.verdict)) + (o.advisory ? " advisory" : "") +
         "\" id=\"" + anchor + "\">\n";
  out += "<h3>" + case_badge(c, o) + outcome_tag(o) + " <a class=\"case-id\" href=\"#" + anchor + "\">" +
         html_escape(c.id) + "</a> <span class=\"case-title\">" + html_escape(c.title) + "</span></h3>\n";
  if (!c.message.empty()) out += "<p class=\"message case-message\">" + html_escape(c.message) + "</p>\n";
  if (c.expectation != ExpectationOutcome::kNone) {
    out += "<p class=\"expectation exp-" + std::string(expectation_outcome_name(c.expectation)) + "\"><strong>" +
           html_escape(expectation_text(c.expectation)) + "</strong>";
    if (!c.expectation_reason.empty()) out += ": " + html_escape(c.expectation_reason);
    // The bug link is shown as text, not followed: the report links nothing outside its folder.
    if (!c.expectation_link.empty()) out += " <span class=\"dim\">bug:</span> <code>" + html_escape(c.expectation_link) + "</code>";
    out += "</p>\n";
  }
  out += "<dl class=\"case-meta\">";
  meta_row(out, "Clauses", requirement_links(c.clauses));
  meta_row(out, "Level", html_escape(c.level));
  meta_row(out, "Basis", std::string(to_string(c.basis)) + " <span class=\"dim\">(" + std::string(basis_meaning(c.basis)) +
                             ")</span>");
  meta_row(out, "Behaviour", html_escape(c.behaviour));
  meta_row(out, "Area", html_escape(c.area));
  meta_row(out, "Case file", c.file.empty() ? std::string(kDash) : "<code>" + html_escape(c.file) + "</code>");
  meta_row(out, "Tags", join_escaped(c.tags));
  meta_row(out, "Seed", std::to_string(c.seed));
  meta_row(out, "Virtual time",
           html_escape(format_duration_ns(static_cast<double>(c.sim_time_ns))) + " <span class=\"dim\">(" +
               std::to_string(c.sim_time_ns) + " ns)</span>");
  if (c.timing_budget.ns != 0) {
    // A real-time testbed's latency allowance: every timing bound of the case was widened by it.
    meta_row(out, "Timing budget",
             html_escape(format_duration_ns(static_cast<double>(c.timing_budget.ns))) + " <span class=\"dim\">(" +
                 std::to_string(c.timing_budget.ns) + " ns, declared by " + html_escape(c.timing_budget.source) +
                 "; every timing bound of this case was widened by it)</span>");
  }
  if (c.wall_ms) meta_row(out, "Wall time", html_escape(format_number(*c.wall_ms)) + " ms");
  std::string files;
  for (const auto& f : c.evidence_files) files += (files.empty() ? "" : "<br>") + file_link(f);
  meta_row(out, "Evidence files", files.empty() ? std::string(kDash) : files);
  out += "</dl>\n";
  if (c.checks.empty()) out += "<p class=\"note\">No check ran for this case.</p>\n";
  for (const auto& ch : c.checks) render_check(out, ch);
  out += "</article>\n";
}

}  // namespace mrc::harness::html
