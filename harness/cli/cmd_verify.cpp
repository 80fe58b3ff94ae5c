// `mrc-conform verify FILE [--pubkey K] [--cases DIR]`: a certification bundle checked against its
// manifest, its signature and this suite's tree (harness/certify/bundle.hpp).
#include <optional>
#include <ostream>

#include "harness/certify/bundle.hpp"
#include "harness/cli/cmd_replay.hpp"
#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

namespace fs = std::filesystem;

std::string check_bundle_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return path.string() + ": a folder, not a bundle file (give the FILE `bundle -o` wrote)";
  if (!fs::is_regular_file(path, ec)) return path.string() + ": no such file";
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return path.string() + ": " + ec.message();
  if (size > harness::kMaxBundleBytes) {
    return path.string() + ": " + std::to_string(size) + " bytes, over the limit of " + std::to_string(harness::kMaxBundleBytes);
  }
  if (size == 0) return path.string() + ": empty file, not a bundle";
  return {};
}

int run_verify(const VerifyCliOptions& o, std::ostream& out, std::ostream& err) {
  std::optional<harness::Ed25519PublicKey> pubkey;
  if (!o.pubkey.empty()) {
    try {
      pubkey = harness::read_public_key_file(o.pubkey);
    } catch (const harness::KeyError& e) {
      err << "error: verify: --pubkey: " << e.what() << "\n";
      return run::kExitBadInput;
    }
  }
  const fs::path cases = bundle_cases_dir(o.cases);
  if (cases.empty()) {
    err << "error: verify: no --cases given and no cases/clauses.yaml found from the working directory\n";
    return run::kExitBadInput;
  }
  if (std::string e = check_bundle_file(o.bundle); !e.empty()) {
    err << "error: verify: " << e << "\n";
    return run::kExitBadInput;
  }
  harness::BundleCheck check;
  try {
    check = harness::verify_bundle(o.bundle, pubkey, cases);
  } catch (const harness::BundleInputError& e) {
    err << "error: verify: " << o.bundle.string() << ": " << e.what() << "\n";
    out << "bundle NOT OK: unreadable\n";
    return run::kExitBadInput;
  }
  for (const auto& p : check.problems) out << p << "\n";
  if (check.problems.empty()) {
    for (const auto& n : check.notes) out << n << "\n";
    out << "bundle OK: " << check.files << " files, " << check.cases << " cases, signed by " << check.fingerprint << "\n";
    for (const std::string& line : harness::summary_lines(check.summary)) out << "  " << line << "\n";
    return run::kExitPass;
  }
  out << "bundle NOT OK: " << check.problems.size() << " problem" << (check.problems.size() == 1 ? "" : "s") << "\n";
  return run::kExitFail;
}

}  // namespace mrc::cli
