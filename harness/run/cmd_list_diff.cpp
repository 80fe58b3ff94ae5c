// `mrc-conform list` and `mrc-conform diff`.
#include <algorithm>
#include <ostream>

#include "harness/capture/pcapng.hpp"
#include "harness/run/cli_common.hpp"
#include "harness/run/commands.hpp"
#include "harness/verdict/diff.hpp"

namespace mrc::run {
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
  const LoadedSuite s = load_suite(o.cases, split_lists(o.tags), split_lists(o.exclude_tags), err);
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

int run_diff(const DiffCliOptions& o, std::ostream& out, std::ostream& err) {
  harness::Capture a;
  harness::Capture b;
  if (std::string e = harness::read_capture(o.a, a); !e.empty()) {
    err << "error: " << e << '\n';
    return kExitBadInput;
  }
  if (std::string e = harness::read_capture(o.b, b); !e.empty()) {
    err << "error: " << e << '\n';
    return kExitBadInput;
  }
  harness::DiffOptions opt;
  opt.masks = split_lists(o.masks);
  opt.window = std::max<std::uint32_t>(1, o.window);
  opt.tolerance_ns = o.tolerance_ns;
  opt.tolerance_pct = o.tolerance_pct;
  opt.max_differences = std::max<std::size_t>(o.max_lines, 1);
  opt.name_a = o.a;
  opt.name_b = o.b;
  const harness::DiffReport r = harness::diff_captures(a, b, opt);
  if (!r.ok()) {
    err << "error: " << r.error << '\n';
    return kExitBadInput;
  }
  out << harness::render_diff(r, opt, o.max_lines);
  return r.identical() ? kExitPass : kExitFail;
}

}  // namespace mrc::run
