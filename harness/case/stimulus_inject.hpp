// The `inject` stimulus step kind (stimulus_kinds.hpp lists every kind): its schema and build
// function, and the reading of an `opcode` key both injected frames and impairment selectors use.
#pragma once

#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

#include "harness/case/case_model.hpp"
#include "harness/case/schema.hpp"

namespace mrc::harness {

extern const Schema kInjectSchema;
StepBody build_inject(const YAML::Node& b, const std::string& path, Validator& v);
// A node's `opcode`: a name of frame_fields.hpp (kOpcodeNames) or a number 0..255; 0 when absent
// or out of range (the schema has already refused those).
std::uint8_t opcode_of(const YAML::Node& node);

}  // namespace mrc::harness
