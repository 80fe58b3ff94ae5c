// `mrc-conform replay BUNDLE`: every case of a certification bundle re-judged from its evidence
// with the checks of this build, and the verdicts that change.
//
// The bundle is verified first (verify_bundle, the same code as `verify`): any problem but a suite
// file that differs from this tree refuses the replay. Then per case: the case file of this suite
// (its hash is the bundle's), the evidence pcapng (the frames of every tap) and its context file
// (replay_context.hpp: everything else the checks read) rebuild the SessionResult, and judge_case()
// (case_result.hpp, the runner's own judge) judges it; evidence references are mapped to the file
// as the runner maps them (keep_evidence). Nothing here knows or assumes which DUT ran: the
// context holds what the DUT's binding reported, whatever the DUT was.
//
// A case is not re-judged (and says why) when the run kept no evidence for it, when no check ran
// in the run (UNSUPPORTED, a hung binding, ...), when its evidence has no context file, when the
// evidence was cut to a snap length and the case's checks read payload, or when its case file or
// a golden it compares against differs from this suite's tree.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/certify/bundle.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

struct ReplayOptions {
  std::optional<harness::Ed25519PublicKey> pubkey;  // as `verify --pubkey`
  std::filesystem::path cases_dir;                  // this suite's cases/ (goldens: its parent's pcaps/)
  // Test hook: changes each case as loaded, before it is judged (a tightened bound), to show that a
  // change of check logic comes out as a changed verdict. Empty in the CLI.
  std::function<void(harness::Case&)> adjust_case;
};

enum class ReplayStatus : std::uint8_t { kUnchanged, kChanged, kNotRejudged };

struct ReplayedCase {
  std::string id;
  ReplayStatus status = ReplayStatus::kNotRejudged;
  harness::Verdict recorded = harness::Verdict::kError;  // the manifest's verdict
  harness::Verdict now = harness::Verdict::kError;       // re-judged (kChanged / kUnchanged)
  std::string first_check;    // kChanged: the first check whose verdict differs ("" if none does)
  std::string first_message;  // its message now (or the case's message when no check differs)
  std::string reason;         // kNotRejudged: why
  std::vector<std::string> notes;  // where the evidence disagrees with what the run recorded
  harness::CaseResult result;      // re-judged (kChanged / kUnchanged)
};

struct ReplayReport {
  harness::BundleCheck check;  // verify's findings (only suite mismatches when the replay ran)
  std::string dut;             // the run's DUT, testbed and seed as the manifest records them
  std::string testbed;
  std::uint64_t seed = 0;
  std::vector<ReplayedCase> cases;  // manifest order
  std::size_t count(ReplayStatus s) const;
};

// Bad bundle (exit 2): what() is verify's message, or names the member at fault.
class ReplayRefused : public harness::BundleInputError {
 public:
  using harness::BundleInputError::BundleInputError;
};

// Reads the bundle file twice, streaming: verify's pass, then one for the evidence and context of
// the cases to re-judge (each case's two members in memory while it is judged). Throws
// harness::BundleInputError (unreadable bundle, verify's wording), ReplayRefused (verify found
// problems other than suite mismatches: they are listed in what(), one per line; or a member
// replay needs is damaged, or changed between the passes).
ReplayReport replay_bundle(const std::filesystem::path& file, const ReplayOptions& o);

}  // namespace mrc::run
