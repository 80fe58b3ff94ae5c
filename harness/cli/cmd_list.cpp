// `mrc-conform list`: one line per case with its level, behaviour, title, tags and clauses; with
// --defects or --variants the reference's catalogs (what a `--dut reference:<name>` does); with
// --json the same as a JSON array, for scripts.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

#include "harness/cli/commands.hpp"
#include "harness/run/case_select.hpp"
#include "harness/run/exit_codes.hpp"
#include "reference/defects.hpp"
#include "reference/variants.hpp"

namespace mrc::cli {

using run::kExitBadInput;
using run::kExitPass;

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += ',';
    out += s;
  }
  return out.empty() ? "-" : out;
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s += std::string(w - s.size(), ' ');
  return s;
}

// name + one line each, aligned; or a JSON array of {name, KEY: text}.
template <class Catalog, class Text>
void print_catalog(const Catalog& items, const char* key, Text text, bool json, std::ostream& out) {
  if (json) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& i : items) a.push_back({{"name", std::string(i.name)}, {key, std::string(text(i))}});
    out << a.dump(2) << '\n';
    return;
  }
  std::size_t w = 0;
  for (const auto& i : items) w = std::max(w, i.name.size());
  for (const auto& i : items) out << pad(std::string(i.name), w + 2) << text(i) << '\n';
  out << items.size() << ' ' << key << "(s): --dut reference:<name> (names joined with commas)\n";
}

}  // namespace

int run_list(const ListOptions& o, std::ostream& out, std::ostream& err) {
  if (o.defects && o.variants) {
    err << "error: list: --defects and --variants list different catalogs: give one\n";
    return kExitBadInput;
  }
  if (o.defects) {
    print_catalog(ref::defect_catalog(), "defect", [](const ref::DefectInfo& d) { return d.symptom; }, o.json, out);
    return kExitPass;
  }
  if (o.variants) {
    print_catalog(ref::variant_catalog(), "variant", [](const ref::VariantInfo& v) { return v.choice; }, o.json,
                  out);
    return kExitPass;
  }
  // The same selection as run: a tag that matches nothing is exit 2 naming the tags in use, not
  // an empty list with exit 0.
  const run::CaseSelection s = run::select_cases(o.cases, o.tags, o.exclude_tags, "mini", err);
  if (!s.ok) return kExitBadInput;
  if (o.json) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto* c : s.cases) {
      a.push_back({{"id", c->id},
                   {"title", c->title},
                   {"level", std::string(harness::to_string(c->level))},
                   {"behaviour", std::string(harness::to_string(c->behaviour))},
                   {"tags", c->tags},
                   {"clauses", c->clauses},
                   {"file", c->file.generic_string()}});
    }
    out << a.dump(2) << '\n';
    return kExitPass;
  }
  std::size_t w = 2;
  for (const auto* c : s.cases) w = std::max(w, c->id.size());
  out << pad("id", w + 2) << "level   behaviour    title  [tags / clauses]\n";
  for (const auto* c : s.cases) {
    out << pad(c->id, w + 2) << pad(std::string(harness::to_string(c->level)), 8)
        << pad(std::string(harness::to_string(c->behaviour)), 13) << c->title << "  [tags=" << join(c->tags)
        << "  clauses=" << join(c->clauses) << "]\n";
  }
  out << s.cases.size() << " case(s)";
  const std::size_t filtered = s.suite.set.cases.size() - s.cases.size();
  if (filtered > 0) out << ", " << filtered << " filtered out";
  out << '\n';
  return kExitPass;
}

}  // namespace mrc::cli
