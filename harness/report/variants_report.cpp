// variants.json, variants.html and the stdout summary of `mrc-conform variants`
// (variants_report.hpp).
#include "harness/report/variants_report.hpp"

#include <algorithm>
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

Json outcome_json(const CaseOutcome& o) {
  Json j;
  j["case"] = o.id;
  j["verdict"] = std::string(to_string(o.verdict));
  j["message"] = o.message;
  return j;
}

Json false_fail_json(const FalseFail& f) {
  Json j = outcome_json(f.outcome);
  j["level"] = f.level;
  j["seed"] = f.seed;
  Json checks = Json::array();
  for (const auto& c : f.outcome.checks) {
    Json cj;
    cj["name"] = c.name;
    cj["clauses"] = strings(c.clauses);
    cj["message"] = c.message;
    checks.push_back(std::move(cj));
  }
  j["failing_checks"] = std::move(checks);
  j["pinned_choice"] = strings(f.pinned_choice);
  return j;
}

std::string joined(const std::vector<std::string>& vs, const char* sep) {
  std::string s;
  for (const auto& v : vs) s += (s.empty() ? "" : sep) + v;
  return s;
}

std::size_t must_count(const VariantRun& run) {
  return static_cast<std::size_t>(
      std::count_if(run.false_fails.begin(), run.false_fails.end(), [](const FalseFail& f) { return f.level == "MUST"; }));
}

std::string totals_line(const VariantsResult& r) {
  return std::to_string(r.must_false_fails()) + " MUST, " + std::to_string(r.false_fails() - r.must_false_fails()) +
         " SHOULD/MAY; " + std::to_string(r.errors()) + " error(s)" + (r.interrupted ? "; interrupted" : "") +
         "; exit " + std::to_string(r.exit_code());
}

}  // namespace

std::string render_variants_json(const VariantsResult& r) {
  Json j;
  j["schema"] = "mrc-conform/variants/1";
  j["testbed"] = r.testbed;
  j["seeds"] = r.seeds;
  j["cases"] = strings(r.cases);
  Json totals;
  totals["variants"] = r.variants();
  totals["false_fails"] = r.false_fails();
  totals["must_false_fails"] = r.must_false_fails();
  totals["errors"] = r.errors();
  totals["interrupted"] = r.interrupted;
  totals["exit_code"] = r.exit_code();
  if (r.wall_seconds) totals["wall_seconds"] = *r.wall_seconds;
  j["totals"] = std::move(totals);
  Json runs = Json::array();
  for (const auto& run : r.runs) {
    Json rj;
    rj["name"] = run.name;
    rj["choice"] = run.choice;
    rj["leaves_open"] = strings(run.leaves_open);
    rj["case_runs"] = run.case_runs;
    rj["passed"] = run.passed;
    rj["interrupted"] = run.interrupted;
    Json ff = Json::array();
    for (const auto& f : run.false_fails) ff.push_back(false_fail_json(f));
    rj["false_fails"] = std::move(ff);
    Json errors = Json::array();
    for (const auto& e : run.errors) errors.push_back(outcome_json(e));
    rj["errors"] = std::move(errors);
    Json other = Json::array();
    for (const auto& o : run.other) other.push_back(outcome_json(o));
    rj["other"] = std::move(other);
    runs.push_back(std::move(rj));
  }
  j["runs"] = std::move(runs);
  return j.dump(2) + "\n";
}

std::string render_variants_html(const VariantsResult& r) {
  std::string out = html::summary_page_start(
      "MRC conformant variants",
      "falsefail",
      "the reference endpoint with each conformant policy variant, testbed <strong>" + html_escape(r.testbed) +
          "</strong>",
      r.interrupted, "variant");
  const int code = r.exit_code();
  out += "<p class=\"run-status\"><strong class=\"" + std::string(code == 0 ? "ok" : "bad") + "\">" +
         std::to_string(r.false_fails()) + " false fail(s)</strong> over " + std::to_string(r.variants()) +
         " variants and the default reference (" + html_escape(totals_line(r)) + ") &middot; " +
         std::to_string(r.cases.size()) + " case(s) &times; " + std::to_string(r.seeds) + " seed(s)</p>\n";
  if (r.wall_seconds) out += "<p class=\"dim\">wall time " + html_escape(format_number(*r.wall_seconds)) + " s</p>\n";
  out += "<p>Every run below is conformant by construction: each variant takes a choice the requirements leave to "
         "the implementation, at a legal extreme. A FAIL here says a case judged what no requirement fixes.</p>\n";
  out += "</header>\n<main>\n<section id=\"variants\"><h2>Variants</h2>\n<table class=\"coverage\"><thead><tr>"
         "<th>variant</th><th>result</th><th>choice</th><th>leaves the choice open</th><th class=\"num\">case runs</th>"
         "<th>false fails (failing checks)</th><th>errors and other verdicts</th></tr></thead><tbody>\n";
  for (const auto& run : r.runs) {
    const bool clean = run.false_fails.empty() && run.errors.empty();
    out += "<tr class=\"" + std::string(run.false_fails.empty() ? "clean" : "falsefail") + "\"><td class=\"req-id\"><code>" +
           html_escape(run.name) + "</code></td><td><span class=\"kill " + (clean ? "caught\">CLEAN" : "survived\">FALSE FAIL") +
           "</span></td><td>" + html_escape(run.choice) + "</td><td>" + html::join_escaped(run.leaves_open) +
           "</td><td class=\"num\">" + std::to_string(run.case_runs) + "</td><td>";
    if (run.false_fails.empty()) out += "<span class=\"dim\">none</span>";
    for (const auto& f : run.false_fails) {
      out += "<div class=\"covering\"><code>" + html_escape(f.outcome.id) + "</code> " + html::badge(f.outcome.verdict) +
             " " + html_escape(f.level) + " seed " + std::to_string(f.seed);
      for (const auto& c : f.outcome.checks) {
        out += "<br><span class=\"dim\">" + html_escape(c.name) + ":</span> " + html_escape(c.message);
      }
      if (!f.pinned_choice.empty()) {
        out += "<br><span class=\"dim\">pins a choice " + html_escape(joined(f.pinned_choice, ", ")) + " leave open</span>";
      }
      out += "</div>";
    }
    out += "</td><td>";
    if (run.errors.empty() && run.other.empty()) out += "<span class=\"dim\">none</span>";
    for (const auto* list : {&run.errors, &run.other}) {
      for (const auto& o : *list) {
        out += "<div class=\"covering\"><code>" + html_escape(o.id) + "</code> " + html::badge(o.verdict) +
               " <span class=\"dim\">" + html_escape(o.message) + "</span></div>";
      }
    }
    out += "</td></tr>\n";
  }
  out += "</tbody></table></section>\n</main>\n</body>\n</html>\n";
  return out;
}

std::string render_variants_text(const VariantsResult& r) {
  std::string out;
  std::size_t width = 0;
  for (const auto& run : r.runs) width = std::max(width, run.name.size());
  for (const auto& run : r.runs) {
    out += run.false_fails.empty() && run.errors.empty() ? "CLEAN      " : "FALSE-FAIL ";
    out += run.name + std::string(width - run.name.size(), ' ') + "  " + std::to_string(run.passed) + " of " +
           std::to_string(run.case_runs) + " PASS";
    if (!run.false_fails.empty()) {
      out += ", " + std::to_string(run.false_fails.size()) + " false fail(s) (" + std::to_string(must_count(run)) + " MUST)";
    }
    if (!run.errors.empty()) out += ", " + std::to_string(run.errors.size()) + " ERROR";
    if (!run.other.empty()) out += ", " + std::to_string(run.other.size()) + " UNSUPPORTED/INCONCLUSIVE";
    if (run.interrupted) out += ", interrupted";
    out += "\n";
    for (const auto& f : run.false_fails) {
      out += "  " + f.level + " FAIL " + f.outcome.id + " (seed " + std::to_string(f.seed) + ")";
      if (!f.pinned_choice.empty()) out += ": pins a choice " + joined(f.pinned_choice, ", ") + " leave open";
      out += "\n";
      for (const auto& c : f.outcome.checks) {
        // A check's message starts with the requirement ids it proves ("[A,B] ...").
        out += "    " + c.name + ": " + c.message + "\n";
      }
    }
    for (const auto& e : run.errors) out += "  ERROR " + e.id + ": " + e.message + "\n";
  }
  out += "false fails: " + totals_line(r) + "\n";
  out += std::to_string(r.variants()) + " variants, " + std::to_string(r.false_fails()) + " false fails\n";
  return out;
}

}  // namespace mrc::harness
