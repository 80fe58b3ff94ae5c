// The data of a case's first writes, made before the testbed's clock starts.
//
// Why: a write's data is made while the runner holds the fabric (the slot is the requester's
// memory, and the in-process peer runs on the fabric's thread). A 64 KiB pattern takes hundreds of
// microseconds on a small machine; the first window of a program's writes (up to 16 of them)
// takes milliseconds. On a real-time testbed the fabric then stands still that long at the very
// start of the traffic (a pause: sim/paced_run.hpp), past the bridge's timing budget, and every
// FAIL of the run is withheld. Made before the clock starts, the same bytes cost no testbed time;
// later writes reuse a slot and are made one at a time as it frees.
#include <algorithm>

#include "harness/run/session_state.hpp"
#include "harness/stimulus/payload.hpp"

namespace mrc::run {

void prefill_traffic(SessionState& s) {
  for (ProgramRun& p : s.programs) {
    const std::uint64_t first = std::min<std::uint64_t>(p.prog.slots(), p.prog.writes());
    for (std::uint64_t i = 0; i < first; ++i) {
      const harness::stim::PlannedWrite w = p.prog.planned(i);
      if (w.length == 0) break;
      if (const std::span<std::uint8_t> in_place = p.requester->overwrite_local(w.src_offset, w.length);
          in_place.size() == w.length) {
        harness::stim::fill_write_data(s.payload_seed(), p.prog.program(), i, in_place);
      } else {
        s.scratch.resize(w.length);
        harness::stim::fill_write_data(s.payload_seed(), p.prog.program(), i, s.scratch);
        // A binding that refuses is left to post_due(), which makes the data again and reports it.
        if (!p.requester->fill_local(w.src_offset, s.scratch).ok()) break;
      }
      p.prefilled = i + 1;
    }
  }
}

}  // namespace mrc::run
