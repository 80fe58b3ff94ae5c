#include <unordered_set>

#include "harness/report/html_parts.hpp"
#include "harness/report/text_escape.hpp"

namespace mrc::harness::html {

std::string_view verdict_class(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kFail: return "fail";
    case Verdict::kUnsupported: return "unsupported";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kError: return "error";
  }
  return "error";
}

std::string badge(Verdict v) {
  return "<span class=\"badge v-" + std::string(verdict_class(v)) + "\">" + std::string(to_string(v)) + "</span>";
}

std::string not_run_badge() { return "<span class=\"badge v-not-run\">NOT RUN</span>"; }
std::string uncovered_badge() { return "<span class=\"badge v-uncovered\">UNCOVERED</span>"; }

namespace {
std::string sanitize_id(std::string_view id) { return "case-" + safe_name(id, '_'); }
}  // namespace

Anchors::Anchors(const RunResult& run) {
  // A sanitized id can collide with another case's ("a b" and "a_b"), or an id can repeat.
  std::unordered_set<std::string> taken;
  by_index_.reserve(run.cases.size());
  for (const auto& c : run.cases) {
    const std::string base = sanitize_id(c.id);
    std::string anchor = base;
    for (int n = 2; taken.contains(anchor); ++n) anchor = base + "-" + std::to_string(n);
    taken.insert(anchor);
    by_id_.emplace(c.id, anchor);
    by_index_.push_back(std::move(anchor));
  }
}

std::string Anchors::of_id(std::string_view id) const {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? std::string() : it->second;
}

std::string join_nobr(const std::vector<std::string>& items) {
  if (items.empty()) return join_escaped(items);
  std::string out;
  for (std::size_t k = 0; k < items.size(); ++k) {
    out += (k ? ", " : "") + std::string("<span class=\"nobr\">") + html_escape(items[k]) + "</span>";
  }
  return out;
}

std::string join_escaped(const std::vector<std::string>& items) {
  if (items.empty()) return "\xE2\x80\x94";
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += html_escape(items[i]);
  }
  return out;
}

std::string summary_page_start(std::string_view title, std::string_view flagged_row_class, std::string_view dut_html,
                               bool partial, std::string_view what) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<meta name=\"generator\" content=\"mrc-conform\">\n<title>";
  out += title;
  out += "</title>\n<style>";
  out += stylesheet();
  const std::string row = "\ntr." + std::string(flagged_row_class);
  out += row + " td { background: #ffebe9; }" + row + " td:first-child { box-shadow: inset 4px 0 0 var(--fail); }";
  out += "\n.kill { font-weight: 700; } .kill.caught { color: var(--pass); } .kill.survived { color: var(--fail); }\n";
  out += "</style>\n</head>\n<body>\n<header class=\"top\" id=\"summary\">\n<div class=\"title-row\"><h1>";
  out += title;
  out += "</h1><span class=\"dut\">";
  out += dut_html;
  out += "</span></div>\n";
  if (partial) {
    out += "<div class=\"banner partial\" role=\"alert\"><strong>Partial run.</strong> Interrupted before every ";
    out += what;
    out += " ran; do not use it as a verdict.</div>\n";
  }
  return out;
}

}  // namespace mrc::harness::html
