// The checks every YAML file of the project goes through (yaml_lint.hpp): duplicate keys, tabs in
// indentation, control characters, nesting deeper than kMaxYamlDepth, alias bombs. Each is a
// located diagnostic, never a crash, a silent first-key-wins, or yaml-cpp's "bad file".
#include <string>

#include <gtest/gtest.h>

#include "harness/case/case_loader.hpp"
#include "harness/case/expectations.hpp"
#include "harness/case/limits.hpp"
#include "harness/case/yaml_lint.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::project_clauses;
using testing::scratch_dir;
using testing::write_file;

Diagnostics lint(const std::string& text) {
  Diagnostics d;
  const auto doc = parse_yaml_document(text, "f.yaml", d);
  EXPECT_EQ(doc.has_value(), d.empty()) << d.to_string();
  return d;
}

std::string nested_lists(int levels) { return "x: " + std::string(levels, '[') + std::string(levels, ']') + "\n"; }

std::string nested_maps(int levels) {
  std::string s = "x: ";
  for (int i = 0; i < levels; ++i) s += "{a: ";
  return s + "1" + std::string(levels, '}') + "\n";
}

TEST(YamlLint, ADuplicateKeyNamesTheKeyAndBothPlaces) {
  const Diagnostics d = lint("a: 1\nb:\n  c: 1\n  d: 2\n  c: 3\n");
  ASSERT_EQ(d.size(), 1u) << d.to_string();
  EXPECT_EQ(d.items()[0].to_string(), "f.yaml:5:3: b.c: duplicate key 'c' (first at line 3, column 3); a key appears once in a map");
}

TEST(YamlLint, DuplicateKeysInFlowMapsAndListItemsToo) {
  const Diagnostics d = lint("l:\n  - {x: 1, x: 2}\n");
  EXPECT_TRUE(d.contains("f.yaml:2:12: l[0].x: duplicate key 'x' (first at line 2, column 6)")) << d.to_string();
}

TEST(YamlLint, EveryLoaderRefusesDuplicateKeys) {
  const auto dir = scratch_dir();
  const auto clauses = load_clauses(write_file(
      dir / "clauses.yaml", "clauses:\n  - id: A-B\n    id: A-C\n    level: MUST\n    text: t\n"));
  EXPECT_TRUE(clauses.diagnostics.contains("duplicate key 'id' (first at line 2")) << clauses.diagnostics.to_string();

  std::vector<Case> cases(1);
  cases[0].id = "reliab-v-001";
  const auto ex = load_expectations(
      write_file(dir / "x.yaml", "dut: x\ndut: y\nentries: []\n"), cases, {Date{2026, 6, 1}, 180});
  EXPECT_TRUE(ex.diagnostics.contains("x.yaml:2:1: dut: duplicate key 'dut' (first at line 1, column 1)"))
      << ex.diagnostics.to_string();

  const auto c = load_case(write_file(dir / "spray" / "spray-v-001.yaml", "id: spray-v-001\nid: spray-v-002\n"),
                           project_clauses());
  EXPECT_TRUE(c.diagnostics.contains("spray-v-001.yaml:2:1: id: duplicate key 'id' (first at line 1, column 1)"))
      << c.diagnostics.to_string();
}

TEST(YamlLint, ATabInIndentationIsLocated) {
  const Diagnostics d = lint("a:\n\tb: 1\n");
  ASSERT_EQ(d.size(), 1u) << d.to_string();
  EXPECT_EQ(d.items()[0].to_string(), "f.yaml:2:1: YAML indentation must be spaces; a tab at 2:1");
  EXPECT_TRUE(lint("a:\n  \tb: 1\n").contains("f.yaml:2:3: YAML indentation must be spaces; a tab at 2:3"));
}

TEST(YamlLint, TabsOutsideIndentationAreFine) {
  EXPECT_TRUE(lint("a: 1\t# a comment after a tab\nb: \"x\ty\"\n").empty());
  EXPECT_TRUE(lint("a: |\n  text\n  \tindented by a tab inside a block scalar\nb: 2\n").empty());
}

// yaml-cpp 0.7 never returns from these (it allocates nodes until memory runs out): each is a
// located diagnostic before it is ever called.
TEST(YamlLint, ACommaWhereAValueStartsIsRefusedBeforeTheParserHangs) {
  const std::string kMsg = "',' where a value starts, outside [...] or {...}";
  for (const char* text : {",", " ,", "- [a, b]\n,", "key: &x ,\n", "key: !t ,\n", "\"a\"\n,",
                           "a:\n  - s: x (y\n,\n"}) {
    const Diagnostics d = lint(text);
    ASSERT_EQ(d.size(), 1u) << text << "\n" << d.to_string();
    EXPECT_NE(d.items()[0].message.find(kMsg), std::string::npos) << text;
  }
  EXPECT_TRUE(lint("- ,\n").contains("f.yaml:1:3: " + kMsg + ": quote the value or remove the comma (the YAML parser never returns from this text)"));
  // Commas everywhere else are YAML's business, and fine.
  for (const char* text : {"a: b, c\n", "a: [b,\n  c]\n", "a: 'x,\n  ,y'\n", "a: |\n  ,x\nb: 1\n",
                           "a: {k: [1, 2], j: 3}\n", "a: x [y, z] w\nb: 2\n", "a: \"q, r\"\n"}) {
    EXPECT_TRUE(lint(text).empty()) << text;
  }
}

TEST(YamlLint, ControlCharactersAreRefusedWithTheirPlace) {
  const Diagnostics d = lint(std::string("title: A NUL\0 byte\n", 19));
  ASSERT_EQ(d.size(), 1u) << d.to_string();
  EXPECT_EQ(d.items()[0].to_string(),
            "f.yaml:1:13: control character 0x00 in the text; a YAML file holds no control characters but tab, "
            "newline and carriage return");
  EXPECT_TRUE(lint("a: \x1b[31mred\n").contains("f.yaml:1:4: control character 0x1B"));
  EXPECT_TRUE(lint("a: 1\r\nb: 2\r\n").empty());  // CRLF files are text
}

TEST(YamlLint, NestingUpToTheLimitLoadsAndOneDeeperIsLocated) {
  // The root map is level 1: x's lists are levels 2 .. n + 1.
  EXPECT_TRUE(lint(nested_lists(limits::kMaxYamlDepth - 1)).empty());
  const Diagnostics d = lint(nested_lists(limits::kMaxYamlDepth));
  ASSERT_EQ(d.size(), 1u) << d.to_string();
  EXPECT_EQ(d.items()[0].loc.line, 1);
  EXPECT_EQ(d.items()[0].loc.column, 3 + limits::kMaxYamlDepth);
  EXPECT_NE(d.items()[0].message.find("nested deeper than 64 levels of maps and lists (kMaxYamlDepth"),
            std::string::npos);
}

TEST(YamlLint, DeepNestingBombsEndInTheLimitWithoutACrash) {
  for (const int n : {1000, 10'000, 100'000}) {
    EXPECT_TRUE(lint(nested_lists(n)).contains("(kMaxYamlDepth, harness/case/limits.hpp)")) << n;
    EXPECT_TRUE(lint(nested_maps(n)).contains("(kMaxYamlDepth, harness/case/limits.hpp)")) << n;
    std::string dashes;
    for (int i = 0; i < n; ++i) dashes += "- ";
    EXPECT_TRUE(lint(dashes + "1\n").contains("(kMaxYamlDepth, harness/case/limits.hpp)")) << n;
  }
}

TEST(YamlLint, AnAliasBombIsRefusedByTheNodeLimit) {
  std::string text = "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 8; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  EXPECT_TRUE(lint(text).contains("YAML nodes (kMaxYamlNodes")) << lint(text).to_string();
  EXPECT_FALSE(lint("a: &x [*x]\n").empty());  // an alias of itself: never an endless walk
}

}  // namespace
}  // namespace mrc::harness
