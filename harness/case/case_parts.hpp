// Internal pieces of the case loader, split by job: the config and testbed sections
// (case_config.cpp) and the rules that relate one part of a case to another (case_rules.cpp).
#pragma once

#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "harness/case/case_model.hpp"
#include "harness/case/clauses.hpp"
#include "harness/case/schema.hpp"

namespace mrc::harness::detail {

inline constexpr std::array<std::string_view, 3> kTestbedPresets{"mini", "rack", "pod"};

// `config:` of a case (absent = defaults). Validates shape, ranges and the EV-profile rules of
// the host API (mrc-wire-model.md §1.5), then builds the typed config.
CaseConfig build_config(const YAML::Node& root, Validator& v);

// `testbed:` of a case: a preset name, a path to a testbed YAML, or a map with overrides.
TestbedSpec build_testbed(const YAML::Node& root, const std::filesystem::path& case_dir, Validator& v);

// Rules across keys and against the file system and clause index: id shape and file name,
// behaviour letter, folder, clause ids and levels, required capabilities, indices of QPs, EVs and
// ports, check clause subsets, tags, and the positive-control rule.
void check_case_rules(const YAML::Node& root, const Case& c, const std::filesystem::path& file,
                      const ClauseIndex& clauses, Validator& v);

}  // namespace mrc::harness::detail
