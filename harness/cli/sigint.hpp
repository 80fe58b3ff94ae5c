// Ctrl-C and SIGTERM (a scheduler's or a container runtime's stop) for the long subcommands (run,
// interop, campaign, falsefail).
#pragma once

namespace mrc::cli {

// The first SIGINT or SIGTERM sets run::interrupt_flag(): the runner finishes the case in
// progress (with --isolate it stops the cases' child processes at once and leaves those cases
// out), stops taking cases and writes a partial report marked interrupted (exit 3). A second one
// ends the process at once with that signal's default action (isolated children die with it).
void stop_gracefully_on_sigint();

}  // namespace mrc::cli
