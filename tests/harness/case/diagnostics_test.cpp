#include "harness/case/diagnostics.hpp"

#include <array>

#include <gtest/gtest.h>

namespace mrc::harness {
namespace {

TEST(Diagnostics, FormatsFileLineColumnKeyMessage) {
  Diagnostic d{"cases/spray/spray-v-001.yaml", {7, 3}, "config.qp", "unknown key 'mtuu'"};
  EXPECT_EQ(d.to_string(), "cases/spray/spray-v-001.yaml:7:3: config.qp: unknown key 'mtuu'");
}

TEST(Diagnostics, LeavesOutEmptyKeyAndUnknownLocation) {
  EXPECT_EQ((Diagnostic{"a.yaml", {2, 1}, "", "missing required key 'id'"}.to_string()),
            "a.yaml:2:1: missing required key 'id'");
  EXPECT_EQ((Diagnostic{"a.yaml", {}, "", "file is empty"}.to_string()), "a.yaml: file is empty");
}

TEST(Diagnostics, SortsByFileLineColumnStably) {
  Diagnostics ds;
  ds.add("b.yaml", {1, 1}, "", "b");
  ds.add("a.yaml", {9, 1}, "", "a9");
  ds.add("a.yaml", {2, 5}, "", "a2-5");
  ds.add("a.yaml", {2, 5}, "", "a2-5-second");
  ds.add("a.yaml", {2, 1}, "", "a2-1");
  ds.sort();
  ASSERT_EQ(ds.size(), 5u);
  EXPECT_EQ(ds.items()[0].message, "a2-1");
  EXPECT_EQ(ds.items()[1].message, "a2-5");
  EXPECT_EQ(ds.items()[2].message, "a2-5-second");
  EXPECT_EQ(ds.items()[3].message, "a9");
  EXPECT_EQ(ds.items()[4].message, "b");
  EXPECT_TRUE(ds.contains("a.yaml:9:1: a9"));
  EXPECT_FALSE(ds.contains("a.yaml:9:2"));
}

TEST(Diagnostics, SuggestsCloseWordsOnly) {
  constexpr std::array<std::string_view, 4> keys{"clauses", "checks", "config", "title"};
  EXPECT_EQ(closest_match("clauess", keys), "clauses");  // transposition counts as one edit
  EXPECT_EQ(closest_match("chekcs", keys), "checks");
  EXPECT_EQ(closest_match("CONFIG", keys), "config");    // case-insensitive
  EXPECT_EQ(closest_match("tilte", keys), "title");
  EXPECT_EQ(closest_match("stimulus", keys), "");        // nothing plausible
  EXPECT_EQ(closest_match("x", keys), "");
  EXPECT_EQ(did_you_mean("clauses"), " (did you mean 'clauses'?)");
  EXPECT_EQ(did_you_mean(""), "");
}

}  // namespace
}  // namespace mrc::harness
