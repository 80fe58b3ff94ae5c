// A small JSON Schema validator for the subset results.schema.json uses, so the schema can be
// checked against what the writer emits without a third-party validator:
//   type (a name or a list of names), required, properties, additionalProperties (bool or
//   schema), items (one schema for every element), enum, $ref to "#" or "#/$defs/<name>",
//   and the annotations $schema, $id, $comment, title, description, $defs.
// The meaning of each keyword follows JSON Schema 2020-12. A schema that uses any other keyword is
// refused by unsupported_keywords(), so the schema cannot silently rely on a rule nobody checks.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mrc::harness {

struct SchemaViolation {
  std::string pointer;  // JSON pointer into the instance ("/cases/0/verdict")
  std::string message;
};

// Every violation of `schema` by `instance` (empty: valid). Never throws; a malformed schema
// (unresolvable $ref, non-object subschema, a $ref loop) is reported as a violation.
std::vector<SchemaViolation> validate_json(const nlohmann::json& schema, const nlohmann::json& instance);

// Keywords in `schema` outside the subset above, as "<schema pointer>: <keyword>".
std::vector<std::string> unsupported_keywords(const nlohmann::json& schema);

}  // namespace mrc::harness
