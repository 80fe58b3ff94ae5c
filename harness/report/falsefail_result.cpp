// The false-fail measurement's exit code (falsefail_result.hpp).
#include "harness/report/falsefail_result.hpp"

namespace mrc::harness {

int FalsefailResult::exit_code() const {
  if (interrupted) return 3;
  for (const auto& c : cases) {
    if (c.count.verdict != "consistent" || c.count.errors > 0) return 1;
    for (const auto& k : c.checks) {
      if (k.count.verdict != "consistent") return 1;
    }
  }
  return 0;
}

}  // namespace mrc::harness
