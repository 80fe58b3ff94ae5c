// Declarative key schemas and the validator that checks YAML against them.
//
// Every map in a case file (the top level, `config.qp`, an `inject` step, a `distribution`
// check, ...) is described by a Schema: a table of KeySpecs naming each allowed key, its value
// kind, whether it is required, and its range or word list. One generic validator walks a YAML
// node against a schema and reports every unknown key (with a did-you-mean), duplicate key,
// missing required key, wrong type and out-of-range value as `file:line:column: key: message`.
// Builders then read typed values with the read_* helpers, which never throw.
//
// Adding a key to the format = adding one KeySpec line; the README lists the same tables.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "harness/case/diagnostics.hpp"
#include "harness/case/time_expr.hpp"

namespace mrc::harness {

enum class ValueKind : std::uint8_t {
  kBool,        // true / false
  kUInt,        // unsigned integer (decimal, 0x.., 0b.., 0o..; '_' separators) in [umin, umax]
  kTime,        // a time in [umin, umax] ns: an integer (ns) or an expression such as `3 T + 20 us`
                // (time_expr.hpp), evaluated with the Validator's time units
  kNumber,      // real number in [dmin, dmax] (ends exclusive when dmin_open / dmax_open)
  kString,      // non-empty scalar
  kEnum,        // one word of `names`
  kUIntOrName,  // an integer in [umin, umax] or one word of `names`
  kHexBytes,    // "0x3312.." or "3312..": bytes, count in [min_items, max_items]
  kDate,        // YYYY-MM-DD
  kMap,         // nested map checked against `schema`
  kList,        // sequence of `item` values; items that are maps are checked against `schema`
  kFieldMap,    // frame-field name -> value or "*" (frame_fields.hpp)
  kScalarMap,   // any key -> scalar
  kCustom,      // shape checked by the builder (steps, checks, scalar-or-map values)
};

struct Schema;

struct KeySpec {
  std::string_view name;
  ValueKind kind = ValueKind::kString;
  bool required = false;
  std::uint64_t umin = 0;
  std::uint64_t umax = std::numeric_limits<std::uint64_t>::max();
  double dmin = std::numeric_limits<double>::lowest();
  double dmax = std::numeric_limits<double>::max();
  bool dmin_open = false;
  bool dmax_open = false;
  std::span<const std::string_view> names = {};
  const Schema* schema = nullptr;
  ValueKind item = ValueKind::kString;
  std::size_t min_items = 0;
  std::size_t max_items = std::numeric_limits<std::size_t>::max();
  bool scalar_as_list = false;  // kList: a lone scalar counts as a one-item list
  std::string_view help = {};
  std::string_view limit = {};  // the limits.hpp constant umax or dmax is, named in the range error
};

// Keys that exclude each other; with `exactly_one`, one of them must be present.
struct KeyGroup {
  std::span<const std::string_view> keys;
  bool exactly_one = false;
};

struct Schema {
  std::string_view name;              // for messages: "inject step", "distribution check"
  std::span<const KeySpec> keys;
  std::span<const KeyGroup> groups = {};
  const Schema* base = nullptr;       // keys shared with other schemas (e.g. every check's `type`)

  const KeySpec* find(std::string_view key) const;
  std::vector<std::string_view> all_names() const;
};

// 1-based location of a node; {0, 0} when yaml-cpp has none (undefined or empty documents).
SourceLoc loc_of(const YAML::Node& node);
// A short description of what a node is, for "expected X, got Y" messages.
std::string describe(const YAML::Node& node);
std::string join_path(const std::string& parent, std::string_view key);
std::string index_path(const std::string& parent, std::size_t index);

class Validator {
 public:
  Validator(std::string file, Diagnostics& out) : file_(std::move(file)), out_(out) {}

  // Checks `node` is a map obeying `schema`. `where` is reported when `node` itself has no
  // location (a null value). Returns true when this call found no error.
  bool map(const YAML::Node& node, const Schema& schema, const std::string& path, SourceLoc where);
  // Checks one value against its spec. `key_loc` is where the key was written.
  bool value(const YAML::Node& node, const KeySpec& spec, const std::string& path, SourceLoc key_loc);

  void error(SourceLoc loc, std::string path, std::string message);
  const std::string& file() const { return file_; }
  // What T stands for in this file's time expressions (set before the first map() call).
  void set_time_units(const TimeUnits& u) { units_ = u; }
  const TimeUnits& time_units() const { return units_; }
  // How many time values (ValueKind::kTime) the file writes: none means nothing in it is timed.
  std::size_t times_seen() const { return times_seen_; }
  // How many of them are written in F (the frame time at the testbed's rate).
  std::size_t frame_times_seen() const { return frame_times_seen_; }
  // How many of them are written in T (the ACK timeout).
  std::size_t t_times_seen() const { return t_times_seen_; }
  std::size_t errors() const { return errors_; }

 private:
  bool scalar(const YAML::Node& node, const KeySpec& spec, const std::string& path, SourceLoc at);
  bool list(const YAML::Node& node, const KeySpec& spec, const std::string& path, SourceLoc at);
  bool field_map(const YAML::Node& node, const std::string& path, SourceLoc at);
  bool enter(SourceLoc at, const std::string& path);

  std::string file_;
  Diagnostics& out_;
  TimeUnits units_;
  std::size_t times_seen_ = 0;
  std::size_t frame_times_seen_ = 0;
  std::size_t t_times_seen_ = 0;
  std::size_t errors_ = 0;
  int depth_ = 0;
  std::size_t nodes_ = 0;
  bool budget_reported_ = false;
};

// --- Scalar parsing (no exceptions, no locale) ---
std::optional<std::uint64_t> parse_uint(std::string_view text);
std::optional<double> parse_number(std::string_view text);
std::optional<std::vector<std::uint8_t>> parse_hex_bytes(std::string_view text);
// True for plain (unquoted, untagged) scalars: only those may be numbers or booleans.
bool is_plain_scalar(const YAML::Node& node);

// --- Typed reads for builders: nullopt when absent or not parseable (validation said why) ---
std::optional<YAML::Node> find_key(const YAML::Node& map, std::string_view key);
// The i-th item of a sequence (an undefined node when out of range or not a sequence).
YAML::Node nth(const YAML::Node& seq, std::size_t i);
SourceLoc key_loc(const YAML::Node& map, std::string_view key);
std::optional<std::uint64_t> read_uint(const YAML::Node& map, std::string_view key);
std::optional<double> read_number(const YAML::Node& map, std::string_view key);
std::optional<bool> read_bool(const YAML::Node& map, std::string_view key);
std::optional<std::string> read_string(const YAML::Node& map, std::string_view key);
std::vector<std::string> read_string_list(const YAML::Node& map, std::string_view key);
std::vector<std::uint64_t> read_uint_list(const YAML::Node& map, std::string_view key);
// A kTime value in ns, evaluated with the validator's units; a list of them.
std::optional<std::uint64_t> read_time(const YAML::Node& map, std::string_view key, const Validator& v);
std::vector<std::uint64_t> read_time_list(const YAML::Node& map, std::string_view key, const Validator& v);
std::optional<std::vector<std::uint8_t>> read_hex(const YAML::Node& map, std::string_view key);

template <typename T>
std::optional<T> read_uint_as(const YAML::Node& map, std::string_view key) {
  const auto v = read_uint(map, key);
  if (!v || *v > std::numeric_limits<T>::max()) return std::nullopt;
  return static_cast<T>(*v);
}

template <typename E, std::size_t N>
std::optional<E> read_enum(const YAML::Node& map, std::string_view key,
                           const std::array<std::string_view, N>& names) {
  const auto s = read_string(map, key);
  if (!s) return std::nullopt;
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == *s) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace mrc::harness
