// The suite's catalog -> requirement maps, harness data beside clauses.yaml:
//   cases/defects.yaml   for each defect of the reference's catalog, the requirement ids it
//                        violates (the campaign attributes a kill when a FAILing check proves one);
//   cases/variants.yaml  for each conformant variant of the reference, the requirement ids that
//                        leave its choice open (the variants report cites them).
// The reference knows its defects' and variants' names and behaviour only (design.md §3).
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/clauses.hpp"
#include "harness/case/diagnostics.hpp"

namespace mrc::harness {

// The maps' file names beside clauses.yaml in a suite's cases/ folder.
inline constexpr std::string_view kDefectMapName = "defects.yaml";
inline constexpr std::string_view kVariantMapName = "variants.yaml";

struct CatalogRequirements {
  std::string name;                       // catalog name, as in reference:<name>
  std::vector<std::string> requirements;  // requirement ids of clauses.yaml
  SourceLoc loc;                          // where the name's key is written
};

struct CatalogMapLoadResult {
  std::vector<CatalogRequirements> entries;  // every well-formed entry, in file order
  Diagnostics diagnostics;
  bool ok() const { return diagnostics.empty(); }
  const CatalogRequirements* find(std::string_view name) const;
};

// Loads a map `name: [REQUIREMENT-ID, ...]` over `catalog`; `kind` ("defect", "variant") names its
// entries in messages. Errors (file:line:col, key = the name): a name not in `catalog`, a catalog
// name without an entry, a duplicate entry, an empty or malformed list, a requirement id not in
// `clauses`. Never throws.
CatalogMapLoadResult load_catalog_map(const std::filesystem::path& file, const ClauseIndex& clauses,
                                      std::span<const std::string_view> catalog, std::string_view kind);

}  // namespace mrc::harness
