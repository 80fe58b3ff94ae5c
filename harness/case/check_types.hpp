// The registry of check types. A check is a map with `type: <name>`; the entry for that name
// gives the schema of its other keys (on top of the keys every check has: type, name, clauses)
// and the function that builds its typed CheckParams. Adding a check type = one entry here plus
// its struct in case_model.hpp's CheckParams variant.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "harness/case/case_model.hpp"
#include "harness/case/schema.hpp"

namespace mrc::harness {

struct CheckType {
  std::string_view name;
  const Schema* schema;  // its `base` is the common check schema
  CheckParams (*build)(const YAML::Node& body, const std::string& path, Validator& v);
  std::string_view help;
};

std::span<const CheckType> check_types();
const CheckType* find_check_type(std::string_view name);
// The keys every check has (type, name, clauses).
const Schema& common_check_schema();

// Named invariants and the `params` keys each accepts.
struct InvariantType {
  std::string_view name;
  const Schema* params;
  std::string_view help;
};
std::span<const InvariantType> invariant_types();
const InvariantType* find_invariant_type(std::string_view name);

}  // namespace mrc::harness
