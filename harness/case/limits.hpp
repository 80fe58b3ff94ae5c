// Limits on what a case or a command line may ask for, declared once: the case schema
// (check_types.cpp) and the CLI options (harness/cli/main.cpp) both check against these, and the
// error names the limit.
#pragma once

#include <cstddef>
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

// A scripted frame (an `inject` step): the most payload bytes it carries, an explicit
// payload.len or, for a write without one, reth.len. The frame builder (harness/stimulus) refuses
// more; the case schema refuses it at load.
inline constexpr std::uint32_t kMaxFramePayloadBytes = 4096;

// One case's stimulus, summed over its steps (a run keeps every packet it captures, so memory
// grows with what the case moves). The library's largest: failover-v-019, 500 writes and
// 32,768,000 bytes; 6 inject steps (reorder-o-002). Measured peak RSS in cases/README.md "Limits".
inline constexpr std::uint64_t kMaxCaseWrites = 65536;
inline constexpr std::uint64_t kMaxCaseTrafficBytes = 256ull << 20;
inline constexpr std::uint64_t kMaxCaseInjects = 4096;

// Every YAML file the harness reads (cases, clauses.yaml, expectation files, defects.yaml,
// variants.yaml, edges.yaml, EV profiles): the deepest nesting of maps and lists it accepts. The
// library's deepest case is 7 levels; yaml-cpp's own guard gives up (with "bad file") a few hundred
// levels down, so the limit keeps the message ours and located.
inline constexpr int kMaxYamlDepth = 64;
// Every YAML file: the most nodes its tree may hold when walked (the largest library file,
// cases/clauses.yaml, holds a few thousand). Anchors and aliases can make a small file a huge tree.
inline constexpr std::size_t kMaxYamlNodes = 1u << 20;
// The largest YAML file a loader reads (case, clause, expectation files are a few KiB); the size is
// checked before a byte is read, so a 2 GB file costs nothing.
inline constexpr std::uintmax_t kMaxYamlFileBytes = 4u << 20;

}  // namespace mrc::harness::limits
