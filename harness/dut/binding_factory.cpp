#include "harness/dut/binding_factory.hpp"

#include <charconv>

#include "harness/dut/agent_binding.hpp"
#include "harness/dut/plugin_binding.hpp"
#include "harness/dut/reference_adapter.hpp"
#include "harness/dut/reference_binding.hpp"
#include "reference/defects.hpp"
#include "reference/variants.hpp"

namespace mrc::harness {
namespace {

constexpr std::string_view kAgentPrefix = "agent:";
constexpr std::string_view kPluginPrefix = "plugin:";

std::string binding_help() {
  std::string m =
      "valid DUT bindings: reference, reference-random (= reference:random-ev), "
      "reference[-random]:<name>[,<name>...] with defect and variant names, agent:HOST:PORT (agent:[IPV6]:PORT), "
      "plugin:PATH[:ARGS] (a model's shared library, harness/dut/plugin/mrc_dut_plugin.h); "
      "defects:";
  for (const auto& d : ref::defect_catalog()) {
    m += ' ';
    m += d.name;
  }
  m += "; conformant variants (at most one per choice):";
  for (const auto& v : ref::variant_catalog()) {
    m += ' ';
    m += v.name;
  }
  return m;
}

std::unique_ptr<DutBinding> fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return nullptr;
}

// `agent:HOST:PORT` or `agent:[IPV6]:PORT`.
std::unique_ptr<DutBinding> make_agent_binding(const std::string& spec, std::string* error, const BindingOptions& opt) {
  const std::string_view addr = std::string_view(spec).substr(kAgentPrefix.size());
  std::string_view host;
  std::string_view port_text;
  if (!addr.empty() && addr.front() == '[') {
    const auto close = addr.find(']');
    if (close == std::string_view::npos || close + 1 >= addr.size() || addr[close + 1] != ':') {
      return fail(error, opt.option + " " + spec + ": expected agent:[IPV6]:PORT");
    }
    host = addr.substr(1, close - 1);
    port_text = addr.substr(close + 2);
  } else {
    // agent:reference[:names] is the agent the run starts itself on --testbed netns (which
    // rewrites it to the address of that agent); anywhere else it names no agent to reach.
    if (addr == "reference" || addr.starts_with("reference:") || addr.starts_with("reference-random")) {
      return fail(error, opt.option + " " + spec + ": agent:reference is the agent the run starts itself beside a veth "
                         "pair, which needs --testbed netns (the simulated fabric's DUT is --dut reference; an agent "
                         "you started is agent:HOST:PORT)");
    }
    const auto colon = addr.rfind(':');
    if (colon == std::string_view::npos) return fail(error, opt.option + " " + spec + ": expected agent:HOST:PORT");
    host = addr.substr(0, colon);
    port_text = addr.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return fail(error, opt.option + " " + spec + ": an IPv6 host goes in brackets, agent:[IPV6]:PORT");
    }
  }
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (host.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 || port > 65535) {
    return fail(error, opt.option + " " + spec + ": expected agent:HOST:PORT with a port 1..65535");
  }
  if (opt.agent_token.empty()) {
    return fail(error, opt.option + " " + spec + " needs the agent's token: --agent-token-file FILE or $MRC_AGENT_TOKEN");
  }
  auto b = std::make_unique<AgentBinding>(std::string(host), static_cast<std::uint16_t>(port), opt.agent_token,
                                          opt.agent_timeouts, opt.agent_clock);
  b->set_wire(opt.agent_wire);
  return b;
}

}  // namespace

std::unique_ptr<DutBinding> make_binding(const std::string& spec, std::string* error, const BindingOptions& opt) {
  if (spec.starts_with(kAgentPrefix)) return make_agent_binding(spec, error, opt);
  if (spec.starts_with(kPluginPrefix)) {
    // The library is not opened here: the binding loads it at its first call, in the case's
    // child process when the run is isolated.
    std::string why;
    std::optional<PluginSpec> ps = parse_plugin_spec(spec, &why);
    if (!ps) return fail(error, opt.option + " " + why);
    return std::make_unique<PluginBinding>(std::move(*ps));
  }
  if (!in_process_binding(spec)) {
    return fail(error, "unknown DUT binding '" + spec.substr(0, spec.find(':')) + "' in " + opt.option + " " + spec + "; " +
                           binding_help());
  }
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  ReferencePolicy policy;
  if (colon != std::string::npos) {
    std::string why;
    const auto parsed = parse_reference_policy(std::string_view(spec).substr(colon + 1), &why);
    if (!parsed) return fail(error, why + " in " + opt.option + " " + spec + "; " + binding_help());
    policy = *parsed;
  }
  // `reference-random` is the older spelling of `reference:random-ev`.
  if (kind == "reference-random" && !policy.variants.add(ref::Variant::kRandomEv)) {
    return fail(error, "reference-random already chooses EVs at random; drop the other spray variant in " + opt.option + " " + spec);
  }
  auto b = std::make_unique<ReferenceBinding>(policy);
  return b;
}

bool in_process_binding(const std::string& spec) {
  const std::string_view kind = std::string_view(spec).substr(0, spec.find(':'));
  return kind == "reference" || kind == "reference-random";
}

std::string spec_with_names(const std::string& base, std::string_view names) {
  bool has_args = false;
  if (base.starts_with(kPluginPrefix)) {
    const std::optional<PluginSpec> ps = parse_plugin_spec(base, nullptr);
    has_args = ps && !ps->args.empty();
  } else {
    has_args = base.find(':') != std::string::npos;
  }
  return base + (has_args ? "," : ":") + std::string(names);
}

bool valid_binding_spec(const std::string& spec, std::string* error, const BindingOptions& opt) {
  return make_binding(spec, error, opt) != nullptr;
}

}  // namespace mrc::harness
