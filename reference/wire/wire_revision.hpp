// The wire revision: which MRC wire this build puts on, reads from and judges on the wire. Every
// report, bundle and replay names it, because a verdict means something only on the wire it was
// judged on: a bundle certified on another revision is refused by `verify` and `replay`.
//
// "mrc-1.0 spec-derived" is the layout of mrc-wire-model.md section 5 (W1..W19), taken from
// public spec-derived sources; "model rev N" counts the changes to its [M] and [S1] items (the
// `MODEL: W<n>` and `S1: W<n>` marks in the code). Raise N whenever one of them changes what goes
// on the wire or how a frame is judged; rev 1 was the project's own wire from before MRC 1.0's
// layouts were public, which nothing here speaks any more.
#pragma once

#include <string_view>

namespace mrc::wire {

inline constexpr std::string_view kWireRevision = "mrc-1.0 spec-derived, model rev 2";

}  // namespace mrc::wire
