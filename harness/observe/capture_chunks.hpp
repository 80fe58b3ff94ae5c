// Fixed-size byte chunks for capture arenas, shared by every capture of the process.
//
// A tap does not know how much it will capture. One contiguous arena grown by doubling copied
// everything it held at each step into fresh pages the kernel had to fault in and zero: about a
// seventh of a campaign's CPU time. A capture instead appends into chunks of kChunkBytes and
// takes a new chunk when one is full, so nothing stored is ever copied again; a chunk freed by a
// finished capture waits here for the next one, with its pages already mapped. Chunk contents
// never carry over: a capture writes every byte it later reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mrc::harness::capture_chunks {

inline constexpr std::size_t kChunkBytes = std::size_t{256} << 10;
// At most this many free chunks wait (64 MB): about what the taps of two concurrent case runs hold.
inline constexpr std::size_t kMaxFree = 256;

using Bytes = std::unique_ptr<std::uint8_t[]>;

// An uninitialised buffer of `bytes` (a recycled chunk when bytes == kChunkBytes). Thread-safe.
Bytes take(std::size_t bytes);

// Hands a buffer of `bytes` back: a kChunkBytes one is kept for take() while fewer than kMaxFree
// wait, anything else is freed. Thread-safe.
void recycle(Bytes b, std::size_t bytes);

// How many chunks wait (tests).
std::size_t free_count();

}  // namespace mrc::harness::capture_chunks
