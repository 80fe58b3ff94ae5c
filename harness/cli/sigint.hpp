// Ctrl-C and SIGTERM (a scheduler's or a container runtime's stop) for the long subcommands (run,
// interop, campaign, variants, falsefail).
#pragma once

namespace mrc::cli {

// The first SIGINT or SIGTERM asks the run to stop (harness/run/interrupt.hpp: the signal's name
// is the reason the reports give): the runner writes the partial reports at once, says on stderr
// which cases it waits for, stops taking cases and gives the ones in progress kInterruptGrace
// (5 s) before they are ERROR "interrupted"; exit 3. A second one ends the process at once, exit
// 128 + the signal (130 for SIGINT), after removing a report .tmp being written and swapping a
// staged report folder that has no previous report to keep into place
// (harness/report/report_folder.hpp), so the reports already written stay where the user looks
// (isolated children die with it: PR_SET_PDEATHSIG).
void stop_gracefully_on_sigint();

}  // namespace mrc::cli
