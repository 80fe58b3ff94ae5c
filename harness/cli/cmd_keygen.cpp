// `mrc-conform keygen -o KEY [--force]`: the signing key of certification bundles.
#include <ostream>

#include "harness/certify/bundle_crypto.hpp"
#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

int run_keygen(const KeygenOptions& o, std::ostream& out, std::ostream& err) {
  try {
    const harness::Ed25519PublicKey pub = harness::generate_key_files(o.out, o.force);
    out << "private key " << o.out.string() << " (mode 0600), public key " << o.out.string() << ".pub\n"
        << "fingerprint " << harness::key_fingerprint(pub) << "\n";
    return run::kExitPass;
  } catch (const harness::KeyError& e) {
    err << "error: keygen: " << e.what() << "\n";
    return run::kExitBadInput;
  }
}

}  // namespace mrc::cli
