// Step 6 of a case run: every check of the case (plus the scripted expects and control results)
// judged on the collected context, combined into one CaseResult. Each check's message gets the
// clause ids it proves as a prefix ("[SPRAY-PER-PACKET-EV] ..."); a check that throws is an ERROR
// of that check, never of the run.
#pragma once

#include <cstdint>
#include <filesystem>

#include "harness/case/case_model.hpp"
#include "harness/run/case_session.hpp"
#include "harness/verdict/verdict.hpp"

namespace mrc::run {

// The case's identity fields (id, title, area, file, clauses, level, ...) with no verdict yet.
harness::CaseResult case_header(const harness::Case& c, const std::filesystem::path& suite_root, std::uint64_t seed);

harness::CaseResult judge_case(const harness::Case& c, const SessionResult& s, const std::filesystem::path& suite_root,
                               std::uint64_t seed);

// "[A,B] message"
std::string with_clauses(const std::vector<std::string>& clauses, const std::string& message);

}  // namespace mrc::run
