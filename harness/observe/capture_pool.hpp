// Finished captures, kept for the next case run's taps.
//
// A campaign runs thousands of cases one after the other, each with fresh taps. A capture handed
// back here once nothing reads it keeps its packet index's capacity, so the next run's tap does not
// grow that vector again; its byte chunks go back to capture_chunks (capture_chunks.hpp), where any
// capture takes them. Contents never carry over (take() returns a cleared capture), so no report or
// evidence byte depends on what was recycled.
#pragma once

#include <cstddef>

#include "harness/observe/capture.hpp"

namespace mrc::harness::capture_pool {

// At most this many captures wait in the pool (the taps of a case or two per job); one that held
// more than kMaxKeptBytes is freed instead (its index is about 24 / 1000 of that).
inline constexpr std::size_t kMaxKept = 8;
inline constexpr std::size_t kMaxKeptBytes = std::size_t{16} << 20;

// A cleared capture: the most recently recycled one, or a new empty one. Thread-safe.
Capture take();

// Hands `c`'s storage to the pool (after clear()); `c` is left empty. Thread-safe.
void recycle(Capture&& c);

// How many captures wait in the pool (tests).
std::size_t kept();

}  // namespace mrc::harness::capture_pool
