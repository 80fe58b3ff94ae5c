// Pieces of index.html shared by the page renderer (html_report.cpp) and the per-case renderer
// (html_case.cpp). Internal to harness/report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "harness/report/run_outcome.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness::html {

// The page's stylesheet (inlined into <style>).
std::string_view stylesheet();

// CSS class suffix of a verdict: "pass", "fail", "unsupported", "inconclusive", "error".
std::string_view verdict_class(Verdict v);
// <span class="badge v-fail">FAIL</span>
std::string badge(Verdict v);
// A badge for a covering case that did not run ("NOT RUN") or a requirement without cases.
std::string not_run_badge();
std::string uncovered_badge();

// Fragment ids of the case sections: "case-" + the id with characters outside [A-Za-z0-9._-]
// replaced by '_', made unique with "-2", "-3", ... in run order.
class Anchors {
 public:
  explicit Anchors(const RunResult& run);
  const std::string& of_index(std::size_t case_index) const { return by_index_[case_index]; }
  // The anchor of the first case with this id; empty when no case has it.
  std::string of_id(std::string_view id) const;

 private:
  std::vector<std::string> by_index_;
  std::unordered_map<std::string, std::string> by_id_;
};

// One <article class="case"> with its metadata, checks, metrics, evidence and charts, and what
// its verdict counts as (`o`, from run_outcome.hpp).
void render_case(std::string& out, const CaseResult& c, const CaseConformance& o, const std::string& anchor);

// html_outcome.cpp: the header's conformance panel (id "conformance"), the section of verdicts
// by level and basis (id "outcome"), and per case the verdict badge (an advisory FAIL in its own
// colour, class v-advisory) and the "non-conformance" / "advisory" tag after it.
void conformance_panel(std::string& out, const RunOutcome& o);
void outcome_table(std::string& out, const RunOutcome& o);
std::string case_badge(const CaseResult& c, const CaseConformance& o);
std::string outcome_tag(const CaseConformance& o);

// html_findings.cpp: the failures-first list at the top of the page (id "findings": MUST
// failures, then advisories, then INCONCLUSIVE and ERROR cases with their reasons, MUST first, each
// linking to its case and leading with its first field-level finding), the rank the case index
// sorts by (failures first), and the offline filter of the case index (verdict, area, tag,
// requirement; an inline script over the rows' data-* attributes).
void findings_list(std::string& out, const RunResult& run, const Anchors& anchors);
int failure_rank(const CaseResult& c, const CaseConformance& o);
void case_filter(std::string& out, const RunResult& run);
void case_filter_script(std::string& out);  // emitted after the case index table
// A run whose DUT sat behind a real-time bridge (cases with CaseResult::bridge): one line at the
// top (id "bridge-health") summing what the bridge carried and lost over the run and its worst
// added lag against the declared timing budget, naming the cases that lost frames or passed it;
// nothing for a run on the simulated fabric.
void bridge_health(std::string& out, const RunResult& run);

// Joins escaped items with ", "; "—" when empty. join_nobr keeps each item whole on a line
// (requirement ids never break at their hyphens; the list breaks between them).
std::string join_nobr(const std::vector<std::string>& items);
// Joins escaped items with ", "; "—" when empty.
std::string join_escaped(const std::vector<std::string>& items);

// The start of a one-page summary report (campaign, variants): doctype, head with the stylesheet,
// the styles of its CAUGHT/SURVIVED-style result words and of the rows marked `flagged_row_class`
// (a survivor, a false fail), and the opening of the summary header with its title row
// (`dut_html` is already escaped) and, when `partial`, the banner saying the run was interrupted
// before every `what` ran.
std::string summary_page_start(std::string_view title, std::string_view flagged_row_class, std::string_view dut_html,
                               bool partial, std::string_view what);

}  // namespace mrc::harness::html
