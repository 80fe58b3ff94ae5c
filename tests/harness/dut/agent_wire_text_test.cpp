// agent_wire_text: an AgentWire survives the trip to a case child; anything else is refused by key.
#include "harness/dut/agent_wire_text.hpp"

#include <gtest/gtest.h>

namespace mrc::harness {
namespace {

AgentWire sample() {
  AgentWire w;
  w.netns = "mrcc-123-0";
  w.ports = {{1, "mrcc-2n-00h1"}, {2, "odd;name,x:y=%"}};
  w.bridge.budget = Testbed::TimingBudget{200'000, "real-time bridge (--testbed lab;1.yaml)"};
  w.bridge.rate_bps = 1'000'000'000;
  w.bridge.rtt_ns = 50'000;
  return w;
}

TEST(AgentWireText, RoundTripsEveryFieldIncludingSeparatorsInNames) {
  const AgentWire w = sample();
  std::string why;
  const auto back = decode_agent_wire(encode_agent_wire(w), &why);
  ASSERT_TRUE(back.has_value()) << why;
  EXPECT_EQ(back->netns, w.netns);
  ASSERT_EQ(back->ports.size(), 2u);
  EXPECT_EQ(back->ports[1].port, 2);
  EXPECT_EQ(back->ports[1].ifname, "odd;name,x:y=%");
  EXPECT_EQ(back->bridge.budget, w.bridge.budget);
  EXPECT_EQ(back->bridge.rate_bps, w.bridge.rate_bps);
  EXPECT_EQ(back->bridge.rtt_ns, w.bridge.rtt_ns);
}

TEST(AgentWireText, AnEmptyNamespaceAndNoPortsRoundTrip) {
  AgentWire w;  // a lab testbed's agent: no namespace
  std::string why;
  const auto back = decode_agent_wire(encode_agent_wire(w), &why);
  ASSERT_TRUE(back.has_value()) << why;
  EXPECT_EQ(back->netns, "");
  EXPECT_TRUE(back->ports.empty());
}

TEST(AgentWireText, MalformedTextNamesTheKey) {
  const std::string good = encode_agent_wire(sample());
  struct Bad {
    std::string text;
    std::string says;
  };
  for (const Bad& b : {Bad{"", "not KEY=VALUE"}, Bad{"colour=red;" + good, "unknown key 'colour'"},
                       Bad{"netns=a;" + good, "netns given twice"}, Bad{"netns=a", "every key must be given"},
                       Bad{good + ";x", "'x' is not KEY=VALUE"}}) {
    std::string why;
    EXPECT_FALSE(decode_agent_wire(b.text, &why).has_value()) << b.text;
    EXPECT_NE(why.find(b.says), std::string::npos) << why;
  }
  std::string text = good;
  text.replace(text.find("budget_ns=200000"), 16, "budget_ns=2e5");
  std::string why;
  EXPECT_FALSE(decode_agent_wire(text, &why).has_value());
  EXPECT_NE(why.find("budget_ns: '2e5' is not a whole number"), std::string::npos) << why;
  text = good;
  text.replace(text.find("ports=1:"), 8, "ports=0:");
  EXPECT_FALSE(decode_agent_wire(text, &why).has_value());
  EXPECT_NE(why.find("is not PORT:IFNAME"), std::string::npos) << why;
}

}  // namespace
}  // namespace mrc::harness
