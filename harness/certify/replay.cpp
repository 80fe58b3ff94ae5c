#include "harness/certify/replay.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "harness/capture/pcapng_bytes.hpp"
#include "harness/case/case_loader.hpp"
#include "harness/case/clauses.hpp"
#include "harness/certify/bundle_suite.hpp"
#include "harness/certify/tar_archive.hpp"
#include "harness/report/report.hpp"
#include "harness/run/case_evidence.hpp"
#include "harness/run/case_result.hpp"
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

// The frames of every tap from the evidence file, each with the integrity the run recorded, except
// `captured`: what the file holds now. A frame missing from the file (or a tap) leaves the capture
// incomplete, so the checks that read it are INCONCLUSIVE, as a run with a lossy tap would be.
void load_frames(const std::string& member, const std::string& bytes, SessionResult& s, ReplayedCase& out) {
  std::vector<harness::ReadInterface> ifaces;
  if (std::string e = harness::read_pcapng_bytes(member, bytes, ifaces); !e.empty()) throw ReplayRefused(e);
  for (harness::TapCapture& t : s.ctx.taps) {
    const auto it = std::find_if(ifaces.begin(), ifaces.end(), [&](const harness::ReadInterface& i) { return i.name == t.name; });
    harness::CaptureIntegrity g = t.capture.integrity();
    harness::Capture read(t.name);
    if (it == ifaces.end()) {
      out.notes.push_back(member + " has no interface " + t.name + " (the run captured " + std::to_string(g.captured) +
                          " frame(s) there)");
    } else {
      read = std::move(it->capture);
      read.set_tap(t.name);
      if (read.size() != g.captured) {
        out.notes.push_back(member + " interface " + t.name + ": " + std::to_string(read.size()) + " frame(s), the run captured " +
                            std::to_string(g.captured));
      }
    }
    g.captured = read.size();
    read.integrity() = g;
    t.capture = std::move(read);
  }
}

// Frames the evidence file holds shorter than the run captured them (its --snaplen), beyond the
// ones the run's own tap truncated; with the longest kept length.
std::pair<std::uint64_t, std::uint32_t> cut_by_snaplen(const SessionResult& s) {
  std::uint64_t cut = 0;
  std::uint32_t kept = 0;
  for (const harness::TapCapture& t : s.ctx.taps) {
    std::uint64_t short_frames = 0;
    for (const harness::CapturedPacket& p : t.capture.packets()) {
      if (p.caplen < p.origlen) {
        ++short_frames;
        kept = std::max(kept, p.caplen);
      }
    }
    if (short_frames > t.capture.integrity().truncated) cut += short_frames - t.capture.integrity().truncated;
  }
  return {cut, kept};
}

// Gives every frame the evidence cut back its length and ICRC status (restore_cut_frame), in
// the taps whose own capture cut nothing (else which frames the file cut is not known).
void restore_cut_frames(SessionResult& s, const std::vector<std::vector<std::uint32_t>>& icrc_bad) {
  std::vector<std::uint8_t> buf;
  for (std::size_t t = 0; t < s.ctx.taps.size(); ++t) {
    harness::Capture& cap = s.ctx.taps[t].capture;
    if (cap.integrity().truncated > 0) continue;
    const auto& cut = cap.packets();
    if (std::none_of(cut.begin(), cut.end(), [](const harness::CapturedPacket& p) { return p.caplen < p.origlen; })) continue;
    harness::Capture whole(cap.tap());
    const std::vector<std::uint32_t>& bad = t < icrc_bad.size() ? icrc_bad[t] : std::vector<std::uint32_t>{};
    for (std::size_t i = 0; i < cap.size(); ++i) {
      const harness::CapturedPacket& p = cap.packet(i);
      if (p.caplen >= p.origlen) {
        whole.add(p.ts_ns, cap.bytes(i), p.origlen);
        continue;
      }
      const bool is_bad = std::binary_search(bad.begin(), bad.end(), static_cast<std::uint32_t>(i));
      restore_cut_frame(cap.bytes(i), p.origlen, is_bad, buf);
      whole.add(p.ts_ns, buf, p.origlen);
    }
    whole.integrity() = cap.integrity();
    cap = std::move(whole);
  }
}

// The first check (by position) whose verdict differs; "" when none does.
void first_difference(const harness::CaseResult& was, const harness::CaseResult& now, ReplayedCase& out) {
  const std::size_t n = std::max(was.checks.size(), now.checks.size());
  for (std::size_t i = 0; i < n; ++i) {
    const harness::CheckResult* a = i < was.checks.size() ? &was.checks[i] : nullptr;
    const harness::CheckResult* b = i < now.checks.size() ? &now.checks[i] : nullptr;
    if (a && b && a->verdict == b->verdict && a->name == b->name) continue;
    if (b) {
      out.first_check = b->name;
      out.first_message = std::string(harness::to_string(b->verdict)) + ": " + b->message +
                          (a ? " (was " + std::string(harness::to_string(a->verdict)) + ": " + a->message + ")" : " (a new check)");
    } else {
      out.first_check = a->name;
      out.first_message = "no longer run (was " + std::string(harness::to_string(a->verdict)) + ": " + a->message + ")";
    }
    return;
  }
  out.first_message = now.message;
}

}  // namespace

std::size_t ReplayReport::count(ReplayStatus s) const {
  return static_cast<std::size_t>(std::count_if(cases.begin(), cases.end(), [&](const ReplayedCase& c) { return c.status == s; }));
}

ReplayReport replay_bundle(std::string_view bytes, const ReplayOptions& o) {
  ReplayReport rep;
  rep.check = harness::verify_bundle(bytes, o.pubkey, o.cases_dir);
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
  const std::vector<harness::TarMember> members = harness::read_tar(bytes);  // verify read it already
  std::map<std::string, const std::string*> member;
  for (const auto& m : members) member[m.name] = &m.data;
  const Json manifest = Json::parse(members.front().data);
  const Json& run = manifest.at("run");
  rep.dut = manifest_string(run, "dut", "/run");
  rep.testbed = manifest_string(run, "testbed", "/run");
  rep.seed = run.contains("seed") && run["seed"].is_number_unsigned() ? run["seed"].get<std::uint64_t>() : 0;

  const auto results_it = member.find(std::string(harness::kResultsJsonName));
  if (results_it == member.end()) throw ReplayRefused("the bundle holds no results.json: nothing to compare verdicts with");
  harness::RunResult recorded;
  try {
    recorded = harness::parse_results_json(*results_it->second, harness::kResultsJsonName);
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
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Json& mc = cases[i];
    const std::string at = "/cases/" + std::to_string(i);
    ReplayedCase out;
    out.id = manifest_string(mc, "id", at);
    const std::optional<Verdict> verdict = harness::verdict_from_string(manifest_string(mc, "verdict", at));
    if (!verdict) throw ReplayRefused(std::string(harness::kBundleManifestName) + ": " + at + "/verdict: not a verdict");
    out.recorded = *verdict;
    auto skip = [&](std::string why) {
      out.reason = std::move(why);
      rep.cases.push_back(std::move(out));
    };
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
    if (!member.contains(pcap)) {
      skip("no evidence file (the run kept " + (recorded.evidence.keep.empty() ? std::string("none for it") : "--evidence " + recorded.evidence.keep) + ")");
      continue;
    }
    if (!member.contains(context)) {
      skip("no " + context + " beside its evidence (a run by an mrc-conform without replay)");
      continue;
    }
    SessionResult s;
    std::vector<std::vector<std::uint32_t>> icrc_bad;
    if (std::string e = parse_case_context(*member[context], context, s, icrc_bad); !e.empty()) throw ReplayRefused(e);
    // A case the run rescaled for its wire is judged with the ACK timeout it ran with.
    harness::LoadResult loaded = harness::load_case(tree.locate(case_path), clauses.index, harness::LoadOptions{s.wire_timeout});
    if (!loaded.ok()) throw ReplayRefused("case " + out.id + ": " + case_path + " does not load:\n" + loaded.diagnostics.to_string());
    harness::Case& c = *loaded.value;
    std::string golden_differs;
    for (const harness::Check& k : c.checks) {
      const auto* g = std::get_if<harness::GoldenCheck>(&k.params);
      if (g && mismatched.contains(g->pcap.generic_string())) golden_differs = g->pcap.generic_string();
    }
    if (!golden_differs.empty()) {
      skip("its golden " + golden_differs + " differs from this suite's tree");
      continue;
    }
    if (s.ctx.case_id != out.id) throw ReplayRefused(context + ": /case: '" + s.ctx.case_id + "', not " + out.id);
    if (s.status != Verdict::kPass) {
      skip("the run ended before its checks (" + std::string(harness::to_string(s.status)) + ": " + s.message + ")");
      continue;
    }
    load_frames(pcap, *member[pcap], s, out);
    if (const auto [cut, kept] = cut_by_snaplen(s); cut > 0 && case_needs_payload(c)) {
      skip("its checks read payload and " + pcap + " keeps " + std::to_string(cut) + " frame(s) cut at " + std::to_string(kept) +
           " bytes (run --snaplen " + recorded.evidence.snaplen + "; auto or full keeps them whole)");
      continue;
    }
    restore_cut_frames(s, icrc_bad);
    s.ctx.golden_dir = suite_root / "pcaps";
    if (o.adjust_case) o.adjust_case(c);
    harness::CaseResult now = judge_case(c, s, suite_root, was.seed);
    keep_evidence(now, c, s, {}, /*write=*/false, EvidenceOptions{});
    out.now = now.verdict;
    out.status = now.verdict == out.recorded ? ReplayStatus::kUnchanged : ReplayStatus::kChanged;
    if (out.status == ReplayStatus::kChanged) first_difference(was, now, out);
    out.result = std::move(now);
    rep.cases.push_back(std::move(out));
  }
  return rep;
}

}  // namespace mrc::run
