// `mrc-conform verify FILE [--pubkey K] [--cases DIR]`: a certification bundle checked against its
// manifest, its signature and this suite's tree (harness/report/bundle.hpp).
#include <fstream>
#include <optional>
#include <ostream>

#include "harness/cli/commands.hpp"
#include "harness/report/bundle.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

namespace fs = std::filesystem;

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
  std::error_code ec;
  if (!fs::is_regular_file(o.bundle, ec)) {
    err << "error: verify: " << o.bundle.string() << ": no such file\n";
    return run::kExitBadInput;
  }
  const std::uintmax_t size = fs::file_size(o.bundle, ec);
  if (ec || size > harness::kMaxBundleBytes) {
    err << "error: verify: " << o.bundle.string() << ": " << (ec ? ec.message() : std::to_string(size) + " bytes, over the limit of " +
                                                                       std::to_string(harness::kMaxBundleBytes))
        << "\n";
    return run::kExitBadInput;
  }
  if (size == 0) {
    err << "error: verify: " << o.bundle.string() << ": empty file, not a bundle\n";
    return run::kExitBadInput;
  }
  std::string bytes(size, '\0');
  std::ifstream in(o.bundle, std::ios::binary);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) {
    err << "error: verify: " << o.bundle.string() << ": cannot read\n";
    return run::kExitBadInput;
  }
  harness::BundleCheck check;
  try {
    check = harness::verify_bundle(bytes, pubkey, cases);
  } catch (const harness::BundleInputError& e) {
    err << "error: verify: " << o.bundle.string() << ": " << e.what() << "\n";
    out << "bundle NOT OK: unreadable\n";
    return run::kExitBadInput;
  }
  for (const auto& p : check.problems) out << p << "\n";
  if (check.problems.empty()) {
    for (const auto& n : check.notes) out << n << "\n";
    out << "bundle OK: " << check.files << " files, " << check.cases << " cases, signed by " << check.fingerprint << "\n";
    return run::kExitPass;
  }
  out << "bundle NOT OK: " << check.problems.size() << " problem" << (check.problems.size() == 1 ? "" : "s") << "\n";
  return run::kExitFail;
}

}  // namespace mrc::cli
