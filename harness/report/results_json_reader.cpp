// results.json reader: the inverse of the writer, for the certification bundle and `--replay`.
// Strict: every field the schema requires must be present with its type, and unknown keys are
// refused, because a file that does not match the schema it names was not written by this
// version. Derived sections (summary, coverage counts and verdicts) are recomputed from the cases,
// never trusted; of the coverage matrix only the requirement rows are read back. So are the
// conformance fields of 1.2 (conformant, outcome, each case's advisory): derived by
// run_outcome.hpp from the cases, the profile and --strict, which are read.
//
// Files of schema 1 and 1.1 predate the basis split: their run reads back with profile full, not
// strict, and every case and requirement of published basis, which under profile full excuses
// nothing (a MUST FAIL counts whatever its basis); only their by-basis counts cannot say more.
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness/report/report.hpp"
#include "harness/report/run_summary.hpp"

namespace mrc::harness {
namespace {

using Json = nlohmann::json;

// A key as a JSON pointer token (RFC 6901: '~' -> "~0", '/' -> "~1").
std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// A JSON object being read, with the JSON pointer of where it is, so every error names the exact
// value that is wrong.
class Reader {
 public:
  Reader(const Json& j, std::string pointer, std::string_view origin)
      : j_(j), ptr_(std::move(pointer)), origin_(origin) {
    if (!j_.is_object()) fail(ptr_, "expected an object");
  }

  [[noreturn]] void fail(const std::string& ptr, const std::string& msg) const {
    throw ReportError(std::string(origin_) + ": " + (ptr.empty() ? "/" : ptr) + ": " + msg);
  }

  const Json& at(const std::string& key) {
    seen_.insert(key);
    auto it = j_.find(key);
    if (it == j_.end()) fail(ptr_, "missing required field \"" + key + "\"");
    return *it;
  }
  bool has(const std::string& key) const { return j_.contains(key); }
  std::string child(const std::string& key) const { return ptr_ + "/" + pointer_token(key); }

  std::string str(const std::string& key) {
    const Json& v = at(key);
    if (!v.is_string()) fail(child(key), "expected a string");
    return v.get<std::string>();
  }
  bool boolean(const std::string& key) {
    const Json& v = at(key);
    if (!v.is_boolean()) fail(child(key), "expected true or false");
    return v.get<bool>();
  }
  std::uint64_t u64(const std::string& key) { return to_u64(at(key), child(key)); }
  std::int64_t i64(const std::string& key) {
    const Json& v = at(key);
    if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<std::int64_t>();
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) {
      return static_cast<std::int64_t>(v.get<std::uint64_t>());
    }
    fail(child(key), "expected a signed 64-bit integer");
  }
  double real(const std::string& key) { return to_real(at(key), child(key)); }
  std::vector<std::string> strings(const std::string& key) {
    std::vector<std::string> out;
    const auto ptr = child(key);
    const Json& a = array(key);
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string()) fail(ptr + "/" + std::to_string(i), "expected a string");
      out.push_back(a[i].get<std::string>());
    }
    return out;
  }
  std::vector<double> reals(const std::string& key) {
    std::vector<double> out;
    const auto ptr = child(key);
    const Json& a = array(key);
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(to_real(a[i], ptr + "/" + std::to_string(i)));
    return out;
  }
  const Json& array(const std::string& key) {
    const Json& v = at(key);
    if (!v.is_array()) fail(child(key), "expected an array");
    return v;
  }
  Reader object(const std::string& key) { return Reader(at(key), child(key), origin_); }

  // Refuses keys this version does not know (call after reading every field).
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (!seen_.contains(it.key())) fail(child(it.key()), "unknown field");
    }
  }

  std::uint64_t to_u64(const Json& v, const std::string& ptr) const {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
    fail(ptr, "expected a non-negative integer");
  }
  double to_real(const Json& v, const std::string& ptr) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
      if (s == "Infinity") return std::numeric_limits<double>::infinity();
      if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    }
    fail(ptr, "expected a number or one of \"NaN\", \"Infinity\", \"-Infinity\"");
  }
  template <typename E, std::size_t N>
  E enumeration(const std::string& key, const std::array<std::string_view, N>& names) {
    const auto s = str(key);
    if (auto v = parse_enum<E>(names, s)) return *v;
    std::string list;
    for (const auto n : names) list += (list.empty() ? "" : ", ") + std::string(n);
    fail(child(key), "expected one of " + list + ", got \"" + s + "\"");
  }
  Verdict verdict(const std::string& key) {
    const auto s = str(key);
    if (auto v = verdict_from_string(s)) return *v;
    fail(child(key), "expected one of PASS, FAIL, UNSUPPORTED, INCONCLUSIVE, ERROR, got \"" + s + "\"");
  }
  std::string_view origin() const { return origin_; }
  const Json& json() const { return j_; }

 private:
  const Json& j_;
  std::string ptr_;
  std::string_view origin_;
  std::set<std::string> seen_;
};

// Calls fn(Reader) for each element of the array at `key`, each element an object.
template <typename Fn>
void for_each_object(Reader& parent, const std::string& key, Fn&& fn) {
  const Json& a = parent.array(key);
  const auto ptr = parent.child(key);
  for (std::size_t i = 0; i < a.size(); ++i) {
    Reader r(a[i], ptr + "/" + std::to_string(i), parent.origin());
    fn(r);
    r.finish();
  }
}

RunMetadata read_meta(Reader r, bool v1_4) {
  RunMetadata m;
  m.suite_version = r.str("suite_version");
  m.git_hash = r.str("git_hash");
  if (v1_4) {
    m.wire = r.str("wire");
    if (m.wire.empty()) r.fail(r.child("wire"), "the wire revision the run was judged on, never empty");
  }
  m.dut = r.str("dut");
  if (r.has("dut_version")) m.dut_version = r.str("dut_version");  // since 1.5
  m.dut_capabilities = r.strings("dut_capabilities");
  if (r.has("peer")) m.peer = r.str("peer");
  m.testbed = r.str("testbed");
  m.seed = r.u64("seed");
  m.command_line = r.str("command_line");
  if (r.has("started_at")) m.started_at = r.str("started_at");
  if (r.has("wall_seconds")) m.wall_seconds = r.real("wall_seconds");
  r.finish();
  return m;
}

// What the schema version of the file allows.
struct Version {
  bool v1_1 = false;  // timing_budget
  bool v1_2 = false;  // conformance: profile, strict, basis, advisory, outcome
  bool v1_3 = false;  // evidence volume; an early end: interrupt_reason, not_run, a case's evidence_error
  bool v1_4 = false;  // meta.wire; bases spec and spec-single, profile spec
};

// A basis as the file's version spells it: before 1.4 only published and model existed.
Basis read_basis(Reader& r, Version version) {
  const Basis b = r.enumeration<Basis>("basis", kBasisNames);
  if (!version.v1_4 && b != Basis::kPublished && b != Basis::kModel) {
    r.fail(r.child("basis"), "the bases spec and spec-single need schema " + std::string(kResultsSchemaId14));
  }
  return b;
}

std::vector<RequirementRef> read_requirements(Reader r, Version version) {
  for (const char* derived : {"requirements", "covered", "covered_percent", "must", "must_covered",
                              "must_covered_percent", "must_passed", "uncovered_must"}) {
    (void)r.at(derived);  // required, but recomputed from the cases rather than trusted
  }
  std::vector<RequirementRef> out;
  for_each_object(r, "matrix", [&](Reader& row) {
    RequirementRef req;
    req.id = row.str("id");
    req.level = row.str("level");
    if (version.v1_2) req.basis = read_basis(row, version);
    req.text = row.str("text");
    req.source = row.str("source");
    for_each_object(row, "cases", [&](Reader& c) {
      req.cases.push_back(c.str("id"));
      (void)c.at("verdict");  // derived from the case's own verdict
    });
    (void)row.at("verdict");
    out.push_back(std::move(req));
  });
  r.finish();
  return out;
}

Evidence read_evidence(Reader& r) {
  Evidence e;
  e.pcap = r.str("pcap");
  e.packet_index = r.i64("packet_index");
  e.ts_ns = r.u64("ts_ns");
  e.field = r.str("field");
  e.expected = r.str("expected");
  e.observed = r.str("observed");
  e.display_filter = r.str("display_filter");
  e.note = r.str("note");
  return e;
}

Chart read_chart(Reader& r) {
  Chart c;
  const auto kind = r.str("kind");
  const auto k = chart_kind_from_string(kind);
  if (!k) r.fail(r.child("kind"), "expected bars, timeline, latency, events or raster, got \"" + kind + "\"");
  c.kind = *k;
  c.title = r.str("title");
  c.x_label = r.str("x_label");
  c.y_label = r.str("y_label");
  c.labels = r.strings("labels");
  c.values = r.reals("values");
  c.expected = r.reals("expected");
  c.markers = r.reals("markers");
  if (r.has("limits")) c.limits = r.reals("limits");  // since 1.6
  if (r.has("groups")) c.groups = r.strings("groups");
  return c;
}

CheckResult read_check(Reader& r) {
  CheckResult c;
  c.type = r.str("type");
  c.name = r.str("name");
  c.verdict = r.verdict("verdict");
  c.message = r.str("message");
  const Json& metrics = r.at("metrics");
  if (!metrics.is_object()) r.fail(r.child("metrics"), "expected an object");
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    c.metrics[it.key()] = r.to_real(it.value(), r.child("metrics") + "/" + pointer_token(it.key()));
  }
  for_each_object(r, "evidence", [&](Reader& e) { c.evidence.push_back(read_evidence(e)); });
  for_each_object(r, "charts", [&](Reader& ch) { c.charts.push_back(read_chart(ch)); });
  return c;
}

CaseResult read_case(Reader& r, Version version) {
  CaseResult c;
  c.id = r.str("id");
  c.title = r.str("title");
  c.area = r.str("area");
  c.file = r.str("file");
  c.clauses = r.strings("clauses");
  c.level = r.str("level");
  if (r.has("fail_level")) {  // only on a FAIL whose failing checks prove weaker requirements
    c.fail_level = r.str("fail_level");
    if (!parse_enum<Level>(kLevelNames, c.fail_level)) {
      r.fail(r.child("fail_level"), "expected MUST, SHOULD or MAY, got \"" + c.fail_level + "\"");
    }
  }
  if (version.v1_2) c.basis = read_basis(r, version);
  c.behaviour = r.str("behaviour");
  c.tags = r.strings("tags");
  c.seed = r.u64("seed");
  c.verdict = r.verdict("verdict");
  if (version.v1_2) (void)r.boolean("advisory");  // derived from the verdict, level, basis and profile
  c.message = r.str("message");
  {
    Reader e = r.object("expectation");
    const auto outcome = e.str("outcome");
    const auto o = expectation_outcome_from_string(outcome);
    if (!o) {
      e.fail(e.child("outcome"),
             "expected one of none, expected, unexpected-pass, unexpected-other, expired, got \"" + outcome + "\"");
    }
    c.expectation = *o;
    c.expectation_reason = e.str("reason");
    c.expectation_link = e.str("link");
    e.finish();
  }
  c.sim_time_ns = r.u64("sim_time_ns");
  if (r.has("timing_budget")) {
    if (!version.v1_1) {
      r.fail(r.child("timing_budget"),
             "needs schema " + std::string(kResultsSchemaId11) + " or later; the file says " + std::string(kResultsSchemaId10));
    }
    Reader b = r.object("timing_budget");
    c.timing_budget.ns = b.u64("ns");
    c.timing_budget.source = b.str("source");
    if (b.has("rate_bps")) c.timing_budget.rate_bps = b.u64("rate_bps");  // since 1.7
    b.finish();
    if (c.timing_budget.ns == 0) b.fail(b.child("ns"), "a timing budget is written only when it is not zero");
  }
  if (r.has("bridge")) {  // since 1.5
    Reader b = r.object("bridge");
    BridgeStats& s = c.bridge.emplace();
    s.to_dut = b.u64("to_dut");
    s.from_dut = b.u64("from_dut");
    s.lost = b.u64("lost");
    s.lag_p99_ns = b.u64("lag_p99_ns");
    s.lag_max_ns = b.u64("lag_max_ns");
    s.entry_p99_ns = b.u64("entry_p99_ns");
    b.finish();
  }
  if (r.has("wall_ms")) c.wall_ms = r.real("wall_ms");
  c.evidence_files = r.strings("evidence_files");
  if (r.has("evidence_error")) {
    if (!version.v1_3) {
      r.fail(r.child("evidence_error"), "needs schema " + std::string(kResultsSchemaId13) + " or later");
    }
    c.evidence_error = r.str("evidence_error");
    if (c.evidence_error.empty()) r.fail(r.child("evidence_error"), "written only when evidence was lost");
  }
  for_each_object(r, "checks", [&](Reader& ch) { c.checks.push_back(read_check(ch)); });
  return c;
}

}  // namespace

RunResult parse_results_json(std::string_view text, std::string_view origin) {
  Json j;
  try {
    j = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw ReportError(std::string(origin) + ": not valid JSON: " + e.what());
  }
  Reader top(j, "", origin);
  const auto schema = top.str("schema");
  if (schema != kResultsSchemaId && schema != kResultsSchemaId16 && schema != kResultsSchemaId15 && schema != kResultsSchemaId14 && schema != kResultsSchemaId13 &&
      schema != kResultsSchemaId12 && schema != kResultsSchemaId11 && schema != kResultsSchemaId10) {
    top.fail("/schema", "this reader understands \"" + std::string(kResultsSchemaId10) + "\", \"" +
                            std::string(kResultsSchemaId11) + "\", \"" + std::string(kResultsSchemaId12) + "\", \"" +
                            std::string(kResultsSchemaId13) + "\", \"" + std::string(kResultsSchemaId14) + "\", \"" +
                            std::string(kResultsSchemaId15) + "\", \"" + std::string(kResultsSchemaId16) + "\" and \"" +
                            std::string(kResultsSchemaId) + "\", the file says \"" + schema + "\"");
  }
  const bool v1_4 = schema == kResultsSchemaId || schema == kResultsSchemaId16 || schema == kResultsSchemaId15 ||
                    schema == kResultsSchemaId14;
  const bool v1_3 = v1_4 || schema == kResultsSchemaId13;
  const Version version{.v1_1 = schema != kResultsSchemaId10,
                        .v1_2 = v1_3 || schema == kResultsSchemaId12,
                        .v1_3 = v1_3,
                        .v1_4 = v1_4};
  RunResult run;
  run.interrupted = top.boolean("interrupted");
  for (const char* key : {"interrupt_reason", "not_run"}) {
    if (top.has(key) && !v1_3) {
      top.fail(top.child(key), "needs schema " + std::string(kResultsSchemaId13) + " or later" + "; the file says " + schema);
    }
  }
  if (top.has("interrupt_reason")) run.interrupt_reason = top.str("interrupt_reason");
  if (top.has("not_run")) run.not_run = top.strings("not_run");
  if (version.v1_2) {
    (void)top.boolean("conformant");  // derived
    run.profile = top.enumeration<ConformanceProfile>("profile", kConformanceProfileNames);
    if (!v1_4 && run.profile == ConformanceProfile::kSpec) {
      top.fail(top.child("profile"), "the profile spec needs schema " + std::string(kResultsSchemaId14));
    }
    run.strict = top.boolean("strict");
  }
  run.meta = read_meta(top.object("meta"), v1_4);
  (void)top.at("summary");  // derived from the cases
  if (version.v1_2) (void)top.object("outcome");  // derived from the cases
  run.requirements = read_requirements(top.object("coverage"), version);
  if (top.has("evidence")) {
    if (!version.v1_3) top.fail(top.child("evidence"), "needs schema " + std::string(kResultsSchemaId13) + " or later" + "; the file says " + schema);
    Reader e = top.object("evidence");
    run.evidence.keep = e.str("keep");
    run.evidence.snaplen = e.str("snaplen");
    run.evidence.files = e.u64("files");
    run.evidence.bytes = e.u64("bytes");
    e.finish();
    if (run.evidence.keep.empty()) e.fail(e.child("keep"), "all, failures or none");
  }
  for_each_object(top, "cases", [&](Reader& c) { run.cases.push_back(read_case(c, version)); });
  top.finish();
  return run;
}

RunResult read_results_json(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError(path.string() + ": cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ReportError(path.string() + ": read error");
  return parse_results_json(text.str(), path.string());
}

}  // namespace mrc::harness
