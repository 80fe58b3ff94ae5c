// interop.json and the stdout summary of `mrc-conform interop` (interop_report.hpp); the page is
// in interop_html.cpp.
#include "harness/report/interop_report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "harness/report/report.hpp"

namespace mrc::harness {
namespace {

using Json = nlohmann::ordered_json;

std::string worst_name(const InteropCell& c) {
  const auto w = c.worst();
  return w ? std::string(to_string(*w)) : "NOT-RUN";
}

Json cell_json(const InteropCell& c) {
  Json j;
  j["row"] = c.row;
  j["col"] = c.col;
  j["dut"] = c.dut;
  j["peer"] = c.peer;
  j["report"] = c.report_dir + "/" + std::string(kHtmlReportName);
  j["results"] = c.report_dir + "/" + std::string(kResultsJsonName);
  j["interrupted"] = c.interrupted;
  j["exit_code"] = c.exit_code;
  j["worst"] = worst_name(c);
  Json counts;
  counts["total"] = c.counts.total;
  for (const Verdict v : kReportVerdicts) counts[std::string(to_string(v))] = c.counts.of(v);
  j["counts"] = std::move(counts);
  if (c.wall_seconds) j["wall_seconds"] = *c.wall_seconds;
  return j;
}

}  // namespace

std::string render_interop_json(const InteropResult& r) {
  Json j;
  j["schema"] = kInteropSchemaId;
  j["interrupted"] = r.interrupted;
  j["exit_code"] = r.exit_code();
  Json meta;
  meta["suite_version"] = r.suite_version;
  meta["git_hash"] = r.git_hash;
  meta["testbed"] = r.testbed;
  meta["seed"] = r.seed ? Json(*r.seed) : Json(nullptr);
  meta["command_line"] = r.command_line;
  if (r.wall_seconds) meta["wall_seconds"] = *r.wall_seconds;
  j["meta"] = std::move(meta);
  Json selection;
  selection["inputs"] = r.case_inputs;
  selection["tags"] = r.tags;
  selection["exclude_tags"] = r.exclude_tags;
  selection["cases"] = r.cases;
  j["selection"] = std::move(selection);
  j["impls"] = r.impls;
  Json cells = Json::array();
  for (const auto& c : r.cells) cells.push_back(cell_json(c));
  j["cells"] = std::move(cells);
  // Invalid UTF-8 in a spec would make nlohmann throw; it is replaced by U+FFFD instead.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string render_interop_text(const InteropResult& r) {
  std::size_t dut_width = 0;
  std::size_t peer_width = 0;
  for (const auto& c : r.cells) {
    dut_width = std::max(dut_width, c.dut.size());
    peer_width = std::max(peer_width, c.peer.size());
  }
  std::string out;
  for (const auto& c : r.cells) {
    const std::string worst = worst_name(c);
    constexpr std::size_t kWorstWidth = 12;  // "INCONCLUSIVE"
    out += c.dut + std::string(dut_width - c.dut.size(), ' ') + "  x  " + c.peer +
           std::string(peer_width - c.peer.size(), ' ') + "  " + worst +
           std::string(kWorstWidth - std::min(kWorstWidth, worst.size()), ' ') + c.counts.text();
    out += "  exit " + std::to_string(c.exit_code) + (c.interrupted ? " (interrupted)" : "") + "  " + c.report_dir + "\n";
  }
  const std::size_t pairs = r.impls.size() * r.impls.size();
  out += "interop: " + std::to_string(r.cells.size()) + " of " + std::to_string(pairs) + " pair(s) ran, " +
         std::to_string(r.cases.size()) + " case(s) each; rows (the DUT) are judged; exit " +
         std::to_string(r.exit_code()) + (r.interrupted ? " (interrupted: partial matrix)" : "") + "\n";
  return out;
}

}  // namespace mrc::harness
