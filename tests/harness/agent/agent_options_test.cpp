// mrc-dut-agent's command line and backend selection.
#include <gtest/gtest.h>

#include "harness/agent/agent_options.hpp"
#include "harness/agent/frame_io.hpp"

namespace mrc::agent {
namespace {

std::string parse(std::vector<std::string> args, AgentOptions& o, const char* env = nullptr) {
  return parse_agent_options(args, env, o);
}

TEST(AgentOptions, Defaults) {
  AgentOptions o;
  ASSERT_EQ(parse({"--token", "t", "--ifaces", "p1=veth0"}, o), "");
  EXPECT_EQ(o.listen, "127.0.0.1:7411");  // loopback unless told otherwise
  EXPECT_EQ(o.backend, "reference");
  EXPECT_EQ(o.max_clients, 1);
  EXPECT_EQ(o.hello_timeout.count(), 5000);
}

TEST(AgentOptions, EverythingParses) {
  AgentOptions o;
  ASSERT_EQ(parse({"--listen", "0.0.0.0:7411", "--token", "abc", "--backend", "reference:spray-single-ev",
                   "--ifaces", "p1=a,p2=b", "--max-clients", "4", "--hello-timeout-ms", "100",
                   "--idle-timeout-ms", "2000", "--mac", "02:00:00:00:00:0a", "--gid", "fd00::2",
                   "--ipv4", "10.0.0.2", "--quiet"},
                  o),
            "");
  EXPECT_EQ(o.max_clients, 4);
  EXPECT_EQ(o.idle_timeout.count(), 2000);
  ASSERT_TRUE(o.mac.has_value());
  EXPECT_EQ((*o.mac)[5], 0x0a);
  ASSERT_TRUE(o.gid.has_value());
  EXPECT_EQ((*o.gid)[0], 0xfd);
  EXPECT_EQ((*o.gid)[15], 2);
  EXPECT_EQ(o.ipv4, 0x0A000002u);
  EXPECT_TRUE(o.quiet);
}

TEST(AgentOptions, TokenIsRequiredAndMayComeFromTheEnvironment) {
  AgentOptions o;
  EXPECT_NE(parse({"--ifaces", "p1=a"}, o).find("token is required"), std::string::npos);
  AgentOptions e;
  EXPECT_EQ(parse({"--ifaces", "p1=a"}, e, "from-env"), "");
  EXPECT_EQ(e.token, "from-env");
  AgentOptions l;
  EXPECT_NE(parse({"--ifaces", "p1=a", "--token", std::string(300, 'x')}, l), "");
}

TEST(AgentOptions, BadValuesAreNamed) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bogus"}, "unknown option '--bogus'"},
      {{"--max-clients", "0"}, "--max-clients"},
      {{"--mac", "02:00:00:00:00"}, "--mac"},
      {{"--gid", "not-an-address"}, "--gid"},
      {{"--ipv4", "10.0.0"}, "--ipv4"},
      {{"--hello-timeout-ms", "-5"}, "--hello-timeout-ms"},
      {{"--listen"}, "--listen needs"},
      {{"--token", "t"}, "--ifaces is required"},
  };
  for (const auto& [args, want] : cases) {
    AgentOptions o;
    const std::string e = parse(args, o, "env-token");
    EXPECT_NE(e.find(want), std::string::npos) << "got: " << e;
  }
}

TEST(AgentOptions, IfacesParser) {
  std::string e;
  auto v = parse_ifaces("p1=veth-a1,p8=veth-a8", &e);
  ASSERT_EQ(v.size(), 2u) << e;
  EXPECT_EQ(v[1].port, 8);
  EXPECT_EQ(v[1].ifname, "veth-a8");
  for (const char* bad : {"", "p1", "p0=a", "p33=a", "x1=a", "p1=a,p1=b", "p1=", "p1=a,", "p1=sixteen-chars-xy"}) {
    std::string err;
    EXPECT_TRUE(parse_ifaces(bad, &err).empty()) << bad;
    EXPECT_NE(err, "") << bad;
  }
}

TEST(AgentOptions, BackendSelection) {
  AgentOptions o;
  o.ifaces = "p1=mrcc-no-such-if";
  std::string e;
  o.backend = "vendor";
  EXPECT_EQ(make_backend(o, &e), nullptr);
  EXPECT_NE(e.find("--backend vendor"), std::string::npos) << e;
  EXPECT_NE(e.find("MRC_VENDOR_SDK"), std::string::npos) << e;
  o.backend = "reference:no-such-defect";
  EXPECT_EQ(make_backend(o, &e), nullptr);
  EXPECT_NE(e.find("unknown defect or variant 'no-such-defect'"), std::string::npos) << e;
  o.backend = "simulator";
  EXPECT_EQ(make_backend(o, &e), nullptr);
  EXPECT_NE(e.find("expected reference"), std::string::npos) << e;
  o.backend = "reference";
  EXPECT_EQ(make_backend(o, &e), nullptr);  // the interface does not exist
  EXPECT_NE(e.find("mrcc-no-such-if"), std::string::npos) << e;
}

TEST(AgentOptions, VirtualClockNeedsNoInterfaces) {
  AgentOptions o;
  ASSERT_EQ(parse({"--token", "t", "--clock", "virtual", "--backend", "reference:spray-single-ev"}, o), "");
  EXPECT_TRUE(o.virtual_clock);
  EXPECT_EQ(o.max_clients, 16);  // each connection its own DUT
  std::string e;
  auto b = make_backend(o, &e);
  ASSERT_NE(b, nullptr) << e;
  EXPECT_EQ(b->clock(), agentproto::Clock::kVirtual);
  EXPECT_NE(b->identity().find("spray-single-ev"), std::string::npos);
  AgentOptions two;
  ASSERT_EQ(parse({"--token", "t", "--clock", "virtual", "--max-clients", "2"}, two), "");
  EXPECT_EQ(two.max_clients, 2);
  AgentOptions bad;
  EXPECT_NE(parse({"--token", "t", "--clock", "virtual", "--ifaces", "p1=a"}, bad).find("no interfaces"), std::string::npos);
  EXPECT_NE(parse({"--token", "t", "--clock", "wall"}, bad).find("real or virtual"), std::string::npos);
  AgentOptions real;
  EXPECT_NE(parse({"--token", "t", "--backend", "plugin:/x.so", "--ifaces", "p1=a"}, real).find("needs --clock virtual"),
            std::string::npos);
  AgentOptions missing;
  ASSERT_EQ(parse({"--token", "t", "--clock", "virtual", "--backend", "plugin:/nonexistent/libm.so"}, missing), "");
  EXPECT_EQ(make_backend(missing, &e), nullptr);
  EXPECT_NE(e.find("/nonexistent/libm.so"), std::string::npos) << e;
}

}  // namespace
}  // namespace mrc::agent
