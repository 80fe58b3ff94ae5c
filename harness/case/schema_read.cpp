// Scalar parsing and the typed, never-throwing reads builders use after validation (schema.hpp).
#include <charconv>
#include <cmath>

#include "harness/case/schema.hpp"

namespace mrc::harness {

std::optional<std::uint64_t> parse_uint(std::string_view text) {
  std::string digits;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'o' || text[1] == 'O')) {
    base = 8;
    text.remove_prefix(2);
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '_') {
      if (i == 0 || i + 1 == text.size() || text[i + 1] == '_') return std::nullopt;
      continue;
    }
    digits += text[i];
  }
  if (digits.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto* end = digits.data() + digits.size();
  const auto r = std::from_chars(digits.data(), end, v, base);
  if (r.ec != std::errc{} || r.ptr != end) return std::nullopt;
  return v;
}

std::optional<double> parse_number(std::string_view text) {
  if (text.empty() || text[0] == '+') return std::nullopt;
  if (const auto u = parse_uint(text)) return static_cast<double>(*u);
  double v = 0;
  const auto* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ec != std::errc{} || r.ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::vector<std::uint8_t>> parse_hex_bytes(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  std::vector<std::uint8_t> out;
  int nibbles = 0;
  std::uint8_t cur = 0;
  for (char c : text) {
    if (c == ' ' || c == '_' || c == ':') continue;  // readable grouping: "33 12", "3312_0000"
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else return std::nullopt;
    cur = static_cast<std::uint8_t>((cur << 4) | v);
    if (++nibbles % 2 == 0) {
      out.push_back(cur);
      cur = 0;
    }
  }
  if (nibbles == 0 || nibbles % 2 != 0) return std::nullopt;
  return out;
}

bool is_plain_scalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

std::optional<YAML::Node> find_key(const YAML::Node& map, std::string_view key) {
  if (!map.IsDefined() || !map.IsMap()) return std::nullopt;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
  }
  return std::nullopt;
}

YAML::Node nth(const YAML::Node& seq, std::size_t i) {
  if (seq.IsDefined() && seq.IsSequence()) {
    std::size_t k = 0;
    for (auto it = seq.begin(); it != seq.end(); ++it, ++k) {
      if (k == i) return *it;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

SourceLoc key_loc(const YAML::Node& map, std::string_view key) {
  if (!map.IsDefined() || !map.IsMap()) return loc_of(map);
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return loc_of(it->first);
  }
  return loc_of(map);
}

std::optional<std::uint64_t> read_uint(const YAML::Node& map, std::string_view key) {
  const auto n = find_key(map, key);
  if (!n || !is_plain_scalar(*n)) return std::nullopt;
  return parse_uint(n->Scalar());
}

std::optional<std::uint64_t> read_time(const YAML::Node& map, std::string_view key, const Validator& v) {
  const auto n = find_key(map, key);
  if (!n || !n->IsScalar()) return std::nullopt;
  return parse_time(n->Scalar(), v.time_units()).ns;
}

std::vector<std::uint64_t> read_time_list(const YAML::Node& map, std::string_view key, const Validator& v) {
  std::vector<std::uint64_t> out;
  const auto n = find_key(map, key);
  if (!n || !n->IsSequence()) return out;
  for (auto it = n->begin(); it != n->end(); ++it) {
    if (!it->IsScalar()) continue;
    if (const auto t = parse_time(it->Scalar(), v.time_units()).ns) out.push_back(*t);
  }
  return out;
}

std::optional<double> read_number(const YAML::Node& map, std::string_view key) {
  const auto n = find_key(map, key);
  if (!n || !is_plain_scalar(*n)) return std::nullopt;
  return parse_number(n->Scalar());
}

std::optional<bool> read_bool(const YAML::Node& map, std::string_view key) {
  const auto n = find_key(map, key);
  if (!n || !is_plain_scalar(*n)) return std::nullopt;
  if (n->Scalar() == "true") return true;
  if (n->Scalar() == "false") return false;
  return std::nullopt;
}

std::optional<std::string> read_string(const YAML::Node& map, std::string_view key) {
  const auto n = find_key(map, key);
  if (!n || !n->IsScalar()) return std::nullopt;
  return n->Scalar();
}

std::vector<std::string> read_string_list(const YAML::Node& map, std::string_view key) {
  std::vector<std::string> out;
  const auto n = find_key(map, key);
  if (!n) return out;
  if (n->IsScalar()) {
    out.push_back(n->Scalar());
  } else if (n->IsSequence()) {
    for (auto it = n->begin(); it != n->end(); ++it) {
      if (it->IsScalar()) out.push_back(it->Scalar());
    }
  }
  return out;
}

std::vector<std::uint64_t> read_uint_list(const YAML::Node& map, std::string_view key) {
  std::vector<std::uint64_t> out;
  const auto n = find_key(map, key);
  if (!n) return out;
  auto one = [&](const YAML::Node& v) {
    if (!is_plain_scalar(v)) return;
    if (const auto u = parse_uint(v.Scalar())) out.push_back(*u);
  };
  if (n->IsScalar()) {
    one(*n);
  } else if (n->IsSequence()) {
    for (auto it = n->begin(); it != n->end(); ++it) one(*it);
  }
  return out;
}

std::optional<std::vector<std::uint8_t>> read_hex(const YAML::Node& map, std::string_view key) {
  const auto s = read_string(map, key);
  if (!s) return std::nullopt;
  return parse_hex_bytes(*s);
}

}  // namespace mrc::harness
