// `mrc-conform list`: one line per case with its level, behaviour, tags and clauses.
#include <algorithm>
#include <ostream>

#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"

namespace mrc::cli {

using run::kExitBadInput;
using run::kExitPass;
using run::LoadedSuite;

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
  const LoadedSuite s = run::load_suite(o.cases, run::split_lists(o.tags), run::split_lists(o.exclude_tags), err);
  std::size_t w = 2;
  for (const auto& c : s.set.cases) w = std::max(w, c.id.size());
  out << std::string("id") + std::string(w - 2 + 2, ' ') << "level   behaviour    tags / clauses\n";
  for (const auto& c : s.set.cases) {
    std::string line = c.id + std::string(w - c.id.size() + 2, ' ');
    std::string level(harness::to_string(c.level));
    std::string beh(harness::to_string(c.behaviour));
    line += level + std::string(8 - std::min<std::size_t>(7, level.size()), ' ');
    line += beh + std::string(13 - std::min<std::size_t>(12, beh.size()), ' ');
    line += "tags=" + join(c.tags) + "  clauses=" + join(c.clauses);
    out << line << '\n';
  }
  out << s.set.cases.size() << " case(s)";
  if (s.set.filtered_out > 0) out << ", " << s.set.filtered_out << " filtered out";
  out << '\n';
  return s.ok ? kExitPass : kExitBadInput;
}

}  // namespace mrc::cli
