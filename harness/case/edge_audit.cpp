#include "harness/case/edge_audit.hpp"

#include <algorithm>
#include <array>

#include "harness/case/schema.hpp"
#include "harness/case/yaml_file.hpp"

namespace mrc::harness {
namespace {

using VK = ValueKind;

constexpr std::array kEdgeKeys{
    KeySpec{.name = "edge", .kind = VK::kString, .required = true},
    KeySpec{.name = "what", .kind = VK::kString, .required = true},
    KeySpec{.name = "cases", .kind = VK::kList, .required = true, .item = VK::kString},
};
constexpr Schema kEdgeSchema{"edge", kEdgeKeys};

const Case* find_case(std::span<const Case> cases, std::string_view id) {
  const auto it = std::find_if(cases.begin(), cases.end(), [&](const Case& c) { return c.id == id; });
  return it == cases.end() ? nullptr : &*it;
}

// The cases of one edge: each a known case id that names the requirement.
std::vector<std::string> read_cases(const YAML::Node& list, const std::string& path, const std::string& requirement,
                                    const std::string& edge, std::span<const Case> cases,
                                    std::span<const std::string> case_ids, Validator& v) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (auto it = list.begin(); it != list.end(); ++it, ++i) {
    const YAML::Node item = *it;
    const std::string item_path = index_path(path, i);
    if (!item.IsScalar()) continue;  // the schema reported it
    const std::string id = item.Scalar();
    const Case* c = find_case(cases, id);
    if (c == nullptr) {
      v.error(loc_of(item), item_path, "unknown case id '" + id + "'" + did_you_mean(closest_match(id, case_ids)));
      continue;
    }
    if (std::find(c->clauses.begin(), c->clauses.end(), requirement) == c->clauses.end()) {
      v.error(loc_of(item), item_path,
              "case '" + id + "' does not name " + requirement + " in its clauses, so it cannot prove edge '" + edge + "'");
      continue;
    }
    if (std::find(out.begin(), out.end(), id) != out.end()) {
      v.error(loc_of(item), item_path, "case '" + id + "' is listed twice for edge '" + edge + "'");
      continue;
    }
    out.push_back(id);
  }
  return out;
}

// One requirement's list of edges.
std::vector<RequirementEdge> read_edges(const YAML::Node& list, const std::string& requirement, SourceLoc key_at,
                                        std::span<const Case> cases, std::span<const std::string> case_ids,
                                        Validator& v) {
  std::vector<RequirementEdge> out;
  if (!list.IsSequence() || list.size() == 0) {
    v.error(list.IsDefined() && !list.IsNull() ? loc_of(list) : key_at, requirement,
            "expected a non-empty list of edges ({edge, what, cases}), got " + describe(list));
    return out;
  }
  std::size_t i = 0;
  for (auto it = list.begin(); it != list.end(); ++it, ++i) {
    const YAML::Node n = *it;
    const std::string path = index_path(requirement, i);
    const std::size_t before = v.errors();
    v.map(n, kEdgeSchema, path, loc_of(n));
    RequirementEdge e;
    e.name = read_string(n, "edge").value_or("");
    e.what = read_string(n, "what").value_or("");
    e.loc = key_loc(n, "edge");
    if (!e.name.empty() && !is_edge_name(e.name)) {
      v.error(loc_of(*find_key(n, "edge")), join_path(path, "edge"),
              "edge name '" + e.name + "' must be lower-case words joined by '-' (e.g. one-byte-past-end)");
    }
    if (const auto dup = std::find_if(out.begin(), out.end(), [&](const RequirementEdge& x) { return x.name == e.name; });
        !e.name.empty() && dup != out.end()) {
      v.error(loc_of(*find_key(n, "edge")), join_path(path, "edge"),
              "duplicate edge '" + e.name + "' of " + requirement + " (first at line " + std::to_string(dup->loc.line) + ")");
    }
    if (const auto c = find_key(n, "cases"); c && c->IsSequence()) {
      if (c->size() == 0) {
        v.error(loc_of(*c), join_path(path, "cases"),
                "edge '" + e.name + "' of " + requirement + " has no case: name the cases whose stimulus reaches it");
      } else {
        e.cases = read_cases(*c, join_path(path, "cases"), requirement, e.name, cases, case_ids, v);
      }
    }
    if (v.errors() == before) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

const RequirementEdges* EdgeAuditLoadResult::find(std::string_view requirement) const {
  const auto it = std::find_if(entries.begin(), entries.end(),
                               [&](const RequirementEdges& e) { return e.requirement == requirement; });
  return it == entries.end() ? nullptr : &*it;
}

bool is_edge_name(std::string_view name) {
  if (name.empty() || name.front() == '-' || name.back() == '-') return false;
  char prev = 0;
  for (char c : name) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c == '-' ? prev == '-' : !word) return false;
    prev = c;
  }
  return true;
}

EdgeAuditLoadResult load_edge_audit(const std::filesystem::path& file, const ClauseIndex& clauses,
                                    std::span<const Case> cases) {
  EdgeAuditLoadResult r;
  const std::string display = file.string();
  load_guarded(display, r.diagnostics, [&] {
    const auto doc = read_yaml_file(file, display, r.diagnostics);
    if (!doc) return;
    Validator v(display, r.diagnostics);
    if (!doc->IsMap()) {
      v.error(loc_of(*doc), "", "expected a map of requirement id -> list of edges, got " + describe(*doc));
      return;
    }
    std::vector<std::string> case_ids;
    case_ids.reserve(cases.size());
    for (const Case& c : cases) case_ids.push_back(c.id);
    std::vector<RequirementEdges> seen;  // every named requirement, even one with bad edges
    for (auto it = doc->begin(); it != doc->end(); ++it) {
      const SourceLoc at = loc_of(it->first);
      if (!it->first.IsScalar()) {
        v.error(at, "", "expected a requirement id, got " + describe(it->first));
        continue;
      }
      const std::string id = it->first.Scalar();
      if (!clauses.find(id)) {
        v.error(at, id, "unknown requirement id '" + id + "'" + did_you_mean(clauses.suggest(id)));
        continue;
      }
      const auto dup = std::find_if(seen.begin(), seen.end(), [&](const RequirementEdges& e) { return e.requirement == id; });
      if (dup != seen.end()) {
        v.error(at, id, "duplicate requirement '" + id + "' (first at line " + std::to_string(dup->loc.line) + ")");
        continue;
      }
      const std::size_t errors = v.errors();
      RequirementEdges e{id, read_edges(it->second, id, at, cases, case_ids, v), at};
      seen.push_back(e);
      if (v.errors() == errors) r.entries.push_back(std::move(e));
    }
    for (const Clause& cl : clauses.all()) {
      if (cl.level == Level::kMay) continue;  // recorded where a case reaches it, not required
      if (std::none_of(seen.begin(), seen.end(), [&](const RequirementEdges& e) { return e.requirement == cl.id; })) {
        const std::string level(to_string(cl.level));
        v.error(loc_of(*doc), cl.id,
                "missing " + level + " requirement '" + cl.id + "': every MUST and SHOULD requirement needs its edges and the cases reaching them here");
      }
    }
  });
  return r;
}

}  // namespace mrc::harness
