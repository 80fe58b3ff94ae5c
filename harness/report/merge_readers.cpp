#include "harness/report/merge_readers.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/report/report.hpp"

namespace mrc::harness {
namespace {

using Json = nlohmann::ordered_json;

// A JSON document and its file name (the getters below name the offending key's pointer).
struct Doc {
  std::string name;
  Json root;
};

Doc load(const std::filesystem::path& file) {
  Doc d{file.string(), {}};
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ReportError(d.name + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  try {
    d.root = Json::parse(text.str());
  } catch (const std::exception& e) {
    throw ReportError(d.name + ": not JSON: " + e.what());
  }
  return d;
}

// Reads `j[key]` as T, or throws naming `where/key`.
template <typename T>
T get(const Doc& d, const Json& j, const std::string& where, const char* key) {
  if (!j.is_object() || !j.contains(key)) throw ReportError(d.name + ": " + where + "/" + key + ": missing");
  try {
    return j.at(key).get<T>();
  } catch (const std::exception&) {
    throw ReportError(d.name + ": " + where + "/" + key + ": wrong type");
  }
}

const Json& array(const Doc& d, const Json& j, const std::string& where, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_array()) {
    throw ReportError(d.name + ": " + where + "/" + key + ": expected an array");
  }
  return j.at(key);
}

void check_schema(const Doc& d, const char* schema) {
  if (get<std::string>(d, d.root, "", "schema") != schema) {
    throw ReportError(d.name + ": /schema: expected " + std::string(schema));
  }
}

Verdict verdict(const Doc& d, const Json& j, const std::string& where) {
  const auto v = verdict_from_string(get<std::string>(d, j, where, "verdict"));
  if (!v) throw ReportError(d.name + ": " + where + "/verdict: not a verdict");
  return *v;
}

CaseOutcome outcome(const Doc& d, const Json& j, const std::string& where, const char* checks_key) {
  CaseOutcome o{get<std::string>(d, j, where, "case"), verdict(d, j, where), get<std::string>(d, j, where, "message"), {}};
  if (checks_key == nullptr) return o;
  const Json& checks = array(d, j, where, checks_key);
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::string at = where + "/" + checks_key + "/" + std::to_string(i);
    o.checks.push_back(FailingCheck{get<std::string>(d, checks[i], at, "name"),
                                    get<std::vector<std::string>>(d, checks[i], at, "clauses"),
                                    get<std::string>(d, checks[i], at, "message")});
  }
  return o;
}

std::vector<CaseOutcome> outcomes(const Doc& d, const Json& j, const std::string& where, const char* key,
                                  const char* checks_key) {
  std::vector<CaseOutcome> out;
  const Json& a = array(d, j, where, key);
  for (std::size_t i = 0; i < a.size(); ++i) {
    out.push_back(outcome(d, a[i], where + "/" + key + "/" + std::to_string(i), checks_key));
  }
  return out;
}

FalsefailCount count(const Doc& d, const Json& j, const std::string& where) {
  FalsefailCount c;
  c.alpha = get<double>(d, j, where, "alpha");
  c.runs = get<std::uint64_t>(d, j, where, "runs");
  c.judged = get<std::uint64_t>(d, j, where, "judged");
  c.fails = get<std::uint64_t>(d, j, where, "fails");
  c.inconclusive = get<std::uint64_t>(d, j, where, "inconclusive");
  c.errors = get<std::uint64_t>(d, j, where, "errors");
  c.p_value = get<double>(d, j, where, "p_value");
  c.verdict = get<std::string>(d, j, where, "verdict");
  return c;
}

}  // namespace

CampaignResult read_campaign_json(const std::filesystem::path& file) {
  const Doc d = load(file);
  check_schema(d, "mrc-conform/campaign/1");
  const Json& j = d.root;
  CampaignResult r;
  r.testbed = get<std::string>(d, j, "", "testbed");
  r.relevant_only = get<bool>(d, j, "", "relevant_only");
  r.min_kill_rate = get<double>(d, j, "", "min_kill_rate");
  r.cases = get<std::vector<std::string>>(d, j, "", "cases");
  if (!j.contains("totals") || !j.at("totals").is_object()) throw ReportError(d.name + ": /totals: expected an object");
  const Json& totals = j.at("totals");
  r.baseline_problems = outcomes(d, totals, "/totals", "baseline_problems", nullptr);
  r.interrupted = get<bool>(d, totals, "/totals", "interrupted");
  if (totals.contains("wall_seconds")) r.wall_seconds = get<double>(d, totals, "/totals", "wall_seconds");
  const Json& defects = array(d, j, "", "defects");
  for (std::size_t i = 0; i < defects.size(); ++i) {
    const std::string at = "/defects/" + std::to_string(i);
    const Json& dj = defects[i];
    DefectOutcome o;
    o.defect = CampaignDefect{get<std::string>(d, dj, at, "name"), get<std::string>(d, dj, at, "symptom"),
                              get<std::vector<std::string>>(d, dj, at, "violates")};
    o.caught = get<bool>(d, dj, at, "caught");
    o.cases_run.assign(get<std::size_t>(d, dj, at, "cases_run"), std::string());
    o.killers = outcomes(d, dj, at, "killers", "failing_checks");
    o.collateral = outcomes(d, dj, at, "collateral", nullptr);
    o.baseline_excluded = get<std::vector<std::string>>(d, dj, at, "baseline_excluded");
    o.unreached = get<std::vector<std::string>>(d, dj, at, "unreached");
    if (dj.contains("reach_errors")) o.reach_errors = get<std::vector<std::string>>(d, dj, at, "reach_errors");
    if (dj.contains("kept_runs")) o.kept_runs = get<std::vector<std::string>>(d, dj, at, "kept_runs");
    r.defects.push_back(std::move(o));
  }
  return r;
}

VariantsResult read_variants_json(const std::filesystem::path& file) {
  const Doc d = load(file);
  check_schema(d, "mrc-conform/variants/1");
  const Json& j = d.root;
  VariantsResult r;
  r.testbed = get<std::string>(d, j, "", "testbed");
  r.seeds = get<std::uint32_t>(d, j, "", "seeds");
  r.cases = get<std::vector<std::string>>(d, j, "", "cases");
  if (!j.contains("totals") || !j.at("totals").is_object()) throw ReportError(d.name + ": /totals: expected an object");
  const Json& totals = j.at("totals");
  r.interrupted = get<bool>(d, totals, "/totals", "interrupted");
  if (totals.contains("wall_seconds")) r.wall_seconds = get<double>(d, totals, "/totals", "wall_seconds");
  const Json& runs = array(d, j, "", "runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string at = "/runs/" + std::to_string(i);
    const Json& rj = runs[i];
    VariantRun run;
    run.name = get<std::string>(d, rj, at, "name");
    run.choice = get<std::string>(d, rj, at, "choice");
    run.leaves_open = get<std::vector<std::string>>(d, rj, at, "leaves_open");
    run.case_runs = get<std::size_t>(d, rj, at, "case_runs");
    run.passed = get<std::size_t>(d, rj, at, "passed");
    run.interrupted = get<bool>(d, rj, at, "interrupted");
    const Json& ff = array(d, rj, at, "false_fails");
    for (std::size_t k = 0; k < ff.size(); ++k) {
      const std::string fat = at + "/false_fails/" + std::to_string(k);
      FalseFail f;
      f.outcome = outcome(d, ff[k], fat, "failing_checks");
      f.level = get<std::string>(d, ff[k], fat, "level");
      f.seed = get<std::uint64_t>(d, ff[k], fat, "seed");
      f.pinned_choice = get<std::vector<std::string>>(d, ff[k], fat, "pinned_choice");
      run.false_fails.push_back(std::move(f));
    }
    run.errors = outcomes(d, rj, at, "errors", nullptr);
    run.other = outcomes(d, rj, at, "other", nullptr);
    r.runs.push_back(std::move(run));
  }
  return r;
}

FalsefailResult read_falsefail_json(const std::filesystem::path& file) {
  const Doc d = load(file);
  check_schema(d, "mrc-conform/falsefail/1");
  const Json& j = d.root;
  FalsefailResult r;
  r.dut = get<std::string>(d, j, "", "dut");
  r.testbed = get<std::string>(d, j, "", "testbed");
  r.first_seed = get<std::uint64_t>(d, j, "", "first_seed");
  r.seeds = get<std::uint32_t>(d, j, "", "seeds");
  r.interrupted = get<bool>(d, j, "", "interrupted");
  const Json& cases = array(d, j, "", "cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string at = "/cases/" + std::to_string(i);
    FalsefailCase c;
    c.id = get<std::string>(d, cases[i], at, "case");
    if (!cases[i].contains("case_result")) throw ReportError(d.name + ": " + at + "/case_result: missing");
    c.count = count(d, cases[i].at("case_result"), at + "/case_result");
    const Json& checks = array(d, cases[i], at, "checks");
    for (std::size_t k = 0; k < checks.size(); ++k) {
      const std::string kat = at + "/checks/" + std::to_string(k);
      FalsefailCheck chk;
      chk.name = get<std::string>(d, checks[k], kat, "name");
      chk.clauses = get<std::vector<std::string>>(d, checks[k], kat, "clauses");
      if (!checks[k].contains("result")) throw ReportError(d.name + ": " + kat + "/result: missing");
      chk.count = count(d, checks[k].at("result"), kat + "/result");
      c.checks.push_back(std::move(chk));
    }
    r.cases.push_back(std::move(c));
  }
  return r;
}

}  // namespace mrc::harness
