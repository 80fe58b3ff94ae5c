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
  std::string out;
  for (std::size_t i = 0; i < kBasisNames.size(); ++i) {
    out += (i == 0 ? "" : " &middot; ") + std::string(kBasisNames[i]) + ' ' + std::to_string(b.by[i]);
  }
  return out;
}

// What the profile counts, in words for the note above the table.
std::string_view profile_rule(ConformanceProfile p) {
  switch (p) {
    case ConformanceProfile::kFull: return "";
    case ConformanceProfile::kSpec:
      return " when the case is of published or spec basis (profile spec: a spec-single or model MUST FAIL is an "
             "advisory)";
    case ConformanceProfile::kPublished:
      return " when the case is of published basis (profile published: any other MUST FAIL is an advisory)";
  }
  return "";
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
              "SHOULD/MAY " + std::to_string(o.advisories_should_may) + " &middot; MUST outside the profile " +
                  std::to_string(o.advisories_must_outside_profile));
  out += "</div>\n";
}

void outcome_table(std::string& out, const RunOutcome& o) {
  out += "<section id=\"outcome\"><h2>Conformance by level and basis</h2>\n<p class=\"note\">A MUST FAIL is a "
         "non-conformance" +
         std::string(profile_rule(o.profile)) +
         "; a SHOULD or MAY FAIL is an advisory. Basis, weakest part counting (cases/clauses.yaml): published = "
         "the host API, the standards and the MRC paper; spec = also what two independent readings of the MRC 1.0 "
         "document agree on; spec-single = also what one reading alone gives; model = also the project's own "
         "choices.</p>\n<table class=\"outcome\"><thead><tr><th>level</th><th>basis</th>"
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
