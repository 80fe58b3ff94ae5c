// DutSetup / DutLocal <-> the DUT-agent protocol's APPLY_CONFIG / PeerInfo. The agent's reference
// backend reads a request into a DutSetup for the reference adapter; the agent binding writes one
// from the runner's DutSetup. Field for field: the two vocabularies are the same by design
// (dut_setup.hpp), so what one side says the other applies unchanged.
#pragma once

#include "harness/agentproto/messages.hpp"
#include "harness/dut/dut_setup.hpp"

namespace mrc::harness {

// The setup's single buffer becomes region 0; no peer (CONNECT names it).
ap::ApplyConfig to_apply_config(const DutSetup& s);
// Region 0 becomes the buffer (further regions are the agent's to register).
DutSetup to_dut_setup(const ap::ApplyConfig& c);

ap::PeerInfo to_peer_info(const DutLocal& l);
DutLocal to_dut_local(const ap::PeerInfo& p);
// The agent's side of the exchange; region 0 is the setup's buffer.
DutLocal to_dut_local(const ap::ApplyOk& a);

}  // namespace mrc::harness
