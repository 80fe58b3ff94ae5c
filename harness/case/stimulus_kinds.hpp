// The registry of stimulus step kinds. A step is written as a one-key map, `- inject: {...}`;
// the key picks the entry here, whose schema says which keys the body allows and whose build
// function turns the validated body into the typed StepBody. Adding a step kind = one entry
// (plus its struct in case_model.hpp's StepBody variant).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "harness/case/case_model.hpp"
#include "harness/case/schema.hpp"

namespace mrc::harness {

struct StimulusKind {
  std::string_view name;
  const Schema* schema;
  // Builds the step from a body the schema accepted; may report cross-key errors through `v`.
  StepBody (*build)(const YAML::Node& body, const std::string& path, Validator& v);
  std::string_view help;
};

std::span<const StimulusKind> stimulus_kinds();
const StimulusKind* find_stimulus_kind(std::string_view name);

// Impairment kinds and the `params` keys each allows.
struct ImpairmentKind {
  ImpairKind kind;
  const Schema* params;
  std::string_view help;
};
std::span<const ImpairmentKind> impairment_kinds();

// The packet selection an impairment's `select` (and an inject's `after_packet`) writes; the
// reader reports a reversed PSN range or time window through `v` under `path`.
extern const Schema kImpairSelectSchema;
ImpairSelect read_select(const YAML::Node& sel, const std::string& path, Validator& v);
const ImpairmentKind& impairment_kind(ImpairKind kind);

}  // namespace mrc::harness
