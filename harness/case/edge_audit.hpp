// The edge audit (cases/edges.yaml): for every MUST and SHOULD requirement of clauses.yaml, its
// edges (the boundary values and corner situations where an implementation goes wrong while the
// middle of the requirement still works) and the cases whose stimulus reaches each edge. The loader checks
// the audit against the requirement index and the case library; the HTML report renders it as a
// table (requirement -> edges -> cases, with each case's verdict of the run).
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/case/clauses.hpp"
#include "harness/case/diagnostics.hpp"

namespace mrc::harness {

// The audit's file name beside clauses.yaml in a suite's cases/ folder.
inline constexpr std::string_view kEdgeAuditName = "edges.yaml";

struct RequirementEdge {
  std::string name;                // short, lower-case words joined by '-': "one-byte-past-end"
  std::string what;                // one line: what the edge is
  std::vector<std::string> cases;  // ids of the cases whose stimulus reaches it
  SourceLoc loc;                   // where `edge:` is written
};

struct RequirementEdges {
  std::string requirement;         // a requirement id of clauses.yaml
  std::vector<RequirementEdge> edges;
  SourceLoc loc;                   // where the requirement's key is written
};

struct EdgeAuditLoadResult {
  std::vector<RequirementEdges> entries;  // every well-formed requirement entry, in file order
  Diagnostics diagnostics;
  bool ok() const { return diagnostics.empty(); }
  const RequirementEdges* find(std::string_view requirement) const;
};

// True for edge names shaped like `word-word...` (a-z, 0-9, words joined by single '-').
bool is_edge_name(std::string_view name);

// Loads an edge audit: a YAML map `REQUIREMENT-ID: [{edge, what, cases: [case-id, ...]}, ...]`.
// Errors (file:line:col: key: message, key = the requirement id or the path below it): a
// requirement id not in `clauses`, a duplicate requirement, a MUST or SHOULD requirement of
// `clauses` with no entry, an entry without edges, an edge without a case, a duplicate or
// malformed edge name, a case id not among `cases`, and a case that does not name the requirement
// in its clauses (a case can only prove what it judges). Never throws.
EdgeAuditLoadResult load_edge_audit(const std::filesystem::path& file, const ClauseIndex& clauses,
                                    std::span<const Case> cases);

}  // namespace mrc::harness
