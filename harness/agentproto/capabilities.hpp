// The DUT capability words: what HELLO_OK's `capabilities` and RESTRICT_DEVICE's `caps_off` may
// say, and what a case's `requires` and `config.device.caps_off` name (agent-protocol.md,
// cases/README.md "requires"). One list for the protocol and the case format: the case
// vocabulary (harness/case/vocabulary.hpp) indexes its Capability enum into it, and the agent
// binding refuses an agent that declares a word outside it. Named after the host API's device and
// control-plane capabilities. std only, like the rest of agentproto/.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace mrc::agentproto {

inline constexpr std::array<std::string_view, 15> kCapabilityNames{
    "trim_nack", "dynamic_mpr", "svc_time", "ev_probe", "port_status", "srv6", "stev", "udp_mode",
    "modify_online", "cc_modify_online", "explicit_range", "precise_drop_count", "ev_generated",
    "ev_auto", "ipv4"};

constexpr bool known_capability(std::string_view word) {
  return std::find(kCapabilityNames.begin(), kCapabilityNames.end(), word) != kCapabilityNames.end();
}

}  // namespace mrc::agentproto
