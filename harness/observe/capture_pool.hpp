// Storage of finished captures, kept for the next case run's taps.
//
// A campaign runs thousands of cases one after the other, each with fresh taps. A tap's capture
// grows its arena by doubling, copying what it holds at every step, into pages the kernel has to
// fault in and zero; that was about a tenth of a campaign's CPU time. A capture handed back here
// once nothing reads it keeps its vectors' capacity: the next run's tap starts cleared but with
// room, in pages already mapped. Contents never carry over (take() returns a cleared capture),
// so no report or evidence byte depends on what was recycled.
#pragma once

#include <cstddef>

#include "harness/observe/capture.hpp"

namespace mrc::harness::capture_pool {

// At most this many captures wait in the pool (the taps of a case or two per job); one that held
// more than kMaxKeptBytes is freed instead, so the pool pins at most about 2 x 8 x 16 MB. With 32
// of up to 64 MB a campaign's peak RSS went from 278 to 657 MB.
inline constexpr std::size_t kMaxKept = 8;
inline constexpr std::size_t kMaxKeptBytes = std::size_t{16} << 20;

// A cleared capture: the most recently recycled one, or a new empty one. Thread-safe.
Capture take();

// Hands `c`'s storage to the pool (after clear()); `c` is left empty. Thread-safe.
void recycle(Capture&& c);

// How many captures wait in the pool (tests).
std::size_t kept();

}  // namespace mrc::harness::capture_pool
