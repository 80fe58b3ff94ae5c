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
  // It judges the frames the DUT sent by their own bytes (formats, markings, numbering), never by
  // what the DUT received or when: no late or lost frame can make a conformant DUT fail it.
  bool own_bytes = false;
};
std::span<const InvariantType> invariant_types();
const InvariantType* find_invariant_type(std::string_view name);

// A check whose FAIL stands when a real-time bridge overran its budget (run/case_result.cpp): an
// invariant that judges frames by their own bytes, or a field check with no minimum count (a lost
// frame can shorten a count, never change a field).
bool judges_own_bytes(const Check& c);

}  // namespace mrc::harness
