#include "harness/case/field_match.hpp"

namespace mrc::harness {

std::optional<MatchValue> match_value(const FrameField& f, const YAML::Node& node, std::string* why) {
  auto fail = [&](std::string msg) -> std::optional<MatchValue> {
    if (why) *why = std::move(msg);
    return std::nullopt;
  };
  if (!node.IsScalar()) return fail("expected a single value for " + std::string(f.name) + ", got " + describe(node));
  const std::string& text = node.Scalar();
  const bool plain = is_plain_scalar(node);
  if (!plain && text == "*") return std::make_optional<MatchValue>(std::in_place_type<Wildcard>);
  switch (f.kind) {
    case FieldValueKind::kUInt: {
      const auto v = plain ? parse_uint(text) : std::nullopt;
      if (!v) return fail("expected an unsigned integer for " + std::string(f.name) + ", got " + describe(node));
      if (*v > f.max) {
        return fail("value " + text + " is out of range [0, " + std::to_string(f.max) + "] for " + std::string(f.name));
      }
      return MatchValue{*v};
    }
    case FieldValueKind::kBool:
      if (plain && text == "true") return std::make_optional<MatchValue>(std::in_place_type<bool>, true);
      if (plain && text == "false") return std::make_optional<MatchValue>(std::in_place_type<bool>, false);
      return fail("expected true or false for " + std::string(f.name) + ", got " + describe(node));
    case FieldValueKind::kOpcode: {
      if (plain) {
        if (const auto v = parse_uint(text)) {
          if (*v > 255) return fail("opcode " + text + " is out of range [0, 255]");
          return MatchValue{*v};
        }
      }
      if (const auto op = opcode_by_name(text)) return MatchValue{std::uint64_t{*op}};
      return fail("unknown opcode '" + text + "'" + did_you_mean(closest_match(text, opcode_spellings())));
    }
    case FieldValueKind::kIcrc:
      if (text == "good" || text == "bad") return MatchValue{text};
      return fail("expected good or bad for icrc, got " + describe(node));
    case FieldValueKind::kDirection:
      if (text == "to_dut" || text == "from_dut") return MatchValue{text};
      return fail("expected to_dut or from_dut, got " + describe(node));
    case FieldValueKind::kAddress:
      if (text.empty()) return fail("address must not be empty");
      return MatchValue{text};
  }
  return fail("unsupported field kind");
}

std::vector<FieldMatch> build_matches(const YAML::Node& map) {
  std::vector<FieldMatch> out;
  if (!map.IsDefined() || !map.IsMap()) return out;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const FrameField* f = find_frame_field(it->first.Scalar());
    if (!f) continue;
    auto v = match_value(*f, it->second, nullptr);
    if (!v) continue;
    out.push_back(FieldMatch{std::string(f->name), std::move(*v), loc_of(it->first)});
  }
  return out;
}

const FrameField* check_field_name(const YAML::Node& node, const std::string& path, SourceLoc fallback,
                                   Validator& v) {
  const SourceLoc at = loc_of(node).line > 0 ? loc_of(node) : fallback;
  if (!node.IsScalar()) {
    v.error(at, path, "expected a frame field name, got " + describe(node));
    return nullptr;
  }
  const FrameField* f = find_frame_field(node.Scalar());
  if (!f) {
    v.error(at, path, "unknown frame field '" + node.Scalar() + "'" +
                          did_you_mean(closest_match(node.Scalar(), frame_field_spellings())));
  }
  return f;
}

std::string to_string(const MatchValue& v) {
  struct Visitor {
    std::string operator()(const Wildcard&) const { return "*"; }
    std::string operator()(std::uint64_t u) const { return std::to_string(u); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, v);
}

}  // namespace mrc::harness
