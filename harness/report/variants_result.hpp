// What `mrc-conform variants` produced (design.md §4 "a conformant DUT never FAILs"): the
// selected cases run against the default reference and against each conformant policy variant of
// it (reference/variants.hpp). Every FAIL there is a false fail: the variant's behaviour is legal,
// so the case judged something no requirement fixes (or the reference has a bug the variant
// exposed). Filled by harness/run/variants_engine, read by variants_report.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/report/campaign_result.hpp"

namespace mrc::harness {

// One FAIL on a conformant DUT: the case, its level, and each FAILing check with the requirement
// ids it proves and its message.
struct FalseFail {
  CaseOutcome outcome;     // verdict FAIL, with every FAILing check
  std::string level;       // the case's level: MUST / SHOULD / MAY
  std::uint64_t seed = 0;  // the seed the case ran with
  // The FAILing checks' requirement ids that the variant's map lists as leaving its choice open:
  // the case most likely pinned the choice the variant makes.
  std::vector<std::string> pinned_choice;
};

struct VariantRun {
  std::string name;                   // "reference" for the default, else the catalog name
  std::string choice;                 // the choice the variant makes, one line
  std::vector<std::string> leaves_open;  // requirement ids (cases/variants.yaml); empty for the default
  std::size_t case_runs = 0;          // cases x seeds that ran to a verdict
  std::size_t passed = 0;
  std::vector<FalseFail> false_fails;
  std::vector<CaseOutcome> errors;    // ERROR verdicts: the harness or binding broke, not a verdict
  std::vector<CaseOutcome> other;     // UNSUPPORTED / INCONCLUSIVE: neither a pass nor a false fail
  bool interrupted = false;           // not every case run finished
};

struct VariantsResult {
  std::string testbed;
  std::vector<std::string> cases;     // selected case ids
  std::uint32_t seeds = 1;            // runs per case: its own seed, then seed+1, ...
  std::vector<VariantRun> runs;       // the default reference first, then variants in catalog order
  bool interrupted = false;
  std::optional<double> wall_seconds; // only with --wall-clock

  std::size_t variants() const;       // runs other than the default reference
  std::size_t false_fails() const;    // every FAIL on any run, the default included
  std::size_t must_false_fails() const;
  std::size_t errors() const;
  // 0 no MUST case FAILed on any run; 1 a MUST false fail; 3 interrupted or an ERROR (the runs do
  // not prove anything then).
  int exit_code() const;
};

}  // namespace mrc::harness
