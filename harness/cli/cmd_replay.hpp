// `replay` and the bundle file check it shares with `verify` (cmd_verify.cpp). Apart from
// commands.hpp, which every subcommand and its tests include, so adding replay rebuilt none of
// them; main.cpp and the replay tests include it.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

namespace mrc::cli {

// A bundle file for verify and replay, looked at before it is read (streamed, by verify_bundle):
// "", else the message for the user (no such file, a folder, empty, over kMaxBundleBytes), naming
// the file.
std::string check_bundle_file(const std::filesystem::path& path);

struct ReplayCliOptions {
  std::filesystem::path bundle;
  std::string pubkey;              // --pubkey K, as for `verify`
  std::string cases;               // --cases DIR, as for `verify`
};
// `replay` (harness/certify/replay.hpp): verifies the bundle, re-judges every case from its evidence
// with this build's checks, prints one line per case whose verdict changed (`CASE: OLD -> NEW:
// <first differing check>: <its message>`), one per case not re-judged with the reason, and
// `replay: N re-judged, M unchanged, K changed, J not re-judged`. Exit 0 every re-judged verdict
// unchanged, 1 a verdict changed, 2 bad input (unreadable or tampered bundle, with verify's
// message; a bundle with no case to re-judge).
int run_replay(const ReplayCliOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mrc::cli
