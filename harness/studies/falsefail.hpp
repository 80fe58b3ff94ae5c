// The false-fail measurement (`mrc-conform falsefail`): how often the statistical cases FAIL on a
// conforming DUT (the reference endpoint) across many seeds, compared with the false-fail rate
// each distribution check declares (its alpha). A case's own bound is the sum of its distribution
// checks' alphas (Bonferroni: P(any of them false-fails) <= the sum). The result types and their
// verdict words are in harness/report/falsefail_result.hpp; this is the counting and the test.
#pragma once

#include <cstdint>
#include <span>

#include "harness/case/case_model.hpp"
#include "harness/report/falsefail_result.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

// P[X >= k] for X ~ Binomial(n, p), summed exactly in log space (no normal approximation).
// 1 for k == 0; 0 for k > n.
double binomial_upper_tail(std::uint64_t n, std::uint64_t k, double p);

// Sets c.p_value = binomial_upper_tail(judged, fails, alpha) and c.verdict from the counts.
void judge(harness::FalsefailCount& c);

// Does `c` have a distribution check?
bool is_statistical(const harness::Case& c);

// Counts one case's runs (one CaseResult per seed) per case and per distribution check, judged.
harness::FalsefailCase tally_falsefail(const harness::Case& c, std::span<const harness::CaseResult> runs);

}  // namespace mrc::run
