// `mrc-conform replay FILE [--pubkey K] [--cases DIR]`: a certification bundle verified, then every
// case re-judged from its evidence with this build's checks (harness/certify/replay.hpp).
#include <optional>
#include <ostream>

#include "harness/cli/cmd_replay.hpp"
#include "harness/cli/commands.hpp"
#include "harness/certify/bundle.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/certify/replay.hpp"

namespace mrc::cli {

namespace fs = std::filesystem;

int run_replay(const ReplayCliOptions& o, std::ostream& out, std::ostream& err) {
  run::ReplayOptions ro;
  if (!o.pubkey.empty()) {
    try {
      ro.pubkey = harness::read_public_key_file(o.pubkey);
    } catch (const harness::KeyError& e) {
      err << "error: replay: --pubkey: " << e.what() << "\n";
      return run::kExitBadInput;
    }
  }
  ro.cases_dir = bundle_cases_dir(o.cases);
  if (ro.cases_dir.empty()) {
    err << "error: replay: no --cases given and no cases/clauses.yaml found from the working directory\n";
    return run::kExitBadInput;
  }
  if (std::string e = check_bundle_file(o.bundle); !e.empty()) {
    err << "error: replay: " << e << "\n";
    return run::kExitBadInput;
  }
  run::ReplayReport rep;
  try {
    rep = run::replay_bundle(o.bundle, ro);
  } catch (const run::ReplayRefused& e) {
    err << "error: replay: " << o.bundle.string() << ": refused:\n" << e.what() << "\n";
    return run::kExitBadInput;
  } catch (const harness::BundleInputError& e) {
    err << "error: replay: " << o.bundle.string() << ": " << e.what() << "\n";
    return run::kExitBadInput;
  }
  for (const auto& p : rep.check.problems) out << p << " (its cases are not re-judged)\n";
  for (const auto& n : rep.check.notes) out << n << "\n";
  for (const std::string& line : harness::summary_lines(rep.check.summary)) out << "recorded " << line << "\n";
  out << "replaying " << rep.cases.size() << " case(s) of DUT " << rep.dut << " (testbed " << rep.testbed << ", seed " << rep.seed
      << ") with the checks of this build\n";
  for (const run::ReplayedCase& c : rep.cases) {
    if (c.status == run::ReplayStatus::kChanged) {
      out << c.id << ": " << harness::to_string(c.recorded) << " -> " << harness::to_string(c.now) << ": "
          << (c.first_check.empty() ? std::string() : c.first_check + ": ") << c.first_message << "\n";
    } else if (c.status == run::ReplayStatus::kNotRejudged) {
      out << c.id << ": not re-judged: " << c.reason << "\n";
    }
    for (const auto& n : c.notes) out << c.id << ": evidence: " << n << "\n";
  }
  const std::size_t unchanged = rep.count(run::ReplayStatus::kUnchanged);
  const std::size_t changed = rep.count(run::ReplayStatus::kChanged);
  const std::size_t skipped = rep.count(run::ReplayStatus::kNotRejudged);
  out << "replay: " << unchanged + changed << " re-judged, " << unchanged << " unchanged, " << changed << " changed, " << skipped
      << " not re-judged\n";
  if (unchanged + changed == 0) {
    err << "error: replay: " << o.bundle.string() << ": no case could be re-judged (see the reasons above): nothing was checked\n";
    return run::kExitBadInput;
  }
  return changed > 0 ? run::kExitFail : run::kExitPass;
}

}  // namespace mrc::cli
