#include "harness/case/schema.hpp"

#include <cstdio>

#include "harness/case/date.hpp"
#include "harness/case/field_match.hpp"
#include "harness/case/frame_fields.hpp"

namespace mrc::harness {
namespace {

// Alias cycles (`a: &x [*x]`) and alias fan-out would make a naive walk loop or explode; these
// bounds turn both into one error.
constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxNodes = 200000;

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

// " (kMaxDiffWindow, harness/case/limits.hpp)" for a bound declared there, else "".
std::string limit_words(const KeySpec& spec) {
  return spec.limit.empty() ? std::string{} : " (" + std::string(spec.limit) + ", harness/case/limits.hpp)";
}

std::string join_words(std::span<const std::string_view> words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) out += ", ";
    out += words[i];
  }
  return out;
}

std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string kind_words(const KeySpec& spec) {
  switch (spec.kind) {
    case ValueKind::kBool: return "true or false";
    case ValueKind::kUInt: return "an unsigned integer";
    case ValueKind::kTime: return "a time: ns, or an expression such as 3 T + 20 us";
    case ValueKind::kNumber: return "a number";
    case ValueKind::kString: return "a string";
    case ValueKind::kEnum: return "one of " + join_words(spec.names);
    case ValueKind::kUIntOrName: return "an integer or one of " + join_words(spec.names);
    case ValueKind::kHexBytes: return "a hex byte string such as \"0x3312\"";
    case ValueKind::kDate: return "a date YYYY-MM-DD";
    case ValueKind::kMap: return "a map";
    case ValueKind::kList: return "a list";
    case ValueKind::kFieldMap: return "a map of frame fields to values";
    case ValueKind::kScalarMap: return "a map of names to values";
    case ValueKind::kCustom: return "a value";
  }
  return "a value";
}

SourceLoc at_or(const YAML::Node& node, SourceLoc fallback) {
  const SourceLoc l = loc_of(node);
  return (l.line > 0 && node.IsDefined() && !node.IsNull()) ? l : fallback;
}

}  // namespace

const KeySpec* Schema::find(std::string_view key) const {
  for (const Schema* s = this; s; s = s->base) {
    for (const auto& k : s->keys) {
      if (k.name == key) return &k;
    }
  }
  return nullptr;
}

std::vector<std::string_view> Schema::all_names() const {
  std::vector<std::string_view> out;
  for (const Schema* s = this; s; s = s->base) {
    for (const auto& k : s->keys) out.push_back(k.name);
  }
  return out;
}

SourceLoc loc_of(const YAML::Node& node) {
  if (!node.IsDefined()) return {};
  const YAML::Mark m = node.Mark();
  if (m.line < 0 || m.column < 0) return {};
  return {m.line + 1, m.column + 1};
}

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  std::string s = node.Scalar();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return is_plain_scalar(node) ? quote(s) : "the quoted string \"" + s + "\"";
}

std::string join_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

void Validator::error(SourceLoc loc, std::string path, std::string message) {
  ++errors_;
  out_.add(file_, loc, std::move(path), std::move(message));
}

bool Validator::enter(SourceLoc at, const std::string& path) {
  if (++nodes_ > kMaxNodes) {
    if (!budget_reported_) error(at, path, "document too large (more than 200000 nodes, or aliases that fan out)");
    budget_reported_ = true;
    return false;
  }
  if (depth_ >= kMaxDepth) {
    error(at, path, "nested too deeply (more than 32 levels; is an alias pointing at itself?)");
    return false;
  }
  return true;
}

bool Validator::map(const YAML::Node& node, const Schema& schema, const std::string& path, SourceLoc where) {
  const SourceLoc at = at_or(node, where);
  if (!node.IsMap()) {
    error(at, path, "expected a map (" + std::string(schema.name) + "), got " + describe(node));
    return false;
  }
  if (!enter(at, path)) return false;
  ++depth_;
  const std::size_t before = errors_;
  struct Seen {
    std::string name;
    SourceLoc loc;
  };
  std::vector<Seen> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;
    const SourceLoc kl = loc_of(key);
    if (!key.IsScalar()) {
      error(kl, path, "keys must be plain words, got " + describe(key));
      continue;
    }
    const std::string& name = key.Scalar();
    bool dup = false;
    for (const auto& s : seen) {
      if (s.name == name) {
        error(kl, path, "duplicate key " + quote(name) + " (first at line " + std::to_string(s.loc.line) + ")");
        dup = true;
        break;
      }
    }
    if (dup) continue;
    seen.push_back({name, kl});
    const KeySpec* spec = schema.find(name);
    if (!spec) {
      const auto names = schema.all_names();
      std::string msg = "unknown key " + quote(name);
      const auto hint = closest_match(name, std::span<const std::string_view>(names));
      if (!hint.empty()) {
        msg += did_you_mean(hint);
      } else if (names.empty()) {
        msg += " (" + std::string(schema.name) + ")";
      } else {
        msg += " (allowed in " + std::string(schema.name) + ": " + join_words(names) + ")";
      }
      error(kl, path, std::move(msg));
      continue;
    }
    value(it->second, *spec, join_path(path, name), kl);
  }
  for (const Schema* s = &schema; s; s = s->base) {
    for (const auto& k : s->keys) {
      if (!k.required) continue;
      bool present = false;
      for (const auto& e : seen) present = present || e.name == k.name;
      if (!present) error(at, path, "missing required key " + quote(k.name));
    }
    for (const auto& g : s->groups) {
      std::vector<const Seen*> hits;
      for (const auto& e : seen) {
        for (const auto& gk : g.keys) {
          if (e.name == gk) hits.push_back(&e);
        }
      }
      if (hits.size() > 1) {
        error(hits[1]->loc, path, quote(hits[0]->name) + " and " + quote(hits[1]->name) + " exclude each other");
      } else if (hits.empty() && g.exactly_one) {
        error(at, path, "needs one of " + join_words(g.keys));
      }
    }
  }
  --depth_;
  return errors_ == before;
}

bool Validator::value(const YAML::Node& node, const KeySpec& spec, const std::string& path, SourceLoc key_loc) {
  const SourceLoc at = at_or(node, key_loc);
  if (!node.IsDefined() || node.IsNull()) {
    if (spec.kind == ValueKind::kCustom) return true;  // the builder decides
    error(key_loc, path, "missing value (expected " + kind_words(spec) + ")");
    return false;
  }
  switch (spec.kind) {
    case ValueKind::kMap:
      return spec.schema ? map(node, *spec.schema, path, at) : true;
    case ValueKind::kList:
      return list(node, spec, path, at);
    case ValueKind::kFieldMap:
      return field_map(node, path, at);
    case ValueKind::kScalarMap: {
      if (!node.IsMap()) {
        error(at, path, "expected " + kind_words(spec) + ", got " + describe(node));
        return false;
      }
      bool ok = true;
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (!it->first.IsScalar() || !it->second.IsScalar()) {
          error(loc_of(it->first), path, "entries must be `name: value` with a plain value");
          ok = false;
        }
      }
      return ok;
    }
    case ValueKind::kCustom:
      return true;
    default:
      return scalar(node, spec, path, at);
  }
}

bool Validator::list(const YAML::Node& node, const KeySpec& spec, const std::string& path, SourceLoc at) {
  KeySpec item = spec;
  item.kind = spec.item;
  if (node.IsScalar() && spec.scalar_as_list && spec.item != ValueKind::kMap) {
    return value(node, item, path, at);
  }
  if (!node.IsSequence()) {
    error(at, path, "expected a list, got " + describe(node));
    return false;
  }
  if (!enter(at, path)) return false;
  const std::size_t before = errors_;
  if (node.size() < spec.min_items) {
    error(at, path, "needs at least " + std::to_string(spec.min_items) + " item(s), got " + std::to_string(node.size()));
  } else if (node.size() > spec.max_items) {
    error(at, path, "allows at most " + std::to_string(spec.max_items) + " item(s), got " + std::to_string(node.size()));
  }
  ++depth_;
  std::size_t i = 0;
  for (auto it = node.begin(); it != node.end(); ++it, ++i) {
    value(*it, item, index_path(path, i), at_or(*it, at));
  }
  --depth_;
  return errors_ == before;
}

bool Validator::field_map(const YAML::Node& node, const std::string& path, SourceLoc at) {
  if (!node.IsMap()) {
    error(at, path, "expected a map of frame fields to values, got " + describe(node));
    return false;
  }
  const std::size_t before = errors_;
  std::vector<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const SourceLoc kl = loc_of(it->first);
    const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string{};
    const FrameField* f = find_frame_field(name);
    if (!f) {
      error(kl, path, "unknown frame field " + quote(name) + did_you_mean(closest_match(name, frame_field_spellings())));
      continue;
    }
    for (const auto& s : seen) {
      if (s == f->name) error(kl, path, "duplicate frame field " + quote(name));
    }
    seen.emplace_back(f->name);
    const YAML::Node v = it->second;
    const std::string vpath = join_path(path, name);
    std::string why;
    if (!match_value(*f, v, &why)) error(at_or(v, kl), vpath, why);
  }
  return errors_ == before;
}

bool Validator::scalar(const YAML::Node& node, const KeySpec& spec, const std::string& path, SourceLoc at) {
  if (!node.IsScalar()) {
    error(at, path, "expected " + kind_words(spec) + ", got " + describe(node));
    return false;
  }
  const std::string& text = node.Scalar();
  const bool plain = is_plain_scalar(node);
  auto wrong = [&] {
    error(at, path, "expected " + kind_words(spec) + ", got " + describe(node));
    return false;
  };
  auto check_uint = [&](std::uint64_t v) {
    if (v < spec.umin || v > spec.umax) {
      error(at, path, "value " + text + " is out of range [" + std::to_string(spec.umin) + ", " +
                          std::to_string(spec.umax) + "]" + limit_words(spec));
      return false;
    }
    return true;
  };
  auto check_name = [&] {
    for (const auto& n : spec.names) {
      if (n == text) return true;
    }
    const auto hint = closest_match(text, spec.names);
    error(at, path, "unknown value " + quote(text) +
                        (hint.empty() ? " (expected one of " + join_words(spec.names) + ")" : did_you_mean(hint)));
    return false;
  };
  switch (spec.kind) {
    case ValueKind::kBool:
      if (plain && (text == "true" || text == "false")) return true;
      return wrong();
    case ValueKind::kUInt: {
      const auto v = plain ? parse_uint(text) : std::nullopt;
      if (!v) return wrong();
      return check_uint(*v);
    }
    case ValueKind::kTime: {
      ++times_seen_;
      const TimeValue t = parse_time(text, units_);
      if (t.uses_f) ++frame_times_seen_;
      if (t.uses_t) ++t_times_seen_;
      if (!t.ns) {
        error(at, path, "expected " + kind_words(spec) + ", got " + describe(node) + ": " + t.error);
        return false;
      }
      if (*t.ns < spec.umin || *t.ns > spec.umax) {
        error(at, path, "value " + text + (text == std::to_string(*t.ns) ? "" : " (" + std::to_string(*t.ns) + " ns)") +
                            " is out of range [" + std::to_string(spec.umin) + ", " + std::to_string(spec.umax) + "] ns" +
                            limit_words(spec));
        return false;
      }
      return true;
    }
    case ValueKind::kNumber: {
      const auto v = plain ? parse_number(text) : std::nullopt;
      if (!v) return wrong();
      const bool low = spec.dmin_open ? *v <= spec.dmin : *v < spec.dmin;
      const bool high = spec.dmax_open ? *v >= spec.dmax : *v > spec.dmax;
      if (low || high) {
        error(at, path, "value " + text + " is out of range " + (spec.dmin_open ? "(" : "[") +
                            format_double(spec.dmin) + ", " + format_double(spec.dmax) + (spec.dmax_open ? ")" : "]") +
                            limit_words(spec));
        return false;
      }
      return true;
    }
    case ValueKind::kString:
      if (text.empty()) {
        error(at, path, "must not be empty");
        return false;
      }
      return true;
    case ValueKind::kEnum:
      return check_name();
    case ValueKind::kUIntOrName: {
      if (plain) {
        if (const auto v = parse_uint(text)) return check_uint(*v);
      }
      return check_name();
    }
    case ValueKind::kHexBytes: {
      const auto bytes = parse_hex_bytes(text);
      if (!bytes) return wrong();
      if (bytes->size() < spec.min_items || bytes->size() > spec.max_items) {
        error(at, path, "has " + std::to_string(bytes->size()) + " bytes; allowed " +
                            std::to_string(spec.min_items) + ".." + std::to_string(spec.max_items));
        return false;
      }
      return true;
    }
    case ValueKind::kDate:
      if (Date::parse(text)) return true;
      error(at, path, "expected a real calendar date YYYY-MM-DD, got " + describe(node));
      return false;
    default:
      return wrong();
  }
}

}  // namespace mrc::harness
