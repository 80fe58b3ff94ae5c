// The run reports (design.md §2, anchors G14): results.json is the primary, versioned output;
// junit.xml and index.html are rendered from the same RunResult. Every renderer is a pure
// function of the RunResult, so the same run gives byte-identical files (wall-clock values appear
// only when the RunResult carries them).
#pragma once

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// The schema ids of results.json, "mrc-conform/results/<major>[.<minor>]". A change that removes
// or re-types a field is a new major; a new field is a new minor. The writer names the oldest
// version the file conforms to; since 1.2 (conformant, profile, strict, outcome, and each case's
// basis and advisory flag, each requirement's basis) that is at least 1.2, because every file
// carries them; 1.3 when the run says what evidence it kept (evidence), or ended early and says
// why (interrupt_reason) and what did not run (not_run); 1.4 names the wire revision (meta.wire)
// and splits bases four ways (published, spec, spec-single, model; profile spec), and every file
// carries both; 1.5 names the DUT's own identity (meta.dut_version: an agent's HELLO string and
// protocol version, a plugin's or the reference's version), and every file carries it; 1.6 adds
// the chart kinds latency, events and raster and a chart's limits and groups, which every chart
// carries; 1.7 adds a timing budget's rate_bps (the bridge's forwarding rate, which a golden's
// packet times are paced at), and every file the writer makes names 1.7. The reader accepts every
// id of its major up to its own minor.
inline constexpr std::string_view kResultsSchemaId = "mrc-conform/results/1.7";   // this version
inline constexpr std::string_view kResultsSchemaId16 = "mrc-conform/results/1.6"; // + chart kinds, limits
inline constexpr std::string_view kResultsSchemaId15 = "mrc-conform/results/1.5"; // + dut_version, bridge
inline constexpr std::string_view kResultsSchemaId14 = "mrc-conform/results/1.4"; // + wire, four bases
inline constexpr std::string_view kResultsSchemaId13 = "mrc-conform/results/1.3"; // + evidence, early end
inline constexpr std::string_view kResultsSchemaId12 = "mrc-conform/results/1.2"; // + conformance
inline constexpr std::string_view kResultsSchemaId11 = "mrc-conform/results/1.1"; // + timing_budget
inline constexpr std::string_view kResultsSchemaId10 = "mrc-conform/results/1";   // the first
// The id render_results_json() writes for `run` (and the HTML footer names).
std::string_view results_schema_id(const RunResult& run);

// File names inside a report folder.
inline constexpr std::string_view kResultsJsonName = "results.json";
inline constexpr std::string_view kJunitXmlName = "junit.xml";
inline constexpr std::string_view kHtmlReportName = "index.html";

// A report could not be written, or a results.json could not be read. what() names the file and,
// for a malformed results.json, the JSON pointer of the offending value
// ("results.json: /cases/2/verdict: expected one of PASS, FAIL, ...").
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// results.json: 2-space indented JSON, keys in a fixed order, ending in a newline.
std::string render_results_json(const RunResult& run);
// Parses results.json text. `origin` prefixes error messages (a file name). Throws ReportError.
RunResult parse_results_json(std::string_view text, std::string_view origin = "results.json");
// Reads a results.json file (the certification bundle and `--replay` use it). Throws ReportError.
RunResult read_results_json(const std::filesystem::path& path);

// junit.xml in the Jenkins/Ant JUnit layout: one <testsuite> per area, one <testcase> per case.
std::string render_junit_xml(const RunResult& run);

// index.html: one self-contained file (inline CSS and SVG, no script, no external URL).
std::string render_html(const RunResult& run);

struct ReportFiles {
  std::filesystem::path results_json;
  std::filesystem::path junit_xml;
  std::filesystem::path index_html;
};

// Writes the three reports into `out_dir` (created if missing). Each file is written to
// `<name>.tmp` and renamed over `<name>`, so an interrupted writer leaves either the previous
// complete file or the new complete file, never a torn one. Throws ReportError.
ReportFiles write_reports(const RunResult& run, const std::filesystem::path& out_dir);
// Writes the reports of a run that stopped early (Ctrl-C, fatal harness error): the same files,
// marked interrupted, so the HTML shows a "partial run" banner and the exit code is an error.
ReportFiles write_partial(RunResult run, const std::filesystem::path& out_dir);

// Writes `content` to `path` through `path.tmp` + rename. Throws ReportError.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);
// Copies `from` to `to` the same way, a chunk at a time (never the whole file in memory);
// `copied` hears the bytes of each chunk. Throws ReportError naming the file at fault.
void copy_file_atomically(const std::filesystem::path& from, const std::filesystem::path& to,
                          const std::function<void(std::uint64_t)>& copied = {});

}  // namespace mrc::harness
