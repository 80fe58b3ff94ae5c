// The top of index.html for the reader who opens a failing report: what failed, first
// (findings_list), and a case index whose rows a small inline script filters by verdict, area, tag
// and requirement (case_filter). Both work from the file alone: no network, no external script;
// without script every row stays visible.
#include <algorithm>
#include <set>

#include "harness/report/case_finding.hpp"
#include "harness/report/html_parts.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness::html {
namespace {

// The case's finding, else its message.
std::string first_finding(const CaseResult& c) {
  const std::string f = case_finding(c, c.verdict, /*with_requirements=*/false);
  return f.empty() ? c.message : f;
}

void group(std::string& out, const RunResult& run, const Anchors& anchors, const std::vector<std::size_t>& idx,
           const std::string& id, const std::string& title) {
  if (idx.empty()) return;
  out += "<div class=\"finding-group\" id=\"" + id + "\"><h3>" + html_escape(title) + " (" + std::to_string(idx.size()) +
         ")</h3><ol>\n";
  for (std::size_t i : idx) {
    const CaseResult& c = run.cases[i];
    out += "<li><a href=\"#" + anchors.of_index(i) + "\"><code>" + html_escape(c.id) + "</code></a> " + badge(c.verdict) +
           " <span class=\"dim\">" + html_escape(c.level) + "</span> " + html_escape(first_finding(c)) + "</li>\n";
  }
  out += "</ol></div>\n";
}

}  // namespace

// Rank of a case in the failures-first order: MUST failures, ERRORs, INCONCLUSIVE MUST cases,
// advisories, other INCONCLUSIVE, UNSUPPORTED, PASS.
int failure_rank(const CaseResult& c, const CaseConformance& o) {
  if (o.non_conformance) return 0;
  if (c.verdict == Verdict::kError) return 1;
  if (c.verdict == Verdict::kInconclusive && o.not_judged) return 2;
  if (o.advisory || c.verdict == Verdict::kFail) return 3;
  if (c.verdict == Verdict::kInconclusive) return 4;
  if (c.verdict == Verdict::kUnsupported) return 5;
  return 6;
}

void findings_list(std::string& out, const RunResult& run, const Anchors& anchors) {
  std::vector<std::size_t> must, advisories, unjudged;
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const CaseResult& c = run.cases[i];
    const CaseConformance o = case_conformance(c, run.profile);
    if (o.non_conformance) {
      must.push_back(i);
    } else if (c.verdict == Verdict::kFail) {
      advisories.push_back(i);
    } else if (c.verdict == Verdict::kInconclusive || c.verdict == Verdict::kError) {
      unjudged.push_back(i);
    }
  }
  // MUST cases first among the unjudged: they decide conformance.
  std::stable_sort(unjudged.begin(), unjudged.end(), [&](std::size_t a, std::size_t b) {
    return case_conformance(run.cases[a], run.profile).not_judged && !case_conformance(run.cases[b], run.profile).not_judged;
  });
  out += "<section id=\"findings\"><h2>Findings</h2>\n";
  if (must.empty() && advisories.empty() && unjudged.empty()) {
    out += "<p class=\"note\" id=\"no-findings\">Nothing failed and nothing was left unjudged.</p></section>\n";
    return;
  }
  group(out, run, anchors, must, "findings-must", "MUST failures");
  group(out, run, anchors, advisories, "findings-advisories", "Advisories (FAILs that do not count toward conformance)");
  group(out, run, anchors, unjudged, "findings-unjudged", "Not judged (INCONCLUSIVE or ERROR), with the reason");
  out += "</section>\n";
}

void case_filter(std::string& out, const RunResult& run) {
  std::set<std::string> areas, tags, clauses;
  for (const auto& c : run.cases) {
    areas.insert(c.area);
    tags.insert(c.tags.begin(), c.tags.end());
    clauses.insert(c.clauses.begin(), c.clauses.end());
  }
  auto select = [&](const char* key, const char* label, const std::set<std::string>& values) {
    out += "<label>" + std::string(label) + " <select data-key=\"" + key + "\"><option value=\"\">any</option>";
    for (const auto& v : values) out += "<option>" + html_escape(v) + "</option>";
    out += "</select></label> ";
  };
  out += "<form class=\"case-filter\" id=\"case-filter\" onsubmit=\"return false\">Show: ";
  select("verdict", "verdict", {"PASS", "FAIL", "UNSUPPORTED", "INCONCLUSIVE", "ERROR"});
  select("area", "area", areas);
  select("tags", "tag", tags);
  select("clauses", "requirement", clauses);
  out += "<span id=\"case-filter-count\" class=\"dim\"></span></form>\n";
}

void case_filter_script(std::string& out) {
  // After the table: the rows must exist when it runs.
  out += "<script>(function(){var f=document.getElementById('case-filter');if(!f)return;"
         "var s=f.querySelectorAll('select'),rows=document.querySelectorAll('table.case-index tbody tr');"
         "function apply(){var n=0;rows.forEach(function(r){var ok=true;s.forEach(function(x){var v=x.value;"
         "if(v&&(' '+r.getAttribute('data-'+x.getAttribute('data-key'))+' ').indexOf(' '+v+' ')<0)ok=false;});"
         "r.style.display=ok?'':'none';if(ok)n++;});"
         "document.getElementById('case-filter-count').textContent=n+' of '+rows.length+' cases';}"
         "s.forEach(function(x){x.addEventListener('change',apply);});apply();})();</script>\n";
}

}  // namespace mrc::harness::html
