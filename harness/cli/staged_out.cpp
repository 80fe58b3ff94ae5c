#include "harness/cli/staged_out.hpp"

namespace mrc::cli {

std::optional<harness::StagedFolder> open_out(const std::filesystem::path& out, std::ostream& err) {
  std::string why;
  harness::StagedFolder f = harness::stage_report_folder(out, &why);
  if (f.staging.empty()) {
    err << "error: " << why << '\n';
    return std::nullopt;
  }
  return f;
}

std::filesystem::path place_out(harness::StagedFolder& folder, bool complete, std::ostream& err) {
  const harness::Placement p = harness::place_staged(folder, complete);
  if (!p.error.empty()) err << "error: " << p.error << '\n';
  if (p.kept_previous) {
    err << "note: the run ended early: the previous report in " << folder.target.string()
        << " was kept; this run's partial report is in " << p.dir.string() << '\n';
  }
  return p.dir;
}

}  // namespace mrc::cli
