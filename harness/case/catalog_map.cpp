#include "harness/case/catalog_map.hpp"

#include <algorithm>

#include "harness/case/schema.hpp"
#include "harness/case/yaml_file.hpp"

namespace mrc::harness {
namespace {

// The requirement ids of one entry's list; errors for anything that is not a known id.
std::vector<std::string> read_requirements(const YAML::Node& list, const std::string& path, SourceLoc key_at,
                                           const ClauseIndex& clauses, Validator& v) {
  std::vector<std::string> ids;
  if (!list.IsSequence() || list.size() == 0) {
    v.error(list.IsDefined() && !list.IsNull() ? loc_of(list) : key_at, path,
            "expected a non-empty list of requirement ids, got " + describe(list));
    return ids;
  }
  std::size_t i = 0;
  for (auto it = list.begin(); it != list.end(); ++it, ++i) {
    const YAML::Node item = *it;
    const std::string item_path = index_path(path, i);
    if (!item.IsScalar()) {
      v.error(loc_of(item), item_path, "expected a requirement id, got " + describe(item));
      continue;
    }
    if (!clauses.find(item.Scalar())) {
      v.error(loc_of(item), item_path,
              "unknown requirement id '" + item.Scalar() + "'" + did_you_mean(clauses.suggest(item.Scalar())));
      continue;
    }
    ids.push_back(item.Scalar());
  }
  return ids;
}

}  // namespace

const CatalogRequirements* CatalogMapLoadResult::find(std::string_view name) const {
  const auto it = std::find_if(entries.begin(), entries.end(), [&](const CatalogRequirements& e) { return e.name == name; });
  return it == entries.end() ? nullptr : &*it;
}

CatalogMapLoadResult load_catalog_map(const std::filesystem::path& file, const ClauseIndex& clauses,
                                      std::span<const std::string_view> catalog, std::string_view kind) {
  CatalogMapLoadResult r;
  const std::string k(kind);
  const std::string display = file.string();
  load_guarded(display, r.diagnostics, [&] {
    const auto doc = read_yaml_file(file, display, r.diagnostics);
    if (!doc) return;
    Validator v(display, r.diagnostics);
    if (!doc->IsMap()) {
      v.error(loc_of(*doc), "", "expected a map of " + k + " name -> list of requirement ids, got " + describe(*doc));
      return;
    }
    std::vector<CatalogRequirements> seen;  // every named entry, even one with a bad list
    for (auto it = doc->begin(); it != doc->end(); ++it) {
      const SourceLoc at = loc_of(it->first);
      if (!it->first.IsScalar()) {
        v.error(at, "", "expected a " + k + " name, got " + describe(it->first));
        continue;
      }
      const std::string name = it->first.Scalar();
      if (std::find(catalog.begin(), catalog.end(), name) == catalog.end()) {
        v.error(at, name, "unknown " + k + " '" + name + "'" + did_you_mean(closest_match(name, catalog)));
        continue;
      }
      const auto dup = std::find_if(seen.begin(), seen.end(), [&](const CatalogRequirements& e) { return e.name == name; });
      if (dup != seen.end()) {
        v.error(at, name, "duplicate " + k + " '" + name + "' (first at line " + std::to_string(dup->loc.line) + ")");
        continue;
      }
      const std::size_t errors = v.errors();
      CatalogRequirements e{name, read_requirements(it->second, name, at, clauses, v), at};
      seen.push_back(e);
      if (v.errors() == errors) r.entries.push_back(std::move(e));
    }
    for (const std::string_view name : catalog) {
      if (std::none_of(seen.begin(), seen.end(), [&](const CatalogRequirements& e) { return e.name == name; })) {
        v.error(loc_of(*doc), std::string(name),
                "missing " + k + " '" + std::string(name) + "': every catalog " + k + " needs its requirement ids here");
      }
    }
  });
  return r;
}

}  // namespace mrc::harness
