// index.html of `mrc-conform interop` (interop_report.hpp): the matrix of every ordered pair of
// implementations, rows the DUT (judged), columns the peer, each cell linking to its pair's report.
#include "harness/report/html_parts.hpp"
#include "harness/report/interop_report.hpp"
#include "harness/report/report.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness {
namespace {

// Cell backgrounds: light tints of the verdict colours of the shared stylesheet, so the worst
// verdict reads at a glance; the counts are also spelled out, so a grey print still says it.
constexpr std::string_view kMatrixCss = R"css(
table.interop { border-collapse: collapse; margin: 8px 0 4px; }
table.interop th, table.interop td { border: 1px solid var(--line); padding: 8px 12px; vertical-align: top; }
table.interop thead th { background: var(--soft); font-weight: 600; }
table.interop th.corner { font-weight: 400; color: var(--dim); text-align: left; }
table.interop th.dut { text-align: left; background: var(--soft); }
table.interop td.cell { min-width: 150px; }
table.interop td.cell a { display: block; color: var(--ink); }
table.interop td.cell .worst { font-weight: 700; }
table.interop td.cell .line { display: block; font-size: 12.5px; }
td.cell.v-pass { background: #dafbe1; } td.cell.v-fail { background: #ffebe9; }
td.cell.v-unsupported { background: #eaeef2; } td.cell.v-inconclusive { background: #fff8c5; }
td.cell.v-error { background: #fbefff; } td.cell.not-run { background: #fff; color: var(--dim); }
td.cell.diagonal { box-shadow: inset 0 0 0 2px #8c959f; }
.legend { max-width: 980px; }
)css";

std::string exit_text(int code) {
  switch (code) {
    case 0: return "exit 0: every pair's run exited 0 (conformant, advisories allowed)";
    case 1: return "exit 1: a pair not conformant (a MUST FAIL) or with a case INCONCLUSIVE";
    case 3: return "exit 3: an ERROR, a harness error or a partial matrix";
    default: return "exit " + std::to_string(code);
  }
}

void cell_html(std::string& out, const InteropResult& r, std::size_t row, std::size_t col) {
  const InteropCell* c = r.cell(row, col);
  const std::string id = "cell-" + std::to_string(row) + "-" + std::to_string(col);
  const std::string diagonal = row == col ? " diagonal" : "";
  if (c == nullptr) {
    out += "<td class=\"cell not-run" + diagonal + "\" id=\"" + id + "\">not run</td>";
    return;
  }
  const auto worst = c->worst();
  out += "<td class=\"cell " + (worst ? "v-" + std::string(html::verdict_class(*worst)) : std::string("not-run")) +
         diagonal + "\" id=\"" + id + "\">";
  const std::string href = relative_href(c->report_dir + "/" + std::string(kHtmlReportName));
  out += href.empty() ? "<span>" : "<a href=\"" + href + "\">";
  out += "<span class=\"worst\">" + (worst ? std::string(to_string(*worst)) : std::string("no case ran")) + "</span>";
  for (const Verdict v : kReportVerdicts) {
    if (const std::size_t n = c->counts.of(v); n > 0) {
      out += "<span class=\"line\">" + std::to_string(n) + " " + std::string(to_string(v)) + "</span>";
    }
  }
  if (c->interrupted) out += "<span class=\"line\">partial: interrupted</span>";
  out += "<span class=\"line dim\">exit " + std::to_string(c->exit_code) + "</span>";
  out += href.empty() ? "</span>" : "</a>";
  out += "</td>";
}

void matrix(std::string& out, const InteropResult& r) {
  out += "<section id=\"matrix\"><h2>Matrix</h2>\n<table class=\"interop\"><thead><tr>"
         "<th class=\"corner\">DUT (judged) &darr; &nbsp; peer &rarr;</th>";
  for (std::size_t col = 0; col < r.impls.size(); ++col) {
    out += "<th class=\"peer\"><code>" + html_escape(r.impls[col]) + "</code></th>";
  }
  out += "</tr></thead><tbody>\n";
  for (std::size_t row = 0; row < r.impls.size(); ++row) {
    out += "<tr><th class=\"dut\" scope=\"row\"><code>" + html_escape(r.impls[row]) + "</code></th>";
    for (std::size_t col = 0; col < r.impls.size(); ++col) cell_html(out, r, row, col);
    out += "</tr>\n";
  }
  out += "</tbody></table></section>\n";
}

void legend(std::string& out) {
  out += "<section id=\"legend\" class=\"legend\"><h2>How to read it</h2>\n<p><strong>Rows are judged.</strong> Each "
         "row is an implementation as the DUT (testbed host 0); each column is the implementation it meets as the peer "
         "(the harness's side, host 1) through the simulated fabric. A cell is one full run of the selected cases for "
         "that pair: it counts the DUT's verdicts and is coloured by the worst of them (";
  bool first = true;
  for (const Verdict v : {Verdict::kError, Verdict::kFail, Verdict::kInconclusive, Verdict::kUnsupported, Verdict::kPass}) {
    out += (first ? "" : " &gt; ") + html::badge(v);
    first = false;
  }
  out += "). Click a cell for that pair's own report (checks, evidence, coverage). The outlined diagonal is each "
         "implementation against itself. A FAIL in a row says the row's implementation broke a requirement while "
         "talking to that column; an ERROR says the harness or a binding broke, not the DUT.</p></section>\n";
}

void selection(std::string& out, const InteropResult& r) {
  out += "<section id=\"selection\"><h2>Selection</h2>\n<dl class=\"run-meta\">";
  out += "<dt>Cases (" + std::to_string(r.cases.size()) + ")</dt><dd>" + html::join_escaped(r.cases) + "</dd>";
  if (!r.case_inputs.empty()) out += "<dt>--cases</dt><dd>" + html::join_escaped(r.case_inputs) + "</dd>";
  if (!r.tags.empty()) out += "<dt>--tags</dt><dd>" + html::join_escaped(r.tags) + "</dd>";
  if (!r.exclude_tags.empty()) out += "<dt>--exclude-tags</dt><dd>" + html::join_escaped(r.exclude_tags) + "</dd>";
  out += "<dt>Seed</dt><dd>" + (r.seed ? std::to_string(*r.seed) : std::string("each case's own")) + "</dd>";
  out += "<dt>Suite version</dt><dd>" + html_escape(r.suite_version) + " <span class=\"dim\">(git " +
         html_escape(r.git_hash) + ")</span></dd>";
  out += "<dt>Command line</dt><dd><code>" + html_escape(r.command_line) + "</code></dd>";
  if (r.wall_seconds) out += "<dt>Wall time</dt><dd>" + html_escape(format_number(*r.wall_seconds)) + " s</dd>";
  out += "</dl></section>\n";
}

}  // namespace

std::string render_interop_html(const InteropResult& r) {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"mrc-conform\">\n<title>";
  out += r.interrupted ? "[partial] " : "";
  out += "MRC interop matrix</title>\n<style>";
  out += html::stylesheet();
  out += kMatrixCss;
  out += "</style>\n</head>\n<body>\n<header class=\"top\" id=\"summary\">\n<div class=\"title-row\"><h1>MRC interop "
         "matrix</h1><span class=\"dut\">" +
         std::to_string(r.impls.size()) + " implementation(s), " + std::to_string(r.cases.size()) +
         " case(s) per pair, testbed <strong>" + html_escape(r.testbed) + "</strong></span></div>\n";
  if (r.interrupted) {
    out += "<div class=\"banner partial\" id=\"partial-run\" role=\"alert\"><strong>Partial matrix.</strong> "
           "Interrupted after " +
           std::to_string(r.cells.size()) + " of " + std::to_string(r.impls.size() * r.impls.size()) +
           " pair(s); cells marked not run did not start. Do not use it as a verdict.</div>\n";
  }
  const int code = r.exit_code();
  out += "<p class=\"run-status\">Matrix: <strong class=\"" + std::string(code == 0 ? "ok" : "bad") + "\">" +
         html_escape(exit_text(code)) + "</strong></p>\n</header>\n<main>\n";
  matrix(out, r);
  legend(out);
  selection(out, r);
  out += "</main>\n<footer>Generated by mrc-conform " + html_escape(r.suite_version) + " (git " + html_escape(r.git_hash) +
         ") from " + std::string(kInteropJsonName) + " (schema " + std::string(kInteropSchemaId) +
         "). Every link is relative to this file.</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace mrc::harness
