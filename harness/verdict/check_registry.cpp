// run_check(): one entry point for the runner, dispatching on the case model's check type.
#include <variant>

#include "harness/verdict/checks.hpp"

namespace mrc::harness {

CheckResult run_check(const Check& check, const CheckContext& ctx) {
  struct Dispatch {
    const CheckContext& ctx;
    CheckResult operator()(const GoldenCheck& s) const { return run_golden(s, ctx); }
    CheckResult operator()(const DistributionCheck& s) const { return run_distribution(s, ctx); }
    CheckResult operator()(const TimingCheck& s) const { return run_timing(s, ctx); }
    CheckResult operator()(const InvariantCheck& s) const { return run_invariant(s, ctx); }
    CheckResult operator()(const PositiveControlCheck& s) const { return run_positive_control(s, ctx); }
    CheckResult operator()(const FieldCheck& s) const { return run_field(s, ctx); }
  };
  CheckResult r = std::visit(Dispatch{ctx}, check.params);
  r.type = std::string(check.type());
  if (!check.name.empty()) r.name = check.name;
  return r;
}

}  // namespace mrc::harness
