#include "harness/cli/sigint.hpp"

#include <csignal>

#include "harness/run/suite_runner.hpp"

namespace mrc::cli {
namespace {

extern "C" void on_sigint(int) {
  // Only an atomic store: nothing else is safe in a signal handler.
  if (run::interrupt_flag().exchange(true)) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}

}  // namespace

void stop_gracefully_on_sigint() { std::signal(SIGINT, on_sigint); }

}  // namespace mrc::cli
