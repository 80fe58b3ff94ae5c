// replay_bundle (replay.hpp): two passes over the bundle file. The first is verify's, which also
// keeps the manifest and results.json; from them each case is either not re-judged (and why) or
// waits for its evidence pcapng and context file. The second pass reads those members as they
// come, each hashed again against the first pass (the file could change in between), and judges a
// case as soon as it has both (replay_case.hpp), so one case's evidence is in memory at a time.
#include "harness/certify/replay.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "harness/case/clauses.hpp"
#include "harness/certify/bundle_suite.hpp"
#include "harness/certify/replay_case.hpp"
#include "harness/certify/tar_archive.hpp"
#include "harness/report/report.hpp"
#include "harness/run/case_evidence.hpp"
#include "harness/run/replay_context.hpp"

namespace mrc::run {
namespace {

namespace fs = std::filesystem;
using harness::Verdict;
using Json = nlohmann::json;

std::string manifest_string(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) {
    throw ReplayRefused(std::string(harness::kBundleManifestName) + ": " + where + "/" + key + ": expected a string");
  }
  return j[key].get<std::string>();
}

// A case waiting for its members in the second pass.
struct Waiting {
  const harness::CaseResult* was = nullptr;
  std::string case_path;
  CaseEvidence ev;
  bool have_pcap = false, have_context = false;
};

// The second pass: every member a waiting case needs, hashed against the first pass; each case
// re-judged once it has both, its members dropped right after.
void judge_waiting(const fs::path& file, const harness::BundleHeld& held, std::map<std::size_t, Waiting>& waiting,
                   const ReplaySuite& suite, std::vector<ReplayedCase>& cases) {
  std::map<std::string, std::vector<std::size_t>> wanted;  // member -> indices of the cases needing it
  for (const auto& [i, w] : waiting) {
    wanted[w.ev.pcap_name].push_back(i);
    wanted[w.ev.context_name].push_back(i);
  }
  try {
    harness::TarReader reader(file, harness::TarLimits{.max_archive_bytes = harness::kMaxBundleBytes});
    while (const std::optional<harness::TarMemberInfo> m = reader.next()) {
      const auto it = wanted.find(m->name);
      if (it == wanted.end()) continue;
      harness::Sha256 sha;
      std::string data;
      data.reserve(m->size);
      reader.read_data([&](std::string_view chunk) {
        sha.update(chunk);
        data.append(chunk);
      });
      const auto first = held.sha256.find(m->name);
      if (first == held.sha256.end() || first->second != sha.hex()) {
        throw ReplayRefused(m->name + ": changed since the bundle was verified (the file was written to meanwhile)");
      }
      for (std::size_t k = 0; k < it->second.size(); ++k) {
        const std::size_t i = it->second[k];
        Waiting& w = waiting.at(i);
        const bool pcap = m->name == w.ev.pcap_name;
        // Moved to the last case needing it (the one case, but for a manifest naming an id twice).
        (pcap ? w.ev.pcap : w.ev.context) = k + 1 == it->second.size() ? std::move(data) : data;
        (pcap ? w.have_pcap : w.have_context) = true;
        if (!w.have_pcap || !w.have_context) continue;
        rejudge_case(suite, *w.was, w.case_path, w.ev, cases[i]);
        waiting.erase(i);
      }
    }
  } catch (const harness::TarError& e) {
    throw harness::BundleInputError(std::string("not a readable bundle: ") + e.what());
  }
  if (!waiting.empty()) {
    throw ReplayRefused(waiting.begin()->second.ev.pcap_name + ": no longer in the bundle (the file changed since it was verified)");
  }
}

}  // namespace

std::size_t ReplayReport::count(ReplayStatus s) const {
  return static_cast<std::size_t>(std::count_if(cases.begin(), cases.end(), [&](const ReplayedCase& c) { return c.status == s; }));
}

ReplayReport replay_bundle(const fs::path& file, const ReplayOptions& o) {
  ReplayReport rep;
  harness::BundleHeld held;
  rep.check = harness::verify_bundle(file, o.pubkey, o.cases_dir, &held);
  const std::set<std::string> mismatched(rep.check.suite_mismatches.begin(), rep.check.suite_mismatches.end());
  if (rep.check.problems.size() > rep.check.suite_mismatches.size() || mismatched.contains("cases/clauses.yaml")) {
    std::string all;
    for (const auto& p : rep.check.problems) all += p + "\n";
    all += "bundle NOT OK: " + std::to_string(rep.check.problems.size()) + " problem(s); nothing re-judged";
    if (rep.check.problems.size() == rep.check.suite_mismatches.size()) {
      all += " (the cases load against clauses.yaml: replay needs the run's)";
    }
    throw ReplayRefused(all);
  }
  const Json manifest = Json::parse(held.manifest);
  const Json& run = manifest.at("run");
  rep.dut = manifest_string(run, "dut", "/run");
  rep.testbed = manifest_string(run, "testbed", "/run");
  rep.seed = run.contains("seed") && run["seed"].is_number_unsigned() ? run["seed"].get<std::uint64_t>() : 0;

  if (!held.results) throw ReplayRefused("the bundle holds no results.json: nothing to compare verdicts with");
  harness::RunResult recorded;
  try {
    recorded = harness::parse_results_json(*held.results, harness::kResultsJsonName);
  } catch (const harness::ReportError& e) {
    throw ReplayRefused(e.what());
  }
  std::map<std::string, const harness::CaseResult*> recorded_by_id;
  for (const auto& c : recorded.cases) recorded_by_id[c.id] = &c;

  const harness::BundleSuiteTree tree(o.cases_dir);
  const fs::path suite_root = tree.cases_dir().parent_path();
  const harness::ClauseLoadResult clauses = harness::load_clauses(tree.clauses());
  if (!clauses.ok()) throw ReplayRefused(clauses.diagnostics.to_string());

  const Json& cases = manifest.at("cases");
  rep.cases.resize(cases.size());
  std::map<std::size_t, Waiting> waiting;  // by manifest index
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Json& mc = cases[i];
    const std::string at = "/cases/" + std::to_string(i);
    ReplayedCase& out = rep.cases[i];
    out.id = manifest_string(mc, "id", at);
    const std::optional<Verdict> verdict = harness::verdict_from_string(manifest_string(mc, "verdict", at));
    if (!verdict) throw ReplayRefused(std::string(harness::kBundleManifestName) + ": " + at + "/verdict: not a verdict");
    out.recorded = *verdict;
    auto skip = [&](std::string why) { out.reason = std::move(why); };
    const auto rec = recorded_by_id.find(out.id);
    if (rec == recorded_by_id.end()) {
      skip("results.json has no case " + out.id);
      continue;
    }
    const harness::CaseResult& was = *rec->second;
    if (was.checks.empty()) {
      skip("no check ran in the run (" + std::string(harness::to_string(was.verdict)) + ": " + was.message + ")");
      continue;
    }
    const std::string case_path = manifest_string(mc, "file", at);
    if (mismatched.contains(case_path)) {
      skip("its case file " + case_path + " differs from this suite's tree");
      continue;
    }
    const std::string pcap = case_evidence_path(out.id);
    const std::string context = case_context_path(out.id);
    if (!held.sha256.contains(pcap)) {
      skip("no evidence file (the run kept " + (recorded.evidence.keep.empty() ? std::string("none for it") : "--evidence " + recorded.evidence.keep) + ")");
      continue;
    }
    if (!held.sha256.contains(context)) {
      skip("no " + context + " beside its evidence (a run by an mrc-conform without replay)");
      continue;
    }
    waiting[i] = Waiting{&was, case_path, CaseEvidence{pcap, {}, context, {}}};
  }
  const ReplaySuite suite{tree, suite_root, clauses.index, mismatched, recorded, o};
  if (!waiting.empty()) judge_waiting(file, held, waiting, suite, rep.cases);
  return rep;
}

}  // namespace mrc::run
