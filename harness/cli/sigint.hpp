// Ctrl-C for the long subcommands (run, campaign, falsefail).
#pragma once

namespace mrc::cli {

// First Ctrl-C sets run::interrupt_flag(): the runner finishes the case in progress, stops taking
// cases and writes a partial report. A second one ends the process at once.
void stop_gracefully_on_sigint();

}  // namespace mrc::cli
