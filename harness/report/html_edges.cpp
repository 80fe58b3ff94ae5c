#include "harness/report/html_edges.hpp"

#include <optional>
#include <unordered_map>

#include "harness/report/text_escape.hpp"

namespace mrc::harness::html {
namespace {

// The worst verdict of the cases that ran; none when none ran.
std::optional<Verdict> edge_verdict(const EdgeRef& e, const std::unordered_map<std::string, Verdict>& verdicts) {
  std::optional<Verdict> worst;
  for (const auto& id : e.cases) {
    const auto it = verdicts.find(id);
    if (it == verdicts.end()) continue;
    worst = worst ? combine(*worst, it->second) : it->second;
  }
  return worst;
}

std::string case_link(const std::string& id, const Anchors& anchors) {
  const std::string anchor = anchors.of_id(id);
  return anchor.empty() ? "<code>" + html_escape(id) + "</code>"
                        : "<a href=\"#" + anchor + "\"><code>" + html_escape(id) + "</code></a>";
}

}  // namespace

void render_edges(std::string& out, const RunResult& run, const Anchors& anchors) {
  if (run.edges.empty()) return;
  std::unordered_map<std::string, Verdict> verdicts;  // the first result of each case id
  for (const auto& c : run.cases) verdicts.emplace(c.id, c.verdict);

  std::size_t requirements = 0;
  std::size_t passed = 0;
  std::size_t not_passed = 0;
  std::size_t not_run = 0;
  for (std::size_t i = 0; i < run.edges.size(); ++i) {
    if (i == 0 || run.edges[i].requirement != run.edges[i - 1].requirement) ++requirements;
    const auto v = edge_verdict(run.edges[i], verdicts);
    if (!v) {
      ++not_run;
    } else if (*v == Verdict::kPass) {
      ++passed;
    } else {
      ++not_passed;
    }
  }
  out += "<section id=\"edges\"><h2>Requirement edges</h2>\n<p class=\"coverage-summary\"><strong>" +
         std::to_string(run.edges.size()) + "</strong> edges of <strong>" + std::to_string(requirements) +
         "</strong> requirements (cases/edges.yaml), each reached by the stimulus of the cases listed: " +
         std::to_string(passed) + " with every case that ran passing, " + std::to_string(not_passed) +
         " with a case that did not pass, " + std::to_string(not_run) + " whose cases did not run.</p>\n";
  out += "<table class=\"coverage edges\"><thead><tr><th>requirement</th><th>edge</th><th>what the edge is</th>"
         "<th>cases reaching it</th><th>verdict</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < run.edges.size(); ++i) {
    const EdgeRef& e = run.edges[i];
    out += "<tr class=\"req req-edge\">";
    if (i == 0 || e.requirement != run.edges[i - 1].requirement) {
      std::size_t span = 1;
      while (i + span < run.edges.size() && run.edges[i + span].requirement == e.requirement) ++span;
      out += "<td class=\"req-id\" rowspan=\"" + std::to_string(span) + "\"><code>" + html_escape(e.requirement) +
             "</code></td>";
    }
    out += "<td><code>" + html_escape(e.edge) + "</code></td><td class=\"req-text\">" + html_escape(e.what) + "</td><td>";
    for (const auto& id : e.cases) {
      const auto it = verdicts.find(id);
      out += "<span class=\"covering\">" + case_link(id, anchors) + " " +
             (it == verdicts.end() ? not_run_badge() : badge(it->second)) + "</span>";
    }
    const auto v = edge_verdict(e, verdicts);
    out += "</td><td>" + (v ? badge(*v) : not_run_badge()) + "</td></tr>\n";
  }
  out += "</tbody></table></section>\n";
}

}  // namespace mrc::harness::html
