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

// Loads the cases under `inputs` (files or folders; default <root>/cases) with the tag filter,
// printing every loader error (file:line:col: key: message) to `err`.
LoadedSuite load_suite(const std::vector<std::string>& inputs, const std::vector<std::string>& tags,
                       const std::vector<std::string>& exclude_tags, std::ostream& err);

// `path` relative to `root` when it lies inside it, else as given (for reports).
std::string relative_to(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace mrc::run
