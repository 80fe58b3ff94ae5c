// The reference adapter turns a DutSetup into the endpoint's configuration: the case's DSCP
// values (W13) reach EndpointConfig::dscp, for the in-process binding, the plugin and the agent's
// reference backend alike (they all read it through reference_endpoint_config).
#include <gtest/gtest.h>

#include "harness/dut/reference_adapter.hpp"
#include "reference/endpoint.hpp"

namespace mrc::harness {
namespace {

TEST(ReferenceAdapter, DscpValuesReachTheEndpointConfig) {
  DutSetup s;
  s.dscp = ap::DscpValues{20, 22, 18, 21, 23, 40};
  const ref::EndpointConfig c = reference_endpoint_config(ReferenceHost{}, ReferencePolicy{}, s, DeviceRestriction{});
  EXPECT_EQ(c.dscp.trimmable, 20u);
  EXPECT_EQ(c.dscp.trimmable_retx, 22u);
  EXPECT_EQ(c.dscp.no_trim, 18u);
  EXPECT_EQ(c.dscp.trimmed, 21u);
  EXPECT_EQ(c.dscp.trimmed_lasthop, 23u);
  EXPECT_EQ(c.dscp.control, 40u);
}

// The protocol's defaults (agentproto is std-only and cannot name the reference's) are W13's.
TEST(ReferenceAdapter, ProtocolDscpDefaultsAreTheReferences) {
  const wire::DscpConfig w = wire_dscp(ap::DscpValues{});
  const wire::DscpConfig d;
  EXPECT_EQ(w.trimmable, d.trimmable);
  EXPECT_EQ(w.trimmable_retx, d.trimmable_retx);
  EXPECT_EQ(w.no_trim, d.no_trim);
  EXPECT_EQ(w.trimmed, d.trimmed);
  EXPECT_EQ(w.trimmed_lasthop, d.trimmed_lasthop);
  EXPECT_EQ(w.control, d.control);
  EXPECT_EQ(dscp_values(d), ap::DscpValues{});
}

}  // namespace
}  // namespace mrc::harness
