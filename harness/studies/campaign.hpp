// The defect campaign's attribution rule (harness/report/campaign_result.hpp says what it
// decides): which cases could see a defect at all, and which FAILs of a defect run are kills.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "harness/case/case_model.hpp"
#include "harness/report/campaign_result.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

// True when the two id lists share an id.
bool clauses_intersect(std::span<const std::string> a, std::span<const std::string> b);

// The clauses check `index` of `c`'s result proves: the check's own, else the case's. Results
// hold one CheckResult per case check in case order (judge_case()), then extra ones (scripted
// expects) that prove the case's clauses.
std::vector<std::string> check_clauses(const harness::Case& c, std::size_t index);

// Could `c` see the defect at all: does any of its checks prove a violated clause?
bool case_is_relevant(const harness::Case& c, const harness::CampaignDefect& d);

// Applies the attribution rule to one defect run. `cases[i]` produced `results[i]`.
harness::DefectOutcome attribute(const harness::CampaignDefect& d, std::span<const harness::Case* const> cases,
                                 std::span<const harness::CaseResult> results);

}  // namespace mrc::run
