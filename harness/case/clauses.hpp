// The requirement index (cases/clauses.yaml): every MRC requirement the suite can judge, with an
// id, the requirement in the project's own words, where it comes from, its level and area. Cases
// name clause ids; reports and the coverage matrix look them up here.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "harness/case/diagnostics.hpp"
#include "harness/case/vocabulary.hpp"

namespace mrc::harness {

struct Clause {
  std::string id;      // UPPER-CASE-WORDS, e.g. SPRAY-PER-PACKET-EV
  std::string text;    // the requirement, in the project's words
  std::string source;  // "mrc_ctl.h EV states", "RFC 8754 §2", "wire model W11 (F5, F6)", ...
  Basis basis = Basis::kModel;  // the weakest provenance of what the text requires (vocabulary.hpp)
  Level level = Level::kMust;
  ClauseArea area = ClauseArea::kSpray;
  SourceLoc loc;       // where it is defined
};

class ClauseIndex {
 public:
  ClauseIndex() = default;
  explicit ClauseIndex(std::vector<Clause> clauses, std::filesystem::path file = {});

  const Clause* find(std::string_view id) const;
  std::span<const Clause> all() const { return clauses_; }
  std::size_t size() const { return clauses_.size(); }
  bool empty() const { return clauses_.empty(); }
  // The known id closest to `id`, for did-you-mean; empty when none is close.
  std::string suggest(std::string_view id) const;
  const std::filesystem::path& file() const { return file_; }

 private:
  std::vector<Clause> clauses_;
  std::vector<std::string> ids_;
  std::unordered_map<std::string, std::size_t> by_id_;
  std::filesystem::path file_;
};

struct ClauseLoadResult {
  ClauseIndex index;  // every well-formed clause, even when other entries had errors
  Diagnostics diagnostics;
  bool ok() const { return diagnostics.empty(); }
};

// True for ids shaped like `WORD-WORD...` (A-Z, 0-9, at least two words).
bool is_clause_id(std::string_view id);

// Loads a clause file: a YAML list of {id, text, source, basis, level, area}. Never throws.
ClauseLoadResult load_clauses(const std::filesystem::path& file);

// A case's basis: the weakest basis among the clauses of `clause_ids` in `index` (published when
// there are none; ids the index does not know are the loader's error, not counted here).
Basis case_basis(const std::vector<std::string>& clause_ids, const ClauseIndex& index);

// The level a check's FAIL counts at: the strongest level among `clause_ids` (MUST before SHOULD
// before MAY), never stronger than the case's own level; the case's level when none is known.
Level proven_level(const std::vector<std::string>& clause_ids, const ClauseIndex& index, Level case_level);

// Finds `clauses.yaml` in `start` or up to three folders above it (cases/<area>/x.yaml ->
// cases/clauses.yaml). Empty when none.
std::filesystem::path find_clauses_file(const std::filesystem::path& start);

}  // namespace mrc::harness
