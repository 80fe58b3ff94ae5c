// Lab testbed files: what a lab writes by hand, read with errors that name file, line and key.
#include "harness/testbed/wire/lab_testbed.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace mrc::harness::wire {
namespace {

namespace fs = std::filesystem;

class LabFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/mrc-lab-test-XXXXXX";
    dir_ = mkdtemp(t);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& text) {
    const fs::path p = dir_ / "lab.yaml";
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(LabFile, ReadsEveryKeyAndSortsPortsByNumber) {
  const fs::path p = write(
      "lab:\n  fabric: rack\n  timing_budget_us: 300\n  rate_gbps: 2.5\n  ports: {p2: eth2, p1: eth1}\n"
      "  peer_ports: {p1: eth5}\n  fabric_priority: 10\n  fabric_spin_us: 20\n");
  ASSERT_TRUE(looks_like_lab_file(p));
  std::string why;
  const auto lab = load_lab_testbed(p, &why);
  ASSERT_TRUE(lab.has_value()) << why;
  EXPECT_EQ(lab->fabric, "rack");
  EXPECT_EQ(lab->budget_ns, std::optional<std::uint64_t>(300'000));
  EXPECT_EQ(lab->rate_gbps, std::optional<double>(2.5));
  EXPECT_EQ(lab->fabric_priority, 10);
  EXPECT_EQ(lab->fabric_spin_ns, 20'000u);
  ASSERT_EQ(lab->ports.size(), 2u);
  EXPECT_EQ(lab->ports[0].port, 1);
  EXPECT_EQ(lab->ports[0].ifname, "eth1");
  ASSERT_EQ(lab->peer_ports.size(), 1u);
  EXPECT_EQ(lab->peer_ports[0].ifname, "eth5");
}

TEST_F(LabFile, PeerPortsAreOptional) {
  std::string why;
  const auto lab = load_lab_testbed(write("lab:\n  ports: {p1: eth1}\n"), &why);
  ASSERT_TRUE(lab.has_value()) << why;
  EXPECT_TRUE(lab->peer_ports.empty());
  EXPECT_EQ(lab->fabric, "mini");
  EXPECT_EQ(lab->fabric_priority, 0);  // the fabric thread's default scheduling, asleep while it waits
  EXPECT_EQ(lab->fabric_spin_ns, 0u);
}

TEST_F(LabFile, ErrorsNameFileLineAndKey) {
  struct Bad {
    std::string text;
    std::string says;
  };
  for (const Bad& b : {
           Bad{"lab:\n  ports: {p1: eth1}\n  colour: red\n", ":3:3: lab.colour: unknown key"},
           Bad{"lab:\n  ports: {p1: eth1}\n  peer_ports: {p0: eth2}\n", ":3:16: lab.peer_ports.p0: a port is p1 .. p32"},
           Bad{"lab:\n  ports: {p1: eth1, p1: eth2}\n", "lab.ports.p1: port given twice"},
           Bad{"lab:\n  ports: {p1: a-name-longer-than-ifnamsiz}\n", "lab.ports.p1: expected an interface name"},
           Bad{"lab:\n  ports: []\n", ":2:3: lab.ports: expected a map p1: IFNAME"},
           Bad{"lab:\n  fabric: mini\n", "lab.ports: missing"},
           Bad{"lab:\n  ports: {p1: eth1}\n  timing_budget_us: lots\n", "lab.timing_budget_us: expected microseconds"},
           Bad{"lab:\n  ports: {p1: eth1}\n  fabric_priority: 100\n", ":3:3: lab.fabric_priority: expected a SCHED_FIFO priority"},
           Bad{"lab:\n  ports: {p1: eth1}\n  fabric_spin_us: -1\n", ":3:3: lab.fabric_spin_us: expected microseconds, 0 .. 1000"},
       }) {
    std::string why;
    EXPECT_FALSE(load_lab_testbed(write(b.text), &why).has_value()) << b.text;
    EXPECT_NE(why.find(b.says), std::string::npos) << why;
    EXPECT_NE(why.find("lab.yaml"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace mrc::harness::wire
