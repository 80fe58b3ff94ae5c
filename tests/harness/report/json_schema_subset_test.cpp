// The JSON Schema subset validator: each keyword accepts what it should and refuses what it
// should, so "the output validates" in results_json_test means something.
#include <gtest/gtest.h>

#include "harness/report/json_schema_subset.hpp"

namespace mrc::harness {
namespace {

using Json = nlohmann::json;

std::vector<std::string> pointers(const Json& schema, const Json& doc) {
  std::vector<std::string> out;
  for (const auto& v : validate_json(schema, doc)) out.push_back(v.pointer);
  return out;
}

TEST(JsonSchemaSubset, TypeNamesAndLists) {
  EXPECT_TRUE(validate_json(Json::parse(R"({"type": "integer"})"), 3).empty());
  EXPECT_TRUE(validate_json(Json::parse(R"({"type": "integer"})"), 3.0).empty());  // zero fraction
  EXPECT_FALSE(validate_json(Json::parse(R"({"type": "integer"})"), 3.5).empty());
  EXPECT_TRUE(validate_json(Json::parse(R"({"type": "number"})"), 3).empty());
  EXPECT_FALSE(validate_json(Json::parse(R"({"type": "number"})"), "3").empty());
  EXPECT_TRUE(validate_json(Json::parse(R"({"type": ["number", "string"]})"), "NaN").empty());
  EXPECT_FALSE(validate_json(Json::parse(R"({"type": ["number", "string"]})"), nullptr).empty());
  EXPECT_FALSE(validate_json(Json::parse(R"({"type": "object"})"), Json::array()).empty());
  EXPECT_TRUE(validate_json(Json::parse(R"({"type": "boolean"})"), false).empty());
  EXPECT_FALSE(validate_json(Json::parse(R"({"type": "string"})"), 1).empty());
}

TEST(JsonSchemaSubset, RequiredPropertiesAndAdditional) {
  const auto schema = Json::parse(R"({
    "type": "object", "required": ["a", "b"], "additionalProperties": false,
    "properties": {"a": {"type": "string"}, "b": {"type": "object", "additionalProperties": {"type": "number"}}}
  })");
  EXPECT_TRUE(validate_json(schema, Json::parse(R"({"a": "x", "b": {"m": 1, "n": 2.5}})")).empty());
  EXPECT_EQ(pointers(schema, Json::parse(R"({"a": "x"})")), std::vector<std::string>{"/"});
  EXPECT_EQ(pointers(schema, Json::parse(R"({"a": 1, "b": {}})")), std::vector<std::string>{"/a"});
  EXPECT_EQ(pointers(schema, Json::parse(R"({"a": "x", "b": {"k/1": "s"}})")), std::vector<std::string>{"/b/k~11"});
  EXPECT_EQ(pointers(schema, Json::parse(R"({"a": "x", "b": {}, "c": 1})")), std::vector<std::string>{"/c"});
}

TEST(JsonSchemaSubset, ItemsEnumAndRefs) {
  const auto schema = Json::parse(R"({
    "type": "array", "items": {"$ref": "#/$defs/v"},
    "$defs": {"v": {"type": "string", "enum": ["PASS", "FAIL"]}}
  })");
  EXPECT_TRUE(validate_json(schema, Json::parse(R"(["PASS", "FAIL"])")).empty());
  EXPECT_EQ(pointers(schema, Json::parse(R"(["PASS", "pass", 3])")), (std::vector<std::string>{"/1", "/2"}));
}

TEST(JsonSchemaSubset, BrokenSchemasAreReportedNotCrashed) {
  EXPECT_FALSE(validate_json(Json::parse(R"({"$ref": "#/$defs/missing"})"), 1).empty());
  EXPECT_FALSE(validate_json(Json::parse(R"({"$ref": "http://elsewhere"})"), 1).empty());
  // A $ref loop that never descends into the instance ends at the depth bound.
  const auto loop = validate_json(Json::parse(R"({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})"), 1);
  ASSERT_FALSE(loop.empty());
  EXPECT_NE(loop.front().message.find("deeper than"), std::string::npos);
  EXPECT_FALSE(validate_json(Json::parse(R"({"properties": {"a": 3}})"), Json::parse(R"({"a": 1})")).empty());
}

TEST(JsonSchemaSubset, UnsupportedKeywordsAreListed) {
  const auto schema = Json::parse(R"({
    "type": "object", "minProperties": 1,
    "properties": {"a": {"type": "string", "pattern": "^x"}},
    "$defs": {"d": {"anyOf": []}}, "additionalProperties": {"format": "date"}
  })");
  const auto found = unsupported_keywords(schema);
  EXPECT_EQ(found, (std::vector<std::string>{"/: minProperties", "/properties/a: pattern", "/$defs/d: anyOf",
                                             "/additionalProperties: format"}));
  EXPECT_TRUE(unsupported_keywords(Json::parse(R"({"title": "t", "description": "d", "type": "string"})")).empty());
}

}  // namespace
}  // namespace mrc::harness
