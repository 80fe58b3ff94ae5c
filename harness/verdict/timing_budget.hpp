// The testbed's timing budget (CheckContext::timing_budget, observe/observations.hpp) as the
// checks that compare a measured time with a bound apply it: an upper bound ("within N ns") grows
// by exactly the budget, a lower bound ("not before N ns") shrinks by it, never below zero. The
// checks that do are the timing metrics, the expect windows, the golden timestamp tolerance and
// the time-bounded invariants (cases/README.md lists them); no other check reads the budget.
//
// With a zero budget every helper returns its input and every text is empty, so a run on the
// simulated fabric gives the same verdicts and messages, byte for byte, as before budgets.
#pragma once

#include <cstdint>
#include <string>

#include "harness/verdict/check_context.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::harness {

// The upper bound a check judges: bound_ns + budget (saturating).
std::uint64_t widen_upper(std::uint64_t bound_ns, const TimingBudget& b);
// The lower bound a check judges: bound_ns - budget, never below zero.
std::uint64_t widen_lower(std::uint64_t bound_ns, const TimingBudget& b);

// Written right after a bound in a message: " + 200.000 us timing budget (real-time bridge
// (testbed netns))" for an upper bound, " - ..." for a lower one; "" for a zero budget.
std::string plus_budget(const TimingBudget& b);
std::string minus_budget(const TimingBudget& b);

// "200.000 us timing budget (real-time bridge (testbed netns))"; "" for a zero budget.
std::string budget_text(const TimingBudget& b);

// Records the budget a check applied as the metric `timing_budget_ns` (nothing for zero).
void note_budget(CheckResult& r, const TimingBudget& b);

}  // namespace mrc::harness
