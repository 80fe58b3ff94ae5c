// falsefail.json and the stdout table of `mrc-conform falsefail` (falsefail_report.hpp).
#include "harness/report/falsefail_report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace mrc::harness {
namespace {

using Json = nlohmann::ordered_json;

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// p-values span many decades: 3 significant digits in scientific notation below 0.001.
std::string p_text(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, p < 0.001 ? "%.3g" : "%.4f", p);
  return buf;
}

Json count_json(const FalsefailCount& c) {
  Json j;
  j["alpha"] = c.alpha;
  j["runs"] = c.runs;
  j["judged"] = c.judged;
  j["fails"] = c.fails;
  j["inconclusive"] = c.inconclusive;
  j["errors"] = c.errors;
  j["rate"] = c.rate();
  j["p_value"] = c.p_value;
  j["verdict"] = c.verdict;
  return j;
}

std::string row(const std::string& what, const FalsefailCount& c) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-40s %5llu %5llu %5llu %5llu %8s %9s %10s  %s\n", what.c_str(),
                static_cast<unsigned long long>(c.runs), static_cast<unsigned long long>(c.fails),
                static_cast<unsigned long long>(c.inconclusive), static_cast<unsigned long long>(c.errors),
                fixed(c.rate(), 4).c_str(), p_text(c.alpha).c_str(), p_text(c.p_value).c_str(), c.verdict.c_str());
  return buf;
}

}  // namespace

std::string render_falsefail_json(const FalsefailResult& r) {
  Json j;
  j["schema"] = "mrc-conform/falsefail/1";
  j["dut"] = r.dut;
  j["testbed"] = r.testbed;
  j["first_seed"] = r.first_seed;
  j["seeds"] = r.seeds;
  j["significance"] = kFalsefailSignificance;
  j["interrupted"] = r.interrupted;
  j["exit_code"] = r.exit_code();
  Json cases = Json::array();
  for (const auto& c : r.cases) {
    Json cj;
    cj["case"] = c.id;
    cj["case_result"] = count_json(c.count);
    Json checks = Json::array();
    for (const auto& k : c.checks) {
      Json kj;
      kj["name"] = k.name;
      Json cl = Json::array();
      for (const auto& x : k.clauses) cl.push_back(x);
      kj["clauses"] = std::move(cl);
      kj["result"] = count_json(k.count);
      checks.push_back(std::move(kj));
    }
    cj["checks"] = std::move(checks);
    cases.push_back(std::move(cj));
  }
  j["cases"] = std::move(cases);
  return j.dump(2) + "\n";
}

std::string render_falsefail_text(const FalsefailResult& r) {
  std::string out;
  char head[512];
  std::snprintf(head, sizeof head, "%-40s %5s %5s %5s %5s %8s %9s %10s  %s\n", "case / check", "runs", "FAIL", "inc",
                "err", "rate", "alpha", "p", "verdict");
  out += head;
  for (const auto& c : r.cases) {
    out += row(c.id, c.count);
    for (const auto& k : c.checks) out += row("  " + k.name, k.count);
  }
  out += std::to_string(r.cases.size()) + " statistical case(s), " + std::to_string(r.seeds) + " seed(s) from " +
         std::to_string(r.first_seed) + " on " + r.dut + "; `exceeds alpha` = p < " + fixed(kFalsefailSignificance, 2) +
         (r.interrupted ? "; interrupted" : "") + "\n";
  return out;
}

}  // namespace mrc::harness
