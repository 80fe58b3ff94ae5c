// `mrc-conform run`: --seed as typed turned into the runner's seed, then the suite runner
// (harness/run/suite_runner.hpp).
#include <ostream>
#include <stdexcept>

#include "harness/cli/commands.hpp"
#include "harness/run/exit_codes.hpp"

namespace mrc::cli {

int run_cases(run::RunOptions o, const std::string& seed_text, std::ostream& out, std::ostream& err) {
  if (!seed_text.empty()) {
    if (seed_text.front() == '-') {  // stoull would wrap -1 to 2^64-1
      err << "error: --seed '" << seed_text << "' is negative; seeds are 0 .. 2^64-1\n";
      return run::kExitBadInput;
    }
    try {
      std::size_t used = 0;
      o.seed = std::stoull(seed_text, &used, 0);  // decimal, 0x hex or 0 octal, like C literals
      if (used != seed_text.size()) throw std::invalid_argument(seed_text);
    } catch (const std::exception&) {
      err << "error: --seed '" << seed_text << "' is not a number\n";
      return run::kExitBadInput;
    }
  }
  return run::run_suite(o, out, err);
}

}  // namespace mrc::cli
