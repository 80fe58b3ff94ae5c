#include "harness/case/clauses.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "harness/case/schema.hpp"
#include "harness/case/yaml_file.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;

constexpr std::array kClauseKeys{
    KeySpec{.name = "id", .kind = VK::kString, .required = true},
    KeySpec{.name = "text", .kind = VK::kString, .required = true},
    KeySpec{.name = "source", .kind = VK::kString, .required = true},
    KeySpec{.name = "basis", .kind = VK::kEnum, .required = true, .names = kBasisNames},
    KeySpec{.name = "level", .kind = VK::kEnum, .required = true, .names = kLevelNames},
    KeySpec{.name = "area", .kind = VK::kEnum, .required = true, .names = kClauseAreaNames},
};
constexpr Schema kClauseSchema{"clause", kClauseKeys};

}  // namespace

ClauseIndex::ClauseIndex(std::vector<Clause> clauses, std::filesystem::path file)
    : clauses_(std::move(clauses)), file_(std::move(file)) {
  for (std::size_t i = 0; i < clauses_.size(); ++i) {
    ids_.push_back(clauses_[i].id);
    by_id_.emplace(clauses_[i].id, i);
  }
}

const Clause* ClauseIndex::find(std::string_view id) const {
  const auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : &clauses_[it->second];
}

std::string ClauseIndex::suggest(std::string_view id) const { return closest_match(id, std::span<const std::string>(ids_)); }

bool is_clause_id(std::string_view id) {
  if (id.empty() || id.front() == '-' || id.back() == '-') return false;
  bool dash = false;
  char prev = 0;
  for (char c : id) {
    const bool word = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (c == '-') {
      if (prev == '-') return false;
      dash = true;
    } else if (!word) {
      return false;
    }
    prev = c;
  }
  return dash && id.front() >= 'A' && id.front() <= 'Z';
}

ClauseLoadResult load_clauses(const std::filesystem::path& file) {
  ClauseLoadResult r;
  const std::string display = file.string();
  load_guarded(display, r.diagnostics, [&] {
    const auto doc = read_yaml_file(file, display, r.diagnostics);
    if (!doc) return;
    Validator v(display, r.diagnostics);
    if (!doc->IsSequence()) {
      v.error(loc_of(*doc), "", "expected a list of clauses ({id, text, source, basis, level, area}), got " + describe(*doc));
      return;
    }
    std::vector<Clause> clauses;
    std::size_t i = 0;
    for (auto it = doc->begin(); it != doc->end(); ++it, ++i) {
      const YAML::Node n = *it;
      const std::string path = index_path("", i);
      const bool ok = v.map(n, kClauseSchema, path, loc_of(n));
      Clause c;
      c.id = read_string(n, "id").value_or("");
      c.loc = key_loc(n, "id");
      if (!c.id.empty() && !is_clause_id(c.id)) {
        v.error(loc_of(*find_key(n, "id")), join_path(path, "id"),
                "clause id '" + c.id + "' must be upper-case words joined by '-' (e.g. SPRAY-PER-PACKET-EV)");
        continue;
      }
      const Clause* dup = nullptr;
      for (const auto& prev : clauses) dup = prev.id == c.id ? &prev : dup;
      if (dup) {
        v.error(loc_of(*find_key(n, "id")), join_path(path, "id"),
                "duplicate clause id '" + c.id + "' (first at line " + std::to_string(dup->loc.line) + ")");
        continue;
      }
      if (!ok) continue;
      c.text = read_string(n, "text").value_or("");
      c.source = read_string(n, "source").value_or("");
      c.basis = read_enum<Basis>(n, "basis", kBasisNames).value_or(Basis::kModel);
      c.level = read_enum<Level>(n, "level", kLevelNames).value_or(Level::kMust);
      c.area = read_enum<ClauseArea>(n, "area", kClauseAreaNames).value_or(ClauseArea::kSpray);
      clauses.push_back(std::move(c));
    }
    r.index = ClauseIndex(std::move(clauses), file);
  });
  return r;
}

Level proven_level(const std::vector<std::string>& clause_ids, const ClauseIndex& index, Level case_level) {
  std::optional<Level> strongest;
  for (const auto& id : clause_ids) {
    const Clause* c = index.find(id);
    if (c != nullptr && (!strongest || c->level < *strongest)) strongest = c->level;
  }
  return strongest ? std::max(*strongest, case_level) : case_level;
}

Basis case_basis(const std::vector<std::string>& clause_ids, const ClauseIndex& index) {
  Basis weakest = Basis::kPublished;
  for (const auto& id : clause_ids) {
    const Clause* c = index.find(id);
    if (c != nullptr && c->basis > weakest) weakest = c->basis;
  }
  return weakest;
}

std::filesystem::path find_clauses_file(const std::filesystem::path& start) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(start, ec);
  if (ec) return {};
  if (!std::filesystem::is_directory(dir, ec)) dir = dir.parent_path();
  for (int i = 0; i < 4 && !dir.empty(); ++i) {
    const auto candidate = dir / "clauses.yaml";
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return {};
}

}  // namespace mrc::harness
