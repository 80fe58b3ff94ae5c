// Every ```yaml block of cases/README.md is loaded, so the documentation cannot drift from the
// loader. The block's first line names how: a whole case, top-level keys / stimulus steps / checks
// merged into a base case, a clause list, an expectation file, or an invalid case whose
// `# expect:` lines must be exactly what the loader reports.
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "harness/case/case_loader.hpp"
#include "harness/case/edge_audit.hpp"
#include "harness/case/expectations.hpp"
#include "tests/harness/case/case_test_support.hpp"

namespace mrc::harness {
namespace {

using testing::minimal_case;
using testing::project_clauses;
using testing::scratch_dir;
using testing::source_dir;
using testing::write_file;

struct Block {
  std::string kind;
  std::string text;
  int line;  // README line of the opening fence
};

std::vector<Block> readme_blocks() {
  std::ifstream in(testing::source_dir() / "cases/README.md");
  std::vector<Block> out;
  std::string line;
  int n = 0;
  bool inside = false;
  Block cur;
  while (std::getline(in, line)) {
    ++n;
    if (!inside && line == "```yaml") {
      inside = true;
      cur = Block{"", "", n};
    } else if (inside && line == "```") {
      inside = false;
      out.push_back(cur);
    } else if (inside) {
      if (cur.text.empty() && line.starts_with("# example: ")) cur.kind = line.substr(11);
      cur.text += line + "\n";
    }
  }
  return out;
}

std::string emit(const YAML::Node& n) {
  YAML::Emitter e;
  e << n;
  return std::string(e.c_str()) + "\n";
}

TEST(ReadmeExamples, EveryBlockIsMarkedAndEveryMarkerIsUsed) {
  const auto blocks = readme_blocks();
  ASSERT_GE(blocks.size(), 20u);
  std::set<std::string> kinds;
  for (const auto& b : blocks) {
    EXPECT_FALSE(b.kind.empty()) << "README.md:" << b.line << ": yaml block without `# example:`";
    kinds.insert(b.kind);
  }
  for (const char* k : {"case", "top", "step", "check", "clauses", "expectations", "invalid"}) {
    EXPECT_TRUE(kinds.contains(k)) << k;
  }
}

TEST(ReadmeExamples, EveryBlockLoads) {
  const auto dir = scratch_dir();
  std::vector<Case> loaded_cases;
  int i = 0;
  for (const auto& b : readme_blocks()) {
    ++i;
    const std::string where = "README.md:" + std::to_string(b.line) + " (" + b.kind + ")";
    const auto sub = dir / ("block" + std::to_string(i));
    if (b.kind == "case") {
      const YAML::Node n = YAML::Load(b.text);
      const auto file = write_file(sub / (n["id"].Scalar() + ".yaml"), b.text);
      const auto r = load_case(file, project_clauses());
      EXPECT_TRUE(r.ok()) << where << "\n" << r.diagnostics.to_string();
      if (r.value) loaded_cases.push_back(*r.value);
    } else if (b.kind == "top" || b.kind == "step" || b.kind == "check") {
      YAML::Node base = YAML::Load(minimal_case("spray-v-001"));
      const YAML::Node frag = YAML::Load(b.text);
      if (b.kind == "top") {
        for (auto it = frag.begin(); it != frag.end(); ++it) base[it->first.Scalar()] = it->second;
      } else {
        YAML::Node list = base[b.kind == "step" ? "stimulus" : "checks"];
        for (auto it = frag.begin(); it != frag.end(); ++it) list.push_back(*it);
      }
      // Fragments may name the clauses the README's own examples use.
      base["clauses"] = YAML::Load("[SPRAY-PER-PACKET-EV, SPRAY-UNIFORM-PLANES, EV-DENIED-NEVER-USED]");
      const auto file = write_file(sub / "spray-v-001.yaml", emit(base));
      const auto r = load_case(file, project_clauses());
      EXPECT_TRUE(r.ok()) << where << "\n" << r.diagnostics.to_string() << emit(base);
    } else if (b.kind == "clauses") {
      const auto r = load_clauses(write_file(sub / "clauses.yaml", b.text));
      EXPECT_TRUE(r.ok()) << where << "\n" << r.diagnostics.to_string();
      EXPECT_EQ(r.index.size(), 1u);
    } else if (b.kind == "edges") {
      // A fragment of the audit: it names real cases that name the requirement; only the MUST
      // and SHOULD requirements it leaves out are missing.
      static const CaseSet library = load_cases(source_dir() / "cases", CaseFilter{}, &project_clauses());
      const auto r = load_edge_audit(write_file(sub / "edges.yaml", b.text), project_clauses(), library.cases);
      EXPECT_FALSE(r.entries.empty()) << where;
      for (const auto& d : r.diagnostics.items()) {
        const bool missing = d.message.find("missing MUST requirement") != std::string::npos ||
                             d.message.find("missing SHOULD requirement") != std::string::npos;
        EXPECT_TRUE(missing) << where << "\n" << d.to_string();
      }
    } else if (b.kind == "invalid") {
      std::vector<std::string> expected;
      std::istringstream lines(b.text);
      std::string line;
      std::getline(lines, line);  // the marker
      while (std::getline(lines, line) && line.starts_with("# expect: ")) expected.push_back(line.substr(10));
      const YAML::Node n = YAML::Load(b.text);
      const auto file = write_file(sub / (n["id"].Scalar() + ".yaml"), b.text);
      const auto r = load_case(file, project_clauses());
      EXPECT_FALSE(r.value) << where;
      EXPECT_EQ(r.diagnostics.size(), expected.size()) << where << "\n" << r.diagnostics.to_string();
      for (const auto& e : expected) EXPECT_TRUE(r.diagnostics.contains(":" + e)) << where << " missing " << e << "\n" << r.diagnostics.to_string();
    }
  }
  // The expectation example targets the README's MUST case: the loader must refuse it with the
  // message the README quotes.
  ASSERT_FALSE(loaded_cases.empty());
  for (const auto& b : readme_blocks()) {
    if (b.kind != "expectations") continue;
    const auto file = write_file(dir / "example-nic.yaml", b.text);
    const auto r = load_expectations(file, loaded_cases);
    EXPECT_TRUE(r.diagnostics.contains("entries[0].case: case 'spray-v-101' is a MUST case; expectation files may not excuse MUST cases"))
        << r.diagnostics.to_string();
    EXPECT_EQ(r.diagnostics.size(), 1u) << r.diagnostics.to_string();
    // The same entry against a SHOULD-level case is accepted.
    std::vector<Case> relaxed = loaded_cases;
    for (auto& c : relaxed) c.level = Level::kShould;
    const auto ok = load_expectations(file, relaxed);
    EXPECT_TRUE(ok.ok()) << ok.diagnostics.to_string();
    EXPECT_EQ(ok.set.entries.size(), 1u);
  }
}

}  // namespace
}  // namespace mrc::harness
