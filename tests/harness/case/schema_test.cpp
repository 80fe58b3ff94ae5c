#include "harness/case/schema.hpp"

#include <array>

#include <gtest/gtest.h>

namespace mrc::harness {
namespace {

using VK = ValueKind;

TEST(ScalarParsing, UnsignedIntegersInFourBases) {
  EXPECT_EQ(parse_uint("0"), 0u);
  EXPECT_EQ(parse_uint("4096"), 4096u);
  EXPECT_EQ(parse_uint("0x1F"), 0x1Fu);
  EXPECT_EQ(parse_uint("0b101"), 5u);
  EXPECT_EQ(parse_uint("0o17"), 15u);
  EXPECT_EQ(parse_uint("1_000_000"), 1000000u);
  EXPECT_EQ(parse_uint("18446744073709551615"), ~std::uint64_t{0});
  EXPECT_FALSE(parse_uint("18446744073709551616"));  // overflow
  EXPECT_FALSE(parse_uint("-1"));
  EXPECT_FALSE(parse_uint("1e3"));
  EXPECT_FALSE(parse_uint("0x"));
  EXPECT_FALSE(parse_uint("_1"));
  EXPECT_FALSE(parse_uint("1__0"));
  EXPECT_FALSE(parse_uint(" 1"));
  EXPECT_FALSE(parse_uint(""));
}

TEST(ScalarParsing, Numbers) {
  EXPECT_DOUBLE_EQ(*parse_number("0.001"), 0.001);
  EXPECT_DOUBLE_EQ(*parse_number("1e-3"), 0.001);
  EXPECT_DOUBLE_EQ(*parse_number("-2.5"), -2.5);
  EXPECT_DOUBLE_EQ(*parse_number("0x10"), 16.0);
  EXPECT_FALSE(parse_number("nan"));
  EXPECT_FALSE(parse_number("inf"));
  EXPECT_FALSE(parse_number("+1"));
  EXPECT_FALSE(parse_number("1.5x"));
}

TEST(ScalarParsing, HexBytes) {
  EXPECT_EQ(*parse_hex_bytes("0x3312"), (std::vector<std::uint8_t>{0x33, 0x12}));
  EXPECT_EQ(*parse_hex_bytes("33 12_ab:CD"), (std::vector<std::uint8_t>{0x33, 0x12, 0xab, 0xcd}));
  EXPECT_FALSE(parse_hex_bytes("0x331"));  // odd number of nibbles
  EXPECT_FALSE(parse_hex_bytes("0x3g"));
  EXPECT_FALSE(parse_hex_bytes(""));
}

constexpr std::array<std::string_view, 3> kColours{"red", "green", "blue"};
constexpr std::array<std::string_view, 2> kAorB{"a", "b"};
constexpr std::array kGroups{KeyGroup{kAorB, true}};
constexpr std::array kInnerKeys{KeySpec{.name = "depth", .kind = VK::kUInt, .required = true, .umax = 10}};
constexpr Schema kInner{"inner", kInnerKeys};
constexpr std::array kKeys{
    KeySpec{.name = "a", .kind = VK::kUInt, .umin = 1, .umax = 100},
    KeySpec{.name = "b", .kind = VK::kNumber, .dmin = 0, .dmax = 1, .dmin_open = true},
    KeySpec{.name = "name", .kind = VK::kString, .required = true},
    KeySpec{.name = "colour", .kind = VK::kEnum, .names = kColours},
    KeySpec{.name = "flag", .kind = VK::kBool},
    KeySpec{.name = "inner", .kind = VK::kMap, .schema = &kInner},
    KeySpec{.name = "list", .kind = VK::kList, .umax = 9, .item = VK::kUInt, .min_items = 1, .max_items = 3,
            .scalar_as_list = true},
    KeySpec{.name = "when", .kind = VK::kDate},
    KeySpec{.name = "match", .kind = VK::kFieldMap},
};
constexpr Schema kSchema{"test map", kKeys, kGroups};

Diagnostics check(const std::string& yaml) {
  Diagnostics out;
  Validator v("t.yaml", out);
  const YAML::Node n = YAML::Load(yaml);
  const bool ok = v.map(n, kSchema, "", loc_of(n));
  EXPECT_EQ(ok, out.empty());
  EXPECT_EQ(v.errors(), out.size());
  return out;
}

TEST(Validator, AcceptsAWellFormedMap) {
  const auto d = check(
      "a: 5\nname: x\ncolour: green\nflag: true\ninner: {depth: 3}\nlist: 7\nwhen: 2026-02-28\n"
      "match: {psn: 5, opcode: write_only, icrc: bad, ip.src: \"fd00::1\", bth.ack_req: \"*\"}\n");
  EXPECT_TRUE(d.empty()) << d.to_string();
}

TEST(Validator, ReportsEveryProblemWithItsPlace) {
  const auto d = check(
      "a: 0\n"                 // out of range
      "b: 1.5\n"               // out of range (0, 1]
      "colour: gren\n"         // unknown value, suggestion
      "flag: yes\n"            // YAML 1.1 boolean refused
      "inner: {depht: 3}\n"    // unknown key + missing required
      "list: [1, 2, 3, 4]\n"   // too many items
      "when: 2026-02-30\n"     // not a calendar day
      "colur: red\n"           // unknown key, suggestion
      "a: 6\n"                 // duplicate
      "match: {bth.psn: 0x1000000, opcod: 1}\n");
  EXPECT_TRUE(d.contains("t.yaml:1:4: a: value 0 is out of range [1, 100]")) << d.to_string();
  EXPECT_TRUE(d.contains("t.yaml:2:4: b: value 1.5 is out of range (0, 1]"));
  EXPECT_TRUE(d.contains("t.yaml:3:9: colour: unknown value 'gren' (did you mean 'green'?)"));
  EXPECT_TRUE(d.contains("t.yaml:4:7: flag: expected true or false, got 'yes'"));
  EXPECT_TRUE(d.contains("t.yaml:5:9: inner: unknown key 'depht' (did you mean 'depth'?)"));
  EXPECT_TRUE(d.contains("t.yaml:5:8: inner: missing required key 'depth'"));
  EXPECT_TRUE(d.contains("t.yaml:6:7: list: allows at most 3 item(s), got 4"));
  EXPECT_TRUE(d.contains("t.yaml:7:7: when: expected a real calendar date YYYY-MM-DD"));
  EXPECT_TRUE(d.contains("t.yaml:8:1: unknown key 'colur' (did you mean 'colour'?)"));
  EXPECT_TRUE(d.contains("t.yaml:9:1: duplicate key 'a' (first at line 1)"));
  EXPECT_TRUE(d.contains("match.bth.psn: value 0x1000000 is out of range [0, 16777215] for bth.psn"));
  EXPECT_TRUE(d.contains("match: unknown frame field 'opcod' (did you mean 'opcode'?)"));
  EXPECT_TRUE(d.contains("t.yaml:1:1: missing required key 'name'"));
  EXPECT_TRUE(d.contains("t.yaml:2:1: 'a' and 'b' exclude each other"));
  EXPECT_EQ(d.size(), 14u) << d.to_string();
}

TEST(Validator, KeyGroups) {
  EXPECT_TRUE(check("name: x\nb: 0.5\n").empty());
  const auto none = check("name: x\n");
  EXPECT_TRUE(none.contains("t.yaml:1:1: needs one of a, b")) << none.to_string();
  const auto both = check("name: x\na: 1\nb: 0.5\n");
  EXPECT_TRUE(both.contains("t.yaml:3:1: 'a' and 'b' exclude each other")) << both.to_string();
}

TEST(Validator, TypesAreNotCoerced) {
  const auto d = check("name: [x]\na: \"5\"\nlist: {x: 1}\ninner: 3\n");
  EXPECT_TRUE(d.contains("name: expected a string, got a list")) << d.to_string();
  EXPECT_TRUE(d.contains("a: expected an unsigned integer, got the quoted string \"5\""));
  EXPECT_TRUE(d.contains("list: expected a list, got a map"));
  EXPECT_TRUE(d.contains("inner: expected a map (inner), got '3'"));
}

// A schema that contains itself, walked over a YAML alias that contains itself, must stop with
// an error instead of recursing for ever.
extern const Schema kLoop;
constexpr std::array kLoopKeys{KeySpec{.name = "next", .kind = VK::kMap, .schema = &kLoop}};
constexpr Schema kLoop{"loop", kLoopKeys};

TEST(Validator, SelfReferencingAliasTerminates) {
  Diagnostics out;
  Validator v("loop.yaml", out);
  const YAML::Node n = YAML::Load("next: &x {next: *x}\n");
  EXPECT_FALSE(v.map(n, kLoop, "", loc_of(n)));
  EXPECT_TRUE(out.contains("nested too deeply")) << out.to_string();
}

TEST(Readers, NeverThrowOnMissingOrWrongValues) {
  const YAML::Node n = YAML::Load("a: 5\ns: hello\nq: \"7\"\nl: [1, x, 3]\nb: true\nseq: [1, 2]\n");
  EXPECT_EQ(read_uint(n, "a"), 5u);
  EXPECT_FALSE(read_uint(n, "s"));
  EXPECT_FALSE(read_uint(n, "q"));  // quoted: not a number
  EXPECT_FALSE(read_uint(n, "missing"));
  EXPECT_EQ(read_uint_list(n, "l"), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(read_bool(n, "b"), true);
  EXPECT_FALSE(read_bool(n, "a"));
  EXPECT_FALSE(read_uint_as<std::uint8_t>(YAML::Load("a: 300"), "a"));
  const YAML::Node seq = *find_key(n, "seq");
  EXPECT_EQ(nth(seq, 1).Scalar(), "2");
  EXPECT_FALSE(nth(seq, 2).IsDefined());
  EXPECT_FALSE(nth(n, 0).IsDefined());
  EXPECT_FALSE(read_uint(YAML::Load("[1, 2]"), "a"));  // not a map
}

}  // namespace
}  // namespace mrc::harness
