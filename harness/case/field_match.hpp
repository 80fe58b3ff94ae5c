// Turning YAML `field: value` entries into typed FieldMatch values (expect.match, field checks).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "harness/case/case_model.hpp"
#include "harness/case/frame_fields.hpp"
#include "harness/case/schema.hpp"

namespace mrc::harness {

// The value `node` gives field `f`: "*" (quoted) is a wildcard, opcode names become numbers.
// On a value the field cannot take, returns nullopt and says why in *why.
std::optional<MatchValue> match_value(const FrameField& f, const YAML::Node& node, std::string* why);

// Builds the matches of a map the validator accepted as ValueKind::kFieldMap; entries that do not
// convert are skipped (the validator has reported them).
std::vector<FieldMatch> build_matches(const YAML::Node& map);

// Checks `node` names a frame field (for `field:` and golden `masks`); reports unknown names with
// a did-you-mean. Returns the field or nullptr.
const FrameField* check_field_name(const YAML::Node& node, const std::string& path, SourceLoc fallback,
                                   Validator& v);

std::string to_string(const MatchValue& v);

}  // namespace mrc::harness
