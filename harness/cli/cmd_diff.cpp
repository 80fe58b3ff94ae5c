// `mrc-conform diff`: the golden differ on any two captures.
#include <algorithm>
#include <ostream>

#include "harness/capture/pcapng.hpp"
#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"
#include "harness/verdict/diff.hpp"

namespace mrc::cli {

using run::kExitBadInput;
using run::kExitFail;
using run::kExitPass;

int run_diff(const DiffCliOptions& o, std::ostream& out, std::ostream& err) {
  harness::Capture a;
  harness::Capture b;
  for (const auto& f : {o.a, o.b}) if (std::error_code ec; !std::filesystem::is_regular_file(f, ec)) return err << "error: " << f << ": no such file\n", kExitBadInput;  // libpcap's own message repeats the path
  if (std::string e = harness::read_capture(o.a, a); !e.empty()) {
    err << "error: " << e << '\n';
    return kExitBadInput;
  }
  if (std::string e = harness::read_capture(o.b, b); !e.empty()) {
    err << "error: " << e << '\n';
    return kExitBadInput;
  }
  harness::DiffOptions opt;
  opt.masks = run::split_lists(o.masks);
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

}  // namespace mrc::cli
