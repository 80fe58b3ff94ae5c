// The top of index.html for the reader who opens a failing report: what failed, first
// (findings_list), and a case index whose rows a small inline script filters by verdict, area, tag
// and requirement (case_filter). Both work from the file alone: no network, no external script;
// without script every row stays visible.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

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

void bridge_health(std::string& out, const RunResult& run) {
  std::uint64_t to = 0, from = 0, lost = 0, budget = 0, worst = 0;
  std::size_t bridged = 0;
  std::string worst_case;
  std::vector<std::string> lossy, over;
  for (const auto& c : run.cases) {
    if (!c.bridge) continue;
    ++bridged;
    const BridgeStats& b = *c.bridge;
    to += b.to_dut;
    from += b.from_dut;
    lost += b.lost;
    budget = std::max(budget, c.timing_budget.ns);
    const std::uint64_t lag = std::max(b.lag_p99_ns, b.entry_p99_ns);
    if (worst_case.empty() || lag > worst) {
      worst = lag;
      worst_case = c.id;
    }
    if (b.lost > 0) lossy.push_back(c.id);
    if (c.timing_budget.ns > 0 && lag > c.timing_budget.ns) over.push_back(c.id);
  }
  if (bridged == 0) return;
  auto ids = [](const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size() && i < 5; ++i) s += (i ? ", " : "") + v[i];
    if (v.size() > 5) s += ", and " + std::to_string(v.size() - 5) + " more";
    return s;
  };
  const bool healthy = lost == 0 && over.empty();
  out += "<p class=\"bridge-health " + std::string(healthy ? "ok" : "bad") + "\" id=\"bridge-health\">Real-time bridge over " +
         std::to_string(bridged) + " case(s): " + std::to_string(to) + " frames to the DUT, " + std::to_string(from) +
         " from it, " + std::to_string(lost) + " lost" +
         (lossy.empty() ? std::string() : " (in " + std::to_string(lossy.size()) + " case(s): " + html_escape(ids(lossy)) + ")") +
         "; worst added lag p99 " + html_escape(format_duration_ns(static_cast<double>(worst))) + " (" +
         html_escape(worst_case) + ") against a timing budget of " +
         html_escape(format_duration_ns(static_cast<double>(budget))) +
         (over.empty() ? std::string("") : ", passed in " + std::to_string(over.size()) + " case(s): " + html_escape(ids(over))) +
         "</p>\n";
}

}  // namespace mrc::harness::html
