#include "harness/cli/sigint.hpp"

#include <csignal>

#include "harness/run/suite_runner.hpp"

namespace mrc::cli {
namespace {

extern "C" void on_stop_signal(int sig) {
  // Only an atomic store: nothing else is safe in a signal handler.
  if (run::interrupt_flag().exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

void stop_gracefully_on_sigint() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

}  // namespace mrc::cli
