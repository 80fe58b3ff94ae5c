// campaign.json, campaign.html and the stdout summary of `mrc-conform campaign`
// (campaign_report.hpp).
#include "harness/report/campaign_report.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness/report/html_parts.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness {
namespace {

using Json = nlohmann::ordered_json;

Json strings(const std::vector<std::string>& vs) {
  Json a = Json::array();
  for (const auto& v : vs) a.push_back(v);
  return a;
}

// "92.3" (one decimal, same characters everywhere).
std::string percent(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", rate * 100.0);
  return buf;
}

Json outcome_json(const CaseOutcome& o, bool with_checks) {
  Json j;
  j["case"] = o.id;
  j["verdict"] = std::string(to_string(o.verdict));
  j["message"] = o.message;
  if (with_checks) {
    Json checks = Json::array();
    for (const auto& c : o.checks) {
      Json cj;
      cj["name"] = c.name;
      cj["clauses"] = strings(c.clauses);
      cj["message"] = c.message;
      checks.push_back(std::move(cj));
    }
    j["failing_checks"] = std::move(checks);
  }
  return j;
}

std::string joined_ids(const std::vector<CaseOutcome>& os) {
  std::string s;
  for (const auto& o : os) s += (s.empty() ? "" : ",") + o.id;
  return s;
}

// `kept`: the killing runs whose report and evidence are kept under kills/<defect>/; each links
// to its case section there (findings with Wireshark frame numbers, evidence rows, charts; the
// fragment is html::Anchors' for a case id that is once in its run).
void html_outcomes(std::string& out, const std::vector<CaseOutcome>& os, bool with_checks,
                   const DefectOutcome* kept = nullptr) {
  if (os.empty()) {
    out += "<span class=\"dim\">none</span>";
    return;
  }
  for (const auto& o : os) {
    out += "<div class=\"covering\"><code>" + html_escape(o.id) + "</code> " + html::badge(o.verdict);
    if (kept && std::find(kept->kept_runs.begin(), kept->kept_runs.end(), o.id) != kept->kept_runs.end()) {
      const std::string folder = "kills/" + kept->defect.name + "/";
      out += " <a class=\"kill-run\" href=\"" + html_escape(folder + "index.html#case-" + safe_name(o.id, '_')) +
             "\">the killing run: findings and evidence</a>";
    }
    if (with_checks) {
      for (const auto& c : o.checks) {
        out += "<br><span class=\"dim\">" + html_escape(c.name) + ":</span> " + html_escape(c.message);
      }
    } else {
      out += " <span class=\"dim\">" + html_escape(o.message) + "</span>";
    }
    out += "</div>";
  }
}

}  // namespace

std::string render_campaign_json(const CampaignResult& r) {
  Json j;
  j["schema"] = "mrc-conform/campaign/1";
  j["testbed"] = r.testbed;
  j["relevant_only"] = r.relevant_only;
  j["min_kill_rate"] = r.min_kill_rate;
  j["cases"] = strings(r.cases);
  Json totals;
  totals["defects"] = r.defects.size();
  totals["caught"] = r.caught();
  totals["kill_rate"] = r.kill_rate();
  totals["kill_rate_percent"] = percent(r.kill_rate());
  totals["survivors"] = strings(r.survivors());
  Json baseline = Json::array();
  for (const auto& b : r.baseline_problems) baseline.push_back(outcome_json(b, false));
  totals["baseline_problems"] = std::move(baseline);
  totals["interrupted"] = r.interrupted;
  totals["exit_code"] = r.exit_code();
  if (r.wall_seconds) totals["wall_seconds"] = *r.wall_seconds;
  j["totals"] = std::move(totals);
  Json defects = Json::array();
  for (const auto& d : r.defects) {
    Json dj;
    dj["name"] = d.defect.name;
    dj["symptom"] = d.defect.symptom;
    dj["violates"] = strings(d.defect.violates);
    dj["caught"] = d.caught;
    dj["cases_run"] = d.cases_run.size();
    Json killers = Json::array();
    for (const auto& k : d.killers) killers.push_back(outcome_json(k, true));
    dj["killers"] = std::move(killers);
    Json collateral = Json::array();
    for (const auto& c : d.collateral) collateral.push_back(outcome_json(c, false));
    dj["collateral"] = std::move(collateral);
    dj["baseline_excluded"] = strings(d.baseline_excluded);
    dj["unreached"] = strings(d.unreached);
    dj["kept_runs"] = strings(d.kept_runs);
    if (!d.reach_errors.empty()) dj["reach_errors"] = strings(d.reach_errors);
    defects.push_back(std::move(dj));
  }
  j["defects"] = std::move(defects);
  return j.dump(2) + "\n";
}

std::string render_campaign_html(const CampaignResult& r) {
  std::string out = html::summary_page_start(
      "MRC defect campaign",
      "survivor",
      "reference endpoint with each catalog defect, testbed <strong>" + html_escape(r.testbed) + "</strong>",
      r.interrupted, "defect");
  const int code = r.exit_code();
  out += "<p class=\"run-status\">Kill rate <strong class=\"" + std::string(code == 0 ? "ok" : "bad") + "\">" +
         percent(r.kill_rate()) + "%</strong> (" + std::to_string(r.caught()) + " of " +
         std::to_string(r.defects.size()) + " defects caught; minimum " + percent(r.min_kill_rate) + "%) &middot; " +
         std::to_string(r.cases.size()) + " case(s)" + (r.relevant_only ? ", relevant cases only" : "") +
         " &middot; exit " + std::to_string(code) + "</p>\n";
  if (r.wall_seconds) out += "<p class=\"dim\">wall time " + html_escape(format_number(*r.wall_seconds)) + " s</p>\n";
  out += "</header>\n<main>\n";
  const auto survivors = r.survivors();
  if (!survivors.empty()) {
    out += "<p class=\"warn\" id=\"survivors\">Survivors (no case caught them): ";
    for (std::size_t i = 0; i < survivors.size(); ++i) {
      out += (i ? ", " : "") + std::string("<code>") + html_escape(survivors[i]) + "</code>";
    }
    out += "</p>\n";
  }
  if (r.reach_errors() > 0) {
    out += "<section id=\"reach-errors\"><h2>Reach errors</h2>\n<p class=\"bad\">With <code>--run-all</code>, these "
           "defect runs differed from a clean run that never read the defect's switch: a default campaign, which "
           "takes the clean result for such a case, would be wrong about them.</p>\n<ul>";
    for (const auto& d : r.defects) {
      for (const auto& e : d.reach_errors) out += "<li><code>" + html_escape(d.defect.name) + "</code>: " + html_escape(e) + "</li>";
    }
    out += "</ul></section>\n";
  }
  if (!r.baseline_problems.empty()) {
    out += "<section id=\"baseline\"><h2>Baseline problems</h2>\n<p>These cases did not PASS on the reference "
           "without defects; they are excluded from the attribution.</p>\n";
    html_outcomes(out, r.baseline_problems, false);
    out += "</section>\n";
  }
  out += "<section id=\"defects\"><h2>Defects</h2>\n<table class=\"coverage\"><thead><tr><th>defect</th><th>result</th>"
         "<th>symptom</th><th>violates</th><th class=\"num\">cases run</th><th class=\"num\" title=\"cases whose clean run "
         "never read the defect's switch: their result is the clean run's\">unreached</th><th>killing cases (failing checks)</th>"
         "<th>collateral</th></tr></thead><tbody>\n";
  for (const auto& d : r.defects) {
    out += "<tr class=\"" + std::string(d.caught ? "caught" : "survivor") + "\"><td class=\"req-id\"><code>" +
           html_escape(d.defect.name) + "</code></td><td><span class=\"kill " + (d.caught ? "caught\">CAUGHT" : "survived\">SURVIVED") +
           "</span></td><td>" + html_escape(d.defect.symptom) + "</td><td>" + html::join_nobr(d.defect.violates) +
           "</td><td class=\"num\">" + std::to_string(d.cases_run.size()) + "</td><td class=\"num\">" +
           std::to_string(d.unreached.size()) + "</td><td>";
    html_outcomes(out, d.killers, true, &d);
    out += "</td><td>";
    html_outcomes(out, d.collateral, false);
    if (!d.baseline_excluded.empty()) {
      out += "<div class=\"dim\">left out (not PASS on the baseline): " + html::join_escaped(d.baseline_excluded) +
             "</div>";
    }
    out += "</td></tr>\n";
  }
  out += "</tbody></table></section>\n</main>\n</body>\n</html>\n";
  return out;
}

std::string render_campaign_text(const CampaignResult& r) {
  std::string out;
  std::size_t width = 0;
  for (const auto& d : r.defects) width = std::max(width, d.defect.name.size());
  for (const auto& b : r.baseline_problems) {
    out += "BASELINE " + std::string(to_string(b.verdict)) + " " + b.id + ": " + b.message + "\n";
  }
  for (const auto& d : r.defects) {
    out += d.caught ? "CAUGHT   " : "SURVIVED ";
    out += d.defect.name + std::string(width - d.defect.name.size(), ' ');
    if (d.caught) {
      out += "  by " + joined_ids(d.killers);
    } else {
      std::string violates;
      for (std::size_t i = 0; i < d.defect.violates.size(); ++i) violates += (i ? "," : "") + d.defect.violates[i];
      if (!d.cases_run.empty()) {
        out += "  (" + std::to_string(d.cases_run.size()) + " case(s) ran, none failed on " + violates + ")";
      } else if (d.baseline_excluded.empty()) {
        out += "  (no selected case covers " + violates + ")";
      } else {
        out += "  (no baseline-clean case covers " + violates + ")";
      }
    }
    if (!d.collateral.empty()) out += "  collateral: " + joined_ids(d.collateral);
    if (!d.baseline_excluded.empty()) {
      out += "  baseline-excluded:";
      for (std::size_t i = 0; i < d.baseline_excluded.size(); ++i) out += (i ? "," : " ") + d.baseline_excluded[i];
    }
    out += "\n";
  }
  out += "kill rate " + percent(r.kill_rate()) + "% (" + std::to_string(r.caught()) + " of " +
         std::to_string(r.defects.size()) + " defects caught, minimum " + percent(r.min_kill_rate) + "%)";
  if (!r.baseline_problems.empty()) out += "; " + std::to_string(r.baseline_problems.size()) + " baseline problem(s)";
  if (r.reach_errors() > 0) out += "; " + std::to_string(r.reach_errors()) + " reach error(s)";
  if (r.interrupted) out += "; interrupted";
  out += "\n";
  for (const auto& d : r.defects) {
    for (const auto& e : d.reach_errors) out += "REACH ERROR " + d.defect.name + ": " + e + "\n";
  }
  return out;
}

}  // namespace mrc::harness
