// An AgentWire as one line of text, so a case child (`run --isolate`) makes the same agent binding
// on the same wire as its parent: `--dut-wire` / `--peer-wire` of the hidden case-child command.
//
//   netns=NAME;ports=1:IF,2:IF;budget_ns=N;rate_bps=N;rtt_ns=N;budget_source=TEXT
//
// Values are percent-escaped where they could hold a separator (%, ;, ,, :, =), so any interface
// name or namespace survives the trip; budget_source is free text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "harness/dut/agent_binding.hpp"

namespace mrc::harness {

std::string encode_agent_wire(const AgentWire& w);
// nullopt and *error (the key and what is wrong with it) for text encode_agent_wire did not write.
std::optional<AgentWire> decode_agent_wire(std::string_view text, std::string* error);

}  // namespace mrc::harness
