// What the run means for conformance, on index.html: the header's panel (conformant yes/no, MUST
// failures and advisories apart, each split by basis), the table of verdicts by level and basis,
// and the case index's outcome tags. Every figure comes from run_outcome.hpp; nothing here
// decides what counts.
#include "harness/report/html_parts.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness::html {
namespace {

std::string part(std::string_view cls, std::size_t n, std::string_view label, const std::string& split) {
  return "<div class=\"part " + std::string(cls) + (n == 0 ? " zero" : "") + "\"><span class=\"n\">" +
         std::to_string(n) + "</span><span class=\"label\">" + std::string(label) + "</span><span class=\"split\">" +
         split + "</span></div>";
}

std::string by_basis(const BasisCounts& b) {
  return "published " + std::to_string(b.published) + " &middot; model " + std::to_string(b.model);
}

}  // namespace

void conformance_panel(std::string& out, const RunOutcome& o) {
  const std::string yes_no = o.conformant ? "yes" : "no";
  std::string how = "profile " + std::string(to_string(o.profile));
  if (o.strict) how += ", --strict";
  if (o.interrupted) how += ", interrupted run";
  out += "<div class=\"conformance conformant-" + yes_no + "\" id=\"conformance\"><div class=\"verdict\">Conformant: "
         "<strong>" + yes_no + "</strong> <span class=\"how\">(" + html_escape(how) + ")</span></div>";
  out += part("must-failures", o.must_failures.total(), "MUST failures", by_basis(o.must_failures));
  out += part("must-not-judged", o.must_not_judged.total(), "MUST not judged", by_basis(o.must_not_judged));
  out += part("advisories", o.advisories, "advisories",
              "SHOULD/MAY " + std::to_string(o.advisories_should_may) + " &middot; model-based MUST " +
                  std::to_string(o.advisories_model_must));
  out += "</div>\n";
}

void outcome_table(std::string& out, const RunOutcome& o) {
  out += "<section id=\"outcome\"><h2>Conformance by level and basis</h2>\n<p class=\"note\">A MUST FAIL is a "
         "non-conformance" +
         std::string(o.profile == ConformanceProfile::kPublished
                         ? " when the case is of published basis (profile published: a model-basis MUST FAIL is an "
                           "advisory)"
                         : "") +
         "; a SHOULD or MAY FAIL is an advisory. Model: the requirement rests, in some part, on the project's wire "
         "model (cases/clauses.yaml).</p>\n<table class=\"outcome\"><thead><tr><th>level</th><th>basis</th>"
         "<th class=\"num\">cases</th>";
  for (auto v : kReportVerdicts) out += "<th class=\"num\">" + badge(v) + "</th>";
  out += "<th class=\"num\">non-conformance</th><th class=\"num\">advisory</th></tr></thead><tbody>\n";
  auto cell = [](std::size_t n) {
    return n == 0 ? std::string("<td class=\"num zero\">0</td>") : "<td class=\"num\">" + std::to_string(n) + "</td>";
  };
  for (std::size_t l = 0; l < kLevelNames.size(); ++l) {
    for (std::size_t b = 0; b < kBasisNames.size(); ++b) {
      const OutcomeCell& c = o.cell(static_cast<Level>(l), static_cast<Basis>(b));
      out += "<tr><td>" + std::string(kLevelNames[l]) + "</td><td>" + std::string(kBasisNames[b]) + "</td>" +
             cell(c.verdicts.total);
      for (auto v : kReportVerdicts) out += cell(c.verdicts.of(v));
      out += cell(c.non_conformance) + cell(c.advisory) + "</tr>\n";
    }
  }
  out += "</tbody></table></section>\n";
}

std::string outcome_tag(const CaseConformance& o) {
  if (o.non_conformance) return " <span class=\"tag non-conformance\">non-conformance</span>";
  if (o.advisory) return " <span class=\"tag advisory\">advisory</span>";
  return {};
}

std::string case_badge(const CaseResult& c, const CaseConformance& o) {
  // An advisory is a FAIL the DUT should see, not a failure of conformance: its own colour.
  if (o.advisory) return "<span class=\"badge v-advisory\">FAIL</span>";
  return badge(c.verdict);
}

}  // namespace mrc::harness::html
