// How a run is asked to stop early, shared by every long command (run, interop, campaign,
// variants, falsefail): a signal (harness/cli/sigint.cpp), a report or evidence write that failed
// (disk full), or a harness error. The first stop wins and names the reason the reports carry
// (results.json `interrupt_reason`); the pool stops taking cases at once and gives the cases in
// progress kInterruptGrace to finish, after which each is an ERROR "interrupted" (in-process: the
// session loop notices; isolated: the child is stopped).
#pragma once

#include <atomic>
#include <chrono>
#include <string>

namespace mrc::run {

// How long the cases in progress may go on after a stop before they are cut short. Declared here,
// with the runner, not in harness/case/limits.hpp: it bounds the runner, not a case.
inline constexpr std::chrono::seconds kInterruptGrace{5};

// Set once the run must stop taking cases (by a signal handler or request_stop()).
std::atomic<bool>& interrupt_flag();

// For the signal handler, async-signal-safe: records the signal (its name becomes the reason) and
// the grace deadline (CLOCK_MONOTONIC, the steady clock's), then sets the flag. Returns true when
// a stop had already been asked for.
bool note_stop_signal(int sig) noexcept;

// A stop from inside the harness: "disk full: <path>: <strerror>", "harness error: <what>". The
// first stop (signal or this) names the reason; later ones change nothing.
void request_stop(const std::string& reason);

// "SIGINT", "SIGTERM", the request_stop() reason, "interrupted" (the flag set by other means), or
// "" when no stop was asked for.
std::string stop_reason();

// True once the flag is set and kInterruptGrace has passed since (a stop without a recorded time
// starts its grace at the first call that sees it). Cheap enough for the session's loop.
bool interrupt_grace_over();
// The same, as a flag a child-process wait can poll: set by interrupt_grace_over() once true.
std::atomic<bool>& interrupt_grace_flag();

// The message of a case cut short by the grace: "interrupted: still running 5 s after the run was
// stopped (SIGINT)".
std::string interrupted_case_message();

// Back to "no stop asked for" (tests, which run several commands in one process).
void reset_interrupt();

}  // namespace mrc::run
