#include "harness/cli/sigint.hpp"

#include <unistd.h>

#include <csignal>

#include "harness/report/report_folder.hpp"
#include "harness/run/interrupt.hpp"

namespace mrc::cli {
namespace {

extern "C" void on_stop_signal(int sig) {
  // Only async-signal-safe work: atomics, clock_gettime, unlink, rename, _exit.
  if (run::note_stop_signal(sig)) {
    harness::place_staged_from_signal_handler();
    // The shell's spelling of "stopped by this signal" (130 for SIGINT), as an exit status: a
    // death by signal would read as a crash to a CI runner (and core dumps need no report here).
    ::_exit(128 + sig);
  }
}

}  // namespace

void stop_gracefully_on_sigint() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

}  // namespace mrc::cli
