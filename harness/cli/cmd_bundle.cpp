// `mrc-conform bundle REPORT_DIR -o FILE --key KEY`: a report folder as a signed certification
// bundle (harness/certify/bundle.hpp).
#include <ostream>

#include "harness/certify/bundle.hpp"
#include "harness/cli/byte_progress.hpp"
#include "harness/cli/commands.hpp"
#include "harness/report/report.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/suite_loader.hpp"

namespace mrc::cli {

namespace fs = std::filesystem;

fs::path bundle_cases_dir(const std::string& given) {
  if (!given.empty()) return given;
  const fs::path root = run::find_suite_root({});
  return root.empty() ? fs::path{} : root / "cases";
}

int run_bundle(const BundleCliOptions& o, std::ostream& out, std::ostream& err) {
  // A bundle is a certifier's evidence: never replaced by accident, never written over a device.
  std::error_code ec;
  if (const fs::file_status st = fs::symlink_status(o.out, ec); !ec && fs::exists(st)) {
    if (st.type() != fs::file_type::regular) {
      err << "error: bundle: -o " << o.out.string() << " exists and is not a regular file; give a file path\n";
      return run::kExitBadInput;
    }
    if (!o.force) {
      err << "error: bundle: -o " << o.out.string() << " exists; give --force to overwrite it\n";
      return run::kExitBadInput;
    }
  }
  harness::BundleRequest r;
  r.report_dir = o.report_dir;
  r.key = o.key;
  r.cases_dir = bundle_cases_dir(o.cases);
  if (r.cases_dir.empty()) {
    err << "error: bundle: no --cases given and no cases/clauses.yaml found from the working directory\n";
    return run::kExitBadInput;
  }
  if (!o.expectations.empty()) r.expectations = fs::path(o.expectations);
  r.allow_partial = o.allow_partial;
  r.out = o.out;
  r.suite_version = o.suite_version;
  r.git_hash = o.git_hash;
  harness::BundleMade made;
  try {
    ByteProgress progress(err, "bundle: hashing", stderr_is_terminal());
    r.progress = [&progress](std::uint64_t done, std::uint64_t total) { progress.update(done, total); };
    made = harness::make_bundle(r);
  } catch (const harness::BundleInputError& e) {
    err << "error: bundle: " << e.what() << "\n";
    return run::kExitBadInput;
  } catch (const harness::KeyError& e) {
    err << "error: bundle: --key: " << e.what() << "\n";
    return run::kExitBadInput;
  } catch (const harness::ReportError& e) {
    err << "error: bundle: " << e.what() << "\n";
    return run::kExitBadInput;
  } catch (const harness::BundleWriteError& e) {
    err << "error: bundle: " << e.what() << "\n";
    return run::kExitHarness;
  }
  out << "bundle " << o.out.string() << ": " << made.files << " files, " << made.cases << " cases, " << made.bytes
      << " bytes, signed by " << made.fingerprint << "\n";
  return run::kExitPass;
}

}  // namespace mrc::cli
