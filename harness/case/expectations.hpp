// Per-DUT expectation files (expectations/<dut>.yaml): known non-PASS results of a DUT, each with
// a reason, a bug link and an expiry date, kept outside the cases (design.md §4). An entry keeps
// CI green for its case while it matches, but the result is still reported; an expired entry, an
// unexpected pass or a different result fails CI. Entries may never cover a MUST case: vendor
// variance cannot turn a MUST check off.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/case/date.hpp"
#include "harness/case/diagnostics.hpp"

namespace mrc::harness {

// The non-PASS results an entry may expect.
enum class ExpectedStatus : std::uint8_t { kFail, kError, kInconclusive, kUnsupported };
inline constexpr std::array<std::string_view, 4> kExpectedStatusNames{"FAIL", "ERROR", "INCONCLUSIVE", "UNSUPPORTED"};

// A case's result as the verdict layer reports it (design.md §2).
enum class RunVerdict : std::uint8_t { kPass, kFail, kError, kInconclusive, kUnsupported };
inline constexpr std::array<std::string_view, 5> kRunVerdictNames{"PASS", "FAIL", "ERROR", "INCONCLUSIVE", "UNSUPPORTED"};

std::string_view to_string(ExpectedStatus s);
std::string_view to_string(RunVerdict v);

struct Expectation {
  std::string case_id;
  ExpectedStatus expected = ExpectedStatus::kFail;
  std::string reason;
  std::string link;  // http(s) URL of the bug / issue
  Date expires;      // the entry stops applying after this day
  SourceLoc loc;     // where the entry starts
};

struct ExpectationSet {
  std::string dut;
  std::filesystem::path file;
  std::vector<Expectation> entries;
  const Expectation* find(std::string_view case_id) const;
  // Entries whose expiry day is before `today`.
  std::vector<const Expectation*> expired(const Date& today) const;
};

struct ExpectationOptions {
  // When set, an entry expiring more than `max_days` after `today` is an error (temporary
  // excuses must be renewed on purpose). Expiry itself is judged by classify().
  std::optional<Date> today;
  int max_days = 180;
};

struct ExpectationLoadResult {
  ExpectationSet set;  // the well-formed entries, even when others had errors
  Diagnostics diagnostics;
  bool ok() const { return diagnostics.empty(); }
};

// Loads `{dut, entries: [{case, expected, reason, link, expires}]}`. Case ids are checked against
// `cases` (unknown ids get a did-you-mean; MUST cases are refused). Never throws.
ExpectationLoadResult load_expectations(const std::filesystem::path& file, std::span<const Case> cases,
                                        const ExpectationOptions& options = {});

// How one result stands against the expectations.
enum class Triage : std::uint8_t {
  kPass,            // PASS, no entry
  kExpected,        // the result its entry expects: reported, CI stays green
  kUnexpectedPass,  // PASS although an entry expects otherwise: remove the entry (CI fails)
  kUnexpected,      // a non-PASS result without an entry, or not the one its entry names (CI fails)
  kUnsupported,     // UNSUPPORTED without an entry: the DUT lacks a declared capability (CI neutral)
  kExpiredEntry,    // the case's entry is past its expiry date (CI fails until renewed or removed)
};
inline constexpr std::array<std::string_view, 6> kTriageNames{
    "pass", "expected", "unexpected-pass", "unexpected", "unsupported", "expired-entry"};
std::string_view to_string(Triage t);

struct Classification {
  Triage triage = Triage::kPass;
  const Expectation* entry = nullptr;
  bool fails_ci = false;
  std::string message;  // one line for reports
};

Classification classify(std::string_view case_id, RunVerdict verdict, const ExpectationSet& set, const Date& today);

}  // namespace mrc::harness
