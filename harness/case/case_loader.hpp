// Loading and validating case files (cases/<area>/<id>.yaml). Every mistake is reported as
// `file:line:column: key: message`, all of them per file, never by throwing; a file with any
// error yields no Case.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/case/clauses.hpp"
#include "harness/case/diagnostics.hpp"

namespace mrc::harness {

struct LoadResult {
  std::optional<Case> value;  // set only when the file had no error
  Diagnostics diagnostics;
  bool ok() const { return value.has_value() && diagnostics.empty(); }
};

// The parts of a case id `<area>-<v|i|o>-<nnn>` (nnn = three digits, 001..999).
struct CaseId {
  Area area;
  Behaviour behaviour;
  std::uint32_t number;
};
std::optional<CaseId> parse_case_id(std::string_view id);

// Loads one case, checking clause ids against the clauses.yaml found in the case's folder or up
// to three folders above it, else against `fallback_clauses` (the suite's own; an error naming
// what was tried when there is neither). A YAML error in the case is reported first.
LoadResult load_case(const std::filesystem::path& file, const std::filesystem::path& fallback_clauses = {});
// How a case is loaded other than as written.
struct LoadOptions {
  // config.qp.timeout replaced by this exponent, and every time written in T evaluated with it
  // (the runner's rescaling of a `timing: scales` case on a slow wire, and replay of such a run).
  std::optional<std::uint8_t> timeout;
  // The rate the case's QP sprays at on its testbed, bits/s: every time written in F (one data
  // frame at that rate) evaluated with it instead of kDefaultSprayBps (the runner, on a testbed
  // whose rate differs; replay of such a run).
  std::optional<std::uint64_t> spray_bps;
};
LoadResult load_case(const std::filesystem::path& file, const std::filesystem::path& fallback_clauses,
                     const LoadOptions& opt);
// Loads one case against a given requirement index.
LoadResult load_case(const std::filesystem::path& file, const ClauseIndex& clauses, const LoadOptions& opt = {});

struct CaseFilter {
  std::vector<std::string> include_tags;  // keep cases carrying any of these (empty: keep all)
  std::vector<std::string> exclude_tags;  // then drop cases carrying any of these
  bool matches(const Case& c) const;
};

struct CaseSet {
  std::vector<Case> cases;  // valid cases that pass the filter, sorted by id
  Diagnostics diagnostics;  // every file's errors, plus duplicate ids across files
  std::size_t files = 0;    // case files read
  std::size_t filtered_out = 0;
  std::vector<std::filesystem::path> testbed_files;  // found in a folder, recognised as testbeds, not loaded
  bool ok() const { return diagnostics.empty(); }
  const Case* find(std::string_view id) const;
};

// Loads every `*.yaml` under each directory (recursively, sorted, skipping clauses.yaml, the
// catalog maps, dot-folders and testbed files: not named like a case id, every top-level key a
// testbed's) and each file named directly. With `clauses` null, each file is checked against
// the clauses.yaml above it, else `fallback_clauses`. Duplicate ids are checked over all files
// before filtering.
CaseSet load_cases(std::span<const std::filesystem::path> inputs, const CaseFilter& filter = {},
                   const ClauseIndex* clauses = nullptr, const std::filesystem::path& fallback_clauses = {});
CaseSet load_cases(const std::filesystem::path& input, const CaseFilter& filter = {},
                   const ClauseIndex* clauses = nullptr, const std::filesystem::path& fallback_clauses = {});

}  // namespace mrc::harness
