// The campaign's defect -> requirement map (cases/defects.yaml): for each defect of the reference
// endpoint's catalog, the requirement ids of clauses.yaml it violates. It is harness data: the
// reference knows its defects' names and symptoms only (design.md §3), and the campaign attributes
// a kill when a FAILing check proves one of these requirements.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/clauses.hpp"
#include "harness/case/diagnostics.hpp"

namespace mrc::harness {

// The map's file name beside clauses.yaml in a suite's cases/ folder.
inline constexpr std::string_view kDefectMapName = "defects.yaml";

struct DefectRequirements {
  std::string defect;                  // catalog name, as in reference:<name>
  std::vector<std::string> violates;   // requirement ids of clauses.yaml
  SourceLoc loc;                       // where the defect's key is written
};

struct DefectMapLoadResult {
  std::vector<DefectRequirements> entries;  // every well-formed entry, in file order
  Diagnostics diagnostics;
  bool ok() const { return diagnostics.empty(); }
  const DefectRequirements* find(std::string_view defect) const;
};

// Loads a defect map: a YAML map `defect-name: [REQUIREMENT-ID, ...]`. Errors (file:line:col,
// key = the defect name): a name not in `catalog`, a catalog defect without an entry, a duplicate
// entry, an empty or malformed list, a requirement id not in `clauses`. Never throws.
DefectMapLoadResult load_defect_map(const std::filesystem::path& file, const ClauseIndex& clauses,
                                    std::span<const std::string_view> catalog);

}  // namespace mrc::harness
