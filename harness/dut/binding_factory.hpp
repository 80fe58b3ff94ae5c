// Bindings by their command-line spelling (`--dut`, and `--peer` / `--impls` for the harness's side):
//   reference | reference-random | reference[-random]:<defect>[,<defect>...]   (reference_binding.hpp)
//   agent:HOST:PORT | agent:[IPV6]:PORT                                         (agent_binding.hpp)
//   plugin:PATH | plugin:PATH:ARGS                                              (plugin_binding.hpp)
// Making a binding opens no connection: the agent binding connects at its first call, so a spec
// can be checked (valid_binding_spec) without touching the network.
#pragma once

#include <memory>
#include <string>

#include "harness/dut/agent_binding.hpp"
#include "harness/dut/agent_client.hpp"
#include "harness/dut/dut_binding.hpp"

namespace mrc::harness {

// What a spec cannot carry.
struct BindingOptions {
  std::string agent_token;  // the agent's shared token (--agent-token-file or $MRC_AGENT_TOKEN)
  AgentTimeouts agent_timeouts;
  AgentWire agent_wire;     // how an agent's ports reach the testbed (--testbed netns, a lab file)
  // The option the spec came from, named in error messages (--dut, --peer, --impls).
  std::string option = "--dut";
  // --clock: what an agent's clock must be (auto: what its HELLO_OK says; agent-protocol.md §9).
  AgentClock agent_clock = AgentClock::kAuto;
};

// On a bad spelling returns null and sets *error to a message that lists the valid binding and
// defect names (or says what is wrong with an agent address or its token).
std::unique_ptr<DutBinding> make_binding(const std::string& spec, std::string* error, const BindingOptions& opt = {});
// `base` (a spelling of the reference, or plugin:PATH[:ARGS] serving the reference's catalog by
// name in its ARGS, as the reference plugin does) with defect or variant `names` added to its
// arguments: reference + a = reference:a, reference:v + a = reference:v,a, plugin:P + a = plugin:P:a,
// plugin:P:v + a = plugin:P:v,a. The campaign and `variants` run catalog entries through it.
std::string spec_with_names(const std::string& base, std::string_view names);

// True when `spec` parses (same message as make_binding()).
bool valid_binding_spec(const std::string& spec, std::string* error, const BindingOptions& opt = {});

// True for the spellings of the in-process reference (reference, reference-random, with or
// without defects), whatever follows the colon: the bindings that run inside mrc-conform itself.
// Anything else is an external binding, which `run` isolates in a child process by default.
bool in_process_binding(const std::string& spec);

}  // namespace mrc::harness
