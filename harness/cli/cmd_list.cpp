// `mrc-conform list`: one line per case with its level, behaviour, tags and clauses.
#include <algorithm>
#include <ostream>

#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/case_select.hpp"

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

}  // namespace

int run_list(const ListOptions& o, std::ostream& out, std::ostream& err) {
  // The same selection as run: a tag that matches nothing is exit 2 naming the tags in use, not
  // an empty list with exit 0.
  const run::CaseSelection s = run::select_cases(o.cases, o.tags, o.exclude_tags, "mini", err);
  if (!s.ok) return kExitBadInput;
  std::size_t w = 2;
  for (const auto* c : s.cases) w = std::max(w, c->id.size());
  out << std::string("id") + std::string(w - 2 + 2, ' ') << "level   behaviour    tags / clauses\n";
  for (const auto* c : s.cases) {
    std::string line = c->id + std::string(w - c->id.size() + 2, ' ');
    std::string level(harness::to_string(c->level));
    std::string beh(harness::to_string(c->behaviour));
    line += level + std::string(8 - std::min<std::size_t>(7, level.size()), ' ');
    line += beh + std::string(13 - std::min<std::size_t>(12, beh.size()), ' ');
    line += "tags=" + join(c->tags) + "  clauses=" + join(c->clauses);
    out << line << '\n';
  }
  out << s.cases.size() << " case(s)";
  const std::size_t filtered = s.suite.set.cases.size() - s.cases.size();
  if (filtered > 0) out << ", " << filtered << " filtered out";
  out << '\n';
  return kExitPass;
}

}  // namespace mrc::cli
