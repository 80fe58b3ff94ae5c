// Where the suite lives and loading a set of cases with their loader errors printed: what the
// suite runner, the campaign and every `mrc-conform` subcommand start from.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "harness/case/case_loader.hpp"
#include "harness/case/clauses.hpp"

namespace mrc::run {

// The suite root: the folder holding cases/clauses.yaml (and pcaps/). Searched from `start`
// (a case file or folder) upwards, then from the working directory upwards; empty when none.
std::filesystem::path find_suite_root(const std::filesystem::path& start);

// Splits "a,b, c" into {"a","b","c"} (empty items dropped): the comma lists of --tags and the like.
std::vector<std::string> split_list(const std::string& text);
std::vector<std::string> split_lists(const std::vector<std::string>& texts);

struct LoadedSuite {
  harness::CaseSet set;
  harness::ClauseIndex clauses;        // cases/clauses.yaml of the suite (may be empty)
  std::filesystem::path root;          // the suite root (may be empty)
  bool ok = true;                      // no loader error anywhere
};

// --clauses FILE, on every command that loads cases: the requirement index for case files with no
// clauses.yaml in their folder or the three above it. main sets it once, before the command runs
// (a process-wide option, like the working directory). Empty: the suite root's
// cases/clauses.yaml.
void set_clauses_option(std::filesystem::path file);
// The clauses.yaml a case outside any suite is checked against: --clauses, else
// <root>/cases/clauses.yaml (empty when both are).
std::filesystem::path fallback_clauses(const std::filesystem::path& root);
// The file of case `id` (`spray-v-001`) under root/cases, for `--cases ID`; empty when no case
// has that id (or `id` reads as a path), and `near` then holds the closest id, two edits away at
// most, for a "did you mean".
std::filesystem::path case_file_of_id(const std::filesystem::path& root, const std::string& id, std::string& near);

// Loads the cases under `inputs` (files or folders; default <root>/cases) with the tag filter,
// printing every loader error (file:line:col: key: message) to `err`.
LoadedSuite load_suite(const std::vector<std::string>& inputs, const std::vector<std::string>& tags,
                       const std::vector<std::string>& exclude_tags, std::ostream& err);

// `path` relative to `root` when it lies inside it, else as given (for reports).
std::string relative_to(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace mrc::run
