// One case of a certification bundle re-judged from its evidence (replay.hpp): the half of replay
// that works on one case's members, held in memory while the case is judged and no longer.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "harness/case/clauses.hpp"
#include "harness/certify/bundle_suite.hpp"
#include "harness/certify/replay.hpp"
#include "harness/report/report.hpp"

namespace mrc::run {

// What every case of one replay is judged against.
struct ReplaySuite {
  const harness::BundleSuiteTree& tree;
  std::filesystem::path root;                 // the suite tree's root (goldens: root/pcaps)
  const harness::ClauseIndex& clauses;
  const std::set<std::string>& mismatched;    // suite files that differ from the run's
  const harness::RunResult& recorded;         // the bundle's results.json
  const ReplayOptions& options;
};

// A case's two members, by name and bytes.
struct CaseEvidence {
  std::string pcap_name, pcap;
  std::string context_name, context;
};

// Re-judges `out.id` (recorded as `was`, its case file `case_path`) from `ev`: sets `out`'s
// status, verdicts, result and notes, or the reason it is not re-judged. Throws ReplayRefused
// when a member is damaged or the case file does not load.
void rejudge_case(const ReplaySuite& suite, const harness::CaseResult& was, const std::string& case_path, const CaseEvidence& ev,
                  ReplayedCase& out);

}  // namespace mrc::run
