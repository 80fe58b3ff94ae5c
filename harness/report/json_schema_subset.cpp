#include "harness/report/json_schema_subset.hpp"

#include <array>
#include <cmath>
#include <string_view>

namespace mrc::harness {
namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 256;  // bounds $ref chains that never consume the instance

constexpr std::array<std::string_view, 13> kKnownKeywords{
    "type", "required", "properties", "additionalProperties", "items", "enum", "$ref",
    "$schema", "$id", "$comment", "title", "description", "$defs"};

std::string token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

bool has_type(const Json& v, std::string_view type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  if (type == "number") return v.is_number();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    // 2020-12: a number with a zero fractional part is an integer.
    if (!v.is_number_float()) return false;
    const double d = v.get<double>();
    return std::isfinite(d) && std::trunc(d) == d;
  }
  return false;
}

class Validator {
 public:
  explicit Validator(const Json& root) : root_(root) {}

  void check(const Json& schema, const Json& v, const std::string& ptr, int depth) {
    if (depth > kMaxDepth) return add(ptr, "schema $ref chain deeper than " + std::to_string(kMaxDepth));
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) add(ptr, "no value is allowed here");
      return;
    }
    if (!schema.is_object()) return add(ptr, "schema error: a subschema must be an object or a boolean");
    if (auto it = schema.find("$ref"); it != schema.end()) {
      if (const Json* target = resolve(*it)) {
        check(*target, v, ptr, depth + 1);
      } else {
        add(ptr, "schema error: cannot resolve $ref " + it->dump());
      }
    }
    if (auto it = schema.find("type"); it != schema.end() && !type_ok(*it, v)) {
      return add(ptr, "expected type " + it->dump() + ", got " + std::string(v.type_name()));
    }
    if (auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
      bool found = false;
      for (const auto& e : *it) found = found || e == v;
      if (!found) add(ptr, "value " + v.dump() + " is not one of " + it->dump());
    }
    if (v.is_object()) check_object(schema, v, ptr, depth);
    if (v.is_array()) {
      if (auto it = schema.find("items"); it != schema.end()) {
        for (std::size_t i = 0; i < v.size(); ++i) check(*it, v[i], ptr + "/" + std::to_string(i), depth + 1);
      }
    }
  }

  std::vector<SchemaViolation> take() { return std::move(out_); }

 private:
  void add(const std::string& ptr, std::string msg) { out_.push_back({ptr.empty() ? "/" : ptr, std::move(msg)}); }

  static bool type_ok(const Json& type, const Json& v) {
    if (type.is_string()) return has_type(v, type.get_ref<const std::string&>());
    if (type.is_array()) {
      for (const auto& t : type) {
        if (t.is_string() && has_type(v, t.get_ref<const std::string&>())) return true;
      }
    }
    return false;
  }

  const Json* resolve(const Json& ref) const {
    if (!ref.is_string()) return nullptr;
    const auto& s = ref.get_ref<const std::string&>();
    if (s == "#") return &root_;
    constexpr std::string_view kDefs = "#/$defs/";
    if (!s.starts_with(kDefs)) return nullptr;
    auto defs = root_.find("$defs");
    if (defs == root_.end() || !defs->is_object()) return nullptr;
    auto it = defs->find(s.substr(kDefs.size()));
    return it == defs->end() ? nullptr : &*it;
  }

  void check_object(const Json& schema, const Json& v, const std::string& ptr, int depth) {
    if (auto it = schema.find("required"); it != schema.end() && it->is_array()) {
      for (const auto& key : *it) {
        if (key.is_string() && !v.contains(key.get_ref<const std::string&>())) {
          add(ptr, "missing required property \"" + key.get<std::string>() + "\"");
        }
      }
    }
    const auto props = schema.find("properties");
    const auto extra = schema.find("additionalProperties");
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string child = ptr + "/" + token(it.key());
      if (props != schema.end() && props->is_object() && props->contains(it.key())) {
        check(props->at(it.key()), it.value(), child, depth + 1);
      } else if (extra != schema.end()) {
        check(*extra, it.value(), child, depth + 1);
      }
    }
  }

  const Json& root_;
  std::vector<SchemaViolation> out_;
};

void scan(const Json& schema, const std::string& ptr, std::vector<std::string>& out) {
  if (!schema.is_object()) return;
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    const std::string& k = it.key();
    bool known = false;
    for (auto kw : kKnownKeywords) known = known || kw == k;
    if (!known) out.push_back((ptr.empty() ? "/" : ptr) + ": " + k);
  }
  const std::string base = ptr;
  for (const char* map_kw : {"properties", "$defs"}) {
    if (auto it = schema.find(map_kw); it != schema.end() && it->is_object()) {
      for (auto p = it->begin(); p != it->end(); ++p) scan(p.value(), base + "/" + map_kw + "/" + token(p.key()), out);
    }
  }
  for (const char* sub_kw : {"items", "additionalProperties"}) {
    if (auto it = schema.find(sub_kw); it != schema.end()) scan(*it, base + "/" + sub_kw, out);
  }
}

}  // namespace

std::vector<SchemaViolation> validate_json(const nlohmann::json& schema, const nlohmann::json& instance) {
  Validator v(schema);
  v.check(schema, instance, "", 0);
  return v.take();
}

std::vector<std::string> unsupported_keywords(const nlohmann::json& schema) {
  std::vector<std::string> out;
  scan(schema, "", out);
  return out;
}

}  // namespace mrc::harness
