// Testbed YAML: a good file builds the topology it says; every error names file:line:col, the
// key and the problem; case overrides use the same keys and ranges.
#include "harness/testbed/sim/yaml_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace mrc::sim {
namespace {

std::string only_error(const TestbedLoad& r) {
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.errors.size(), 1u) << r.describe();
  return r.errors.empty() ? "" : r.errors.front().str();
}

TEST(SimYaml, GoodFileFromAPreset) {
  const char* text =
      "preset: rack\n"
      "name: lab\n"
      "planes: 4\n"
      "link_gbps: 400\n"
      "fabric_link: {prop_ns: 1500}\n"
      "trim: false\n"
      "trim_bytes: 512\n"
      "seed: 0x2a\n"
      "links:\n"
      "  - {name: plane2/leaf1-spine3, gbps: 50, mtu: 4200}\n";
  const TestbedLoad r = load_testbed_text(text, "lab.yaml");
  ASSERT_TRUE(r.ok()) << r.describe();
  const TopologyConfig& c = *r.config;
  EXPECT_EQ(c.name, "lab");
  EXPECT_EQ(c.hosts, 32u);  // from the preset
  EXPECT_EQ(c.planes, 4u);
  EXPECT_EQ(c.host_link.rate_mbps, 400'000u);
  EXPECT_EQ(c.fabric_link.prop_ns, 1500u);
  EXPECT_EQ(c.host_link.prop_ns, 500u);
  EXPECT_FALSE(c.sw.trim);
  EXPECT_EQ(c.sw.trim_bytes, 512u);
  EXPECT_EQ(c.seed, 42u);
  const Topology t(c);
  const LinkParams lp = t.link_params(t.fabric_link(2, 1, 3));
  EXPECT_EQ(lp.rate_mbps, 50'000u);
  EXPECT_EQ(lp.mtu, 4200u);
  EXPECT_EQ(lp.prop_ns, 1500u);
  EXPECT_EQ(t.link_params(t.fabric_link(2, 1, 2)).rate_mbps, 400'000u);
}

TEST(SimYaml, UnknownKeyNamesItsPosition) {
  const auto r = load_testbed_text("planes: 4\n  \nspine_count: 3\n", "tb.yaml");
  const std::string e = only_error(r);
  EXPECT_EQ(e.rfind("tb.yaml:3:1: spine_count: unknown key", 0), 0u) << e;
}

TEST(SimYaml, WrongTypeNamesTheValue) {
  EXPECT_EQ(only_error(load_testbed_text("hosts: many\n", "tb.yaml")),
            "tb.yaml:1:8: hosts: expected an integer, got 'many'");
  EXPECT_EQ(only_error(load_testbed_text("ecn: maybe\n", "tb.yaml")), "tb.yaml:1:6: ecn: expected true or false");
  EXPECT_EQ(only_error(load_testbed_text("host_link: 5\n", "tb.yaml")),
            "tb.yaml:1:12: host_link: expected a map of gbps, prop_ns, mtu");
  EXPECT_EQ(only_error(load_testbed_text("fabric_link:\n  gbps: fast\n", "tb.yaml")),
            "tb.yaml:2:9: fabric_link.gbps: expected a number, got 'fast'");
  EXPECT_EQ(only_error(load_testbed_text("host_link: {speed: 1}\n", "tb.yaml")),
            "tb.yaml:1:13: host_link.speed: unknown key (expected gbps, prop_ns, mtu)");
}

TEST(SimYaml, OutOfRangeNamesTheValue) {
  EXPECT_EQ(only_error(load_testbed_text("name: x\nplanes: 33\n", "tb.yaml")),
            "tb.yaml:2:9: planes: 33 is out of range 1..32");
  EXPECT_EQ(only_error(load_testbed_text("trim_bytes: 250\n", "tb.yaml")),
            "tb.yaml:1:13: trim_bytes: 250 is not a multiple of 4");
  EXPECT_EQ(only_error(load_testbed_text("mtu: 100000\n", "tb.yaml")), "tb.yaml:1:6: mtu: 100000 is out of range 576..9216");
  // A cross-field limit points at the key that broke it.
  EXPECT_EQ(only_error(load_testbed_text("hosts: 16384\nhosts_per_leaf: 1\n", "tb.yaml")).rfind("tb.yaml:2:1: leaves", 0), 0u);
}

TEST(SimYaml, Srv6DecapPoint) {
  auto r = load_testbed_text("srv6_decap: host\n", "tb.yaml");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_FALSE(r.config->sw.srv6_decap_at_leaf);
  r = load_testbed_text("srv6_decap: leaf\n", "tb.yaml");
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_TRUE(r.config->sw.srv6_decap_at_leaf);
  EXPECT_EQ(only_error(load_testbed_text("srv6_decap: spine\n", "tb.yaml")),
            "tb.yaml:1:13: srv6_decap: unknown value 'spine' (expected leaf or host)");
  TopologyConfig c = *preset("mini");
  EXPECT_EQ(apply_override(c, "srv6_decap", "host"), "");
  EXPECT_FALSE(c.sw.srv6_decap_at_leaf);
  EXPECT_EQ(apply_override(c, "srv6_decap", "nic"), "srv6_decap: unknown value 'nic' (expected leaf or host)");
}

TEST(SimYaml, PresetAndLinkNamesAreChecked) {
  EXPECT_EQ(only_error(load_testbed_text("preset: campus\n", "tb.yaml")),
            "tb.yaml:1:9: preset: unknown preset 'campus' (expected mini, rack or pod)");
  const std::string e =
      only_error(load_testbed_text("preset: mini\nlinks:\n  - name: plane1/leaf0-spine9\n    gbps: 10\n", "tb.yaml"));
  EXPECT_EQ(e.rfind("tb.yaml:3:11: links: no link named 'plane1/leaf0-spine9'", 0), 0u) << e;
  EXPECT_EQ(only_error(load_testbed_text("links:\n  - {gbps: 10}\n", "tb.yaml")), "tb.yaml:2:5: links[0]: missing key 'name'");
}

TEST(SimYaml, SyntaxAndFileErrors) {
  const auto r = load_testbed_text("planes: [1, 2\n", "bad.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors.front().file, "bad.yaml");
  EXPECT_GT(r.errors.front().line, 0);
  EXPECT_EQ(only_error(load_testbed_text("", "e.yaml")), "e.yaml:1:1: yaml: empty testbed file");
  EXPECT_EQ(only_error(load_testbed_text("- 1\n- 2\n", "l.yaml")), "l.yaml:1:1: testbed: expected a map of testbed keys");
  EXPECT_EQ(only_error(load_testbed_text("planes: 2\nplanes: 3\n", "d.yaml")), "d.yaml:2:1: planes: duplicate key");
  const auto missing = load_testbed_file("/nonexistent/testbed.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.errors.front().str().rfind("/nonexistent/testbed.yaml: file: cannot read", 0), 0u);
}

TEST(SimYaml, FileOnDisk) {
  const auto dir = std::filesystem::path(MRC_BINARY_DIR) / "sim_yaml_test";
  std::filesystem::create_directories(dir);
  const auto file = dir / "tb.yaml";
  std::ofstream(file) << "preset: mini\nspines: 4\nqueue_bytes: 1k\n";
  const auto r = load_testbed_file(file);
  EXPECT_EQ(only_error(r), file.string() + ":3:14: queue_bytes: expected an integer, got '1k'");
  std::ofstream(file) << "preset: mini\nspines: 4\n";
  const auto ok = load_testbed_file(file);
  ASSERT_TRUE(ok.ok()) << ok.describe();
  EXPECT_EQ(ok.config->spines, 4u);
}

TEST(SimYaml, CaseOverridesUseTheSameKeys) {
  TopologyConfig c = *preset("mini");
  EXPECT_EQ(apply_override(c, "queue_bytes", "262144"), "");
  EXPECT_EQ(c.sw.queue_bytes, 262144u);
  EXPECT_EQ(apply_override(c, "ecn", "off"), "");
  EXPECT_FALSE(c.sw.ecn);
  EXPECT_EQ(apply_override(c, "queue_bytes", "12"), "queue_bytes: 12 is out of range 9216..1073741824");
  EXPECT_EQ(apply_override(c, "colour", "blue"), "colour: unknown key");
  EXPECT_EQ(apply_override(c, "preset", "pod").rfind("preset:", 0), 0u);
  EXPECT_EQ(c.sw.queue_bytes, 262144u);  // failed overrides change nothing
}

}  // namespace
}  // namespace mrc::sim
