// Exit codes of `mrc-conform` (harness/README.md, scripts/run-suite), returned by the suite runner
// and every subcommand.
#pragma once

namespace mrc::run {

inline constexpr int kExitPass = 0;
inline constexpr int kExitFail = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitHarness = 3;

}  // namespace mrc::run
