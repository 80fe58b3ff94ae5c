// Limits on what a case or a command line may ask for, declared once: the case schema
// (check_types.cpp) and the CLI options (harness/cli/main.cpp) both check against these, and the
// error names the limit.
#pragma once

#include <cstdint>

namespace mrc::harness::limits {

// Golden diff: packets inside which order does not matter. The matcher's cost grows with it.
inline constexpr std::uint32_t kMaxDiffWindow = 4096;
// Golden diff: timestamp tolerance as a percentage of the time elapsed since the first packet.
inline constexpr double kMaxTolerancePct = 100.0;

// mrc-ev / ev-expand: the largest EV array it expands (an AUTO or generated count, or a device
// limit that sizes arrays; about 100 bytes each in memory) and the largest profile file it reads.
inline constexpr std::uint32_t kMaxExpandEvs = 1u << 20;
inline constexpr std::uintmax_t kMaxProfileBytes = 1u << 20;

}  // namespace mrc::harness::limits
